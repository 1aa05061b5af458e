-- One row per imported trace: what it is, the time it spans and how much
-- of everything it holds (the head of `kt2sql stats`).
--
-- @param  trace            Only this trace_id (default: every trace).
-- @column trace_id         Trace id.
-- @column path             Trace file path at import time.
-- @column dialect          LAYOUT:ORDER:BITS[:VARIANT].
-- @column size             File size in bytes.
-- @column records          Records decoded.
-- @column complete         1 when every byte was decoded.
-- @column damage           Why decoding stopped early; NULL when complete.
-- @column first_ts         Time (ns) of the earliest record.
-- @column last_ts          Time (ns) of the latest record.
-- @column span             last_ts - first_ts (ns).
-- @column processes        Process lifetimes.
-- @column running_at_start Of them, those already running when tracing began.
-- @column threads          Threads (dialects with thread ids).
-- @column execs            Exec attempts.
-- @column failed_execs     Of them, those that failed.
-- @column calls            Calls made (rows of call_made: a child's return
--                          from fork is not a call).
-- @column failed_calls     Calls that failed.
-- @column no_return        Calls without a return (exit included).
-- @column lookups          Path lookups (namei rows).
-- @column unresolved       Lookups left relative (base directory unknown).
-- @column files            Distinct absolute paths of successful calls.
-- @column events           Rows of table event.
-- @column issues           Rows of table import_issue.
-- @column following        1 while `import --follow` still follows the file
--                          (the build may still run; the rows are a
--                          snapshot), else 0.
-- @column running          Processes alive at the snapshot (rows of the view
--                          running; 0 once the import has ended).
WITH c AS (
  -- The import's per-syscall counts (syscall_stat): no scan of call.
  SELECT trace_id, sum(calls) AS calls, sum(failed) AS failed, sum(no_return) AS no_return
  FROM syscall_stat
  GROUP BY trace_id),
n AS (
  -- The import's per-process lookup counts: no scan of namei.
  SELECT trace_id, sum(lookups) AS lookups, sum(unresolved_lookups) AS unresolved
  FROM process
  GROUP BY trace_id)
SELECT t.trace_id, t.path, t.dialect, t.size, t.records, t.complete, t.damage,
       t.first_ts, t.last_ts, t.last_ts - t.first_ts AS span,
       (SELECT count(*) FROM process AS p WHERE p.trace_id = t.trace_id) AS processes,
       (SELECT count(*) FROM process AS p
        WHERE p.trace_id = t.trace_id AND p.running_at_start = 1) AS running_at_start,
       (SELECT count(*) FROM thread JOIN process USING (process_id)
        WHERE trace_id = t.trace_id) AS threads,
       (SELECT count(*) FROM exec JOIN process USING (process_id)
        WHERE trace_id = t.trace_id AND seq > 0) AS execs,
       (SELECT count(*) FROM exec JOIN process USING (process_id)
        WHERE trace_id = t.trace_id AND seq > 0 AND success = 0) AS failed_execs,
       COALESCE((SELECT calls FROM c WHERE c.trace_id = t.trace_id), 0) AS calls,
       COALESCE((SELECT failed FROM c WHERE c.trace_id = t.trace_id), 0) AS failed_calls,
       COALESCE((SELECT no_return FROM c WHERE c.trace_id = t.trace_id), 0) AS no_return,
       COALESCE((SELECT lookups FROM n WHERE n.trace_id = t.trace_id), 0) AS lookups,
       COALESCE((SELECT unresolved FROM n WHERE n.trace_id = t.trace_id), 0) AS unresolved,
       t.files,
       (SELECT count(*) FROM event AS e WHERE e.trace_id = t.trace_id) AS events,
       t.issues, t.following,
       (SELECT count(*) FROM running AS r WHERE r.trace_id = t.trace_id) AS running
FROM trace AS t
WHERE $trace IS NULL OR t.trace_id = $trace
ORDER BY t.trace_id;
