-- The nodes of `kt2sql graph`: every command, and (without --commands)
-- every path a command read or wrote, with its role.
--
-- @param  trace     Only this trace_id (default: every trace).
-- @param  pid       Only the commands of the processes of this pid and
--                   their descendants, and the paths they read or wrote
--                   (default: the whole build).
-- @param  commands  1: commands only (`graph --commands`); else files too.
-- @column node      Graphviz node id: `c<command_id>`, or
--                   `f<trace_id>_<path_id>` for a file.
-- @column kind      `command` or `file`.
-- @column label     `comm [pid]` for a command, the path for a file.
-- @column role      The file's build_file.role; NULL for a command.
SELECT 'c' || e.exec_id AS node, 'command' AS kind,
       CAST(e.comm AS BLOB) || CAST(' [' || p.pid || ']' AS BLOB) AS label, NULL AS role
FROM exec AS e
JOIN process AS p USING (process_id)
WHERE e.success = 1 AND (:trace IS NULL OR p.trace_id = :trace)
  AND (:pid IS NULL OR p.process_id IN (SELECT process_id FROM _scope
                                        WHERE root_pid IS :pid AND (:trace IS NULL OR trace_id = :trace)))
UNION ALL
-- A path read or written that the build did not change
-- (_build_changed_file) was read: build_file's role `source`. DISTINCT,
-- not GROUP BY: the few paths go into a small b-tree as the lookups come,
-- instead of every lookup being sorted first.
SELECT 'f' || t.trace_id || '_' || t.path_id, 'file', pa.path, COALESCE(cf.role, 'source')
FROM (SELECT DISTINCT trace_id, path_id FROM build_access
      -- (The access kind needs only the lookup, so it drops the others before their call is read.)
      WHERE access IN (SELECT access FROM _access_class WHERE effect IN ('read', 'write'))
        AND effect IN ('read', 'write') AND (:trace IS NULL OR trace_id = :trace)
        AND (:pid IS NULL OR process_id IN (SELECT process_id FROM _scope
                                            WHERE root_pid IS :pid AND (:trace IS NULL OR trace_id = :trace)))) AS t
JOIN path AS pa USING (path_id)
LEFT JOIN _build_changed_file AS cf ON cf.trace_id = t.trace_id AND cf.path_id = t.path_id
WHERE :commands IS NOT 1
ORDER BY 2, 1;
