-- ptrace.py's namei list with -v: for each absolute path, who looked it
-- up: one row per distinct (path, syscall, command, pid), sorted by path
-- bytes, syscall, pid and command. `kt2sql files -v` groups these rows by
-- path and syscall; `--format csv` is exactly them.
--
-- @param  trace   Only this trace_id (default: every trace).
-- @param  pid     Only lookups by every lifetime of this pid and their
--                 descendants (default: every process).
-- @param  all     1: also failed calls, calls without a return and lookups
--                 without a call (ptrace.py -a; default: 0).
-- @param  under   Only paths in this directory tree (default: all).
-- @param  exclude Leave out the paths in these directory trees, a JSON
--                 array (default: none).
-- @column path    Normalised absolute path (TEXT, or BLOB when not UTF-8).
-- @column syscall The call's syscall name; `?` without a call or when unknown.
-- @column comm    Command name of the image that made the call.
-- @column pid     OS pid of the process that looked it up.
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
  lookup (path, syscall, comm, pid, success) AS (
    SELECT path, syscall, comm, pid, success FROM file_access
    WHERE $pid IS NULL AND ($trace IS NULL OR trace_id = $trace)
    UNION ALL
    SELECT path, syscall, comm, pid, success FROM file_access
    WHERE $pid IS NOT NULL AND process_id IN (SELECT process_id FROM member)
  )
SELECT min(path) AS path, COALESCE(syscall, '?') AS syscall, min(comm) AS comm, pid
FROM lookup
WHERE (success = 1 OR COALESCE($all, 0) <> 0)
  AND ($under IS NULL OR path = rtrim($under, '/')
       OR substr(path, 1, length(rtrim($under, '/')) + 1) = rtrim($under, '/') || '/')
  -- (lookup.path: json_each has a column `path` of its own.)
  AND NOT EXISTS (SELECT 1 FROM json_each(COALESCE($exclude, '[]')) AS x
                  WHERE lookup.path = rtrim(x.value, '/')
                     OR substr(lookup.path, 1, length(rtrim(x.value, '/')) + 1)
                        = rtrim(x.value, '/') || '/')
-- GROUP BY the sort's own keys rather than DISTINCT: one sort of the
-- lookups, where DISTINCT built a b-tree of them and then sorted that
-- (1.6 s instead of 2.7 s on a 1 GiB build; a path's bytes say whether it
-- is TEXT or BLOB, so grouping by them merges nothing DISTINCT keeps apart;
-- min() names the group's one value in a form every engine accepts).
GROUP BY CAST(path AS BLOB), syscall, pid, CAST(comm AS BLOB)
ORDER BY CAST(path AS BLOB), syscall, pid, CAST(comm AS BLOB);
