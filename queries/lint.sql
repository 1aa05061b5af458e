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
-- @param  trace         Only this trace_id (default: every trace).
-- @param  pid           Only the processes of this pid and their
--                       descendants (default: the whole build).
-- @param  allow         The allowed directories as a JSON array (`lint
--                       --allow`); default: no `read-outside` check.
-- @param  kinds         Only these kinds, as a JSON array (`lint --kind`);
--                       default: every kind.
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
  SELECT f.trace_id, f.command_id, f.ts, pa.path
  FROM first AS f
  JOIN path AS pa USING (path_id)
  WHERE EXISTS (SELECT 1 FROM allowed AS d WHERE d.trace_id = f.trace_id)
    AND NOT EXISTS (SELECT 1 FROM allowed AS d
                    WHERE d.trace_id = f.trace_id
                      AND (pa.path = d.dir OR d.dir = ''
                           OR substr(pa.path, 1, length(d.dir) + 1) = d.dir || '/'))
), z AS MATERIALIZED (
  SELECT trace_id, kind, path_id, path, command_id, other_id, ts, other_ts, commands
  FROM build_hazard AS z
  WHERE kind IN (SELECT kind FROM kinds)
    AND ($trace IS NULL OR trace_id = $trace)
    AND ($pid IS NULL OR EXISTS (
          SELECT 1 FROM exec AS x
          WHERE x.exec_id IN (z.command_id, z.other_id) AND x.process_id IN (SELECT process_id FROM member)))
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
  SELECT 'double-write' AS kind, dw.path, dw.command_id, dw.other_id, dw.ts,
         w.ts AS other_ts, dw.trace_id, dw.seq
  FROM dw
  JOIN wts AS w ON w.trace_id = dw.trace_id AND w.path_id = dw.path_id
   AND w.command_id = dw.other_id
  UNION ALL
  SELECT kind, path, command_id, other_id, ts, other_ts, trace_id, 0
  FROM z WHERE kind <> 'double-write'
  UNION ALL
  SELECT 'read-outside', path, command_id, NULL, ts, NULL, trace_id, 0
  FROM outside
)
SELECT h.kind, h.path, qa.pid, a.comm, round((h.ts - t.first_ts) / 1e9, 6) AS elapsed,
       qb.pid AS other_pid, b.comm AS other_comm,
       round((h.other_ts - t.first_ts) / 1e9, 6) AS other_elapsed,
       h.command_id, h.other_id, h.ts, h.other_ts
FROM h
JOIN trace AS t USING (trace_id)
JOIN exec AS a ON a.exec_id = h.command_id
JOIN process AS qa ON qa.process_id = a.process_id
LEFT JOIN exec AS b ON b.exec_id = h.other_id
LEFT JOIN process AS qb ON qb.process_id = b.process_id
ORDER BY CASE h.kind WHEN 'double-write' THEN 1 WHEN 'race' THEN 2
                     WHEN 'used-then-changed' THEN 3 WHEN 'ghost-later-created' THEN 4
                     ELSE 5 END,
         CAST(h.path AS BLOB), h.ts, h.seq, qa.pid, qb.pid;
