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
