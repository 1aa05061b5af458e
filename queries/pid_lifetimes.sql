-- Every lifetime of one pid, earliest first: a pid the system reused is
-- several processes. `-p PID` takes the first row and says so when there
-- are more.
--
-- @param  pid        The OS pid (required).
-- @param  trace      Only this trace_id (default: every trace).
-- @column process_id Process lifetime (process.process_id).
-- @column trace_id   Trace it was recorded in.
-- @column pid        OS pid.
-- @column ppid       The parent's pid; NULL for a root.
-- @column first_comm Command name on its first record.
-- @column last_comm  Command name on its last record.
-- @column first_ts   Time (ns) of its first record.
-- @column last_ts    Time (ns) of its last record.
SELECT p.process_id, p.trace_id, p.pid, pp.pid AS ppid, p.first_comm, p.last_comm,
       p.first_ts, p.last_ts
FROM process AS p
LEFT JOIN process AS pp ON pp.process_id = p.parent_id
WHERE p.pid = $pid AND ($trace IS NULL OR p.trace_id = $trace)
ORDER BY p.trace_id, p.first_ts, p.process_id;
