-- Spark SQL's forms of the few parts of the canned queries that Spark
-- takes in no form SQLite takes. `kt2sql export` writes each query for
-- Spark (DIR/spark/NAME.sql) with every `-- sqlite:` text of a form below
-- replaced by its `-- spark:` text (the documented rewrites follow). A
-- test checks that each `-- sqlite:` text occurs exactly once in its query,
-- and that Spark then gives SQLite's rows.
--
-- Why: Spark (4.1 and later) runs WITH RECURSIVE with UNION ALL only (no
-- UNION), at most 100 levels deep unless told more, and takes a
-- correlated subquery in a join condition only as a LATERAL join, whose
-- own columns its join condition may not name.

-- form: critical_path
-- The backward walk without recursion (a recursive CTE in Spark plans and
-- runs its step again for each state, seconds each): every state the
-- walk can reach is one of `cand` (a process at its end, a parent at a
-- child's fork, a producer at a write; how matters only as 'fork' or
-- not), each candidate's next state is found once for all (`edge`), and
-- the walk follows them from the first state in one fold over an array
-- (at most `bound` steps, as the recursive walk). The child waited for
-- and the latest write read are each one max_by over a join, and a root
-- of the scope is found by a join with `top`, not NOT IN in a join
-- condition.
-- sqlite:
  walk (n, process_id, t, how) AS (
    SELECT 0, process_id, last_ts, CAST(NULL AS TEXT) FROM (
      SELECT p.process_id, p.last_ts FROM process AS p JOIN member AS m USING (process_id)
      ORDER BY p.last_ts DESC, p.first_ts, p.process_id LIMIT 1)
    UNION ALL
    SELECT w.n + 1,
           COALESCE(d.producer, c.process_id, up.process_id, r.process_id),
           COALESCE(d.write_ts, c.last_ts,
                    CASE WHEN up.process_id IS NOT NULL
                         THEN CASE WHEN p.fork_ts < p.first_ts THEN p.fork_ts ELSE p.first_ts END END,
                    r.last_ts),
           CASE WHEN d.producer IS NOT NULL THEN 'file'
                WHEN c.process_id IS NOT NULL THEN 'wait'
                WHEN up.process_id IS NOT NULL THEN 'fork' ELSE 'after' END
    FROM walk AS w
    JOIN process AS p ON p.process_id = w.process_id
    LEFT JOIN process AS c ON c.process_id = (
      SELECT k.process_id FROM process AS k
      WHERE k.parent_id = w.process_id AND k.last_ts <= w.t
        -- Back at a fork, a child that ended at that very time is the one
        -- just left (all its records at one instant): not again.
        AND NOT (w.how IS NOT DISTINCT FROM 'fork' AND k.last_ts = w.t)
      ORDER BY k.last_ts DESC, k.first_ts DESC, k.pid DESC, k.process_id DESC LIMIT 1)
    LEFT JOIN process AS up
      ON c.process_id IS NULL AND up.process_id = p.parent_id
     AND p.process_id NOT IN (SELECT process_id FROM top)
    LEFT JOIN after_root AS ar ON c.process_id IS NULL AND ar.process_id = p.process_id
    LEFT JOIN process AS r ON r.process_id = ar.prev_id
    -- The latest write the process read before `t`, when it came after
    -- the other way back (strictly: a tie keeps the process-tree edge).
    LEFT JOIN dep AS d
      ON (d.consumer, d.producer, d.write_ts, d.read_ts) = (
           SELECT k.consumer, k.producer, k.write_ts, k.read_ts FROM dep AS k
           WHERE k.consumer = w.process_id AND k.read_ts <= w.t
           ORDER BY k.write_ts DESC, k.read_ts DESC, k.producer DESC LIMIT 1)
     AND (COALESCE(c.process_id, up.process_id, r.process_id) IS NULL
          OR d.write_ts > COALESCE(c.last_ts,
                                   CASE WHEN up.process_id IS NOT NULL
                                        THEN CASE WHEN p.fork_ts < p.first_ts THEN p.fork_ts ELSE p.first_ts END END,
                                   r.last_ts))
    WHERE COALESCE(d.producer, c.process_id, up.process_id, r.process_id) IS NOT NULL
      -- A correct path has at most three steps per process; this ends the
      -- walk in a tie of equal times that would otherwise go round.
      AND w.n < (SELECT n FROM bound)
  ),
