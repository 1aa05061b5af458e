-- The nodes of `kt2sql graph`: every path a command read or wrote, with
-- its role (without --commands), then every command; the filters of
-- graph_edges.sql keep the same paths. `kt2sql graph` draws only the
-- commands with an edge: it writes the edges when the first command
-- comes.
--
-- @param  trace     Only this trace_id (default: every trace).
-- @param  pid       Only the commands of the processes of this pid and
--                   their descendants, and the paths they read or wrote,
--                   with their roles in the subtree taken as the build
--                   (default: the whole build).
-- @param  commands  1: commands only (`graph --commands`); else files too.
-- @param  under     Only paths in this directory tree (`graph --under`).
-- @param  exclude   Leave out the paths in these directory trees, a JSON
--                   array (`graph --exclude`).
-- @param  system    The system directories as a JSON array: their paths
--                   are left out, unless in the directory the trace
--                   started in; NULL keeps them (`graph --system`).
-- @column node      Graphviz node id: `c<command_id>`, or
--                   `f<trace_id>_<path_id>` for a file.
-- @column kind      `command` or `file`.
-- @column label     `comm [pid]` for a command, the path for a file.
-- @column role      The file's build_file.role (with $pid, in the
--                   subtree); NULL for a command.
WITH
-- block: path_filter
-- The path filters: dropped, the device and pseudo files (_device_path),
-- the paths under an $exclude directory and (unless $system is NULL) a
-- system one outside the start directory; kept, the paths under $under.
dirs (dir, system) AS (
  SELECT rtrim(value, '/'), 0 FROM json_each($exclude)
  UNION ALL
  SELECT rtrim(value, '/'), 1 FROM json_each($system)
),
dropped (path_id) AS MATERIALIZED (
  SELECT pa.path_id
  FROM dirs AS d
  JOIN path AS pa ON pa.path = d.dir OR (pa.path >= d.dir || '/' AND pa.path < d.dir || '0')
  WHERE d.system = 0
     OR NOT EXISTS (SELECT 1 FROM trace AS t
                    WHERE ($trace IS NULL OR t.trace_id = $trace)
                      AND (pa.path = rtrim(t.start_cwd, '/')
                           OR substr(pa.path, 1, length(rtrim(t.start_cwd, '/')) + 1)
                              = rtrim(t.start_cwd, '/') || '/'))
  UNION
  SELECT path_id FROM _device_path
),
kept (path_id) AS MATERIALIZED (
  SELECT path_id FROM path
  WHERE path = rtrim($under, '/')
     OR (path >= rtrim($under, '/') || '/' AND path < rtrim($under, '/') || '0')
),
-- end block: path_filter
member (process_id) AS MATERIALIZED (
  SELECT process_id FROM _scope
  -- block: scope
  WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
  -- end block: scope
), image (exec_id, process_id, comm) AS (
  -- The commands: without $pid every one, with it the subtree's through
  -- the index exec_process. The branch whose $pid test fails is skipped
  -- before it reads a row.
  SELECT e.exec_id, e.process_id, e.comm FROM exec AS e
  WHERE $pid IS NULL AND e.success = 1
  UNION ALL
  SELECT e.exec_id, e.process_id, e.comm FROM exec AS e
  WHERE $pid IS NOT NULL AND e.process_id IN (SELECT process_id FROM member) AND e.success = 1
),
-- block: scoped_access
-- The successful reads and writes: without $pid one pass over the
-- lookups, with it the subtree's own (member's) through the index
-- namei_process, in proportion to the subtree. The branch whose $pid
-- test fails is skipped before it reads a row.
-- (The access kind needs only the lookup, so it drops the others before their call is read.)
access (trace_id, path_id, command_id, effect) AS (
  SELECT trace_id, path_id, command_id, effect FROM build_access
  WHERE $pid IS NULL AND access IN (SELECT access FROM _access_class WHERE effect IN ('read', 'write'))
    AND effect IN ('read', 'write') AND ($trace IS NULL OR trace_id = $trace)
  UNION ALL
  SELECT trace_id, path_id, command_id, effect FROM build_access
  WHERE $pid IS NOT NULL AND process_id IN (SELECT process_id FROM member)
    AND access IN (SELECT access FROM _access_class WHERE effect IN ('read', 'write'))
    AND effect IN ('read', 'write')
),
-- end block: scoped_access
role (trace_id, path_id, role) AS (
  -- The roles of the paths changed (_scope_changed_file): of the whole
  -- build, or with $pid of the subtree taken as the build, from its own
  -- lookups.
  SELECT trace_id, path_id, role FROM _scope_changed_file
  -- block: scope
  WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
  -- end block: scope
)
SELECT 'c' || e.exec_id AS node, 'command' AS kind,
       CAST(e.comm AS BLOB) || CAST(' [' || p.pid || ']' AS BLOB) AS label, NULL AS role
FROM image AS e
JOIN process AS p USING (process_id)
WHERE ($trace IS NULL OR p.trace_id = $trace)
UNION ALL
-- A path read or written that the build (the subtree) did not change was
-- read: build_file's role `source`. DISTINCT, not GROUP BY: the few paths
-- go into a small b-tree as the lookups come, instead of every lookup
-- being sorted first.
SELECT 'f' || t.trace_id || '_' || t.path_id, 'file', pa.path, COALESCE(cf.role, 'source')
FROM (SELECT DISTINCT trace_id, path_id FROM access
      WHERE path_id NOT IN (SELECT path_id FROM dropped)
        AND ($under IS NULL OR path_id IN (SELECT path_id FROM kept))) AS t
JOIN path AS pa USING (path_id)
LEFT JOIN role AS cf ON cf.trace_id = t.trace_id AND cf.path_id = t.path_id
WHERE $commands IS DISTINCT FROM 1
ORDER BY 2 DESC, 1;
