-- Where lookups fail: per directory and error, how many lookups failed (a
-- compiler probing include directories, a shell searching PATH), most
-- first.
--
-- @param  trace     Only this trace_id (default: every trace).
-- @param  limit     Maximum rows (default: 20).
-- @column dir       Directory of the paths looked up.
-- @column errno     The error (`ENOENT`, `EACCES`, … or `errno N`).
-- @column failed    Failed lookups of paths in it with that error.
-- @column paths     Distinct paths among them.
-- @column processes Distinct process lifetimes that made them.
SELECT dir, errno, count(*) AS failed, count(DISTINCT path) AS paths,
       count(DISTINCT process_id) AS processes
FROM file_access
WHERE success = 0 AND (:trace IS NULL OR trace_id = :trace)
GROUP BY dir, errno
ORDER BY failed DESC, CAST(dir AS BLOB), errno
LIMIT COALESCE(:limit, 20);
