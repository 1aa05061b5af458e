-- The lookups `kt2sql files` cannot list: paths left relative because
-- their base directory is unknown (the trace does not record the working
-- directory the traced command started in; `kt2sql import -d DIR` gives
-- it). One row per distinct (path, syscall, command, pid), sorted as
-- files_verbose.sql sorts. `kt2sql files --unresolved` prints these rows.
--
-- @param  trace   Only this trace_id (default: every trace).
-- @param  pid     Only lookups by every lifetime of this pid and their
--                 descendants (default: every process).
-- @param  all     1: also failed calls, calls without a return and lookups
--                 without a call (default: 0).
-- @column path    The path as recorded, relative (TEXT, or BLOB when not UTF-8).
-- @column syscall The call's syscall name; `?` without a call or when unknown.
-- @column comm    Command name on the NAMI record.
-- @column pid     OS pid of the process that looked it up.
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants.
  member (process_id) AS (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  )
SELECT DISTINCT path, COALESCE(syscall, '?') AS syscall, comm, pid
FROM namei_detail
WHERE resolution = 'unknown base'
  AND ($trace IS NULL OR trace_id = $trace)
  AND ($pid IS NULL OR process_id IN (SELECT process_id FROM member))
  AND (success = 1 OR COALESCE($all, 0) <> 0)
ORDER BY CAST(path AS BLOB), syscall, pid, CAST(comm AS BLOB);
