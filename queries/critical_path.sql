-- The critical path: the chain of commands that set the wall time, through
-- fork, exec and wait ordering and file dependencies, earliest step first.
-- It is found backwards from the process that ended last: a process
-- waited for the child of its that ended last before the point reached
-- (and ran on from that child's end); a process with no such child ran
-- from its start, which its parent reached at its fork's return (or at the
-- child's first record, when that came first); a root in scope (no traced
-- parent, or the `$pid` lifetimes) follows the root that ended last before
-- it began. But when a command of the process read, before the point
-- reached, a file that another process in scope wrote (build_flow), and
-- the latest such write came after that child's end, fork or earlier
-- root, the process waited for the write instead: the path goes to the
-- writer at its write. Each step is one command (process image) over the
-- stretch of time it held the path.
-- `kt2sql stats` prints a summary of it per trace; `kt2sql timeline` highlights it.
--
-- @param  trace      Only this trace_id (default: every trace, chained by time).
-- @param  pid        Only every lifetime of this pid and their descendants
--                    (default: every process).
-- @column step       1, 2, … in time order.
-- @column trace_id   Trace it was recorded in.
-- @column process_id Process lifetime (process.process_id).
-- @column pid        OS pid.
-- @column exec_id    The command: its image (exec.exec_id).
-- @column image      0 for the inherited image, then 1, 2, … per successful exec.
-- @column comm       Command name of the image.
-- @column start_ts   Time (ns) the step began.
-- @column end_ts     Time (ns) it ended.
-- @column dur        end_ts - start_ts (ns): the step's own time.
-- @column wait       Time (ns) between the previous step's end and this
--                    step's start, in no command of the path: the fork's
--                    hand-over to a child, or the gap between two roots.
-- @column via        How the step follows the previous one: `start` (the
--                    first step), `fork` (a child after its parent's fork),
--                    `exec` (the next image of the same process), `wait`
--                    (a parent after its child's end), `file` (a reader of
--                    a file after the previous step's write of it), `after`
--                    (a root after an earlier root ended, with no traced
--                    edge between them).
WITH RECURSIVE
  -- The scope: the trace's processes, or the pid's lifetimes and descendants
  -- (MATERIALIZED: worked out once for the query's several uses).
  member (process_id) AS MATERIALIZED (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  ),
  -- The roots of the scope: the processes the walk cannot go above (found
  -- through the indexes process_parent and process_pid).
  top (process_id, pid, first_ts, last_ts) AS MATERIALIZED (
    SELECT process_id, pid, first_ts, last_ts FROM process
    WHERE $pid IS NULL AND parent_id IS NULL AND ($trace IS NULL OR trace_id = $trace)
    UNION ALL
    SELECT process_id, pid, first_ts, last_ts FROM process
    WHERE pid = $pid AND ($trace IS NULL OR trace_id = $trace)
  ),
  -- The roots ranked by when they ended (then start, pid, id): the roots
  -- that ended by a given time are the first ones of this order.
  ranked (process_id, rk) AS MATERIALIZED (
    SELECT process_id, row_number() OVER (ORDER BY last_ts, first_ts, pid, process_id)
    FROM top
  ),
  -- n: how many roots ended at or before each root began (ends sort
  -- before starts at the same time).
  ended (process_id, n) AS (
    SELECT process_id, n
    FROM (SELECT process_id, ev,
                 sum(1 - ev) OVER (ORDER BY t, ev ROWS UNBOUNDED PRECEDING) AS n
          FROM (SELECT process_id, last_ts AS t, 0 AS ev FROM top
                UNION ALL
                SELECT process_id, first_ts, 1 FROM top) AS x) AS y
    WHERE ev = 1
  ),
  -- Each root's predecessor: the other root that ended last before it
  -- began, the last of the first n ranked (or the one before, when that
  -- is the root itself). One sort, not a scan of the roots per root.
  after_root (process_id, prev_id) AS MATERIALIZED (
    SELECT e.process_id,
           CASE WHEN a.process_id <> e.process_id THEN a.process_id ELSE b.process_id END
    FROM ended AS e
    LEFT JOIN ranked AS a ON a.rk = e.n
    LEFT JOIN ranked AS b ON b.rk = e.n - 1
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
  -- File dependencies between two processes of the scope: the consumer's
  -- process read at read_ts what the producer's wrote at write_ts. The
  -- flows: without $pid, build_flow; with it, build_flow's rule worked out
  -- for the scope (flow_first).
  every_flow (trace_id, producer_id, consumer_id, write_ts, read_ts) AS (
    SELECT trace_id, producer_id, consumer_id, write_ts, read_ts FROM build_flow
    WHERE $pid IS NULL AND ($trace IS NULL OR trace_id = $trace)
    UNION ALL
    SELECT trace_id, producer_id, consumer_id, write_ts, read_ts FROM flow_first
  ),
  dep (consumer, producer, write_ts, read_ts) AS MATERIALIZED (
    SELECT DISTINCT ce.process_id, pe.process_id, f.write_ts, f.read_ts
    -- CROSS JOIN: the flows outside, each seeking its two execs (else SQLite
    -- may put the scope's execs outside, over an automatic index of the flows).
    FROM every_flow AS f
    CROSS JOIN exec AS ce
    CROSS JOIN exec AS pe
    WHERE ce.exec_id = f.consumer_id AND pe.exec_id = f.producer_id
      AND ce.process_id <> pe.process_id
      AND ce.process_id IN (SELECT process_id FROM member)
      AND pe.process_id IN (SELECT process_id FROM member)
  ),
  bound (n) AS MATERIALIZED (SELECT 3 * count(*) + 1 FROM member),
  -- States of the backward walk: in process `process_id` at time `t`,
  -- reached from the previous state by `how` (NULL for the first).
  walk (n, process_id, t, how) AS (
    SELECT 0, process_id, last_ts, CAST(NULL AS TEXT) FROM (
      SELECT p.process_id, p.last_ts FROM process AS p JOIN member AS m USING (process_id)
      ORDER BY p.last_ts DESC, p.first_ts, p.process_id LIMIT 1)
    UNION ALL
    SELECT w.n + 1,
           COALESCE(d.producer, c.process_id, up.process_id, r.process_id),
           COALESCE(d.write_ts, c.last_ts,
                    CASE WHEN up.process_id IS NOT NULL
                         THEN CASE WHEN p.fork_ts < p.first_ts THEN p.fork_ts ELSE p.first_ts END END,
                    r.last_ts),
           CASE WHEN d.producer IS NOT NULL THEN 'file'
                WHEN c.process_id IS NOT NULL THEN 'wait'
                WHEN up.process_id IS NOT NULL THEN 'fork' ELSE 'after' END
    FROM walk AS w
    JOIN process AS p ON p.process_id = w.process_id
    LEFT JOIN process AS c ON c.process_id = (
      SELECT k.process_id FROM process AS k
      WHERE k.parent_id = w.process_id AND k.last_ts <= w.t
        -- Back at a fork, a child that ended at that very time is the one
        -- just left (all its records at one instant): not again.
        AND NOT (w.how IS NOT DISTINCT FROM 'fork' AND k.last_ts = w.t)
      ORDER BY k.last_ts DESC, k.first_ts DESC, k.pid DESC, k.process_id DESC LIMIT 1)
    LEFT JOIN process AS up
      ON c.process_id IS NULL AND up.process_id = p.parent_id
     AND p.process_id NOT IN (SELECT process_id FROM top)
    LEFT JOIN after_root AS ar ON c.process_id IS NULL AND ar.process_id = p.process_id
    LEFT JOIN process AS r ON r.process_id = ar.prev_id
    -- The latest write the process read before `t`, when it came after
    -- the other way back (strictly: a tie keeps the process-tree edge).
    LEFT JOIN dep AS d
      ON (d.consumer, d.producer, d.write_ts, d.read_ts) = (
           SELECT k.consumer, k.producer, k.write_ts, k.read_ts FROM dep AS k
           WHERE k.consumer = w.process_id AND k.read_ts <= w.t
           ORDER BY k.write_ts DESC, k.read_ts DESC, k.producer DESC LIMIT 1)
     AND (COALESCE(c.process_id, up.process_id, r.process_id) IS NULL
          OR d.write_ts > COALESCE(c.last_ts,
                                   CASE WHEN up.process_id IS NOT NULL
                                        THEN CASE WHEN p.fork_ts < p.first_ts THEN p.fork_ts ELSE p.first_ts END END,
                                   r.last_ts))
    WHERE COALESCE(d.producer, c.process_id, up.process_id, r.process_id) IS NOT NULL
      -- A correct path has at most three steps per process; this ends the
      -- walk in a tie of equal times that would otherwise go round.
      AND w.n < (SELECT n FROM bound)
  ),
  -- One segment per state: the process held the path up to `t` from the
  -- end of the child it waited for or the write it waited for, else from
  -- its own start.
  seg (n, process_id, start_ts, end_ts, prev_end, via) AS (
    SELECT s.n, s.process_id,
           CASE WHEN s.next_how IN ('wait', 'file') THEN s.next_t ELSE p.first_ts END,
           s.t, s.next_t, COALESCE(s.next_how, 'start')
    FROM (SELECT n, process_id, t, lead(t) OVER (ORDER BY n) AS next_t,
                 lead(how) OVER (ORDER BY n) AS next_how
          FROM walk) AS s
    JOIN process AS p ON p.process_id = s.process_id
  ),
  -- Every successful image of a process on the path, with the time the
  -- next one began (the inherited image begins at the first record).
  img (exec_id, process_id, image, comm, ts, next_ts) AS (
    SELECT e.exec_id, e.process_id, e.image, e.comm,
           CASE WHEN e.image = 0 THEN p.first_ts ELSE e.ts END,
           (SELECT min(e2.ts) FROM exec AS e2
            WHERE e2.process_id = e.process_id AND e2.image > e.image)
    FROM exec AS e
    JOIN process AS p ON p.process_id = e.process_id
    WHERE e.image IS NOT NULL AND e.process_id IN (SELECT process_id FROM seg)
  ),
  -- Each segment cut at its process's execs: one piece per command.
  piece AS (
    SELECT s.n, i.image, s.process_id, i.exec_id, i.comm,
           CASE WHEN s.start_ts > i.ts THEN s.start_ts ELSE i.ts END AS start_ts,
           CASE WHEN i.next_ts < s.end_ts THEN i.next_ts ELSE s.end_ts END AS end_ts,
           s.prev_end, s.via,
           row_number() OVER (PARTITION BY s.n ORDER BY i.image) AS k
    FROM seg AS s
    JOIN img AS i ON i.process_id = s.process_id
    WHERE (i.next_ts IS NULL OR i.next_ts > s.start_ts)
      AND (i.ts < s.end_ts OR i.ts <= s.start_ts)
  )
SELECT row_number() OVER (ORDER BY x.n DESC, x.image) AS step, p.trace_id, x.process_id,
       p.pid, x.exec_id, x.image, x.comm, x.start_ts, x.end_ts, x.end_ts - x.start_ts AS dur,
       CASE WHEN x.k = 1 THEN COALESCE(x.start_ts - x.prev_end, 0) ELSE 0 END AS wait,
       CASE WHEN x.k = 1 THEN x.via ELSE 'exec' END AS via
FROM piece AS x
JOIN process AS p ON p.process_id = x.process_id
ORDER BY step;