-- spark:
  cand (process_id, t, how) AS (
    SELECT DISTINCT process_id, t, how
    FROM (SELECT process_id, last_ts AS t, CAST(NULL AS TEXT) AS how FROM process
          WHERE $trace IS NULL OR trace_id = $trace
          UNION ALL
          SELECT parent_id, CASE WHEN fork_ts < first_ts THEN fork_ts ELSE first_ts END, 'fork'
          FROM process
          WHERE parent_id IS NOT NULL AND ($trace IS NULL OR trace_id = $trace)
          UNION ALL
          SELECT producer, write_ts, CAST(NULL AS TEXT) FROM dep) AS x
  ),
  -- Each candidate's child waited for: the last to end by `t` (one
  -- max_by over a join, not a correlated subquery: Spark copies the plan
  -- outside into each one it decorrelates).
  cand_child (process_id, t, how, child_id) AS (
    SELECT w.process_id, w.t, w.how,
           max_by(k.process_id, struct(k.last_ts, k.first_ts, k.pid, k.process_id))
    FROM cand AS w
    LEFT JOIN process AS k
      ON k.parent_id = w.process_id AND k.last_ts <= w.t
     -- Back at a fork, a child that ended at that very time is the one
     -- just left (all its records at one instant): not again.
     AND NOT (w.how IS NOT DISTINCT FROM 'fork' AND k.last_ts = w.t)
    GROUP BY w.process_id, w.t, w.how
  ),
  -- Else its parent (at its fork), else the root before it.
  cand_tree (process_id, t, how, next_id, next_t, next_how) AS (
    SELECT w.process_id, w.t, w.how,
           COALESCE(c.process_id, up.process_id, r.process_id),
           COALESCE(c.last_ts,
                    CASE WHEN up.process_id IS NOT NULL
                         THEN CASE WHEN p.fork_ts < p.first_ts THEN p.fork_ts ELSE p.first_ts END END,
                    r.last_ts),
           CASE WHEN c.process_id IS NOT NULL THEN 'wait'
                WHEN up.process_id IS NOT NULL THEN 'fork' ELSE 'after' END
    FROM cand_child AS w
    JOIN process AS p ON p.process_id = w.process_id
    LEFT JOIN process AS c ON c.process_id = w.child_id
    LEFT JOIN top AS tp ON tp.process_id = p.process_id
    LEFT JOIN process AS up
      ON c.process_id IS NULL AND up.process_id = p.parent_id AND tp.process_id IS NULL
    LEFT JOIN after_root AS ar ON c.process_id IS NULL AND ar.process_id = p.process_id
    LEFT JOIN process AS r ON r.process_id = ar.prev_id
  ),
  -- Each candidate state (by its key) and the state after it: the latest
  -- write the process read before `t`, when it came after the other way
  -- back (strictly: a tie keeps the process-tree edge; the latest passes
  -- that test when any does, so it is tested on each), else that way.
  edge (k, process_id, t, how) AS (
    SELECT concat_ws(':', CAST(process_id AS TEXT), COALESCE(CAST(t AS TEXT), '-'),
                     COALESCE(how, '-')),
           COALESCE(d.producer, next_id), COALESCE(d.write_ts, next_t),
           CASE WHEN d.producer IS NOT NULL THEN 'file' ELSE next_how END
    FROM (SELECT w.process_id, w.t, w.how, w.next_id, w.next_t, w.next_how,
                 max_by(struct(k.producer, k.write_ts), struct(k.write_ts, k.read_ts, k.producer)) AS d
          FROM cand_tree AS w
          LEFT JOIN dep AS k
            ON k.consumer = w.process_id AND k.read_ts <= w.t
           AND (w.next_id IS NULL OR k.write_ts > w.next_t)
          GROUP BY w.process_id, w.t, w.how, w.next_id, w.next_t, w.next_how) AS x
    WHERE COALESCE(d.producer, next_id) IS NOT NULL
  ),
  -- The walk: from the process that ended last, each state's next one
  -- looked up by its key, for as long as there is one; n is the place in
  -- the array.
  walk (n, process_id, t, how) AS (
    SELECT n, st.process_id, st.t, st.how
    FROM (SELECT aggregate(
                   sequence(1, CAST(b.n AS INTEGER)),
                   CAST(array(struct(s.process_id, s.last_ts, CAST(NULL AS TEXT)))
                        AS ARRAY<STRUCT<process_id: BIGINT, t: BIGINT, how: STRING>>),
                   (acc, i) -> concat(acc, filter(
                     array(try_element_at(g.m, concat_ws(':',
                       CAST(element_at(acc, -1).process_id AS TEXT),
                       COALESCE(CAST(element_at(acc, -1).t AS TEXT), '-'),
                       CASE WHEN element_at(acc, -1).how = 'fork' THEN 'fork' ELSE '-' END))),
                     v -> v IS NOT NULL))) AS path
          FROM (SELECT p.process_id, p.last_ts FROM process AS p JOIN member AS m USING (process_id)
                ORDER BY p.last_ts DESC, p.first_ts, p.process_id LIMIT 1) AS s
          CROSS JOIN bound AS b
          CROSS JOIN (SELECT map_from_entries(collect_list(struct(k, struct(process_id, t, how)))) AS m
                      FROM edge) AS g) AS x
    LATERAL VIEW posexplode(x.path) AS n, st
  ),
