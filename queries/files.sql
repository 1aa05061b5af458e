-- ptrace.py's namei list: the distinct absolute paths that successful
-- calls looked up, sorted by their bytes. `kt2sql files` prints these rows;
-- `--format csv` is exactly them.
--
-- @param  trace  Only this trace_id (default: every trace).
-- @param  pid    Only lookups by every lifetime of this pid and their
--                descendants (default: every process).
-- @param  all    1: also paths of failed calls, of calls without a return
--                and of lookups without a call (ptrace.py -a; default: 0).
-- @param  under  Only paths in this directory tree (default: all).
-- @param  exclude Leave out the paths in these directory trees, a JSON
--                 array (default: none).
-- @column path   Normalised absolute path (TEXT, or BLOB when not UTF-8).
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants.
  member (process_id) AS (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  ),
  -- The lookups: without $pid every one (a pass over the table), with it
  -- the scope's own through the index namei_process (in proportion to the
  -- subtree). The branch whose $pid test fails is skipped before it reads
  -- a row.
  lookup (path, success) AS (
    SELECT path, success FROM file_access
    WHERE $pid IS NULL AND ($trace IS NULL OR trace_id = $trace)
    UNION ALL
    SELECT path, success FROM file_access
    WHERE $pid IS NOT NULL AND process_id IN (SELECT process_id FROM member)
  )
SELECT DISTINCT path
FROM lookup
WHERE (success = 1 OR COALESCE($all, 0) <> 0)
  AND ($under IS NULL OR path = rtrim($under, '/')
       OR substr(path, 1, length(rtrim($under, '/')) + 1) = rtrim($under, '/') || '/')
  -- (lookup.path: json_each has a column `path` of its own.)
  AND NOT EXISTS (SELECT 1 FROM json_each(COALESCE($exclude, '[]')) AS x
                  WHERE lookup.path = rtrim(x.value, '/')
                     OR substr(lookup.path, 1, length(rtrim(x.value, '/')) + 1)
                        = rtrim(x.value, '/') || '/')
ORDER BY CAST(path AS BLOB);
