-- The slowest system calls: completed calls ranked by duration, with the
-- first path each looked up.
--
-- @param  trace    Only this trace_id (default: every trace).
-- @param  syscall  Only calls of this syscall name (default: all).
-- @param  limit    Maximum rows (default: 20).
-- @column dur      Duration (ns): RET time - CALL time.
-- @column pid      OS pid.
-- @column comm     Command name on the process's last record.
-- @column syscall  Syscall name.
-- @column args     Argument words, kdump style.
-- @column retval   Return value.
-- @column errno    errno of a failed call (an integer), else NULL.
-- @column errno_name Its symbolic name (`ENOENT`) when known.
-- @column path     First path it looked up, absolute where possible; NULL for none.
-- @column call_id  The call (call.call_id).
WITH
  -- The slowest first, on the call table alone: the rest is looked up for
  -- these rows only.
  slow (call_id, dur) AS MATERIALIZED (
    SELECT c.call_id, c.dur FROM call AS c
    WHERE c.dur IS NOT NULL
      AND ($trace IS NULL OR c.process_id IN (SELECT process_id FROM process
                                              WHERE trace_id = $trace))
      AND ($syscall IS NULL OR c.syscall = $syscall)
    ORDER BY c.dur DESC, c.call_id
    LIMIT COALESCE($limit, 20)
  )
SELECT c.dur, c.pid, c.comm, c.syscall, c.args, c.retval, c.errno, c.errno_name,
       (SELECT rp.path FROM namei AS n JOIN path AS rp ON rp.path_id = n.resolved_id
        WHERE n.call_id = c.call_id ORDER BY n.seq LIMIT 1) AS path,
       c.call_id
FROM slow AS s
JOIN call_detail AS c ON c.call_id = s.call_id
ORDER BY s.dur DESC, s.call_id;
