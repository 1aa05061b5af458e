-- The busiest processes: process lifetimes ranked by the system calls
-- they made.
--
-- @param  trace        Only this trace_id (default: every trace).
-- @param  limit        Maximum rows (default: 10).
-- @column process_id   Process lifetime.
-- @column pid          OS pid.
-- @column ppid         The parent's pid; NULL for a root.
-- @column comm         Command name on its last record.
-- @column calls        System calls it made.
-- @column failed_calls Of them, those that failed.
-- @column lookups      Path lookups.
-- @column files        Distinct absolute paths of its successful calls.
-- @column dur          Time (ns) from its first record to its last.
SELECT process_id, pid, ppid, comm, calls, failed_calls, lookups, files, dur
FROM process_summary
WHERE $trace IS NULL OR trace_id = $trace
ORDER BY calls DESC, process_id
LIMIT COALESCE($limit, 10);
