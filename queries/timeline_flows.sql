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
  ),
  -- block: scoped_flow
  -- The file flow rule (build_flow's) for the scope's reads only (with
  -- $pid; without it these are empty), gathering the input of the blocks
  -- flow_after_write and flow_first_read, which follow it. A flow
  -- between two of the scope's commands is a read by the scope of a path
  -- the scope wrote, after the scope's first write of it; but the latest
  -- write before that read may be any process's (and then the read has no
  -- flow in scope). So only the writes of such a path from the scope's
  -- first write of it to its last read of it matter (an earlier one is
  -- never the latest before a read that follows a write of the scope):
  -- they are gathered through the index namei_resolved, and the rule
  -- finds the latest before each read among them. The cost follows the scope's
  -- lookups and the lookups of the paths it wrote and read, never the
  -- rest of the build's reads (most of a build reads the same headers and
  -- objects).
  -- (Not _scope_flow's rows, which take the subtree as a build of its
  -- own, its reads following its own writes only: `graph -p` draws those;
  -- docs/build.md says why the two differ.)
  --
  -- The paths the scope wrote, and its first write of each (through
  -- namei_process).
  wrote (trace_id, path_id, first_write) AS MATERIALIZED (
    SELECT trace_id, path_id, min("offset") FROM build_access
    WHERE $pid IS NOT NULL AND process_id IN (SELECT process_id FROM member)
      AND access IN (SELECT access FROM _access_class WHERE effect = 'write')
      AND effect = 'write'
    GROUP BY trace_id, path_id
  ),
  -- The scope's reads of them after its first write.
  read_of (trace_id, path_id, command_id, "offset", ts) AS MATERIALIZED (
    SELECT a.trace_id, a.path_id, a.command_id, a."offset", a.ts
    FROM build_access AS a
    JOIN wrote AS o ON o.trace_id = a.trace_id AND o.path_id = a.path_id
    WHERE $pid IS NOT NULL AND a.process_id IN (SELECT process_id FROM member)
      AND a.path_id IN (SELECT path_id FROM wrote)
      AND a.access IN (SELECT access FROM _access_class WHERE effect = 'read')
      AND a.effect = 'read' AND a."offset" > o.first_write
  ),
  -- Every write of those paths, the scope's or not, from the scope's
  -- first write to its last read.
  write_of (trace_id, path_id, command_id, "offset", ts) AS MATERIALIZED (
    SELECT w.trace_id, w.path_id, w.command_id, w."offset", w.ts
    FROM (SELECT r.trace_id, r.path_id, o.first_write AS lo, max(r."offset") AS hi
          FROM read_of AS r
          JOIN wrote AS o ON o.trace_id = r.trace_id AND o.path_id = r.path_id
          GROUP BY r.trace_id, r.path_id, o.first_write) AS s
    CROSS JOIN build_access AS w
    WHERE $pid IS NOT NULL AND w.path_id = s.path_id AND w.trace_id = s.trace_id
      AND w."offset" BETWEEN s.lo AND s.hi
      AND w.access IN (SELECT access FROM _access_class WHERE effect = 'write')
      AND w.effect = 'write'
  ),
  -- The scope's reads and those writes, the input of the file flow rule
  -- (the blocks flow_after_write and flow_first_read that follow): every
  -- read follows the scope's first write, so the latest write before it
  -- is among them.
  flow_in (root_pid, trace_id, path_id, command_id, effect, "offset", ts) AS (
    SELECT CAST(NULL AS INTEGER), trace_id, path_id, command_id, 'read', "offset", ts
    FROM read_of
    UNION ALL
    SELECT CAST(NULL AS INTEGER), trace_id, path_id, command_id, 'write', "offset", ts
    FROM write_of
  ),
  -- end block: scoped_flow
  -- block: flow_after_write
  -- The file flow rule, stated once (part 1 of 2; part 2 is
  -- flow_first_read): for each read, write and removal of flow_in
  -- (root_pid, trace_id, path_id, command_id, effect, "offset", ts), the
  -- latest earlier write of its path by file order (removals do not reset
  -- it); when another command made it, the read consumed what that command
  -- produced. Each root_pid is a build of its own.
  -- grp: the path's writes up to this lookup (this one included).
  flow_count AS (
    SELECT root_pid, trace_id, path_id, command_id, effect, "offset", ts,
           count(*) FILTER (WHERE effect = 'write')
             OVER (PARTITION BY root_pid, trace_id, path_id ORDER BY "offset") AS grp
    FROM flow_in
  ),
  -- A group's first row is its write (grp counts it), so first_value is
  -- that write; the rows of group 0 have none. producer: the writer, when
  -- this is a read of another command's write (a flow).
  flow_after (root_pid, trace_id, path_id, command_id, effect, "offset", ts, grp, writer, wts,
              producer) AS (
    SELECT root_pid, trace_id, path_id, command_id, effect, "offset", ts, grp,
           CASE WHEN grp > 0 THEN first_value(command_id) OVER g END,
           CASE WHEN grp > 0 THEN first_value(ts) OVER g END,
           CASE WHEN effect = 'read' AND grp > 0 AND first_value(command_id) OVER g <> command_id
                THEN first_value(command_id) OVER g END
    FROM flow_count
    WINDOW g AS (PARTITION BY root_pid, trace_id, path_id, grp ORDER BY "offset")
  )
  -- end block: flow_after_write
  ,
  -- block: flow_first_read
  -- The file flow rule, part 2 (part 1 is flow_after_write): the flows of
  -- flow_after, one row per (path, producer, consumer) at the consumer's
  -- first read after a write of the producer. Windows, not a GROUP BY:
  -- SQLite passes a filter on root_pid down through windows, not through a
  -- group.
  flow_first (root_pid, trace_id, path_id, producer_id, consumer_id, write_ts, read_ts) AS (
    SELECT root_pid, trace_id, path_id, producer, command_id, wts, ts
    FROM (SELECT root_pid, trace_id, path_id, producer, command_id, wts, ts,
                 row_number() OVER (PARTITION BY root_pid, trace_id, path_id, producer, command_id
                                    ORDER BY "offset") AS n
          FROM flow_after
          WHERE producer IS NOT NULL)
    WHERE n = 1
  )
  -- end block: flow_first_read
  ,
  -- The flows: without $pid, build_flow. With $pid, build_flow's rule
  -- worked out for the scope (flow_first).
  every_flow (trace_id, path, producer_id, consumer_id, write_ts, read_ts) AS (
    SELECT trace_id, path, producer_id, consumer_id, write_ts, read_ts FROM build_flow
    WHERE $pid IS NULL AND ($trace IS NULL OR trace_id = $trace)
    UNION ALL
    SELECT f.trace_id, pa.path, f.producer_id, f.consumer_id, f.write_ts, f.read_ts
    FROM flow_first AS f JOIN path AS pa USING (path_id)
  ),
  flow AS (
    SELECT f.path, f.producer_id, pe.process_id AS producer_process, f.write_ts,
           f.consumer_id, ce.process_id AS consumer_process, f.read_ts
    -- CROSS JOIN: the flows outside, each seeking its two execs (else SQLite
    -- may put the scope's execs outside, over an automatic index of the flows).
    FROM every_flow AS f
    CROSS JOIN exec AS pe
    CROSS JOIN exec AS ce
    WHERE pe.exec_id = f.producer_id AND ce.exec_id = f.consumer_id
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
