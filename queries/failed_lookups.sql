-- Where lookups fail: per directory and error, how many lookups failed (a
-- compiler probing include directories, a shell searching PATH), most
-- first.
--
-- @param  trace     Only this trace_id (default: every trace).
-- @param  limit     Maximum rows (default: 20).
-- @column dir       Directory of the paths looked up.
-- @column errno     The errno (an integer; NULL for a call restarted, not failed).
-- @column errno_name Its symbolic name (`ENOENT`, `EACCES`, …) when known.
-- @column failed    Failed lookups of paths in it with that error.
-- @column paths     Distinct paths among them.
-- @column processes Distinct process lifetimes that made them.
SELECT dir, errno, errno_name, count(*) AS failed, count(DISTINCT path) AS paths,
       count(DISTINCT process_id) AS processes
FROM file_access
WHERE success = 0 AND ($trace IS NULL OR trace_id = $trace)
GROUP BY dir, errno, errno_name
ORDER BY failed DESC, CAST(dir AS BLOB), errno
LIMIT COALESCE($limit, 20);
