-- Build hazards (build_hazard), each with the two commands and the times
-- that show it: `double-write` (commands of two lifetimes wrote the path:
-- one row per writer after the first, each with the first writer, so
-- every writer is listed), `race` (reader and a concurrent writer),
-- `used-then-changed` (reader, and the later writer) and
-- `ghost-later-created` (the command whose lookup failed, and the one
-- that created the path later); then, only with $allow, `read-outside`:
-- every path the build read outside the allowed directories, with the
-- command that read it first. The tracer (the image of a root process
-- whose first record is the RET of its own ktrace call: ktrace before it
-- execs the build) is no reader: what it reads is the command it was
-- given. With $pid, only the hazards a command of that subtree is in (as
-- either command), and the paths the subtree itself read outside.
--
-- A row is one hazard: a kind, a path and the two commands in it (for
-- `read-outside`, one). Left out unless asked for ($all keeps them all),
-- the paths in one place (the `left_out` step): device and pseudo files
-- (in `/dev`, `/proc`, `/sys`: _device_path; $devices keeps them); a job's own
-- temporaries ($temporaries): a path whose first successful lookup
-- created it and whose last change removed it, every lookup of which was
-- made in the subtree of one process (the job: the lowest process whose
-- subtree made them all) that never ran make (one of $makes), as a
-- configure script's probes (`conftest.c` written by the shell, compiled
-- into `conftest`, run, removed); two recipes of one make sharing a
-- temporary stay hazards, their job is make; makefiles ($makefiles): the
-- files a make read that the build wrote, its makefiles and what they
-- include (automake's `.deps/*.Po`), which recipes rewrite for make's
-- next run. Then only
-- the paths in $under and not in an $exclude directory. And two rules
-- refined ($all undoes them): a `ghost-later-created` whose command
-- tried to remove the path (`rm -f`) is none, and a `double-write`,
-- `used-then-changed` or `ghost-later-created` by two children of one
-- process that is not make,
-- the second started after the first ended (a script's successive
-- commands), is in the order that process gave them, and none.
--
-- @param  trace         Only this trace_id (default: every trace).
-- @param  pid           Only the processes of this pid and their
--                       descendants (default: the whole build).
-- @param  allow         The allowed directories as a JSON array (`lint
--                       --allow`); default: no `read-outside` check.
-- @param  kinds         Only these kinds, as a JSON array (`lint --kind`);
--                       default: every kind.
-- @param  under         Only the hazards of paths in this directory tree
--                       (`lint --under`); default: every path.
-- @param  exclude       Leave out the hazards of paths in these directory
--                       trees, a JSON array (`lint --exclude`).
-- @param  devices       1: keep the hazards of device and pseudo files
--                       (`lint --devices`); default: $all, else left out.
-- @param  temporaries   1: keep the hazards of a job's own temporaries
--                       (`lint --temporaries`); default: $all, else left
--                       out.
-- @param  makefiles     1: keep the hazards of makefiles (`lint
--                       --makefiles`); default: $all, else left out.
-- @param  all           1: every hazard of the rules, nothing left out and
--                       no rule refined (`lint --all`); default: 0.
-- @param  makes         The programs that run recipes (make), as a JSON
--                       array of paths: a job that ran one does not own
--                       its temporaries, and the changed files one read
--                       are makefiles (`lint` passes those of the
--                       build); default: none.
-- @column kind          `double-write`, `race`, `used-then-changed`,
--                       `ghost-later-created` or `read-outside`.
-- @column path          The path (TEXT, or BLOB when not UTF-8).
-- @column pid           OS pid of the first command: the first writer, the
--                       reader, the command whose lookup failed, or (for
--                       `read-outside`) the first that read the path.
-- @column comm          Its command name.
-- @column elapsed       Seconds from the trace's first record to the first
--                       command's access (ts).
-- @column other_pid     OS pid of the other command: a later writer, the
--                       writer, or the creator; NULL for `read-outside`.
-- @column other_comm    Its command name.
-- @column other_elapsed Seconds from the trace's first record to other_ts.
-- @column command_id    The first command (command.command_id).
-- @column other_id      The other command; NULL for `read-outside`.
-- @column ts            Time (ns) of the first command's first write, read
--                       or failed lookup of the path.
-- @column other_ts      Time (ns) of the other command's (first) write or
--                       create that makes the hazard.
-- @column rel_path      The path relative to the directory the trace
--                       started in (-d at import) when in it, else the
--                       path: with kind, comm and other_comm what
--                       `lint --baseline` matches.
WITH kinds (kind) AS (
  SELECT value FROM json_each(COALESCE($kinds,
    '["double-write","race","used-then-changed","ghost-later-created","read-outside"]'))
), member (process_id) AS MATERIALIZED (
  SELECT process_id FROM _scope
  -- block: scope
  WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
  -- end block: scope
), allowed (trace_id, dir) AS (
  SELECT t.trace_id, rtrim(j.value, '/') FROM trace AS t, json_each($allow) AS j
  WHERE $allow IS NOT NULL AND 'read-outside' IN (SELECT kind FROM kinds)
), tracer (exec_id) AS (
  -- The image 0 of a root process whose ktrace call has no CALL record.
  SELECT e.exec_id
  FROM process AS p
  JOIN exec AS e ON e.process_id = p.process_id AND e.seq = 0
  WHERE p.parent_id IS NULL AND 'read-outside' IN (SELECT kind FROM kinds) AND $allow IS NOT NULL
    AND EXISTS (SELECT 1 FROM call AS c WHERE c.process_id = p.process_id
                AND c.syscall = 'ktrace' AND c.ts IS NULL)
), reads AS (
  -- The reads the read-outside check looks at: none without $allow (the
  -- branch whose test on the parameters fails is skipped before it reads
  -- a row); without $pid one pass over the lookups, with it the
  -- subtree's own through the index namei_process.
  -- (The access kind needs only the lookup, so it drops the others before their call is read.)
  SELECT trace_id, path_id, command_id, ts, "offset" FROM build_access
  WHERE $allow IS NOT NULL AND $pid IS NULL
    AND access IN (SELECT access FROM _access_class WHERE effect = 'read') AND effect = 'read'
    AND ($trace IS NULL OR trace_id = $trace)
  UNION ALL
  SELECT trace_id, path_id, command_id, ts, "offset" FROM build_access
  WHERE $allow IS NOT NULL AND $pid IS NOT NULL AND process_id IN (SELECT process_id FROM member)
    AND access IN (SELECT access FROM _access_class WHERE effect = 'read') AND effect = 'read'
), first AS (
  -- Each path's first read, the tracer's left out.
  SELECT trace_id, path_id, command_id, ts, "offset"
  FROM (SELECT trace_id, path_id, command_id, ts, "offset",
               row_number() OVER (PARTITION BY trace_id, path_id ORDER BY "offset") AS n
        FROM reads
        WHERE EXISTS (SELECT 1 FROM allowed) AND command_id NOT IN (SELECT exec_id FROM tracer))
  WHERE n = 1
), outside AS (
  SELECT f.trace_id, f.path_id, f.command_id, f.ts, pa.path
  FROM first AS f
  JOIN path AS pa USING (path_id)
  WHERE EXISTS (SELECT 1 FROM allowed AS d WHERE d.trace_id = f.trace_id)
    AND NOT EXISTS (SELECT 1 FROM allowed AS d
                    WHERE d.trace_id = f.trace_id
                      AND (pa.path = d.dir OR d.dir = ''
                           OR substr(pa.path, 1, length(d.dir) + 1) = d.dir || '/'))
), found AS MATERIALIZED (
  SELECT trace_id, kind, path_id, path, command_id, other_id, ts, other_ts, commands
  FROM build_hazard AS z
  WHERE kind IN (SELECT kind FROM kinds)
    AND ($trace IS NULL OR trace_id = $trace)
    AND ($pid IS NULL OR EXISTS (
          SELECT 1 FROM exec AS x
          WHERE x.exec_id IN (z.command_id, z.other_id) AND x.process_id IN (SELECT process_id FROM member)))
), hp (trace_id, path_id, path) AS MATERIALIZED (
  -- The paths of the hazards found.
  SELECT trace_id, path_id, path FROM found
  UNION
  SELECT trace_id, path_id, path FROM outside
), acc AS MATERIALIZED (
  -- Every lookup of those paths, each with its process's place in the
  -- tree (a subtree is a range of pos): only when the temporaries or the
  -- makefiles are left out, each path's through the index namei_resolved.
  -- (main.tree_node: `lint -p` puts a part of it in the temporary schema.)
  SELECT a.trace_id, a.path_id, a.command_id, a.access, a.success, a.effect, a."offset", n.pos
  FROM hp AS h
  CROSS JOIN build_access AS a
  JOIN main.tree_node AS n ON n.process_id = a.process_id AND n.image = 0
  WHERE (COALESCE($temporaries, $all, 0) = 0 OR COALESCE($makefiles, $all, 0) = 0)
    AND a.path_id = h.path_id AND a.trace_id = h.trace_id
), span AS MATERIALIZED (
  -- Per path: the range of tree positions its lookups' processes span,
  -- its first successful lookup and its last change.
  SELECT trace_id, path_id, min(pos) AS lo, max(pos) AS hi,
         (SELECT f.access FROM acc AS f WHERE f.trace_id = g.trace_id
          AND f.path_id = g.path_id AND f.success = 1 ORDER BY f."offset" LIMIT 1) AS first_access,
         (SELECT l.effect FROM acc AS l WHERE l.trace_id = g.trace_id
          AND l.path_id = g.path_id AND l.effect IN ('write', 'remove')
          ORDER BY l."offset" DESC LIMIT 1) AS last_change
  FROM acc AS g
  GROUP BY trace_id, path_id
), job AS MATERIALIZED (
  -- The temporaries among them, each with its job: the lowest process
  -- whose subtree holds every one of its lookups (the nearest image 0
  -- before the range that covers it).
  SELECT s.trace_id, s.path_id,
         (SELECT j.process_id FROM main.tree_node AS j
          WHERE j.pos <= s.lo AND j.subtree_end >= s.hi AND j.image = 0
            AND j.trace_id = s.trace_id
          ORDER BY j.pos DESC LIMIT 1) AS process_id
  FROM span AS s
  WHERE COALESCE($temporaries, $all, 0) = 0 AND s.last_change = 'remove'
    AND s.first_access IN (SELECT access FROM _access_class WHERE creates = 1)
), make (exec_id) AS MATERIALIZED (
  -- The commands that ran make (one of $makes).
  SELECT e.exec_id FROM exec AS e JOIN path AS pa ON pa.path_id = e.resolved_id
  WHERE e.success = 1 AND pa.path IN (SELECT value FROM json_each(COALESCE($makes, '[]')))
), makefile (trace_id, path_id) AS MATERIALIZED (
  -- Makefiles: the files a make read (its makefiles and the files they
  -- include, as automake's .deps/*.Po) that the build wrote, which
  -- recipes rewrite for make's next run; not directories (paths the
  -- trace looked up others below), nor what make read that the build
  -- never changed (its libraries).
  SELECT a.trace_id, a.path_id
  FROM (SELECT DISTINCT trace_id, path_id FROM acc
        WHERE COALESCE($makefiles, $all, 0) = 0 AND effect = 'read'
          AND command_id IN (SELECT exec_id FROM make)) AS a
  JOIN path AS pa ON pa.path_id = a.path_id
  WHERE NOT EXISTS (SELECT 1 FROM path AS d
                    WHERE d.path > pa.path || '/' AND d.path < pa.path || '0')
    AND EXISTS (SELECT 1 FROM acc AS w WHERE w.trace_id = a.trace_id
                AND w.path_id = a.path_id AND w.effect IN ('write', 'remove'))
), left_out (trace_id, path_id) AS MATERIALIZED (
  -- The paths whose hazards are not reported: device and pseudo files
  -- (unless $devices), a job's own temporaries (unless $temporaries: a
  -- job that ran make does not own them), makefiles (unless $makefiles),
  -- and the paths outside $under or in an $exclude directory.
  SELECT h.trace_id, h.path_id FROM hp AS h
  WHERE (COALESCE($devices, $all, 0) = 0
         AND h.path_id IN (SELECT path_id FROM _device_path))
     OR ($under IS NOT NULL
         AND NOT (h.path = rtrim($under, '/')
                  OR substr(h.path, 1, length(rtrim($under, '/')) + 1) = rtrim($under, '/') || '/'))
     OR EXISTS (SELECT 1 FROM json_each($exclude) AS x
                WHERE h.path = rtrim(x.value, '/')
                   OR substr(h.path, 1, length(rtrim(x.value, '/')) + 1)
                      = rtrim(x.value, '/') || '/')
  UNION
  SELECT j.trace_id, j.path_id FROM job AS j
  WHERE j.process_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM exec AS e
                    WHERE e.process_id = j.process_id AND e.exec_id IN (SELECT exec_id FROM make))
  UNION
  SELECT trace_id, path_id FROM makefile
), removing (trace_id, path_id, command_id) AS MATERIALIZED (
  -- The commands that tried to remove a path of a `ghost-later-created`
  -- (whether the removal succeeded or not): each such path's removals
  -- read once through namei_resolved, not once per hazard (a path that
  -- every job of a long build removes has as many removals as hazards).
  SELECT DISTINCT a.trace_id, a.path_id, a.command_id
  FROM build_access AS a
  WHERE COALESCE($all, 0) = 0
    AND a.path_id IN (SELECT path_id FROM found WHERE kind = 'ghost-later-created')
    AND a.access IN (SELECT access FROM _access_class WHERE effect = 'remove')
), z AS MATERIALIZED (
  -- The hazards reported. Unless $all: a `ghost-later-created` whose
  -- command tried to remove the path (`rm -f` of what is not there)
  -- was not looking for it, and is none.
  SELECT * FROM found AS f
  WHERE NOT EXISTS (SELECT 1 FROM left_out AS l
                    WHERE l.trace_id = f.trace_id AND l.path_id = f.path_id)
    AND (f.kind <> 'ghost-later-created' OR COALESCE($all, 0) = 1
         OR NOT EXISTS (SELECT 1 FROM removing AS r
                        WHERE r.trace_id = f.trace_id AND r.path_id = f.path_id
                          AND r.command_id = f.command_id))
), dw AS MATERIALIZED (
  -- Every writer of a double-write after the first.
  SELECT z.trace_id, z.path_id, z.path, z.command_id, z.ts, CAST(j.value AS INTEGER) AS other_id,
         CAST(j.key AS INTEGER) AS seq
  FROM z, json_each(z.commands) AS j
  WHERE z.kind = 'double-write' AND CAST(j.key AS INTEGER) > 0
), wts AS MATERIALIZED (
  -- Their first writes: the lookups of those paths only, through the
  -- path index.
  SELECT trace_id, path_id, command_id, ts
  FROM (SELECT trace_id, path_id, command_id, ts,
               row_number() OVER (PARTITION BY trace_id, path_id, command_id
                                  ORDER BY "offset") AS n
        FROM build_access
        -- (The access kind needs only the lookup, so it drops the others before their call is read.)
        WHERE access IN (SELECT access FROM _access_class WHERE effect = 'write')
          AND path_id IN (SELECT path_id FROM dw) AND effect = 'write')
  WHERE n = 1
), h AS (
  -- Each writer with its first write (wts): the join done by sorting both
  -- together in one window, as SQLite 3.40 (Python's, Datasette's) would
  -- otherwise scan wts once per writer (it builds no index on it).
  SELECT 'double-write' AS kind, path, command_id, other_id, ts, other_ts, trace_id, seq
  FROM (SELECT trace_id, path, command_id, other_id, ts, seq, is_dw,
               max(w_ts) OVER k AS other_ts, sum(1 - is_dw) OVER k AS writes
        FROM (SELECT trace_id, path_id, path, command_id, other_id, ts, seq, 1 AS is_dw,
                     NULL AS w_ts
              FROM dw
              UNION ALL
              SELECT trace_id, path_id, NULL, NULL, command_id, NULL, NULL, 0, ts FROM wts)
        WINDOW k AS (PARTITION BY trace_id, path_id, other_id))
  WHERE is_dw = 1 AND writes > 0
  UNION ALL
  SELECT kind, path, command_id, other_id, ts, other_ts, trace_id, 0
  FROM z WHERE kind <> 'double-write'
  UNION ALL
  SELECT 'read-outside', path, command_id, NULL, ts, NULL, trace_id, 0
  FROM outside AS o
  WHERE NOT EXISTS (SELECT 1 FROM left_out AS l
                    WHERE l.trace_id = o.trace_id AND l.path_id = o.path_id)
)
SELECT h.kind, h.path, qa.pid, a.comm, round((h.ts - t.first_ts) / 1e9, 6) AS elapsed,
       qb.pid AS other_pid, b.comm AS other_comm,
       round((h.other_ts - t.first_ts) / 1e9, 6) AS other_elapsed,
       h.command_id, h.other_id, h.ts, h.other_ts,
       CASE WHEN t.start_cwd IS NULL THEN h.path
            WHEN h.path = rtrim(t.start_cwd, '/') THEN '.'
            WHEN substr(h.path, 1, length(rtrim(t.start_cwd, '/')) + 1)
                 = rtrim(t.start_cwd, '/') || '/'
            THEN substr(h.path, length(rtrim(t.start_cwd, '/')) + 2)
            ELSE h.path END AS rel_path