-- end form

-- form: critical_path
-- The time the next image began, by a window (a correlated subquery would
-- copy the walk into its decorrelated plan).
-- sqlite:
           (SELECT min(e2.ts) FROM exec AS e2
            WHERE e2.process_id = e.process_id AND e2.image > e.image)
-- spark:
           min(e.ts) OVER (PARTITION BY e.process_id ORDER BY e.image
                           ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
-- end form

-- form: deps
-- Every command with its job without recursion (Spark runs a recursive
-- CTE again at each mention, and not below another's aggregate): the
-- same walk from the roots down, level by level, as one fold over an
-- array; each command's child images held as one map from the command.
-- sqlite:
), walk (command_id, job_id) AS (
  -- Every command with its job, from the roots of the process trees
  -- down: a child of a make starts a recipe (named by its process's first
  -- image), a command inside a job stays in it, a compiler driver outside
  -- one starts a compiler run (named by itself); NULL: the command alone.
  SELECT e.exec_id, CASE WHEN e.exec_id IN (SELECT exec_id FROM compiler) THEN e.exec_id END
  FROM process AS p
  JOIN exec AS e ON e.process_id = p.process_id AND e.success = 1
  WHERE p.parent_exec_id IS NULL AND ($trace IS NULL OR p.trace_id = $trace)
  UNION ALL
  SELECT e.exec_id,
         CASE WHEN w.command_id IN (SELECT exec_id FROM maker)
              THEN (SELECT min(exec_id) FROM exec WHERE process_id = p.process_id)
              WHEN w.job_id IS NOT NULL THEN w.job_id
              WHEN e.exec_id IN (SELECT exec_id FROM compiler) THEN e.exec_id END
  FROM walk AS w
  JOIN process AS p ON p.parent_exec_id = w.command_id
  JOIN exec AS e ON e.process_id = p.process_id AND e.success = 1
-- spark:
), kid (parent_cmd, exec_id, first_image, is_compiler) AS (
  SELECT p.parent_exec_id, e.exec_id, fi.first_image, e.exec_id IN (SELECT exec_id FROM compiler)
  FROM process AS p
  JOIN exec AS e ON e.process_id = p.process_id AND e.success = 1
  JOIN (SELECT process_id, min(exec_id) AS first_image FROM exec GROUP BY process_id) AS fi
    ON fi.process_id = p.process_id
  WHERE p.parent_exec_id IS NOT NULL AND ($trace IS NULL OR p.trace_id = $trace)
), tree (kids, makers, depth) AS (
  SELECT map_from_entries(collect_list(struct(parent_cmd, ks))),
         (SELECT collect_set(exec_id) FROM maker),
         CAST(COALESCE(sum(size(ks)), 0) + 1 AS INTEGER)
  FROM (SELECT parent_cmd,
               collect_list(named_struct('exec_id', exec_id, 'first_image', first_image,
                                         'is_compiler', is_compiler)) AS ks
        FROM kid GROUP BY parent_cmd) AS x
), roots (cs) AS (
  SELECT collect_list(named_struct(
           'command_id', e.exec_id,
           'job_id', CASE WHEN e.exec_id IN (SELECT exec_id FROM compiler) THEN e.exec_id END))
  FROM process AS p
  JOIN exec AS e ON e.process_id = p.process_id AND e.success = 1
  WHERE p.parent_exec_id IS NULL AND ($trace IS NULL OR p.trace_id = $trace)
), walk (command_id, job_id) AS (
  SELECT c.command_id, c.job_id
  FROM (SELECT aggregate(
                 sequence(1, t.depth),
                 CAST(named_struct('seen', r.cs, 'front', r.cs)
                      AS STRUCT<seen: ARRAY<STRUCT<command_id: BIGINT, job_id: BIGINT>>,
                                front: ARRAY<STRUCT<command_id: BIGINT, job_id: BIGINT>>>),
                 (acc, i) -> CASE WHEN size(acc.front) = 0 THEN acc ELSE named_struct(
                   'seen', concat(acc.seen, flatten(transform(acc.front, w -> transform(
                     coalesce(try_element_at(t.kids, w.command_id), array()),
                     k -> named_struct('command_id', k.exec_id, 'job_id',
                       CASE WHEN array_contains(t.makers, w.command_id) THEN k.first_image
                            WHEN w.job_id IS NOT NULL THEN w.job_id
                            WHEN k.is_compiler THEN k.exec_id END))))),
                   'front', flatten(transform(acc.front, w -> transform(
                     coalesce(try_element_at(t.kids, w.command_id), array()),
                     k -> named_struct('command_id', k.exec_id, 'job_id',
                       CASE WHEN array_contains(t.makers, w.command_id) THEN k.first_image
                            WHEN w.job_id IS NOT NULL THEN w.job_id
                            WHEN k.is_compiler THEN k.exec_id END))))) END).seen AS cs
        FROM roots AS r CROSS JOIN tree AS t) AS x
  LATERAL VIEW explode(x.cs) AS c
-- end form

-- form: deps
-- The commands found without recursion and with each CTE read once where
-- it matters (Spark plans a CTE again at each mention, and copies the
-- plan outside into each correlated subquery it decorrelates: the query
-- filled the driver's heap). The jobs and the flows' steps are one row of
-- maps; per file, `first` and what it reaches are one fold over an array
-- that adds, at each level, what the last level's commands step to less
-- all seen so far; `direct` comes out of the same fold. A directory is
-- one of `dir` (every proper prefix of every path, worked out once: the
-- range test below is a nested loop join in Spark) or `made_dir`.
-- sqlite:
), job AS MATERIALIZED (
  SELECT command_id, job_id FROM walk WHERE job_id IS NOT NULL
), seed AS MATERIALIZED (
  SELECT DISTINCT w.file, a.command_id
  FROM wanted AS w
  JOIN path AS pa ON pa.path = w.file
  JOIN build_access AS a ON a.path_id = pa.path_id
   AND a.effect = CASE WHEN $reverse IS NOT DISTINCT FROM 1 THEN 'read' ELSE 'write' END
  WHERE ($trace IS NULL OR a.trace_id = $trace)
    AND ($pid IS NULL OR a.process_id IN (SELECT process_id FROM scoped))
), first (file, command_id) AS MATERIALIZED (
  SELECT file, command_id FROM seed
  UNION
  SELECT s.file, m.command_id
  FROM seed AS s
  JOIN job AS j ON j.command_id = s.command_id
  JOIN job AS m ON m.job_id = j.job_id
), step (from_id, to_id) AS (
  -- One step of the walk: to a producer (forward), to a consumer
  -- (reverse), or to another command of the same job.
  SELECT consumer_id, producer_id FROM flow
  WHERE $reverse IS DISTINCT FROM 1 AND ($sources IS NOT DISTINCT FROM 1 OR temporary = 1)
  UNION ALL
  SELECT producer_id, consumer_id FROM flow
  WHERE $reverse IS NOT DISTINCT FROM 1
  UNION ALL
  SELECT j.command_id, m.command_id
  FROM job AS j
  JOIN job AS m ON m.job_id = j.job_id
), reach (file, command_id) AS (
  SELECT file, command_id FROM first
  UNION
  SELECT r.file, s.to_id
  FROM reach AS r
  JOIN step AS s ON s.from_id = r.command_id
), found AS MATERIALIZED (
  SELECT r.file, r.command_id,
         CASE WHEN EXISTS (SELECT 1 FROM first AS d
                           WHERE d.file = r.file AND d.command_id = r.command_id)
              THEN 1 ELSE 0 END AS direct
  FROM (SELECT DISTINCT file, command_id FROM reach) AS r
  JOIN exec AS e ON e.exec_id = r.command_id
  WHERE $pid IS NULL OR e.process_id IN (SELECT process_id FROM scoped)
), wrote AS MATERIALIZED (
  -- What the commands found for each file wrote, with the last write.
  SELECT f.file, c.trace_id, c.path_id, f.command_id, f.direct,
         row_number() OVER (PARTITION BY f.file, c.trace_id, c.path_id
                            ORDER BY c."offset" DESC) AS r,
         max(f.direct) OVER (PARTITION BY f.file, c.trace_id, c.path_id) AS any_direct
  FROM (SELECT trace_id, path_id, command_id, "offset" FROM ch
        WHERE effect = 'write' AND command_id IN (SELECT command_id FROM found)) AS c
  JOIN found AS f ON f.command_id = c.command_id
)
-- spark:
), jobs (job_of, mates) AS (
  -- One row: each command's job, and each job's commands.
  SELECT map_from_entries(flatten(collect_list(transform(cs, c -> struct(c, job_id))))),
         map_from_entries(collect_list(struct(job_id, cs)))
  FROM (SELECT job_id, collect_list(command_id) AS cs FROM walk
        WHERE job_id IS NOT NULL GROUP BY job_id) AS x
), steps (m, job_of, mates, depth) AS (
  -- One row: each command's steps by the flows (to the producers
  -- forward, to the consumers reverse), the jobs, and a bound on the
  -- levels of the walk (one per step and per command in a job, and one).
  SELECT fm.m, j.job_of, j.mates, CAST(fm.n + size(j.job_of) + 1 AS INTEGER)
  FROM (SELECT map_from_entries(collect_list(struct(from_id, tos))) AS m,
               COALESCE(sum(size(tos)), 0) AS n
        FROM (SELECT from_id, collect_set(to_id) AS tos
              FROM (SELECT CASE WHEN $reverse IS NOT DISTINCT FROM 1
                                THEN producer_id ELSE consumer_id END AS from_id,
                           CASE WHEN $reverse IS NOT DISTINCT FROM 1
                                THEN consumer_id ELSE producer_id END AS to_id
                    FROM flow
                    WHERE $reverse IS NOT DISTINCT FROM 1 OR $sources IS NOT DISTINCT FROM 1
                       OR temporary = 1) AS e
              WHERE from_id IS NOT NULL
              GROUP BY from_id) AS x) AS fm
  CROSS JOIN jobs AS j
), seed AS (
  SELECT DISTINCT w.file, a.command_id
  FROM wanted AS w
  JOIN path AS pa ON pa.path = w.file
  JOIN build_access AS a ON a.path_id = pa.path_id
   AND a.effect = CASE WHEN $reverse IS NOT DISTINCT FROM 1 THEN 'read' ELSE 'write' END
  WHERE ($trace IS NULL OR a.trace_id = $trace)
    AND ($pid IS NULL OR a.process_id IN (SELECT process_id FROM scoped))
), reach (file, command_id, direct) AS (
  -- Per file: `first` (the seed's commands and the rest of their jobs),
  -- then, level by level, what the last level's commands step to (by a
  -- flow, or to another command of their job) less all seen so far,
  -- until a level adds nothing. direct: one of `first`.
  SELECT y.file, c, CASE WHEN array_contains(y.first, c) THEN 1 ELSE 0 END
  FROM (SELECT f.file, f.first,
               aggregate(
                 sequence(1, f.depth),
                 CAST(named_struct('seen', f.first, 'fresh', f.first)
                      AS STRUCT<seen: ARRAY<BIGINT>, fresh: ARRAY<BIGINT>>),
                 (acc, i) -> CASE WHEN size(acc.fresh) = 0 THEN acc ELSE named_struct(
                   'seen', array_union(acc.seen, array_distinct(flatten(transform(acc.fresh,
                     x -> concat(coalesce(try_element_at(f.m, x), CAST(array() AS ARRAY<BIGINT>)),
                                 coalesce(try_element_at(f.mates, try_element_at(f.job_of, x)),
                                          CAST(array() AS ARRAY<BIGINT>))))))),
                   'fresh', array_except(array_distinct(flatten(transform(acc.fresh,
                     x -> concat(coalesce(try_element_at(f.m, x), CAST(array() AS ARRAY<BIGINT>)),
                                 coalesce(try_element_at(f.mates, try_element_at(f.job_of, x)),
                                          CAST(array() AS ARRAY<BIGINT>)))))),
                     acc.seen)) END).seen AS seen
        FROM (SELECT s.file, any_value(g.m) AS m, any_value(g.job_of) AS job_of,
                     any_value(g.mates) AS mates, any_value(g.depth) AS depth,
                     array_distinct(flatten(collect_list(coalesce(
                       try_element_at(g.mates, try_element_at(g.job_of, s.command_id)),
                       array(s.command_id))))) AS first
              FROM seed AS s CROSS JOIN steps AS g
              GROUP BY s.file) AS f) AS y
  LATERAL VIEW explode(y.seen) AS c
), found AS (
  SELECT r.file, r.command_id, r.direct
  FROM reach AS r
  JOIN exec AS e ON e.exec_id = r.command_id
  WHERE $pid IS NULL OR e.process_id IN (SELECT process_id FROM scoped)
), wrote AS (
  -- What the commands found for each file wrote, with the last write.
  SELECT f.file, c.trace_id, c.path_id, f.command_id, f.direct,
         row_number() OVER (PARTITION BY f.file, c.trace_id, c.path_id
                            ORDER BY c.`offset` DESC) AS r,
         max(f.direct) OVER (PARTITION BY f.file, c.trace_id, c.path_id) AS any_direct
  FROM ch AS c
  JOIN found AS f ON f.command_id = c.command_id
  WHERE c.effect = 'write'
), dir (path) AS (
  -- The paths the trace looked up a path below: every proper prefix of
  -- every path that ends before a '/' (the empty one too).
  SELECT DISTINCT array_join(slice(split(path, '/'), 1, k), '/')
  FROM (SELECT path FROM path WHERE size(split(path, '/')) > 1) AS p
  LATERAL VIEW explode(sequence(1, size(split(path, '/')) - 1)) AS k
), made_dir (path_id) AS (
  -- The paths a successful mkdir(2) created.
  SELECT DISTINCT path_id FROM build_access
  WHERE access = 'create' AND success = 1 AND syscall IN ('mkdir', 'mkdirat')
    AND path_id IS NOT NULL
)
-- end form

