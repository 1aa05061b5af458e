-- What the build left behind: the paths it wrote that are still there at
-- the end (build_file.role `output`, or `intermediate` when another
-- command read them afterwards), with the command that wrote each last.
--
-- @param  trace    Only this trace_id (default: every trace).
-- @param  under    Only paths in this directory tree (default: all).
-- @column path     The path (TEXT, or BLOB when not UTF-8).
-- @column role     `output` or `intermediate`.
-- @column pid      pid of the last command that wrote it.
-- @column comm     That command's name.
-- @column writers  Commands that wrote it.
SELECT f.path, f.role, c.pid, c.comm, f.writers
FROM build_file AS f
LEFT JOIN command AS c ON c.command_id = f.last_writer_id
WHERE f.role IN ('output', 'intermediate') AND (:trace IS NULL OR f.trace_id = :trace)
  AND (:under IS NULL OR f.path = rtrim(:under, '/')
       OR substr(f.path, 1, length(rtrim(:under, '/')) + 1) = rtrim(:under, '/') || '/')
ORDER BY CAST(f.path AS BLOB), f.trace_id;
