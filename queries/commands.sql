-- The commands that ran a program (an exec, or a spawn), in the order
-- they started, with the working directory, program and argv each started
-- with: what `kt2sql compile-commands` picks the compiler executions from.
-- argv is NULL where the trace holds none: only OpenBSD (`ktrace -t x`),
-- NetBSD (`ktrace -t a`) and FreeBSD kernels from 2025 on record it.
--
-- @param  trace       Only this trace_id (default: every trace).
-- @param  pid         Only every lifetime of this pid and their descendants
--                     (default: every process).
-- @column command_id  The command (command.command_id).
-- @column trace_id    Trace it was recorded in.
-- @column pid         OS pid.
-- @column comm        Command name of the image.
-- @column cwd         Working directory when it started, when known.
-- @column path        Program, made absolute where possible; NULL when
--                     the trace holds no lookup of it.
-- @column argv        argv (JSON array, or BLOB of NUL-separated bytes)
--                     where the trace records it; else NULL.
SELECT c.command_id, c.trace_id, c.pid, c.comm, c.cwd, c.path, c.argv
FROM command AS c
WHERE (c.path IS NOT NULL OR c.argv IS NOT NULL)
  AND ($trace IS NULL OR c.trace_id = $trace)
  AND ($pid IS NULL OR c.process_id IN (
        SELECT process_id FROM _scope
        -- block: scope
        WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
        -- end block: scope
        ))
ORDER BY c.trace_id, c.start_ts, c.command_id;
