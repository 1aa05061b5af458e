-- The file flow rule (build_flow's) for the scope's reads only (with
-- $pid; without it these are empty), gathering the input of the blocks
-- flow_after_write and flow_first_read, which follow it. A flow
-- between two of the scope's commands is a read by the scope of a path
-- the scope wrote, after the scope's first write of it; but the latest
-- write before that read may be any process's (and then the read has no
-- flow in scope). So only the writes of such a path from the scope's
-- first write of it to its last read of it matter (an earlier one is
-- never the latest before a read that follows a write of the scope):
-- they are gathered through the index namei_resolved, and the rule
-- finds the latest before each read among them. The cost follows the scope's
-- lookups and the lookups of the paths it wrote and read, never the
-- rest of the build's reads (most of a build reads the same headers and
-- objects).
-- (Not _scope_flow's rows, which take the subtree as a build of its
-- own, its reads following its own writes only: `graph -p` draws those;
-- docs/build.md says why the two differ.)
--
-- The paths the scope wrote, and its first write of each (through
-- namei_process).
wrote (trace_id, path_id, first_write) AS MATERIALIZED (
  SELECT trace_id, path_id, min("offset") FROM build_access
  WHERE $pid IS NOT NULL AND process_id IN (SELECT process_id FROM member)
    AND access IN (SELECT access FROM _access_class WHERE effect = 'write')
    AND effect = 'write'
  GROUP BY trace_id, path_id
),
-- The scope's reads of them after its first write.
read_of (trace_id, path_id, command_id, "offset", ts) AS MATERIALIZED (
  SELECT a.trace_id, a.path_id, a.command_id, a."offset", a.ts
  FROM build_access AS a
  JOIN wrote AS o ON o.trace_id = a.trace_id AND o.path_id = a.path_id
  WHERE $pid IS NOT NULL AND a.process_id IN (SELECT process_id FROM member)
    AND a.path_id IN (SELECT path_id FROM wrote)
    AND a.access IN (SELECT access FROM _access_class WHERE effect = 'read')
    AND a.effect = 'read' AND a."offset" > o.first_write
),
-- Every write of those paths, the scope's or not, from the scope's
-- first write to its last read.
write_of (trace_id, path_id, command_id, "offset", ts) AS MATERIALIZED (
  SELECT w.trace_id, w.path_id, w.command_id, w."offset", w.ts
  FROM (SELECT r.trace_id, r.path_id, o.first_write AS lo, max(r."offset") AS hi
        FROM read_of AS r
        JOIN wrote AS o ON o.trace_id = r.trace_id AND o.path_id = r.path_id
        GROUP BY r.trace_id, r.path_id, o.first_write) AS s
  CROSS JOIN build_access AS w
  WHERE $pid IS NOT NULL AND w.path_id = s.path_id AND w.trace_id = s.trace_id
    AND w."offset" BETWEEN s.lo AND s.hi
    AND w.access IN (SELECT access FROM _access_class WHERE effect = 'write')
    AND w.effect = 'write'
),
-- The scope's reads and those writes, the input of the file flow rule
-- (the blocks flow_after_write and flow_first_read that follow): every
-- read follows the scope's first write, so the latest write before it
-- is among them.
flow_in (root_pid, trace_id, path_id, command_id, effect, "offset", ts) AS (
  SELECT CAST(NULL AS INTEGER), trace_id, path_id, command_id, 'read', "offset", ts
  FROM read_of
  UNION ALL
  SELECT CAST(NULL AS INTEGER), trace_id, path_id, command_id, 'write', "offset", ts
  FROM write_of
),
