-- The process tree as ptrace.py -t prints it: one row per process image in
-- printed order. An exec is a sibling (same depth), a fork a child (one
-- level deeper, under the image that forked); depth 0 hangs under
-- `<process_root> [0]`. `kt2sql tree` prints these rows; `--format csv` is
-- exactly them.
--
-- @param  trace      Only this trace_id (default: every trace in the database).
-- @param  pid        Only every lifetime of this pid and their descendants,
--                    re-rooted at depth 0 (default: every process).
-- @column depth      Levels below `<process_root>`: 0, then one more per fork.
-- @column pid        OS pid.
-- @column comm       Command name of the image.
-- @column process_id Process lifetime (process.process_id).
-- @column image      0 for the inherited image, then 1, 2, … per successful exec.
-- @column exec_id    The image's exec.exec_id (unique per row).
-- @column trace_id   Trace it was recorded in.
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants.
  member (process_id) AS (
    SELECT process_id FROM _scope WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
  )
SELECT t.depth - min(t.depth) OVER () AS depth, t.pid, t.comm, t.process_id, t.image,
       t.exec_id, t.trace_id
FROM process_tree AS t
WHERE ($trace IS NULL OR t.trace_id = $trace)
  AND ($pid IS NULL OR t.process_id IN (SELECT process_id FROM member))
ORDER BY t.sort_key;
