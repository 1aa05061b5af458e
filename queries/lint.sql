-- Build hazards (build_hazard), each with the two commands and the times
-- that show it: `double-write` (commands of two lifetimes wrote the path:
-- the first and the last writer), `race` (reader and a concurrent writer),
-- `used-then-changed` (reader, and the later writer) and
-- `ghost-later-created` (the command whose lookup failed, and the one
-- that created the path later); then `read-outside`: with :allow, every
-- path the build read outside the allowed directories; without it, each
-- top directory (`/usr`) the build read in outside the directory the
-- trace started in (trace.start_cwd; none when that is unknown), with the
-- command that read there first. With :pid, only the hazards a command
-- of that subtree is in (as either command), and the paths the subtree
-- itself read outside, with its first command that read there.
--
-- @param  trace    Only this trace_id (default: every trace).
-- @param  pid      Only the processes of this pid and their descendants
--                  (default: the whole build).
-- @param  allow    The allowed directories as a JSON array (`lint --allow`);
--                  default: the start directory, reported by top directory.
-- @column kind     `double-write`, `race`, `used-then-changed`,
--                  `ghost-later-created` or `read-outside`.
-- @column path     The path (TEXT, or BLOB when not UTF-8); for a default
--                  `read-outside`, the top directory.
-- @column command  The first command as `comm [pid]` (for `read-outside`,
--                  the first that read there).
-- @column other    The other command as `comm [pid]`; NULL for `read-outside`.
-- @column ts       Time (ns) of the first command's access.
-- @column other_ts Time (ns) of the other command's write or create.
WITH allowed (trace_id, dir) AS (
  SELECT t.trace_id, rtrim(j.value, '/') FROM trace AS t, json_each(:allow) AS j
  WHERE :allow IS NOT NULL
  UNION ALL
  SELECT trace_id, rtrim(start_cwd, '/') FROM trace
  WHERE :allow IS NULL AND start_cwd IS NOT NULL
), first AS (
  -- Each path's first read.
  SELECT trace_id, path_id, command_id, ts, min(offset) AS offset
  FROM build_access
  -- (The access kind needs only the lookup, so it drops the others before their call is read.)
  WHERE access IN (SELECT access FROM _access_class WHERE effect = 'read')
    AND effect = 'read'
    AND (:trace IS NULL OR trace_id = :trace)
    AND (:pid IS NULL OR process_id IN (SELECT process_id FROM _scope
                                        WHERE root_pid IS :pid AND (:trace IS NULL OR trace_id = :trace)))
  GROUP BY trace_id, path_id
), outside AS (
  SELECT f.trace_id, f.command_id, f.ts, f.offset,
         CASE WHEN :allow IS NOT NULL THEN pa.path
              WHEN instr(substr(pa.path, 2), '/') > 0
              THEN substr(pa.path, 1, instr(substr(pa.path, 2), '/'))
              ELSE pa.path END AS path
  FROM first AS f
  JOIN path AS pa USING (path_id)
  WHERE EXISTS (SELECT 1 FROM allowed AS d WHERE d.trace_id = f.trace_id)
    AND NOT EXISTS (SELECT 1 FROM allowed AS d
                    WHERE d.trace_id = f.trace_id
                      AND (pa.path = d.dir OR d.dir = ''
                           OR substr(pa.path, 1, length(d.dir) + 1) = d.dir || '/'))
), h AS (
  SELECT kind, path, command_id, other_id, ts, other_ts, trace_id
  FROM build_hazard AS z
  WHERE (:trace IS NULL OR trace_id = :trace)
    AND (:pid IS NULL OR EXISTS (
          SELECT 1 FROM exec AS x
          WHERE x.exec_id IN (z.command_id, z.other_id)
            AND x.process_id IN (SELECT process_id FROM _scope
                                 WHERE root_pid IS :pid AND (:trace IS NULL OR trace_id = :trace))))
  UNION ALL
  SELECT 'read-outside', path, command_id, NULL, ts, NULL, trace_id
  FROM (SELECT trace_id, path, command_id, ts, min(offset)
        FROM outside GROUP BY trace_id, path)
)
SELECT h.kind, h.path, a.comm || ' [' || qa.pid || ']' AS command,
       b.comm || ' [' || qb.pid || ']' AS other, h.ts, h.other_ts
FROM h
JOIN exec AS a ON a.exec_id = h.command_id
JOIN process AS qa ON qa.process_id = a.process_id
LEFT JOIN exec AS b ON b.exec_id = h.other_id
LEFT JOIN process AS qb ON qb.process_id = b.process_id
ORDER BY CASE h.kind WHEN 'double-write' THEN 1 WHEN 'race' THEN 2
                     WHEN 'used-then-changed' THEN 3 WHEN 'ghost-later-created' THEN 4
                     ELSE 5 END,
         CAST(h.path AS BLOB), h.ts, qa.pid, qb.pid;
