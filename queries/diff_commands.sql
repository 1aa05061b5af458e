-- One side of `kt2sql diff`: every command of the trace as `kt2sql diff`
-- reads it, with what places it among its process's images and the
-- commands' tree (a forked copy that never ran a program of its own is
-- not a command of its own: the diff counts it as part of the command it
-- became by exec, or of the command that forked it). `kt2sql diff` reads
-- this with diff_accesses and diff_paths, and gives each command its
-- identity (program, working directory, the files it left) there.
--
-- @param  trace      Only this trace_id (default: every trace).
-- @column command_id The command (command.command_id).
-- @column process_id Its process lifetime.
-- @column image      0 for the inherited image, then 1, 2, … per successful exec.
-- @column parent_id  The command that forked or spawned its process; NULL
--                    for a root.
-- @column program    The program it ran; NULL for a forked copy of its
--                    parent (image 0).
-- @column cwd        Its working directory when it started; NULL when unknown.
-- @column comm       Its command name.
-- @column argv       Its argv as recorded (JSON array or BLOB), else NULL.
-- @column start_ts   Time (ns) it started.
-- @column dur        Its duration (ns).
SELECT command_id, process_id, image, parent_id, path AS program, cwd, comm, argv, start_ts,
       dur
FROM command
WHERE $trace IS NULL OR trace_id = $trace;
