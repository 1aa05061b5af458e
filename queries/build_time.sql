-- Where the time went, per trace: the wall time from the first process's
-- start to the last one's end, the summed time of every process, and the
-- parallelism (processes running at once: their average, the summed time
-- over the wall time, and the peak). `kt2sql stats` prints it.
--
-- @param  trace          Only this trace_id (default: every trace).
-- @param  pid            Only every lifetime of this pid and their
--                        descendants (default: every process).
-- @column trace_id       Trace it was recorded in.
-- @column processes      Process lifetimes.
-- @column commands       Commands: process images (the rows of the timeline).
-- @column start_ts       Time (ns) of the first process's first record.
-- @column end_ts         Time (ns) of the last record of the process that ended last.
-- @column wall           end_ts - start_ts (ns).
-- @column process_time   Sum of every process's last_ts - first_ts (ns).
-- @column avg_parallel   process_time / wall (NULL when wall is 0).
-- @column peak_parallel  Most processes running at once.
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants.
  member (process_id) AS (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  ),
  scope AS (SELECT p.* FROM process AS p JOIN member USING (process_id)),
  change (trace_id, ts, delta) AS (
    SELECT trace_id, ts, sum(delta) FROM (
      SELECT trace_id, first_ts AS ts, 1 AS delta FROM scope
      UNION ALL
      SELECT trace_id, last_ts, -1 FROM scope
    )
    GROUP BY trace_id, ts
  ),
  peak (trace_id, peak) AS (
    SELECT trace_id, max(running) FROM (
      SELECT trace_id, sum(delta) OVER (PARTITION BY trace_id ORDER BY ts) AS running
      FROM change
    )
    GROUP BY trace_id
  ),
  -- The images run in the scope, per trace (a join, not a subquery
  -- naming the outer row two levels down: Spark reads no such reference).
  commands (trace_id, n) AS (
    SELECT q.trace_id, count(*)
    FROM exec AS e JOIN (SELECT DISTINCT trace_id, process_id FROM scope) AS q USING (process_id)
    WHERE e.image IS NOT NULL
    GROUP BY q.trace_id
  )
SELECT s.trace_id, count(*) AS processes,
       COALESCE(c.n, 0) AS commands,
       min(s.first_ts) AS start_ts, max(s.last_ts) AS end_ts,
       max(s.last_ts) - min(s.first_ts) AS wall, sum(s.last_ts - s.first_ts) AS process_time,
       CASE WHEN max(s.last_ts) > min(s.first_ts)
            THEN round(sum(s.last_ts - s.first_ts) * 1.0
                       / (max(s.last_ts) - min(s.first_ts)), 2) END AS avg_parallel,
       k.peak AS peak_parallel
FROM scope AS s
JOIN peak AS k USING (trace_id)
LEFT JOIN commands AS c USING (trace_id)
GROUP BY s.trace_id, k.peak, c.n
ORDER BY s.trace_id;
