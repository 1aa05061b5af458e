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
  root (process_id) AS (
    SELECT process_id FROM process
    WHERE pid = :pid AND (:trace IS NULL OR trace_id = :trace)
  ),
  member (process_id) AS (
    SELECT d.process_id FROM process_descendant AS d JOIN root AS r ON d.ancestor_id = r.process_id
  )
SELECT DISTINCT path
FROM file_access
WHERE (:trace IS NULL OR trace_id = :trace)
  AND (:pid IS NULL OR process_id IN member)
  AND (success = 1 OR COALESCE(:all, 0) <> 0)
ORDER BY CAST(path AS BLOB);