FROM h
JOIN trace AS t USING (trace_id)
JOIN exec AS a ON a.exec_id = h.command_id
JOIN process AS qa ON qa.process_id = a.process_id
LEFT JOIN exec AS b ON b.exec_id = h.other_id
LEFT JOIN process AS qb ON qb.process_id = b.process_id
-- Unless $all: two writes, a read and a later write, or a failed lookup
-- and a later creation, by two children of one process that is not
-- make, the second started after the first ended, are in the order that
-- process gave them (a script's successive commands: configure appending
-- to config.status, config.status's `diff` of a header not there yet and
-- the `mv` that puts it in place), no hazard.
WHERE COALESCE($all, 0) = 1
   OR h.kind NOT IN ('double-write', 'used-then-changed', 'ghost-later-created')
   OR qa.process_id = qb.process_id OR qa.parent_id IS DISTINCT FROM qb.parent_id
   OR qa.parent_id IS NULL
   OR NOT (qa.last_ts < qb.first_ts OR qb.last_ts < qa.first_ts)
   OR EXISTS (SELECT 1 FROM exec AS e WHERE e.process_id = qa.parent_id
              AND e.exec_id IN (SELECT exec_id FROM make))
ORDER BY CASE h.kind WHEN 'double-write' THEN 1 WHEN 'race' THEN 2
                     WHEN 'used-then-changed' THEN 3 WHEN 'ghost-later-created' THEN 4
                     ELSE 5 END,
         CAST(h.path AS BLOB), h.ts, h.seq, qa.pid, qb.pid;
