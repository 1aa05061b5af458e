-- The build's sources: the paths it read and never wrote or removed
-- (build_file.role `source`), with how many commands read each. Never a
-- directory (a path the trace looked up paths below, or one mkdir(2)
-- created, as `deps` and `outputs` have it), nor a device or pseudo file
-- (in /dev, /proc, /sys: /dev/null, /proc/self/maps; no file the build
-- was made from).
--
-- @param  trace    Only this trace_id (default: every trace).
-- @param  pid      Only sources read by the processes of this pid and
--                  their descendants (default: the whole build): paths
--                  the whole build never wrote or removed, each with the
--                  subtree's commands that read it.
-- @param  under    Only paths in this directory tree (default: all).
-- @param  exclude  Leave out the paths in these directory trees, a JSON
--                  array (default: none).
-- @param  system   The system directories as a JSON array: their paths
--                  are left out, unless in the directory the trace
--                  started in (`kt2sql inputs` passes them unless
--                  --system); NULL keeps them (the default).
-- @column path     The source path (TEXT, or BLOB when not UTF-8).
-- @column readers  Commands that read it (with $pid, of the subtree).
WITH
-- block: path_filter
-- The path filters: dropped, the device and pseudo files (_device_path),
-- the paths under an $exclude directory and (unless $system is NULL) a
-- system one outside the start directory; kept, the paths under $under.
dirs (dir, system) AS (
  SELECT rtrim(value, '/'), 0 FROM json_each($exclude)
  UNION ALL
  SELECT rtrim(value, '/'), 1 FROM json_each($system)
),
dropped (path_id) AS MATERIALIZED (
  SELECT pa.path_id
  FROM dirs AS d
  JOIN path AS pa ON pa.path = d.dir OR (pa.path >= d.dir || '/' AND pa.path < d.dir || '0')
  WHERE d.system = 0
     OR NOT EXISTS (SELECT 1 FROM trace AS t
                    WHERE ($trace IS NULL OR t.trace_id = $trace)
                      AND (pa.path = rtrim(t.start_cwd, '/')
                           OR substr(pa.path, 1, length(rtrim(t.start_cwd, '/')) + 1)
                              = rtrim(t.start_cwd, '/') || '/'))
  UNION
  SELECT path_id FROM _device_path
),
kept (path_id) AS MATERIALIZED (
  SELECT path_id FROM path
  WHERE path = rtrim($under, '/')
     OR (path >= rtrim($under, '/') || '/' AND path < rtrim($under, '/') || '0')
),
-- end block: path_filter
member (process_id) AS MATERIALIZED (
  SELECT process_id FROM _scope
  -- block: scope
  WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
  -- end block: scope
), changed AS MATERIALIZED (
  -- Without $pid: the paths the build wrote or removed, from the lookups
  -- of the paths it changed (_build_changed), not from every lookup.
  SELECT DISTINCT trace_id, path_id FROM _build_changed WHERE effect IN ('write', 'remove')
), r (trace_id, path_id, readers) AS (
  -- Readers per path read. Without $pid one pass over the lookups; with
  -- it, the subtree's own lookups through the index namei_process, and
  -- only its readers are counted: the paths of a subtree are most often
  -- read by much of the build (shared headers, libraries), so counting
  -- every reader would read the whole build's reads of them. The branch
  -- whose $pid test fails is skipped before it reads a row.
  -- (The access kind needs only the lookup, so it drops the others before their call is read.)
  SELECT trace_id, path_id, count(DISTINCT command_id) FROM build_access
  WHERE $pid IS NULL AND access IN (SELECT access FROM _access_class WHERE effect = 'read')
    AND effect = 'read' AND ($trace IS NULL OR trace_id = $trace)
  GROUP BY trace_id, path_id
  UNION ALL
  SELECT trace_id, path_id, count(DISTINCT command_id) FROM build_access
  WHERE $pid IS NOT NULL AND process_id IN (SELECT process_id FROM member)
    AND access IN (SELECT access FROM _access_class WHERE effect = 'read') AND effect = 'read'
  GROUP BY trace_id, path_id
)
SELECT pa.path, sum(r.readers) AS readers
FROM r
JOIN path AS pa USING (path_id)
WHERE pa.path_id NOT IN (SELECT path_id FROM dropped)
  AND ($under IS NULL OR pa.path_id IN (SELECT path_id FROM kept))
  -- (Nor a device or pseudo file: dropped.)
  -- block: not_a_directory
  -- A directory is no file of the build (`gcc -MD` lists none; what a build
  -- leaves in one are its files): a path the trace looked up a path below,
  -- or one a successful mkdir(2) created. `pa` is the path.
  AND NOT EXISTS (SELECT 1 FROM path AS sub
                  WHERE sub.path >= pa.path || '/' AND sub.path < pa.path || '0')
  AND NOT EXISTS (SELECT 1 FROM build_access AS m
                  WHERE m.path_id = pa.path_id AND m.access = 'create'
                    AND m.success = 1 AND m.syscall IN ('mkdir', 'mkdirat'))
  -- end block: not_a_directory
  -- Never written or removed by the whole build. Without $pid, not in
  -- the list above; with it, no successful write or removal among the
  -- path's writes and removals, seeked through namei_resolved (path,
  -- access) without reading the path's reads.
  AND ($pid IS NOT NULL OR NOT EXISTS (SELECT 1 FROM changed AS c
                                       WHERE c.trace_id = r.trace_id AND c.path_id = r.path_id))
  AND ($pid IS NULL OR NOT EXISTS (
        SELECT 1 FROM build_access AS w
        WHERE w.path_id = r.path_id AND w.trace_id = r.trace_id
          AND w.access IN (SELECT access FROM _access_class WHERE effect IN ('write', 'remove'))
          AND w.effect IN ('write', 'remove')))
GROUP BY pa.path
ORDER BY CAST(pa.path AS BLOB);
