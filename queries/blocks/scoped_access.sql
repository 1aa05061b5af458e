-- The successful reads and writes: without $pid one pass over the
-- lookups, with it the subtree's own (member's) through the index
-- namei_process, in proportion to the subtree. The branch whose $pid
-- test fails is skipped before it reads a row.
-- (The access kind needs only the lookup, so it drops the others before their call is read.)
access (trace_id, path_id, command_id, effect) AS (
  SELECT trace_id, path_id, command_id, effect FROM build_access
  WHERE $pid IS NULL AND access IN (SELECT access FROM _access_class WHERE effect IN ('read', 'write'))
    AND effect IN ('read', 'write') AND ($trace IS NULL OR trace_id = $trace)
  UNION ALL
  SELECT trace_id, path_id, command_id, effect FROM build_access
  WHERE $pid IS NOT NULL AND process_id IN (SELECT process_id FROM member)
    AND access IN (SELECT access FROM _access_class WHERE effect IN ('read', 'write'))
    AND effect IN ('read', 'write')
),
