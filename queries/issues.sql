-- What the importer noticed, grouped: how many issues of each severity and
-- kind, with the first message of each group, worst first.
--
-- @param  trace    Only this trace_id (default: every trace).
-- @column trace_id Trace it concerns.
-- @column severity `data_loss`, `warning` or `info`.
-- @column kind     Machine-readable kind (`truncated`, `skipped`, …: listed in the schema).
-- @column issues   How many.
-- @column example  The message of the first of them.
SELECT trace_id, severity, kind, count(*) AS issues,
       (SELECT message FROM import_issue AS j
        WHERE j.trace_id = i.trace_id AND j.severity = i.severity AND j.kind = i.kind
        ORDER BY j.import_issue_id LIMIT 1) AS example
FROM import_issue AS i
WHERE $trace IS NULL OR trace_id = $trace
GROUP BY trace_id, severity, kind
ORDER BY trace_id,
         CASE severity WHEN 'data_loss' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END,
         issues DESC, kind;
