-- The file arrows of the timeline: one per producer -> consumer flow
-- (build_flow) whose two commands are both in scope, from the producer's
-- write of the path to the consumer's first read of it after that write.
-- Their ids follow every process_id, so they never meet the fork arrows'
-- (which are process_ids).
--
-- @param  trace         Only this trace_id (default: every trace).
-- @param  pid           Only every lifetime of this pid and their descendants
--                       (default: every process).
-- @column id            The arrow's id: greater than every process_id.
-- @column path          The path that flowed (TEXT, or BLOB when not UTF-8).
-- @column producer_id   The command that wrote it (command.command_id).
-- @column producer_pid  Its OS pid.
-- @column producer_tid  Its process's first thread (as timeline_slices' tid).
-- @column write_ts      Time (ns) of the write.
-- @column consumer_id   The command that read it (command.command_id).
-- @column consumer_pid  Its OS pid.
-- @column consumer_tid  Its process's first thread (as timeline_slices' tid).
-- @column read_ts       Time (ns) of the read.
-- @column producer_process  The producer's lifetime (process.process_id).
-- @column consumer_process  The consumer's lifetime (process.process_id).
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants.
  member (process_id) AS MATERIALIZED (
    SELECT process_id FROM _scope WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
  ),
  first_tid (process_id, tid) AS (
    SELECT p.process_id,
           COALESCE((SELECT h.tid FROM thread AS h WHERE h.process_id = p.process_id
                     ORDER BY h.first_ts, h.thread_id LIMIT 1), p.pid)
    FROM process AS p
  ),
  flow AS (
    SELECT f.path, f.producer_id, pe.process_id AS producer_process, f.write_ts,
           f.consumer_id, ce.process_id AS consumer_process, f.read_ts
    FROM build_flow AS f
    JOIN exec AS pe ON pe.exec_id = f.producer_id
    JOIN exec AS ce ON ce.exec_id = f.consumer_id
    WHERE ($trace IS NULL OR f.trace_id = $trace)
      AND pe.process_id IN (SELECT process_id FROM member)
      AND ce.process_id IN (SELECT process_id FROM member)
  )
SELECT (SELECT COALESCE(max(process_id), 0) FROM process)
         + row_number() OVER (ORDER BY f.read_ts, f.write_ts, f.consumer_id, f.producer_id, f.path)
         AS id,
       f.path, f.producer_id, pp.pid AS producer_pid, pt.tid AS producer_tid, f.write_ts,
       f.consumer_id, cp.pid AS consumer_pid, ct.tid AS consumer_tid, f.read_ts,
       f.producer_process, f.consumer_process
FROM flow AS f
JOIN process AS pp ON pp.process_id = f.producer_process
JOIN first_tid AS pt ON pt.process_id = f.producer_process
JOIN process AS cp ON cp.process_id = f.consumer_process
JOIN first_tid AS ct ON ct.process_id = f.consumer_process
ORDER BY id;
