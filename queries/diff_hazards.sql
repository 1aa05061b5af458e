-- One side of `kt2sql diff`: the build's hazards (build_hazard) by kind
-- and path, the path rewritten by $map, sorted bytewise. `kt2sql diff`
-- merges this list from both databases.
--
-- @param  trace   Only this trace_id (default: every trace).
-- @param  map     Path prefixes to rewrite, as a JSON array of [from, to]
--                 pairs (as in diff_paths). Default: none.
-- @column kind    `double-write`, `race`, `used-then-changed` or
--                 `ghost-later-created`.
-- @column path    The path, rewritten.
-- @column hazards How many hazards of this kind the path has.
WITH
  -- Every path of the database with its rewritten form.
  moved (path_id, path, moved) AS MATERIALIZED (
    -- block: moved_path
    SELECT pa.path_id, pa.path,
           COALESCE((SELECT (m.value ->> 1) || substr(pa.path, length(m.value ->> 0) + 1)
                     FROM json_each(COALESCE($map, '[]')) AS m
                     WHERE pa.path = m.value ->> 0
                        OR substr(pa.path, 1, length(m.value ->> 0) + 1)
                           = rtrim(m.value ->> 0, '/') || '/'
                     ORDER BY length(m.value ->> 0) DESC LIMIT 1),
                    pa.path) AS moved
    FROM path AS pa
    -- end block: moved_path
  )
SELECT h.kind, m.moved AS path, count(*) AS hazards
FROM build_hazard AS h JOIN moved AS m USING (path_id)
WHERE $trace IS NULL OR h.trace_id = $trace
GROUP BY h.kind, m.moved
ORDER BY h.kind, CAST(m.moved AS BLOB);
