-- The timeline's tracks: one per process lifetime in scope, and the Chrome
-- `pid` it is drawn under. A lifetime whose OS pid no other lifetime in
-- scope holds keeps its OS pid. When several do (the pid was reused, or
-- two traces share it), they are numbered 1, 2, … by trace, start and
-- process_id; the first keeps the OS pid and the k-th is drawn under
-- pid + (k - 1) * M, M the smallest power of ten above every pid in
-- scope, so no two tracks meet and the OS pid still shows in the digits.
--
-- @param  trace       Only this trace_id (default: every trace).
-- @param  pid         Only every lifetime of this pid and their descendants
--                     (default: every process).
-- @column process_id  Process lifetime (process.process_id).
-- @column trace_id    Trace it was recorded in.
-- @column pid         OS pid.
-- @column track       The Chrome `pid` of its track.
-- @column lifetime    1, 2, … among the lifetimes in scope with this pid.
-- @column lifetimes   How many lifetimes in scope have this pid.
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants
  -- (MATERIALIZED: a list that leads the loop below; not materialized,
  -- SQLite folds the join into _scope's branches and scans every process
  -- in pid order for the window).
  member (process_id) AS MATERIALIZED (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  ),
  life (process_id, trace_id, pid, lifetime, lifetimes) AS (
    SELECT p.process_id, p.trace_id, p.pid,
           row_number() OVER (PARTITION BY p.pid
                              ORDER BY p.trace_id, p.first_ts, p.process_id),
           count(*) OVER (PARTITION BY p.pid)
    FROM process AS p WHERE p.process_id IN (SELECT process_id FROM member)
  ),
  -- M: the smallest power of ten above every pid in scope, a 1 followed
  -- by as many zeros as the largest pid has digits.
  ten (m) AS (
    SELECT CAST('1' || substr('000000000000000000', 1, length(CAST(CASE WHEN max(pid) > 1 THEN max(pid) ELSE 1 END AS TEXT))) AS INTEGER)
    FROM life
  )
SELECT process_id, trace_id, pid,
       pid + (lifetime - 1) * (SELECT m FROM ten) AS track, lifetime, lifetimes
FROM life
ORDER BY process_id;
