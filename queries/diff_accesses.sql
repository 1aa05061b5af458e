-- One side of `kt2sql diff`: every successful read, write and removal of
-- an absolute path (build_access), in no particular order. `kt2sql diff`
-- gathers them per command (the files it read, the files it left) and per
-- path (the build's inputs and outputs) as it reads them, so no sort is
-- needed here.
--
-- @param  trace      Only this trace_id (default: every trace).
-- @column command_id The command that made it (command.command_id).
-- @column path_id    The path (path.path_id).
-- @column effect     `read` (read, exec), `write` (write, create,
--                    rename-to) or `remove` (delete, rename-from).
-- @column offset     File offset of the NAMI record: the order of the accesses.
SELECT command_id, path_id, effect, "offset"
FROM build_access
-- (The access kind needs only the lookup, so it drops the probes before their call is read.)
WHERE access IN (SELECT access FROM _access_class WHERE effect IN ('read', 'write', 'remove'))
  AND effect IN ('read', 'write', 'remove') AND ($trace IS NULL OR trace_id = $trace);