-- form: deps
-- The paths the commands read: anti-joins instead of NOT EXISTS (a
-- directory, a temporary, one they wrote themselves).
-- sqlite:
FROM (SELECT DISTINCT trace_id, path_id, command_id FROM build_access
      -- (The access kind needs only the lookup, so it drops the others before their call is read.)
      WHERE $reverse IS DISTINCT FROM 1
        AND access IN (SELECT access FROM _access_class WHERE effect = 'read')
        AND effect = 'read'
        AND command_id IN (SELECT command_id FROM found)) AS a
JOIN found AS f ON f.command_id = a.command_id
JOIN path AS pa ON pa.path_id = a.path_id
LEFT JOIN (SELECT DISTINCT trace_id, path_id FROM ch) AS c
  ON c.trace_id = a.trace_id AND c.path_id = a.path_id
WHERE pa.path IS DISTINCT FROM f.file
  -- block: not_a_directory
  -- A directory is no file of the build (`gcc -MD` lists none; what a build
  -- leaves in one are its files): a path the trace looked up a path below,
  -- or one a successful mkdir(2) created. `pa` is the path.
  AND NOT EXISTS (SELECT 1 FROM path AS sub
                  WHERE sub.path >= pa.path || '/' AND sub.path < pa.path || '0')
  AND NOT EXISTS (SELECT 1 FROM build_access AS m
                  WHERE m.path_id = pa.path_id AND m.access = 'create'
                    AND m.success = 1 AND m.syscall IN ('mkdir', 'mkdirat'))
  -- end block: not_a_directory
  AND (c.path_id IS NULL
       OR ($sources IS DISTINCT FROM 1
           AND NOT EXISTS (SELECT 1 FROM temporary AS t
                           WHERE t.trace_id = a.trace_id AND t.path_id = a.path_id)
           AND NOT EXISTS (SELECT 1 FROM wrote AS w
                           WHERE w.file = f.file AND w.trace_id = a.trace_id
                             AND w.path_id = a.path_id)))
