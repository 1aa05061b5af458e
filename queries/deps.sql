-- What a file was built from, transitively: the commands that wrote it,
-- the commands whose output they read (build_flow), and so on up; and the
-- sources (build_file.role `source`) any of those commands read. A file
-- the build only read has no commands and no sources.
--
-- @param  files    The files, as a JSON array of absolute paths.
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
)
SELECT m.file, 'command' AS kind, c.path, c.pid, c.comm
FROM (SELECT DISTINCT file, command_id FROM made) AS m
JOIN command AS c ON c.command_id = m.command_id
UNION ALL
SELECT DISTINCT m.file, 'source', f.path, NULL, NULL
FROM made AS m
JOIN build_access AS a ON a.command_id = m.command_id AND a.effect = 'read'
JOIN build_file AS f ON f.trace_id = a.trace_id AND f.path_id = a.path_id
 AND f.role = 'source'
ORDER BY 1, 2, 3, 4;
