-- The process lifetimes of the timeline's scope with their images, one row
-- per image: what `kt2sql timeline` reads to find the critical path
-- (the walk of critical_path.sql, worked out from these rows and the file
-- flows of timeline_flows.sql, so the flows are found once per timeline).
--
-- @param  trace       Only this trace_id (default: every trace).
-- @param  pid         Only every lifetime of this pid and their descendants
--                     (default: every process).
-- @column process_id  Process lifetime (process.process_id).
-- @column trace_id    Trace it was recorded in.
-- @column pid         OS pid.
-- @column parent_id   The forking process's lifetime; NULL for a root.
-- @column first_ts    Time (ns) of its earliest record.
-- @column last_ts     Time (ns) of its latest record.
-- @column fork_ts     Time (ns) of the parent's fork return, when seen.
-- @column scoped      How many times the scope holds it: 1, or more when a
--                     pid reused inside its own subtree takes it again.
-- @column exec_id     One of its images (exec.exec_id); NULL when it has none.
-- @column image       0 for the inherited image, then 1, 2, … per successful exec.
-- @column comm        Command name of the image.
-- @column ts          exec.ts: when the image began (its exec's return).
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants.
  member (process_id) AS MATERIALIZED (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  ),
  times (process_id, n) AS (
    SELECT process_id, count(*) FROM member GROUP BY process_id
  )
SELECT p.process_id, p.trace_id, p.pid, p.parent_id, p.first_ts, p.last_ts, p.fork_ts,
       m.n AS scoped, e.exec_id, e.image, e.comm, e.ts
FROM times AS m
JOIN process AS p ON p.process_id = m.process_id
LEFT JOIN exec AS e ON e.process_id = p.process_id AND e.image IS NOT NULL
ORDER BY p.process_id, e.image;
