-- One side of `kt2sql diff`: the build's inputs (build_file role
-- `source`: read, never written or removed) and outputs (`output` or
-- `intermediate`: written and there at the end), their paths rewritten by
-- $map, sorted bytewise. `kt2sql diff` merges this list from both
-- databases.
--
-- @param  trace  Only this trace_id (default: every trace).
-- @param  map    Path prefixes to rewrite, as a JSON array of [from, to]
--                pairs (as in diff_commands). Default: none.
-- @column kind   `input` or `output`.
-- @column path   The path, rewritten.
WITH
  -- Every path of the database with its rewritten form.
  moved (path_id, path, moved) AS MATERIALIZED (
    SELECT pa.path_id, pa.path,
           COALESCE((SELECT (m.value ->> 1) || substr(pa.path, length(m.value ->> 0) + 1)
                     FROM json_each(COALESCE($map, '[]')) AS m
                     WHERE pa.path = m.value ->> 0
                        OR substr(pa.path, 1, length(m.value ->> 0) + 1)
                           = rtrim(m.value ->> 0, '/') || '/'
                     ORDER BY length(m.value ->> 0) DESC LIMIT 1),
                    pa.path)
    FROM path AS pa
  ),
  -- The successful writes and removals of the paths the build changed.
  changed (trace_id, path_id, effect, "offset") AS MATERIALIZED (
    SELECT trace_id, path_id, effect, "offset" FROM _build_changed
    WHERE effect IN ('write', 'remove') AND ($trace IS NULL OR trace_id = $trace)
  ),
  role (kind, path_id) AS (
    -- As queries/inputs.sql: a source is a path read and never written or
    -- removed, counted from the reads alone, not from every lookup.
    SELECT DISTINCT 'input', a.path_id FROM build_access AS a
    WHERE a.access IN (SELECT access FROM _access_class WHERE effect = 'read')
      AND a.effect = 'read' AND ($trace IS NULL OR a.trace_id = $trace)
      AND NOT EXISTS (SELECT 1 FROM changed AS c
                      WHERE c.trace_id = a.trace_id AND c.path_id = a.path_id)
    UNION ALL
    -- build_file's `output` and `intermediate`: written, and the last
    -- change was no removal (else it is `temporary`); from the changes
    -- alone, without _build_changed_file's flows.
    SELECT 'output', path_id FROM changed
    GROUP BY trace_id, path_id
    HAVING max(CASE WHEN effect = 'write' THEN 1 ELSE 0 END) = 1
       AND max("offset" * 2 + CASE WHEN effect = 'remove' THEN 1 ELSE 0 END) % 2 = 0
  )
SELECT DISTINCT r.kind, m.moved AS path
FROM role AS r JOIN moved AS m USING (path_id)
ORDER BY r.kind, CAST(m.moved AS BLOB);
