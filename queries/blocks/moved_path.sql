SELECT pa.path_id, pa.path,
       COALESCE((SELECT (m.value ->> 1) || substr(pa.path, length(m.value ->> 0) + 1)
                 FROM json_each(COALESCE($map, '[]')) AS m
                 WHERE pa.path = m.value ->> 0
                    OR substr(pa.path, 1, length(m.value ->> 0) + 1)
                       = rtrim(m.value ->> 0, '/') || '/'
                 ORDER BY length(m.value ->> 0) DESC LIMIT 1),
                pa.path) AS moved
FROM path AS pa