GROUP BY f.file, pa.path, c.path_id IS NULL
-- spark:
FROM (SELECT DISTINCT trace_id, path_id, command_id FROM build_access
      WHERE $reverse IS DISTINCT FROM 1
        AND access IN (SELECT access FROM _access_class WHERE effect = 'read')
        AND effect = 'read') AS a
JOIN found AS f ON f.command_id = a.command_id
JOIN path AS pa ON pa.path_id = a.path_id
LEFT JOIN (SELECT DISTINCT trace_id, path_id FROM ch) AS c
  ON c.trace_id = a.trace_id AND c.path_id = a.path_id
LEFT JOIN temporary AS t ON t.trace_id = a.trace_id AND t.path_id = a.path_id
LEFT JOIN (SELECT DISTINCT file, trace_id, path_id FROM wrote) AS w
  ON w.file = f.file AND w.trace_id = a.trace_id AND w.path_id = a.path_id
WHERE pa.path IS DISTINCT FROM f.file
  AND pa.path NOT IN (SELECT path FROM dir)
  AND pa.path_id NOT IN (SELECT path_id FROM made_dir)
  AND (c.path_id IS NULL
       OR ($sources IS DISTINCT FROM 1 AND t.path_id IS NULL AND w.file IS NULL))
GROUP BY f.file, pa.path, c.path_id IS NULL
-- end form

