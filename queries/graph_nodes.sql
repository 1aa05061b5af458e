-- The nodes of `kt2sql graph`: every command, and (without --commands)
-- every path a command read or wrote, with its role.
--
-- @param  trace     Only this trace_id (default: every trace).
-- @param  commands  1: commands only (`graph --commands`); else files too.
-- @column node      Graphviz node id: `c<command_id>`, or
--                   `f<trace_id>_<path_id>` for a file.
-- @column kind      `command` or `file`.
-- @column label     `comm [pid]` for a command, the path for a file.
-- @column role      The file's build_file.role; NULL for a command.
SELECT 'c' || command_id AS node, 'command' AS kind,
       CAST(comm AS BLOB) || CAST(' [' || pid || ']' AS BLOB) AS label, NULL AS role
FROM command
WHERE :trace IS NULL OR trace_id = :trace
UNION ALL
SELECT 'f' || trace_id || '_' || path_id, 'file', path, role
FROM build_file
WHERE :commands IS NOT 1 AND (readers > 0 OR writers > 0)
  AND (:trace IS NULL OR trace_id = :trace)
ORDER BY 2, 1;
