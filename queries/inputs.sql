-- The build's sources: the paths it read and never wrote or removed
-- (build_file.role `source`), with how many commands read each.
--
-- @param  trace    Only this trace_id (default: every trace).
-- @param  pid      Only sources read by the processes of this pid and
--                  their descendants (default: the whole build).
-- @param  under    Only paths in this directory tree (default: all).
-- @column path     The source path (TEXT, or BLOB when not UTF-8).
-- @column readers  Commands that read it.
WITH member (process_id) AS MATERIALIZED (
  SELECT process_id FROM _scope WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
), mine AS MATERIALIZED (
  -- With $pid: the paths the subtree read, from its own lookups (through
  -- the index namei_process).
  SELECT DISTINCT trace_id, path_id
  FROM build_access
  WHERE $pid IS NOT NULL AND process_id IN (SELECT process_id FROM member)
    AND access IN (SELECT access FROM _access_class WHERE effect = 'read') AND effect = 'read'
), changed AS MATERIALIZED (
  -- A source is a path read and never written or removed (build_file's
  -- role `source`): counted from the reads alone, not from every lookup.
  SELECT DISTINCT trace_id, path_id FROM _build_changed WHERE effect IN ('write', 'remove')
), r AS (
  -- Readers per path read (with $pid, of the subtree's paths only, but
  -- counting the whole build's readers). One pass over the lookups with a
  -- list test: the subtree's paths are most often read by much of the
  -- build, and seeking their lookups through namei_resolved read the
  -- table in random order (twice the CPU on the 1 GiB benchmark).
  -- (The access kind needs only the lookup, so it drops the others before their call is read.)
  SELECT trace_id, path_id, count(DISTINCT command_id) AS readers FROM build_access
  WHERE access IN (SELECT access FROM _access_class WHERE effect = 'read')
    AND effect = 'read' AND ($trace IS NULL OR trace_id = $trace)
    AND ($pid IS NULL OR path_id IN (SELECT path_id FROM mine))
  GROUP BY trace_id, path_id
)
SELECT pa.path, sum(r.readers) AS readers
FROM r
JOIN path AS pa USING (path_id)
WHERE ($under IS NULL OR pa.path = rtrim($under, '/')
       OR substr(pa.path, 1, length(rtrim($under, '/')) + 1) = rtrim($under, '/') || '/')
  AND NOT EXISTS (SELECT 1 FROM changed AS c
                  WHERE c.trace_id = r.trace_id AND c.path_id = r.path_id)
  AND ($pid IS NULL OR EXISTS (SELECT 1 FROM mine AS m
                               WHERE m.trace_id = r.trace_id AND m.path_id = r.path_id))
GROUP BY pa.path
ORDER BY CAST(pa.path AS BLOB);
