-- The head of `kt2sql watch`: per trace, whether it is still being
-- followed, the time it spans so far, its processes running and finished,
-- and how far the import has read the file.
--
-- @param  trace           Only this trace_id (default: every trace).
-- @column trace_id        Trace id.
-- @column path            Trace file path at import time.
-- @column following       1 while `import --follow` still follows the file
--                         (the build may still run), else 0.
-- @column first_ts        Time (ns) of the earliest record.
-- @column snapshot_ts     Time (ns) of the latest record: the snapshot's time.
-- @column elapsed         snapshot_ts - first_ts (ns).
-- @column processes       Process lifetimes seen so far.
-- @column running         Of them, those alive at the snapshot (rows of the
--                         view running; 0 once the import has ended).
-- @column finished        Of them, those whose end was seen.
-- @column failed          Of the finished, those that exited non-zero or
--                         were killed by a signal.
-- @column records         Records imported.
-- @column size            Bytes of the file the import knows of.
-- @column decoded_bytes   Bytes imported into records.
-- @column lag_bytes       size - decoded_bytes: how far the import lags the
--                         file's end (as of its last commit).
-- @column dropped_records Records carrying FreeBSD's dropped-events flag:
--                         the kernel lost records before each.
SELECT t.trace_id, t.path, t.following, t.first_ts, t.last_ts AS snapshot_ts,
       t.last_ts - t.first_ts AS elapsed,
       (SELECT count(*) FROM process AS p WHERE p.trace_id = t.trace_id) AS processes,
       (SELECT count(*) FROM running AS r WHERE r.trace_id = t.trace_id) AS running,
       (SELECT count(*) FROM process AS p
        WHERE p.trace_id = t.trace_id AND p.exit_seen = 1) AS finished,
       (SELECT count(*) FROM process AS p
        WHERE p.trace_id = t.trace_id AND p.exit_seen = 1
          AND (p.exit_status <> 0 OR p.exit_signal IS NOT NULL
               OR (p.exit_status IS NULL AND p.end_seen_by IN ('signal', 'core', 'procdtor'))))
         AS failed,
       t.records, t.size, t.decoded_bytes, t.size - t.decoded_bytes AS lag_bytes,
       t.dropped_records
FROM trace AS t
WHERE $trace IS NULL OR t.trace_id = $trace
ORDER BY t.trace_id;
