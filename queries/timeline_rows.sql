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
    SELECT process_id FROM _scope WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
  )
SELECT t.exec_id, c.dur
FROM process_tree AS t
JOIN member USING (process_id)
JOIN command AS c ON c.command_id = t.exec_id
ORDER BY t.sort_key;
