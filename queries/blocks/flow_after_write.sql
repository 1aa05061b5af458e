-- The file flow rule, stated once (part 1 of 2; part 2 is
-- flow_first_read): for each read, write and removal of flow_in
-- (root_pid, trace_id, path_id, command_id, effect, "offset", ts), the
-- latest earlier write of its path by file order (removals do not reset
-- it); when another command made it, the read consumed what that command
-- produced. Each root_pid is a build of its own.
-- grp: the path's writes up to this lookup (this one included).
flow_count AS (
  SELECT root_pid, trace_id, path_id, command_id, effect, "offset", ts,
         count(*) FILTER (WHERE effect = 'write')
           OVER (PARTITION BY root_pid, trace_id, path_id ORDER BY "offset") AS grp
  FROM flow_in
),
-- A group's first row is its write (grp counts it), so first_value is
-- that write; the rows of group 0 have none. producer: the writer, when
-- this is a read of another command's write (a flow).
flow_after (root_pid, trace_id, path_id, command_id, effect, "offset", ts, grp, writer, wts,
            producer) AS (
  SELECT root_pid, trace_id, path_id, command_id, effect, "offset", ts, grp,
         CASE WHEN grp > 0 THEN first_value(command_id) OVER g END,
         CASE WHEN grp > 0 THEN first_value(ts) OVER g END,
         CASE WHEN effect = 'read' AND grp > 0 AND first_value(command_id) OVER g <> command_id
              THEN first_value(command_id) OVER g END
  FROM flow_count
  WINDOW g AS (PARTITION BY root_pid, trace_id, path_id, grp ORDER BY "offset")
)
