-- The build's parallelism over time: how many processes were running,
-- one row per time at which that number changed. A process runs from its
-- first record to its last (half-open: one ending when another starts is
-- no overlap). `kt2sql timeline` draws it as a counter track.
--
-- @param  trace    Only this trace_id (default: every trace).
-- @param  pid      Only every lifetime of this pid and their descendants
--                  (default: every process).
-- @column ts       Time (ns).
-- @column running  Processes running from ts on.
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants.
  member (process_id) AS (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  ),
  change (ts, delta) AS (
    SELECT ts, sum(delta) FROM (
      SELECT p.first_ts AS ts, 1 AS delta FROM process AS p JOIN member USING (process_id)
      UNION ALL
      SELECT p.last_ts, -1 FROM process AS p JOIN member USING (process_id)
    )
    GROUP BY ts
  )
SELECT ts, running FROM (
  SELECT ts, delta, sum(delta) OVER (ORDER BY ts) AS running FROM change
)
WHERE delta <> 0
ORDER BY ts;
