-- The calls each process image made (`kt2sql tree -v`): one row per call
-- and path it looked up (a call without lookups has one row, path NULL;
-- rename has two), in tree order, then file order. A call belongs to the
-- image current at its CALL record, so the exec that replaced an image is
-- the last call of the image it replaced.
--
-- @param  trace      Only this trace_id (default: every trace).
-- @param  pid        Only every lifetime of this pid and their descendants
--                    (default: every process).
-- @column exec_id    The image (process_tree.exec_id) that made the call.
-- @column pid        OS pid.
-- @column call_id    The call (call.call_id).
-- @column syscall    Syscall name, or `#N` when the table does not know number N.
-- @column args       Argument words, kdump style (`0x3,0x7ffe12,0`).
-- @column retval     Return value as the program saw it (-1 when it failed); NULL without a return.
-- @column errno      errno of a failed call (an integer), else NULL.
-- @column errno_name Its symbolic name (`ENOENT`) when known.
-- @column unpaired   Why the call lacks a half (call.unpaired); NULL when paired.
-- @column path       A path it looked up, made absolute where possible; NULL for none.
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants.
  member (process_id) AS (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  ),
  -- block: scope_span
  -- The rows of tree_node the scope lies in: all, or from the pid's first
  -- lifetime to the end of its last one's subtree.
  span (lo, hi) AS (
    SELECT CASE WHEN $pid IS NULL THEN 0 ELSE min(first_pos) END,
           CASE WHEN $pid IS NULL THEN 9223372036854775807 ELSE max(last_pos) END
    FROM _scope_span WHERE root_pid = $pid AND ($trace IS NULL OR trace_id = $trace)
  -- end block: scope_span
  )
-- Walked in printed order without sorting: the images by tree_node.pos,
-- each one's calls as a range of call_process, each call's lookups and
-- the paths they resolved to by namei_call alone (namei_id: the order of
-- its NAMI records).
SELECT t.exec_id, p.pid, c.call_id, COALESCE(c.syscall, '#' || c.code) AS syscall, c.args,
       c.retval, c.errno, c.errno_name, c.unpaired,
       rp.path
FROM tree_node AS t
JOIN process AS p USING (process_id)
JOIN call AS c
  ON c.process_id = t.process_id AND c.call_id >= t.calls_from AND c.call_id < t.calls_to
LEFT JOIN namei AS n ON n.call_id = c.call_id
LEFT JOIN path AS rp ON rp.path_id = n.resolved_id
WHERE t.pos BETWEEN (SELECT lo FROM span) AND (SELECT hi FROM span)
  AND ($trace IS NULL OR t.trace_id = $trace)
  AND ($pid IS NULL OR t.process_id IN (SELECT process_id FROM member))
ORDER BY t.pos, c.call_id, n.namei_id;
