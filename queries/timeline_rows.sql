-- The timeline's rows without their details: one per command (process
-- image) in the order of `timeline_slices.sql` (process-tree order), with
-- how long it held its process. `kt2sql timeline --format svg` reads them
-- first to choose which commands to fold into summary rows (`--max-rows`,
-- `--min-dur`) before it draws.
--
-- @param  trace    Only this trace_id (default: every trace).
-- @param  pid      Only every lifetime of this pid and their descendants
--                  (default: every process).
-- @column exec_id  The image (exec.exec_id).
-- @column dur      Time (ns) from its start to the next image's start or
--                  the process's last record (command.dur).
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants.
  member (process_id) AS (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  ),
  -- block: scope_span
  -- The rows of tree_node the scope lies in: all, or from the pid's first
  -- lifetime to the end of its last one's subtree.
  span (lo, hi) AS (
    SELECT CASE WHEN $pid IS NULL THEN 0 ELSE min(first_pos) END,
           CASE WHEN $pid IS NULL THEN 9223372036854775807 ELSE max(last_pos) END
    FROM _scope_span WHERE root_pid = $pid AND ($trace IS NULL OR trace_id = $trace)
  -- end block: scope_span
  )
-- command.dur, worked out for the scope's images only: to the start of the
-- process's next image (n), else to its last record.
SELECT t.exec_id,
       COALESCE(n.ts, p.last_ts) - CASE WHEN t.image = 0 THEN p.first_ts ELSE e.ts END AS dur
FROM tree_node AS t
JOIN process AS p ON p.process_id = t.process_id
JOIN exec AS e ON e.exec_id = t.exec_id
LEFT JOIN exec AS n ON n.process_id = t.process_id AND n.image = t.image + 1
WHERE t.pos BETWEEN (SELECT lo FROM span) AND (SELECT hi FROM span)
  AND ($trace IS NULL OR t.trace_id = $trace)
  AND ($pid IS NULL OR t.process_id IN (SELECT process_id FROM member))
ORDER BY t.pos;
