-- What the build left behind: the paths it wrote that are still there at
-- the end (build_file.role `output`, or `intermediate` when another
-- command read them afterwards), with the command that wrote each last.
--
-- @param  trace    Only this trace_id (default: every trace).
-- @param  pid      Only paths written by a command of the processes of this
--                  pid and their descendants (default: the whole build); the
--                  row still names the build's last writer and counts all.
-- @param  under    Only paths in this directory tree (default: all).
-- @column path     The path (TEXT, or BLOB when not UTF-8).
-- @column role     `output` or `intermediate`.
-- @column pid      pid of the last command that wrote it.
-- @column comm     That command's name.
-- @column writers  Commands that wrote it.
SELECT pa.path, f.role, p.pid, e.comm, f.writers
-- _build_changed_file: build_file's rows for the paths the build changed
-- (the same roles), without its pass over every lookup.
FROM _build_changed_file AS f
JOIN path AS pa USING (path_id)
LEFT JOIN exec AS e ON e.exec_id = f.last_writer_id
LEFT JOIN process AS p ON p.process_id = e.process_id
WHERE f.role IN ('output', 'intermediate') AND ($trace IS NULL OR f.trace_id = $trace)
  AND ($under IS NULL OR pa.path = rtrim($under, '/')
       OR substr(pa.path, 1, length(rtrim($under, '/')) + 1) = rtrim($under, '/') || '/')
  AND ($pid IS NULL OR EXISTS (
        SELECT 1
        FROM build_access AS a
        WHERE a.trace_id = f.trace_id AND a.path_id = f.path_id AND a.effect = 'write'
          AND a.process_id IN (SELECT process_id FROM _scope
                               WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace))))
ORDER BY CAST(pa.path AS BLOB), f.trace_id;
