-- The build's sources: the paths it read and never wrote or removed
-- (build_file.role `source`), with how many commands read each.
--
-- @param  trace    Only this trace_id (default: every trace).
-- @param  pid      Only sources read by the processes of this pid and
--                  their descendants (default: the whole build).
-- @param  under    Only paths in this directory tree (default: all).
-- @column path     The source path (TEXT, or BLOB when not UTF-8).
-- @column readers  Commands that read it.
WITH changed AS MATERIALIZED (
  -- A source is a path read and never written or removed (build_file's
  -- role `source`): counted from the reads alone, not from every lookup.
  SELECT DISTINCT trace_id, path_id FROM _build_changed WHERE effect IN ('write', 'remove')
), f AS (
  SELECT a.trace_id, a.path_id, min(pa.path) AS path, count(DISTINCT a.command_id) AS readers
  FROM build_access AS a
  JOIN path AS pa USING (path_id)
  -- (The access kind needs only the lookup, so it drops the others before their call is read.)
  WHERE a.access IN (SELECT access FROM _access_class WHERE effect = 'read')
    AND a.effect = 'read'
    AND ($trace IS NULL OR a.trace_id = $trace)
    AND ($under IS NULL OR pa.path = rtrim($under, '/')
         OR substr(pa.path, 1, length(rtrim($under, '/')) + 1) = rtrim($under, '/') || '/')
    AND NOT EXISTS (SELECT 1 FROM changed AS c
                    WHERE c.trace_id = a.trace_id AND c.path_id = a.path_id)
  GROUP BY a.trace_id, a.path_id
)
SELECT f.path, sum(f.readers) AS readers
FROM f
WHERE ($pid IS NULL OR EXISTS (
        SELECT 1
        FROM build_access AS a
        WHERE a.trace_id = f.trace_id AND a.path_id = f.path_id AND a.effect = 'read'
          AND a.process_id IN (SELECT process_id FROM _scope
                               WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace))))
GROUP BY f.path
ORDER BY CAST(f.path AS BLOB);
