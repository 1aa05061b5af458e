-- The process tree as ptrace.py -t prints it: one row per process image in
-- printed order. An exec is a sibling (same depth), a fork a child (one
-- level deeper, under the image that forked); depth 0 hangs under
-- `<process_root> [0]`. `kt2sql tree` prints these rows; `--format csv` is
-- exactly them.
--
-- @param  trace      Only this trace_id (default: every trace in the database).
-- @param  pid        Only every lifetime of this pid and their descendants,
--                    re-rooted at depth 0 (default: every process).
-- @param  long       1: fill argv, start_ts, dur, exit_status and
--                    exit_signal (`tree --long`); NULL (the default) leaves
--                    them NULL.
-- @column depth      Levels below `<process_root>`: 0, then one more per fork.
-- @column pid        OS pid.
-- @column comm       Command name of the image.
-- @column process_id Process lifetime (process.process_id).
-- @column image      0 for the inherited image, then 1, 2, … per successful exec.
-- @column exec_id    The image's exec.exec_id (unique per row).
-- @column trace_id   Trace it was recorded in.
-- @column lifetime   With `pid` naming a pid the kernel reused: which of its
--                    lifetimes this process is (1, 2, …, in `pid_lifetimes`
--                    order); else NULL.
-- @column lifetimes  How many lifetimes that pid had (NULL when one).
-- @column running    1 on the current image of a process alive at the
--                    snapshot of a trace `import --follow` still follows
--                    (a row of the view running); else NULL.
-- @column argv       With `long`: the argv of the exec that started the
--                    image (JSON array, or BLOB of NUL-separated bytes),
--                    where the trace records it; else NULL.
-- @column start_ts   With `long`: time (ns) the image started (the
--                    process's first record for image 0, else the exec's
--                    return).
-- @column dur        With `long`: ns from its start to the next image's
--                    start, or to the process's last record (for a
--                    running image, to the snapshot: the trace's latest
--                    record).
-- @column exit_status With `long`, on the process's last image: the
--                    argument of its exit call, when seen; else NULL.
-- @column exit_signal With `long`, on the process's last image: the signal
--                    that killed it, when seen; else NULL.
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants.
  member (process_id) AS (
    SELECT process_id FROM _scope
    -- block: scope
    WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
    -- end block: scope
  ),
  -- The rows of tree_node the scope lies in: all, or from the pid's first
  -- lifetime to the end of its last one's subtree; and the depth of its
  -- top (0, or the shallowest of the pid's lifetimes: every other process
  -- of the scope is below one of them).
  span (lo, hi, top) AS (
    SELECT CASE WHEN $pid IS NULL THEN 0 ELSE min(s.first_pos) END,
           CASE WHEN $pid IS NULL THEN 9223372036854775807 ELSE max(s.last_pos) END,
           CASE WHEN $pid IS NULL THEN 0 ELSE min(a.depth) END
    FROM _scope_span AS s JOIN tree_node AS a ON a.pos = s.first_pos
    WHERE s.root_pid = $pid AND ($trace IS NULL OR s.trace_id = $trace)
  ),
  -- The pid's lifetimes numbered as pid_lifetimes.sql orders them.
  -- The processes alive at the snapshot of a followed trace.
  live (process_id, snapshot_ts) AS (
    SELECT p.process_id, tr.last_ts
    FROM trace AS tr JOIN process AS p ON p.trace_id = tr.trace_id
    WHERE tr.following = 1 AND p.exit_seen = 0 AND p.cut_by_damage = 0
      AND ($trace IS NULL OR tr.trace_id = $trace)
  ),
  lives (process_id, k, n) AS (
    SELECT process_id, row_number() OVER (ORDER BY trace_id, first_ts, process_id),
           count(*) OVER ()
    FROM process WHERE pid = $pid AND ($trace IS NULL OR trace_id = $trace)
  )
SELECT t.depth - (SELECT top FROM span) AS depth, p.pid, e.comm, t.process_id, t.image,
       t.exec_id, t.trace_id,
       CASE WHEN l.n > 1 THEN l.k END AS lifetime, CASE WHEN l.n > 1 THEN l.n END AS lifetimes,
       CASE WHEN v.process_id IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM exec AS x
                             WHERE x.process_id = t.process_id AND x.image > t.image)
            THEN 1 END AS running,
       CASE WHEN $long IS NOT NULL THEN e.argv END AS argv,
       CASE WHEN $long IS NOT NULL THEN CASE WHEN t.image = 0 THEN p.first_ts ELSE e.ts END
       END AS start_ts,
       CASE WHEN $long IS NOT NULL
            THEN COALESCE(n.ts, v.snapshot_ts, p.last_ts)
                 - CASE WHEN t.image = 0 THEN p.first_ts ELSE e.ts END
       END AS dur,
       CASE WHEN $long IS NOT NULL AND n.ts IS NULL THEN p.exit_status END AS exit_status,
       CASE WHEN $long IS NOT NULL AND n.ts IS NULL THEN p.exit_signal END AS exit_signal
FROM tree_node AS t
JOIN process AS p USING (process_id)
JOIN exec AS e USING (exec_id)
LEFT JOIN lives AS l ON l.process_id = t.process_id
LEFT JOIN live AS v ON v.process_id = t.process_id
-- The process's next image: where this one ends (read with `long` only).
LEFT JOIN exec AS n
  ON $long IS NOT NULL AND n.process_id = t.process_id AND n.image = t.image + 1
WHERE t.pos BETWEEN (SELECT lo FROM span) AND (SELECT hi FROM span)
  AND ($trace IS NULL OR t.trace_id = $trace)
  AND ($pid IS NULL OR t.process_id IN (SELECT process_id FROM member))
ORDER BY t.pos;
