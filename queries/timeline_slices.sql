-- The timeline's rows: one per command (process image) in process-tree
-- order, with the time it held its process and what `kt2sql timeline`
-- shows on its slice.
--
-- @param  trace        Only this trace_id (default: every trace).
-- @param  pid          Only every lifetime of this pid and their descendants
--                      (default: every process).
-- @param  brief        1: leave tid, calls and files NULL, the columns that
--                      cost most and that only the Chrome slices show
--                      (default: every column).
-- @column trace_id     Trace it was recorded in.
-- @column process_id   Process lifetime (process.process_id).
-- @column pid          OS pid.
-- @column tid          OS thread id of the process's first thread; the pid
--                      when the dialect records no thread ids.
-- @column exec_id      The image (exec.exec_id).
-- @column image        0 for the inherited image, then 1, 2, … per successful exec.
-- @column depth        Forks below the scope's roots.
-- @column comm         Command name of the image.
-- @column start_ts     Time (ns) the image began: the process's first
--                      record, or the return of the exec.
-- @column end_ts       Time (ns) the next image began, or the process's last
--                      record; for a process alive at the snapshot of a
--                      trace `import --follow` still follows, its last
--                      image is open to the snapshot (the trace's latest
--                      record).
-- @column path         Program path made absolute (NULL for an inherited image).
-- @column argv         argv where recorded (JSON array, or BLOB of NUL-separated bytes).
-- @column cwd          Working directory at the exec, when known.
-- @column exit_status  Argument of the process's exit call (on its last image only).
-- @column exit_signal  Signal that killed it (on its last image only).
-- @column calls        System calls the image made.
-- @column files        Distinct absolute paths the image's successful calls
--                      looked up (a core file counts: it always succeeds).
-- @column running      1 on the last image of a process alive at the
--                      snapshot of a followed trace (a row of the view
--                      running); else NULL.
WITH
  -- The scope: the trace's processes, or the pid's lifetimes and descendants
  -- (MATERIALIZED: worked out once for the query's several uses).
  member (process_id) AS MATERIALIZED (
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
  ),
  -- One pass over the lookups: per image, as process.files counts per
  -- lifetime (a lookup belongs to the image current at its CALL). Without
  -- $pid the table is read in its own order (`+`: a list test per row for
  -- $trace, not a search of the index per process); with it the scope's
  -- lookups are found per process through the index namei_process, so a
  -- subtree reads only its own. The branch whose $pid test fails is
  -- skipped before it reads a row.
  scope_lookup (exec_id, resolved_id, success, coredump, call_id) AS (
    SELECT exec_id, resolved_id, success, coredump, call_id FROM namei
    WHERE $brief IS NULL AND $pid IS NULL
      AND ($trace IS NULL OR +process_id IN (SELECT process_id FROM member))
      AND resolution <> 'unknown base'
    UNION ALL
    SELECT exec_id, resolved_id, success, coredump, call_id FROM namei
    WHERE $brief IS NULL AND $pid IS NOT NULL
      AND process_id IN (SELECT process_id FROM member) AND resolution <> 'unknown base'
  ),
  -- A lookup's success is stored with it (namei.success); only the lookups
  -- a pending call held no room for (past its 16th, which only a damaged
  -- trace makes) leave it NULL, and for those the call says.
  -- The processes alive at the snapshot of a followed trace.
  live (process_id, snapshot_ts) AS (
    SELECT p.process_id, tr.last_ts
    FROM trace AS tr JOIN process AS p ON p.trace_id = tr.trace_id
    WHERE tr.following = 1 AND p.exit_seen = 0 AND p.cut_by_damage = 0
      AND ($trace IS NULL OR tr.trace_id = $trace)
  ),
  image_files (exec_id, files) AS (
    SELECT exec_id, count(DISTINCT resolved_id)
    FROM scope_lookup AS n
    WHERE n.success = 1 OR n.coredump = 1
       OR (n.success IS NULL
           AND (SELECT c.success FROM call AS c WHERE c.call_id = n.call_id) = 1)
    GROUP BY exec_id
  )
SELECT t.trace_id, t.process_id, p.pid,
       CASE WHEN $brief IS NULL
            THEN COALESCE((SELECT h.tid FROM thread AS h WHERE h.process_id = t.process_id
                           ORDER BY h.first_ts, h.thread_id LIMIT 1), p.pid) END AS tid,
       t.exec_id, t.image,
       -- Below the scope's shallowest node: its least depth worked out once
       -- (a window over the rows had SQLite sort them all again).
       t.depth - (SELECT min(d.depth) FROM tree_node AS d
                  WHERE d.pos BETWEEN (SELECT lo FROM span) AND (SELECT hi FROM span)
                    AND ($trace IS NULL OR d.trace_id = $trace)
                    AND ($pid IS NULL OR d.process_id IN (SELECT process_id FROM member))) AS depth,
       e.comm,
       CASE WHEN t.image = 0 THEN p.first_ts ELSE e.ts END AS start_ts,
       COALESCE(n.ts, v.snapshot_ts, p.last_ts) AS end_ts, rp.path AS path, e.argv, cp.path AS cwd,
       CASE WHEN n.ts IS NULL THEN p.exit_status END AS exit_status,
       CASE WHEN n.ts IS NULL THEN p.exit_signal END AS exit_signal,
       -- The last image's calls are the process's (process.calls: calls
       -- made) less those before it: only the earlier images, short-lived
       -- as a rule (a fork's copy until its exec), are counted, and the
       -- child's return from its fork is no call.
       CASE WHEN $brief IS NOT NULL THEN NULL
            WHEN n.exec_id IS NULL
            THEN p.calls - (SELECT count(*) FROM call_made AS c
                            WHERE c.process_id = t.process_id AND c.call_id < t.calls_from)
            ELSE (SELECT count(*) FROM call_made AS c
                  WHERE c.process_id = t.process_id AND c.call_id >= t.calls_from
                    AND c.call_id < t.calls_to)
       END AS calls,
       CASE WHEN $brief IS NULL THEN COALESCE(f.files, 0) END AS files,
       CASE WHEN n.exec_id IS NULL AND v.process_id IS NOT NULL THEN 1 END AS running
FROM tree_node AS t
JOIN process AS p ON p.process_id = t.process_id
JOIN exec AS e ON e.exec_id = t.exec_id
-- The process's next image: where this one ends.
LEFT JOIN exec AS n ON n.process_id = t.process_id AND n.image = t.image + 1
LEFT JOIN path AS rp ON rp.path_id = e.resolved_id
LEFT JOIN path AS cp ON cp.path_id = e.cwd_id
LEFT JOIN image_files AS f ON f.exec_id = t.exec_id
LEFT JOIN live AS v ON v.process_id = t.process_id
WHERE t.pos BETWEEN (SELECT lo FROM span) AND (SELECT hi FROM span)
  AND ($trace IS NULL OR t.trace_id = $trace)
  AND ($pid IS NULL OR t.process_id IN (SELECT process_id FROM member))
ORDER BY t.pos;