-- form: deps
-- What they wrote: likewise.
-- sqlite:
WHERE $reverse IS NOT DISTINCT FROM 1 AND w.r = 1 AND pa.path IS DISTINCT FROM w.file
  -- block: not_a_directory
  -- A directory is no file of the build (`gcc -MD` lists none; what a build
  -- leaves in one are its files): a path the trace looked up a path below,
  -- or one a successful mkdir(2) created. `pa` is the path.
  AND NOT EXISTS (SELECT 1 FROM path AS sub
                  WHERE sub.path >= pa.path || '/' AND sub.path < pa.path || '0')
  AND NOT EXISTS (SELECT 1 FROM build_access AS m
                  WHERE m.path_id = pa.path_id AND m.access = 'create'
                    AND m.success = 1 AND m.syscall IN ('mkdir', 'mkdirat'))
  -- end block: not_a_directory
  AND NOT EXISTS (SELECT 1 FROM temporary AS t
                  WHERE t.trace_id = w.trace_id AND t.path_id = w.path_id)
-- spark:
LEFT JOIN temporary AS t ON t.trace_id = w.trace_id AND t.path_id = w.path_id
WHERE $reverse IS NOT DISTINCT FROM 1 AND w.r = 1 AND pa.path IS DISTINCT FROM w.file
  AND pa.path NOT IN (SELECT path FROM dir)
  AND pa.path_id NOT IN (SELECT path_id FROM made_dir)
  AND t.path_id IS NULL
