-- What a file was built from, transitively: the commands that wrote it,
-- the commands whose output they read (build_flow), and so on up; and the
-- sources (build_file.role `source`) any of those commands read. A file
-- the build only read has no commands and no sources.
--
-- @param  files    The files, as a JSON array of absolute paths (required).
-- @param  trace    Only this trace_id (default: every trace).
-- @column file     The file asked about (TEXT).
-- @column kind     `command` (a command it was built by) or `source`.
-- @column path     The source, or the command's program (NULL for a
--                  forked image that ran no exec).
-- @column pid      The command's pid (NULL for a source).
-- @column comm     The command's name (NULL for a source).
WITH RECURSIVE wanted (file) AS (
  SELECT value FROM json_each(:files)
), flow AS MATERIALIZED (
  SELECT producer_id, consumer_id FROM build_flow
  WHERE :trace IS NULL OR trace_id = :trace
), made (file, command_id) AS (
  SELECT w.file, a.command_id
  FROM wanted AS w
  JOIN path AS pa ON pa.path = w.file
  JOIN build_access AS a ON a.path_id = pa.path_id AND a.effect = 'write'
  WHERE :trace IS NULL OR a.trace_id = :trace
  UNION
  SELECT m.file, f.producer_id
  FROM made AS m
  JOIN flow AS f ON f.consumer_id = m.command_id
), mc AS MATERIALIZED (
  SELECT DISTINCT file, command_id FROM made
), changed AS MATERIALIZED (
  SELECT DISTINCT trace_id, path_id FROM _build_changed WHERE effect IN ('write', 'remove')
)
SELECT m.file, 'command' AS kind, rp.path, p.pid, e.comm
FROM mc AS m
JOIN exec AS e ON e.exec_id = m.command_id
JOIN process AS p USING (process_id)
LEFT JOIN path AS rp ON rp.path_id = e.resolved_id
UNION ALL
-- A source is a path they read that the build never wrote or removed:
-- build_file's role `source`. (One pass over the
-- reads, keeping those of the commands found: namei has no index by
-- command.)
SELECT DISTINCT m.file, 'source', pa.path, NULL, NULL
FROM (SELECT DISTINCT trace_id, path_id, command_id FROM build_access
      -- (The access kind needs only the lookup, so it drops the others before their call is read.)
      WHERE access IN (SELECT access FROM _access_class WHERE effect = 'read')
        AND effect = 'read'
        AND command_id IN (SELECT command_id FROM mc)) AS a
JOIN mc AS m ON m.command_id = a.command_id
JOIN path AS pa USING (path_id)
WHERE NOT EXISTS (SELECT 1 FROM changed AS f
                  WHERE f.trace_id = a.trace_id AND f.path_id = a.path_id)
ORDER BY 1, 2, 3, 4;
