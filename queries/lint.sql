-- Build hazards (build_hazard), each with the two commands and the times
-- that show it: `double-write` (commands of two lifetimes wrote the path:
-- the first and the last writer), `race` (reader and a concurrent writer),
-- `used-then-changed` (reader, and the later writer) and
-- `ghost-later-created` (the command whose lookup failed, and the one
-- that created the path later).
--
-- @param  trace    Only this trace_id (default: every trace).
-- @column kind     `double-write`, `race`, `used-then-changed` or `ghost-later-created`.
-- @column path     The path (TEXT, or BLOB when not UTF-8).
-- @column command  The first command as `comm [pid]`.
-- @column other    The other command as `comm [pid]`.
-- @column ts       Time (ns) of the first command's access.
-- @column other_ts Time (ns) of the other command's write or create.
SELECT h.kind, h.path, a.comm || ' [' || a.pid || ']' AS command,
       b.comm || ' [' || b.pid || ']' AS other, h.ts, h.other_ts
FROM build_hazard AS h
JOIN command AS a ON a.command_id = h.command_id
JOIN command AS b ON b.command_id = h.other_id
WHERE :trace IS NULL OR h.trace_id = :trace
ORDER BY CASE h.kind WHEN 'double-write' THEN 1 WHEN 'race' THEN 2
                     WHEN 'used-then-changed' THEN 3 ELSE 4 END,
         CAST(h.path AS BLOB), h.ts, a.pid, b.pid;
