-- kt2sql schema, part 3: views over the tables, with path ids replaced by
-- their text and the owning process and thread joined in. Created after
-- the data; IF NOT EXISTS because `--append` re-applies this file.
-- Only DDL here.

-- The calls processes made: the rows of table call less the children's
-- returns (unpaired `child return`: a forked child's or a new thread's
-- first RET, which the child did not call). Count calls here
-- (`SELECT syscall, count(*) FROM call_made GROUP BY syscall`); table call
-- counts every fork twice.
CREATE VIEW IF NOT EXISTS call_made (
  -- call.call_id.
  call_id,
  -- Process lifetime.
  process_id,
  -- Thread, where the dialect records thread ids.
  thread_id,
  -- Syscall number.
  code,
  -- Syscall name (NULL when unknown to the system's table).
  syscall,
  -- Number of argument words recorded.
  nargs,
  -- Arguments, kdump style (`0x3,0x7ffe12,0`).
  args,
  -- First argument, signed.
  arg0,
  -- Second argument, signed.
  arg1,
  -- CALL time (ns); NULL for a made call whose CALL is not in the trace.
  ts,
  -- RET time (ns).
  ret_ts,
  -- ret_ts - ts (ns).
  dur,
  -- Return value as the program saw it (-1 when it failed).
  retval,
  -- Raw error field (0, errno, -1 ERESTART, -2 EJUSTRETURN).
  error,
  -- errno of a failed call, else NULL.
  errno,
  -- Symbolic errno, when known.
  errno_name,
  -- 1 succeeded, 0 failed, NULL no return.
  success,
  -- File offset of the CALL record.
  call_offset,
  -- File offset of the RET record.
  ret_offset,
  -- Why a half is missing (never `child return`); NULL when paired.
  unpaired
) AS
SELECT call_id, process_id, thread_id, code, syscall, nargs, args, arg0, arg1, ts, ret_ts,
       dur, retval, error, errno, errno_name, success, call_offset, ret_offset, unpaired
FROM call
WHERE unpaired IS NULL OR unpaired <> 'child return';

-- Every system call with its process, thread and trace: the table most
-- questions start from.
CREATE VIEW IF NOT EXISTS call_detail (
  -- call.call_id.
  call_id,
  -- Trace it was recorded in.
  trace_id,
  -- Process lifetime.
  process_id,
  -- OS pid.
  pid,
  -- Command name on the process's last record (after its last exec).
  comm,
  -- Thread row, where the dialect records thread ids.
  thread_id,
  -- OS thread / LWP id.
  tid,
  -- Syscall name (NULL when unknown to the system's table).
  syscall,
  -- Syscall number.
  code,
  -- Arguments, kdump style (`0x3,0x7ffe12,0`).
  args,
  -- First argument, signed.
  arg0,
  -- Second argument, signed.
  arg1,
  -- CALL time (ns).
  ts,
  -- RET time (ns).
  ret_ts,
  -- ret_ts - ts (ns).
  dur,
  -- Return value as the program saw it (-1 when it failed).
  retval,
  -- Raw error field (0, errno, -1 ERESTART, -2 EJUSTRETURN).
  error,
  -- errno of a failed call, else NULL.
  errno,
  -- Symbolic errno, when known.
  errno_name,
  -- 1 succeeded, 0 failed, NULL no return.
  success,
  -- Why a half is missing; NULL when paired.
  unpaired
) AS
SELECT c.call_id, p.trace_id, c.process_id, p.pid, p.last_comm, c.thread_id, t.tid,
       c.syscall, c.code, c.args, c.arg0, c.arg1, c.ts, c.ret_ts, c.dur, c.retval,
       c.error, c.errno, c.errno_name, c.success, c.unpaired
FROM call AS c
JOIN process AS p USING (process_id)
LEFT JOIN thread AS t ON t.thread_id = c.thread_id;

-- Every path lookup with its text, the call that made it and whether that
-- call succeeded.
CREATE VIEW IF NOT EXISTS namei_detail (
  -- namei.namei_id.
  namei_id,
  -- Trace it was recorded in.
  trace_id,
  -- Process lifetime.
  process_id,
  -- OS pid.
  pid,
  -- Command name on the NAMI record.
  comm,
  -- The call; NULL when no call was pending.
  call_id,
  -- That call's syscall name; `coredump` for a dying process's core file.
  syscall,
  -- Position within the call (0 first).
  seq,
  -- Record time (ns).
  ts,
  -- Path as recorded (TEXT, or BLOB when not UTF-8).
  path,
  -- Normalised absolute path (or relative when the base is unknown).
  resolved,
  -- `absolute`, `cwd`, `dirfd` or `unknown base`.
  resolution,
  -- 1 when the call succeeded (a core file always did), 0 failed, NULL unknown.
  success,
  -- errno of the failed call, else NULL.
  errno,
  -- Symbolic errno (`ENOENT`), when known.
  errno_name,
  -- File offset of the NAMI record.
  "offset"
) AS
SELECT n.namei_id, p.trace_id, n.process_id, p.pid, n.comm, n.call_id,
       CASE WHEN n.coredump = 1 THEN 'coredump' ELSE c.syscall END, n.seq, n.ts, pp.path, rp.path,
       n.resolution, CASE WHEN n.coredump = 1 THEN 1 ELSE c.success END, c.errno, c.errno_name, n."offset"
FROM namei AS n
JOIN process AS p USING (process_id)
JOIN path AS pp ON pp.path_id = n.path_id
JOIN path AS rp ON rp.path_id = n.resolved_id
LEFT JOIN call AS c ON c.call_id = n.call_id;

-- Every program image with its path text and process.
CREATE VIEW IF NOT EXISTS exec_detail (
  -- exec.exec_id.
  exec_id,
  -- Trace it was recorded in.
  trace_id,
  -- Process lifetime.
  process_id,
  -- OS pid.
  pid,
  -- 0 inherited image, then 1, 2, … per exec attempt.
  seq,
  -- Time (ns).
  ts,
  -- The exec call; NULL for the inherited image.
  call_id,
  -- Program path as passed.
  path,
  -- Program path made absolute where possible.
  resolved,
  -- Command name of the image.
  comm,
  -- argv (JSON array, or BLOB of NUL-separated bytes).
  argv,
  -- 1 when the exec succeeded.
  success,
  -- Working directory at that moment, when known.
  cwd
) AS
SELECT e.exec_id, p.trace_id, e.process_id, p.pid, e.seq, e.ts, e.call_id,
       pp.path, rp.path, e.comm, e.argv, e.success, cp.path
FROM exec AS e
JOIN process AS p USING (process_id)
LEFT JOIN path AS pp ON pp.path_id = e.path_id
LEFT JOIN path AS rp ON rp.path_id = e.resolved_id
LEFT JOIN path AS cp ON cp.path_id = e.cwd_id;
