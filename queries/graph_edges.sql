-- The edges of `kt2sql graph`: without --commands, command -> path for
-- every (command, path) it wrote and path -> command for every one it
-- read; with --commands, producer -> consumer per build_dep row.
--
-- @param  trace     Only this trace_id (default: every trace).
-- @param  pid       Only the edges of the commands of the processes of
--                   this pid and their descendants (for a flow, both
--                   ends); default: the whole build.
-- @param  commands  1: command -> command edges (`graph --commands`).
-- @column source    The node the edge leaves (graph_nodes.sql's `node`).
-- @column target    The node it enters.
-- @column kind      `write`, `read` or `flow` (a build_dep row).
-- @column paths     For a flow, how many paths it carried; else NULL.
SELECT CASE effect WHEN 'write' THEN 'c' || command_id
                   ELSE 'f' || trace_id || '_' || path_id END AS source,
       CASE effect WHEN 'write' THEN 'f' || trace_id || '_' || path_id
                   ELSE 'c' || command_id END AS target,
       effect AS kind, NULL AS paths
-- DISTINCT rather than GROUP BY: one b-tree of the pairs as they come,
-- not a sort of every lookup before the sort by text ids.
FROM (SELECT DISTINCT trace_id, path_id, command_id, effect FROM build_access
      -- (The access kind needs only the lookup, so it drops the others before their call is read.)
      WHERE access IN (SELECT access FROM _access_class WHERE effect IN ('read', 'write'))
        AND effect IN ('read', 'write') AND (:trace IS NULL OR trace_id = :trace)
        AND (:pid IS NULL OR process_id IN (SELECT process_id FROM _scope
                                            WHERE root_pid IS :pid AND (:trace IS NULL OR trace_id = :trace))))
WHERE :commands IS NOT 1
UNION ALL
SELECT 'c' || producer_id, 'c' || consumer_id, 'flow', paths
FROM build_dep
WHERE :commands IS 1 AND (:trace IS NULL OR trace_id = :trace)
  AND (:pid IS NULL OR NOT EXISTS (
        SELECT 1 FROM exec AS x
        WHERE x.exec_id IN (producer_id, consumer_id)
          AND x.process_id NOT IN (SELECT process_id FROM _scope
                                   WHERE root_pid IS :pid AND (:trace IS NULL OR trace_id = :trace))))
ORDER BY 3, 1, 2;