-- end form

-- form: lint
-- Each path's first successful lookup and last change, and each
-- temporary's job, by aggregates over joins, not correlated subqueries
-- (Spark copies the plan outside into each subquery it decorrelates:
-- lint's plan outgrew the driver's memory).
-- sqlite:
), span AS MATERIALIZED (
  -- Per path: the range of tree positions its lookups' processes span,
  -- its first successful lookup and its last change.
  SELECT trace_id, path_id, min(pos) AS lo, max(pos) AS hi,
         (SELECT f.access FROM acc AS f WHERE f.trace_id = g.trace_id
          AND f.path_id = g.path_id AND f.success = 1 ORDER BY f."offset" LIMIT 1) AS first_access,
         (SELECT l.effect FROM acc AS l WHERE l.trace_id = g.trace_id
          AND l.path_id = g.path_id AND l.effect IN ('write', 'remove')
          ORDER BY l."offset" DESC LIMIT 1) AS last_change
  FROM acc AS g
  GROUP BY trace_id, path_id
), job AS MATERIALIZED (
  -- The temporaries among them, each with its job: the lowest process
  -- whose subtree holds every one of its lookups (the nearest image 0
  -- before the range that covers it).
  SELECT s.trace_id, s.path_id,
         (SELECT j.process_id FROM main.tree_node AS j
          WHERE j.pos <= s.lo AND j.subtree_end >= s.hi AND j.image = 0
            AND j.trace_id = s.trace_id
          ORDER BY j.pos DESC LIMIT 1) AS process_id
  FROM span AS s
  WHERE COALESCE($temporaries, $all, 0) = 0 AND s.last_change = 'remove'
    AND s.first_access IN (SELECT access FROM _access_class WHERE creates = 1)
-- spark:
), span AS MATERIALIZED (
  -- Per path: the range of tree positions its lookups' processes span,
  -- its first successful lookup and its last change.
  SELECT trace_id, path_id, min(pos) AS lo, max(pos) AS hi,
         min_by(access, CASE WHEN success = 1 THEN `offset` END) AS first_access,
         max_by(effect, CASE WHEN effect IN ('write', 'remove') THEN `offset` END) AS last_change
  FROM acc AS g
  GROUP BY trace_id, path_id
), job AS MATERIALIZED (
  -- The temporaries among them, each with its job: the lowest process
  -- whose subtree holds every one of its lookups (the nearest image 0
  -- before the range that covers it).
  SELECT s.trace_id, s.path_id, max_by(j.process_id, j.pos) AS process_id
  FROM span AS s
  LEFT JOIN main.tree_node AS j
    ON j.pos <= s.lo AND j.subtree_end >= s.hi AND j.image = 0 AND j.trace_id = s.trace_id
  WHERE COALESCE($temporaries, $all, 0) = 0 AND s.last_change = 'remove'
    AND s.first_access IN (SELECT access FROM _access_class WHERE creates = 1)
  GROUP BY s.trace_id, s.path_id
-- end form

-- form: failed_commands
-- An argv of JSON: its words joined (Spark has no json_valid, and no
-- group_concat of a correlated json_each).
-- sqlite:
         CASE WHEN json_valid(CAST(argv AS TEXT))
              THEN (SELECT group_concat(a.value, ' ') FROM json_each(argv) AS a)
-- spark:
         CASE WHEN try_parse_json(CAST(argv AS TEXT)) IS NOT NULL
              THEN array_join(from_json(CAST(argv AS TEXT), 'array<string>'), ' ')
-- end form

-- form: running_commands
-- The same for the running commands.
-- sqlite:
         CASE WHEN json_valid(CAST(argv AS TEXT))
              THEN (SELECT group_concat(a.value, ' ') FROM json_each(argv) AS a)
-- spark:
         CASE WHEN try_parse_json(CAST(argv AS TEXT)) IS NOT NULL
              THEN array_join(from_json(CAST(argv AS TEXT), 'array<string>'), ' ')
-- end form
