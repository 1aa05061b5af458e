-- Commands that failed, the latest first (`kt2sql watch`): the last image
-- of each process that exited non-zero or was killed by a signal.
--
-- @param  trace        Only this trace_id (default: every trace).
-- @param  limit        Maximum rows (default: 10).
-- @column trace_id     Trace it was recorded in.
-- @column process_id   Process lifetime.
-- @column pid          OS pid.
-- @column comm         Command name of its last image.
-- @column command      Its command line: argv joined by spaces where the
--                      trace records it, else the program's path, else comm.
-- @column exit_status  Argument of its exit call, when seen.
-- @column exit_signal  Signal that killed it, when seen.
-- @column end_seen_by  What showed its end (process.end_seen_by).
-- @column exit_ts      Time (ns) its end was seen.
-- @column ago          ns from its end to the trace's latest record.
WITH failed AS (
  SELECT p.trace_id, p.process_id, p.pid, p.exit_status, p.exit_signal, p.end_seen_by,
         p.exit_ts, t.last_ts - p.exit_ts AS ago,
         (SELECT max(e.seq) FROM exec AS e
          WHERE e.process_id = p.process_id AND e.success = 1) AS seq
  FROM process AS p
  JOIN trace AS t ON t.trace_id = p.trace_id
  WHERE p.exit_seen = 1 AND ($trace IS NULL OR p.trace_id = $trace)
    AND (p.exit_status <> 0 OR p.exit_signal IS NOT NULL
         OR (p.exit_status IS NULL AND p.end_seen_by IN ('signal', 'core', 'procdtor')))
)
SELECT f.trace_id, f.process_id, f.pid, e.comm,
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
         , COALESCE(rp.path, e.comm)) AS command,
       f.exit_status, f.exit_signal, f.end_seen_by, f.exit_ts, f.ago
FROM failed AS f
JOIN exec AS e ON e.process_id = f.process_id AND e.seq = f.seq
LEFT JOIN path AS rp ON rp.path_id = e.resolved_id
ORDER BY f.exit_ts DESC, f.process_id DESC
LIMIT COALESCE($limit, 10);
