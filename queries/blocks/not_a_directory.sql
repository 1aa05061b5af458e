-- A directory is no file of the build (`gcc -MD` lists none; what a build
-- leaves in one are its files): a path the trace looked up a path below,
-- or one a successful mkdir(2) created. `pa` is the path.
AND NOT EXISTS (SELECT 1 FROM path AS sub
                WHERE sub.path >= pa.path || '/' AND sub.path < pa.path || '0')
AND NOT EXISTS (SELECT 1 FROM build_access AS m
                WHERE m.path_id = pa.path_id AND m.access = 'create'
                  AND m.success = 1 AND m.syscall IN ('mkdir', 'mkdirat'))
