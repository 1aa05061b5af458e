-- The edges of `kt2sql graph`: without --commands, command -> path for
-- every (command, path) it wrote and path -> command for every one it
-- read; with --commands, producer -> consumer per command pair, counting
-- the paths that flowed (build_flow). Only the paths the filters keep:
-- under $under, not under an $exclude directory, and (unless $system is
-- NULL) not a system file: in a $system directory, and not in the
-- directory the trace started in. A path's directory range is read from
-- the path index (`/usr/include/` up to `/usr/include0`), not tested
-- path by path.
--
-- @param  trace     Only this trace_id (default: every trace).
-- @param  pid       Only the edges of the commands of the processes of
--                   this pid and their descendants (the flows of the
--                   subtree taken as the build); default: the whole build.
-- @param  commands  1: command -> command edges (`graph --commands`).
-- @param  under     Only paths in this directory tree (`graph --under`).
-- @param  exclude   Leave out the paths in these directory trees, a JSON
--                   array (`graph --exclude`).
-- @param  system    The system directories as a JSON array: their paths
--                   are left out, unless in the directory the trace
--                   started in; NULL keeps them (`graph --system`).
-- @column source    The node the edge leaves (graph_nodes.sql's `node`).
-- @column target    The node it enters.
-- @column kind      `write`, `read` or `flow`.
-- @column paths     For a flow, how many paths it carried; else NULL.
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
flow (trace_id, path_id, producer_id, consumer_id) AS (
  -- The flows: of the whole build (build_flow), or with $pid of the
  -- subtree taken as the build, from its own lookups (_scope_flow, the
  -- same rule). The branch whose $pid test fails is skipped.
  SELECT trace_id, path_id, producer_id, consumer_id FROM build_flow
  WHERE $pid IS NULL AND ($trace IS NULL OR trace_id = $trace)
  UNION ALL
  SELECT trace_id, path_id, producer_id, consumer_id
  FROM _scope_flow
  -- block: scope
  WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
  -- end block: scope
    AND $pid IS NOT NULL
)
SELECT CASE effect WHEN 'write' THEN 'c' || command_id
                   ELSE 'f' || trace_id || '_' || path_id END AS source,
       CASE effect WHEN 'write' THEN 'f' || trace_id || '_' || path_id
                   ELSE 'c' || command_id END AS target,
       effect AS kind, NULL AS paths
-- DISTINCT rather than GROUP BY: one b-tree of the pairs as they come,
-- not a sort of every lookup before the sort by text ids.
FROM (SELECT DISTINCT trace_id, path_id, command_id, effect FROM access
      WHERE path_id NOT IN (SELECT path_id FROM dropped)
        AND ($under IS NULL OR path_id IN (SELECT path_id FROM kept)))
WHERE $commands IS DISTINCT FROM 1
UNION ALL
SELECT 'c' || producer_id, 'c' || consumer_id, 'flow', count(*)
FROM flow
WHERE $commands IS NOT DISTINCT FROM 1
  AND path_id NOT IN (SELECT path_id FROM dropped) AND ($under IS NULL OR path_id IN (SELECT path_id FROM kept))
GROUP BY trace_id, producer_id, consumer_id
ORDER BY 3, 1, 2;
