-- What the importer noticed, grouped: how many issues of each severity and
-- kind, with the first message of each group, worst first.
--
-- @param  trace    Only this trace_id (default: every trace).
-- @column trace_id Trace it concerns.
-- @column severity `data_loss`, `warning` or `info`.
-- @column kind     Machine-readable kind (`truncated`, `skipped`, …: listed in the schema).
-- @column issues   How many.
-- @column example  The message of the first of them.
-- Each group's first row (window functions, not a correlated subquery in
-- the select list of a GROUP BY: Spark refuses that).
SELECT trace_id, severity, kind, issues, message AS example
FROM (SELECT trace_id, severity, kind, message,
             count(*) OVER (PARTITION BY trace_id, severity, kind) AS issues,
             row_number() OVER (PARTITION BY trace_id, severity, kind
                                ORDER BY import_issue_id) AS n
      FROM import_issue
      WHERE $trace IS NULL OR trace_id = $trace) AS g
WHERE n = 1
ORDER BY trace_id,
         CASE severity WHEN 'data_loss' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END,
         issues DESC, kind;
