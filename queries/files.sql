-- ptrace.py's namei list: the distinct absolute paths that successful
-- calls looked up, sorted by their bytes. `kt2sql files` prints these rows;
-- `--format csv` is exactly them.
--
-- @param  trace  Only this trace_id (default: every trace).
-- @param  pid    Only lookups by every lifetime of this pid and their
--                descendants (default: every process).
-- @param  all    1: also paths of failed calls, of calls without a return
--                and of lookups without a call (ptrace.py -a; default: 0).
-- @column path   Normalised absolute path (TEXT, or BLOB when not UTF-8).
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants.
  member (process_id) AS (
    SELECT process_id FROM _scope WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
  )
SELECT DISTINCT path
FROM file_access
WHERE ($trace IS NULL OR trace_id = $trace)
  AND ($pid IS NULL OR process_id IN (SELECT process_id FROM member))
  AND (success = 1 OR COALESCE($all, 0) <> 0)
ORDER BY CAST(path AS BLOB);
