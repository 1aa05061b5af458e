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
-- The walk goes as deep as the path is long (3 states per process at most).
-- sqlite:
  walk (n, process_id, t, how) AS (
-- spark:
  walk (n, process_id, t, how) MAX RECURSION LEVEL 1000000 AS (
-- end form

-- form: critical_path
-- The child waited for and the latest write read, each a LATERAL join of
-- one max_by (the first row by the query's order: Spark 4.3 cannot plan a
-- lateral ORDER BY … LIMIT 1 in a recursive CTE); a root of the scope by a
-- join with `top`, not NOT IN in a join condition.
-- sqlite:
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
-- spark:
    LEFT JOIN LATERAL (
      SELECT max_by(k.process_id, struct(k.last_ts, k.first_ts, k.pid, k.process_id)) AS child_id
      FROM process AS k
      WHERE k.parent_id = w.process_id AND k.last_ts <= w.t
        AND NOT (w.how IS NOT DISTINCT FROM 'fork' AND k.last_ts = w.t)) AS cx
      ON TRUE
    LEFT JOIN process AS c ON c.process_id = cx.child_id
    LEFT JOIN top AS tp ON tp.process_id = p.process_id
    LEFT JOIN process AS up
      ON c.process_id IS NULL AND up.process_id = p.parent_id AND tp.process_id IS NULL
    LEFT JOIN after_root AS ar ON c.process_id IS NULL AND ar.process_id = p.process_id
    LEFT JOIN process AS r ON r.process_id = ar.prev_id
    LEFT JOIN LATERAL (
      SELECT m.consumer, m.producer, m.write_ts, m.read_ts
      FROM (SELECT max_by(struct(k.consumer, k.producer, k.write_ts, k.read_ts),
                          struct(k.write_ts, k.read_ts, k.producer)) AS m
            FROM dep AS k
            WHERE k.consumer = w.process_id AND k.read_ts <= w.t
              -- The condition on the latest write inside (Spark refuses a
              -- lateral subquery's columns in its join condition): the
              -- latest passes it when any does, so the same row or none.
              AND (COALESCE(c.process_id, up.process_id, r.process_id) IS NULL
                   OR k.write_ts > COALESCE(c.last_ts,
                                            CASE WHEN up.process_id IS NOT NULL
                                                 THEN CASE WHEN p.fork_ts < p.first_ts THEN p.fork_ts ELSE p.first_ts END END,
                                            r.last_ts))) AS x) AS d
      ON TRUE
-- end form

-- form: deps
-- The process tree may be deeper than 100.
-- sqlite:
), walk (command_id, job_id) AS (
-- spark:
), walk (command_id, job_id) MAX RECURSION LEVEL 1000000 AS (
-- end form

-- form: deps
-- What each file reaches, breadth first without UNION: one row per file
-- and level, the commands seen so far and those first seen at this level
-- (the steps held as one map from a command to the next ones).
-- sqlite:
), reach (file, command_id) AS (
  SELECT file, command_id FROM first
  UNION
  SELECT r.file, s.to_id
  FROM reach AS r
  JOIN step AS s ON s.from_id = r.command_id
), found AS MATERIALIZED (
-- spark:
), step_map (m) AS (
  SELECT map_from_entries(collect_list(struct(from_id, tos)))
  FROM (SELECT from_id, collect_set(to_id) AS tos FROM step GROUP BY from_id) AS x
), bfs (file, seen, fresh) MAX RECURSION LEVEL 1000000 AS (
  SELECT file, collect_set(command_id), collect_set(command_id) FROM first GROUP BY file
  UNION ALL
  SELECT file, array_union(seen, fresh), fresh
  FROM (SELECT l.file, l.seen,
               array_except(array_distinct(flatten(
                 transform(l.fresh, x -> coalesce(try_element_at(g.m, x), array())))),
                 l.seen) AS fresh
        FROM bfs AS l CROSS JOIN step_map AS g) AS y
  WHERE size(fresh) > 0
), reach (file, command_id) AS (
  SELECT file, command_id FROM bfs LATERAL VIEW explode(fresh) AS command_id
), found AS MATERIALIZED (
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
