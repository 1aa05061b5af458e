-- One side of `kt2sql diff`: every path of the database with the form it
-- compares in, rewritten by $map so that builds in different directories
-- compare.
--
-- @param  map     Path prefixes to rewrite, as a JSON array of [from, to]
--                 pairs: a path equal to `from` or below it gets `to` in its
--                 place (the longest `from` wins). Default: none.
-- @column path_id The path (path.path_id).
-- @column path    The path as stored.
-- @column moved   The path rewritten.
SELECT path_id, path, moved
FROM (
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
);
