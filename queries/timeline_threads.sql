-- The threads of the timeline's processes: each thread's OS id, which
-- `kt2sql timeline --calls` puts on the slices of its calls
-- (timeline_call_rows.sql gives each call's thread_id).
--
-- @param  trace       Only this trace_id (default: every trace).
-- @param  pid         Only every lifetime of this pid and their descendants
--                     (default: every process).
-- @column thread_id   The thread (thread.thread_id).
-- @column process_id  Its process lifetime.
-- @column tid         OS thread id.
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants
  -- (MATERIALIZED: a list that leads the search of thread_process).
  member (process_id) AS MATERIALIZED (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  )
SELECT h.thread_id, h.process_id, h.tid
FROM thread AS h
WHERE h.process_id IN (SELECT process_id FROM member)
ORDER BY h.process_id, h.tid, h.thread_id;
