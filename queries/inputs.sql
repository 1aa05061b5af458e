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
  -- the index namei_process); the rest of the query looks only at these
  -- paths' lookups (through namei_resolved), so a scope costs in
  -- proportion to what it read.
  SELECT DISTINCT trace_id, path_id
  FROM build_access
  WHERE $pid IS NOT NULL AND process_id IN (SELECT process_id FROM member)
    AND access IN (SELECT access FROM _access_class WHERE effect = 'read') AND effect = 'read'
), changed AS MATERIALIZED (
  -- A source is a path read and never written or removed (build_file's
  -- role `source`): counted from the reads alone, not from every lookup.
  -- Without $pid every changed path; with it, those among the subtree's.
  SELECT DISTINCT trace_id, path_id FROM _build_changed
  WHERE $pid IS NULL AND effect IN ('write', 'remove')
  UNION
  SELECT trace_id, path_id FROM build_access
  WHERE $pid IS NOT NULL AND path_id IN (SELECT path_id FROM mine)
    AND access IN (SELECT access FROM _access_class WHERE effect IN ('write', 'remove'))
    AND effect IN ('write', 'remove')
), r AS (
  -- Readers per path read: of every path without $pid; with it, of the
  -- subtree's paths only (readers still counts the whole build's). The
  -- branch whose $pid test fails is skipped before it reads a row.
  -- (The access kind needs only the lookup, so it drops the others before their call is read.)
  SELECT trace_id, path_id, count(DISTINCT command_id) AS readers FROM build_access
  WHERE $pid IS NULL AND access IN (SELECT access FROM _access_class WHERE effect = 'read')
    AND effect = 'read' AND ($trace IS NULL OR trace_id = $trace)
  GROUP BY trace_id, path_id
  UNION ALL
  SELECT trace_id, path_id, count(DISTINCT command_id) FROM build_access
  WHERE $pid IS NOT NULL AND path_id IN (SELECT path_id FROM mine)
    AND access IN (SELECT access FROM _access_class WHERE effect = 'read') AND effect = 'read'
    AND ($trace IS NULL OR trace_id = $trace)
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
