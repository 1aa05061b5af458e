-- The syscall histogram of `kt2sql stats`: calls per syscall name over
-- every process, most frequent first.
--
-- @param  trace     Only this trace_id (default: every trace).
-- @param  limit     Maximum rows (default: all).
-- @column syscall   Syscall name, or `#N` when the table does not know number N.
-- @column calls     Calls made (a fork counts once: the child's return is
--                   not a call).
-- @column failed    Of them, those that failed.
-- @column total_dur Time spent in its calls with both halves (ns).
-- @column max_dur   The longest of them (ns).
SELECT syscall, sum(calls) AS calls, sum(failed) AS failed, sum(total_dur) AS total_dur,
       max(max_dur) AS max_dur
FROM syscall_summary
WHERE $trace IS NULL OR trace_id = $trace
GROUP BY syscall
-- A syscall seen only in children's returns (a fork's child returning
-- from `fork` after its parent's vfork) was not called.
HAVING sum(calls) > 0
ORDER BY calls DESC, syscall
-- (All: 2^31 - 1, the largest LIMIT Spark takes; SQLite's is 2^63 - 1.)
LIMIT COALESCE($limit, 2147483647);
