-- The fork arrows of the timeline: for every forked process in scope, its
-- parent's fork call and its own first record. A child whose parent is
-- outside the scope (`$pid`'s lifetimes) has no arrow.
--
-- @param  trace       Only this trace_id (default: every trace).
-- @param  pid         Only every lifetime of this pid and their descendants
--                     (default: every process).
-- @column process_id  The child's lifetime (process.process_id): the arrow's id.
-- @column fork_syscall Syscall the parent created it with.
-- @column parent_pid  The parent's OS pid.
-- @column parent_tid  The parent's first thread (as timeline_slices' tid).
-- @column fork_ts     Time (ns) of the parent's fork CALL, or of its
--                     return when the CALL was not recorded.
-- @column pid         The child's OS pid.
-- @column tid         The child's first thread (as timeline_slices' tid).
-- @column first_ts    Time (ns) of the child's first record.
-- @column parent_id   The parent's lifetime (process.process_id).
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants
  -- (MATERIALIZED: worked out once for the query's several uses).
  member (process_id) AS MATERIALIZED (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  ),
  -- block: first_tid
  -- Each process's first thread (its pid when it has none): the tid its
  -- slices are drawn on, as timeline_slices' tid.
  first_tid (process_id, tid) AS (
    SELECT p.process_id,
           COALESCE((SELECT h.tid FROM thread AS h WHERE h.process_id = p.process_id
                     ORDER BY h.first_ts, h.thread_id LIMIT 1), p.pid)
    FROM process AS p
  -- end block: first_tid
  )
SELECT c.process_id, c.fork_syscall, p.pid AS parent_pid, pt.tid AS parent_tid,
       CASE WHEN COALESCE(f.ts, c.fork_ts) < c.first_ts THEN COALESCE(f.ts, c.fork_ts)
            ELSE c.first_ts END AS fork_ts, c.pid, ct.tid, c.first_ts,
       c.parent_id
FROM member AS m
JOIN process AS c ON c.process_id = m.process_id
JOIN member AS pm ON pm.process_id = c.parent_id
JOIN process AS p ON p.process_id = c.parent_id
JOIN first_tid AS pt ON pt.process_id = p.process_id
JOIN first_tid AS ct ON ct.process_id = c.process_id
LEFT JOIN call AS f ON f.call_id = c.fork_call_id
WHERE COALESCE(f.ts, c.fork_ts) IS NOT NULL
ORDER BY c.first_ts, c.process_id;
