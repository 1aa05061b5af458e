-- What the build left behind: the paths it wrote that are still there at
-- the end (build_file.role `output`, or `intermediate` when another
-- command read them afterwards), with the command that wrote each last.
-- Never a device or pseudo file (/dev/null written through a redirection,
-- a tty, a file in /dev, /proc or /sys): the build left no file there.
-- Never a directory (`mkdir -p obj` made it, or the trace looked up a
-- path below it, as `inputs` tells a directory): an output is a file the
-- build wrote; the files in the directory are its outputs.
--
-- @param  trace    Only this trace_id (default: every trace).
-- @param  pid      Only what the processes of this pid and their
--                  descendants left behind, the subtree taken as the
--                  build: the paths it wrote and did not remove, the role,
--                  last writer and writers among its own commands
--                  (default: the whole build).
-- @param  under    Only paths in this directory tree (default: all).
-- @param  exclude  Leave out the paths in these directory trees, a JSON
--                  array (default: none).
-- @column path     The path (TEXT, or BLOB when not UTF-8).
-- @column role     `output` or `intermediate`.
-- @column pid      pid of the last command that wrote it.
-- @column comm     That command's name.
-- @column writers  Commands that wrote it.
WITH f AS (
  -- _scope_changed_file: build_file's rows for the paths the build (or,
  -- with $pid, the subtree) changed (the same roles), without its pass
  -- over every lookup; with $pid, from the subtree's own lookups (through
  -- the index namei_process), in proportion to the subtree.
  SELECT * FROM _scope_changed_file
  -- block: scope
  WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
  -- end block: scope
)
SELECT pa.path, f.role, p.pid, e.comm, f.writers
FROM f
JOIN path AS pa USING (path_id)
LEFT JOIN exec AS e ON e.exec_id = f.last_writer_id
LEFT JOIN process AS p ON p.process_id = e.process_id
WHERE f.role IN ('output', 'intermediate')
  AND pa.path_id NOT IN (SELECT path_id FROM _device_path)
  -- block: not_a_directory
  -- A directory is no file of the build (`gcc -MD` lists none; what a build
  -- leaves in one are its files): a path the trace looked up a path below,
  -- or one a successful mkdir(2) created. `pa` is the path.
  AND NOT EXISTS (SELECT 1 FROM path AS sub
                  WHERE sub.path >= pa.path || '/' AND sub.path < pa.path || '0')
  AND NOT EXISTS (SELECT 1 FROM build_access AS m
                  WHERE m.path_id = pa.path_id AND m.access = 'create'
                    AND m.success = 1 AND m.syscall IN ('mkdir', 'mkdirat'))
  -- end block: not_a_directory
  AND ($under IS NULL OR pa.path = rtrim($under, '/')
       OR substr(pa.path, 1, length(rtrim($under, '/')) + 1) = rtrim($under, '/') || '/')
  AND NOT EXISTS (SELECT 1 FROM json_each(COALESCE($exclude, '[]')) AS x
                  WHERE pa.path = rtrim(x.value, '/')
                     OR substr(pa.path, 1, length(rtrim(x.value, '/')) + 1)
                        = rtrim(x.value, '/') || '/')
ORDER BY CAST(pa.path AS BLOB), f.trace_id;
