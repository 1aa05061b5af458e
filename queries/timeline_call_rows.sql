-- The calls of `timeline_calls.sql` as `kt2sql timeline --calls` reads
-- them: the same rows in the same order, each with its process lifetime
-- and thread (ids) in place of the OS pid and tid. The timeline maps
-- those once per process and thread (timeline_tracks.sql,
-- timeline_threads.sql) instead of searching `process` and `thread` for
-- every call.
--
-- @param  trace      Only this trace_id (default: every trace).
-- @param  pid        Only every lifetime of this pid and their descendants
--                    (default: every process).
-- @param  min_dur    Only calls that took at least this long (ns); calls
--                    without a return are then left out (default: all).
-- @column process_id Process lifetime (process.process_id).
-- @column thread_id  Thread (thread.thread_id); NULL when the dialect
--                    records none.
-- @column syscall    Syscall name, or `#N` when the table does not know number N.
-- @column ts         CALL time (ns).
-- @column dur        Duration (ns); 0 for a call without a return.
-- @column retval     Return value; NULL without a return.
-- @column errno      errno of a failed call (an integer), else NULL.
-- @column errno_name Its symbolic name (`ENOENT`) when known.
-- @column success    1 succeeded, 0 failed, NULL no return.
-- @column unpaired   Why the call has no return (call.unpaired), else NULL.
-- @column call_id    The call (call.call_id).
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants.
  member (process_id) AS (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  )
SELECT c.process_id, c.thread_id, COALESCE(c.syscall, '#' || c.code) AS syscall,
       c.ts, COALESCE(c.dur, 0) AS dur, c.retval,
       c.errno, c.errno_name, c.success, c.unpaired, c.call_id
FROM call AS c
-- The two halves of timeline_calls.sql: the table in its own order
-- without `$pid`, the scope's calls through call_process with it.
WHERE $pid IS NULL AND c.ts IS NOT NULL AND ($min_dur IS NULL OR c.dur >= $min_dur)
  AND ($trace IS NULL OR +c.process_id IN (SELECT process_id FROM member))
UNION ALL
SELECT c.process_id, c.thread_id, COALESCE(c.syscall, '#' || c.code) AS syscall,
       c.ts, COALESCE(c.dur, 0) AS dur, c.retval,
       c.errno, c.errno_name, c.success, c.unpaired, c.call_id
FROM call AS c
WHERE $pid IS NOT NULL AND c.ts IS NOT NULL AND ($min_dur IS NULL OR c.dur >= $min_dur)
  AND c.process_id IN (SELECT process_id FROM member)
ORDER BY call_id;
