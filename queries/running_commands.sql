-- The commands running now (`kt2sql watch`): the rows of the view running,
-- each with its command line, sorted as asked.
--
-- @param  trace         Only this trace_id (default: every trace).
-- @param  sort          `elapsed` (the default: longest running first),
--                       `call` (longest in its current call first) or `pid`.
-- @param  limit         Maximum rows (default: 50).
-- @column trace_id      Trace it was recorded in.
-- @column process_id    Process lifetime.
-- @column pid           OS pid.
-- @column ppid          The parent's pid; NULL for a root.
-- @column comm          Command name of its current image.
-- @column command       Its command line: argv joined by spaces where the
--                       trace records it, else the program's path, else comm.
-- @column cwd           Working directory when the command started, when known.
-- @column start_ts      Time (ns) the command started.
-- @column elapsed       ns it has run, to the snapshot.
-- @column call          The call it is in now (syscall name); NULL when none.
-- @column call_args     That call's arguments, kdump style.
-- @column call_elapsed  ns it has been in that call.
-- @column last_path     The last path it looked up; NULL when none.
-- @column snapshot_ts   The snapshot's time (ns).
SELECT r.trace_id, r.process_id, r.pid, r.ppid, r.comm,
       COALESCE(
         -- block: argv_words
         -- argv as one line of words: the JSON array's strings joined by spaces,
         -- or the recorded bytes with each NUL a space; NULL when the trace holds
         -- no argv. Reads the column `argv` of the row at hand.
         CASE WHEN json_valid(CAST(argv AS TEXT))
              THEN (SELECT group_concat(a.value, ' ') FROM json_each(argv) AS a)
              WHEN argv IS NOT NULL THEN replace(CAST(argv AS TEXT), char(0), ' ')
         END
         -- end block: argv_words
         , COALESCE(r.program, r.comm)) AS command,
       r.cwd, r.start_ts, r.elapsed, r.call, r.call_args, r.call_elapsed, r.last_path,
       r.snapshot_ts
FROM running AS r
WHERE $trace IS NULL OR r.trace_id = $trace
ORDER BY CASE COALESCE($sort, 'elapsed')
           WHEN 'elapsed' THEN -r.elapsed
           WHEN 'call' THEN -COALESCE(r.call_elapsed, -1)
           ELSE r.pid END,
         r.pid, r.process_id
LIMIT COALESCE($limit, 50);
