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
  -- build_flow's rule for the scope's reads only (with $pid; without it
  -- these are empty): for each read, the latest earlier write of the path
  -- by file order (removals do not reset it); when another command made
  -- it, that command produced what this one consumed; one row per path,
  -- producer and consumer, at the consumer's first such read. A flow
  -- between two of the scope's commands is a read by the scope of a path
  -- the scope wrote, but the latest write before it may be any process's
  -- (and then that read has no flow in scope): each read seeks it among
  -- the lookups of its path (through the index namei_resolved). So the
  -- cost follows the scope's lookups and the lookups of the paths it both
  -- wrote and read, never the rest of the build's reads (most of a build
  -- reads the same headers and objects).
  --
  -- The paths the scope wrote (through namei_process).
  wrote (path_id) AS MATERIALIZED (
    SELECT DISTINCT path_id FROM build_access
    WHERE $pid IS NOT NULL AND process_id IN (SELECT process_id FROM member)
      AND access IN (SELECT access FROM _access_class WHERE effect = 'write')
      AND effect = 'write'
  ),
  -- The scope's reads of them, each with the latest write before it.
  read_of (trace_id, path_id, command_id, "offset", ts, write_id) AS (
    SELECT r.trace_id, r.path_id, r.command_id, r."offset", r.ts,
           (SELECT w.namei_id FROM build_access AS w
            WHERE w.path_id = r.path_id AND w.trace_id = r.trace_id
              AND w."offset" < r."offset"
              AND w.access IN (SELECT access FROM _access_class WHERE effect = 'write')
              AND w.effect = 'write'
            ORDER BY w."offset" DESC LIMIT 1)
    FROM build_access AS r
    WHERE $pid IS NOT NULL AND r.process_id IN (SELECT process_id FROM member)
      AND r.path_id IN (SELECT path_id FROM wrote)
      AND r.access IN (SELECT access FROM _access_class WHERE effect = 'read')
      AND r.effect = 'read'
  ),
  -- n = 1: the consumer's first read after a write of the producer.
  fed (trace_id, path_id, producer_id, consumer_id, write_ts, read_ts, n) AS (
    SELECT r.trace_id, r.path_id, w.command_id, r.command_id, w.ts, r.ts,
           row_number() OVER (PARTITION BY r.trace_id, r.path_id, w.command_id, r.command_id
                              ORDER BY r."offset")
    FROM read_of AS r
    JOIN build_access AS w ON w.namei_id = r.write_id
    WHERE w.command_id <> r.command_id
  ),
  -- The flows: without $pid, build_flow. With $pid, build_flow's rule
  -- worked out for the scope (fed).
  every_flow (trace_id, path, producer_id, consumer_id, write_ts, read_ts) AS (
    SELECT trace_id, path, producer_id, consumer_id, write_ts, read_ts FROM build_flow
    WHERE $pid IS NULL AND ($trace IS NULL OR trace_id = $trace)
    UNION ALL
    SELECT f.trace_id, pa.path, f.producer_id, f.consumer_id, f.write_ts, f.read_ts
    FROM fed AS f JOIN path AS pa USING (path_id)
    WHERE f.n = 1
  ),
  flow AS (
    SELECT f.path, f.producer_id, pe.process_id AS producer_process, f.write_ts,
           f.consumer_id, ce.process_id AS consumer_process, f.read_ts
    FROM every_flow AS f
    JOIN exec AS pe ON pe.exec_id = f.producer_id
    JOIN exec AS ce ON ce.exec_id = f.consumer_id
    WHERE pe.process_id IN (SELECT process_id FROM member)
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
