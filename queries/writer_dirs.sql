-- The directory each file's last writer worked in: the working directory,
-- at its exec, of the command whose successful write of the file came
-- last. `kt2sql deps --format make` names a target and its prerequisites
-- from there, as the compiler that wrote the target names them in the
-- depfile it writes (`gcc -MD`).
--
-- @param  files  The files, as a JSON array of absolute paths (required).
-- @param  trace  Only this trace_id (default: every trace).
-- @column file   The file asked about (TEXT).
-- @column cwd    Its last writer's working directory at its exec (NULL
--                when unknown).
WITH wanted (file) AS (
  SELECT value FROM json_each($files)
), last (file, command_id, r) AS (
  SELECT w.file, a.command_id,
         row_number() OVER (PARTITION BY w.file ORDER BY a."offset" DESC)
  FROM wanted AS w
  JOIN path AS pa ON pa.path = w.file
  JOIN build_access AS a ON a.path_id = pa.path_id AND a.effect = 'write'
  WHERE $trace IS NULL OR a.trace_id = $trace
)
SELECT l.file, cp.path AS cwd
FROM last AS l
JOIN exec AS e ON e.exec_id = l.command_id
LEFT JOIN path AS cp ON cp.path_id = e.cwd_id
WHERE l.r = 1
ORDER BY l.file;
