-- One side of `kt2sql diff`: every command of the trace with what makes
-- it the same command in another build (its identity: the program, the
-- working directory and the files it wrote that are still there at the
-- end) and what may differ between two runs of it (the files it read, its
-- argv, its time), sorted by identity (bytewise, NULL as empty), then by
-- start. `kt2sql diff` reads this from both databases and pairs the
-- commands of each identity: those of equal argv first, then the rest in
-- start order. Paths are rewritten by $map first, so that builds in
-- different directories compare.
--
-- @param  trace     Only this trace_id (default: every trace).
-- @param  map       Path prefixes to rewrite, as a JSON array of [from,
--                   to] pairs: a path equal to `from` or below it gets `to`
--                   in its place (the longest `from` wins). Default: none.
-- @column command_id The command (command.command_id).
-- @column program   The program it ran, rewritten by $map; NULL for a
--                   forked copy of its parent (image 0).
-- @column cwd       Its working directory when it started, rewritten; NULL
--                   when unknown.
-- @column writes    The paths it wrote (write, create, rename-to) that are
--                   there at the end (not build_file's `temporary`: the
--                   last change of the path was no removal), rewritten,
--                   sorted, one per line; NULL when none.
-- @column reads     The paths it read (read, exec), rewritten, sorted, one
--                   per line; NULL when none.
-- @column comm      Its command name.
-- @column argv      Its argv as recorded (JSON array or BLOB), else NULL.
-- @column start_ts  Time (ns) it started.
-- @column dur       Its duration (ns).
WITH
  -- Every path of the database with its rewritten form.
  moved (path_id, path, moved) AS MATERIALIZED (
    SELECT pa.path_id, pa.path,
           COALESCE((SELECT (m.value ->> 1) || substr(pa.path, length(m.value ->> 0) + 1)
                     FROM json_each(COALESCE($map, '[]')) AS m
                     WHERE pa.path = m.value ->> 0
                        OR substr(pa.path, 1, length(m.value ->> 0) + 1)
                           = rtrim(m.value ->> 0, '/') || '/'
                     ORDER BY length(m.value ->> 0) DESC LIMIT 1),
                    pa.path)
    FROM path AS pa
  ),
  -- One pass over the lookups: each command's reads, writes and removals
  -- of each path, with the file offset of the last one.
  touch (trace_id, command_id, path_id, effect, last) AS MATERIALIZED (
    SELECT trace_id, command_id, path_id, effect, max("offset")
    FROM build_access
    WHERE effect IN ('read', 'write', 'remove') AND ($trace IS NULL OR trace_id = $trace)
    GROUP BY trace_id, command_id, path_id, effect
  ),
  -- The paths gone at the end: build_file's `temporary` (their last
  -- write or removal was a removal).
  gone (trace_id, path_id) AS MATERIALIZED (
    SELECT trace_id, path_id FROM touch WHERE effect IN ('write', 'remove')
    GROUP BY trace_id, path_id HAVING max(last * 2 + CASE WHEN effect = 'remove' THEN 1 ELSE 0 END) % 2 = 1
  ),
  -- Each command's reads and lasting writes, rewritten, in path order.
  named (command_id, effect, path) AS (
    SELECT t.command_id, t.effect, m.moved
    FROM touch AS t JOIN moved AS m USING (path_id)
    WHERE t.effect = 'read'
       OR (t.effect = 'write'
           AND NOT EXISTS (SELECT 1 FROM gone AS g
                           WHERE g.trace_id = t.trace_id AND g.path_id = t.path_id))
    ORDER BY t.command_id, t.effect, CAST(m.moved AS BLOB)
  ),
  per (command_id, writes, reads) AS MATERIALIZED (
    SELECT command_id,
           group_concat(path, char(10)) FILTER (WHERE effect = 'write'),
           group_concat(path, char(10)) FILTER (WHERE effect = 'read')
    FROM named GROUP BY command_id
  ),
  cmd AS (
    SELECT c.command_id, mp.moved AS program, mc.moved AS cwd, p.writes, p.reads, c.comm,
           c.argv, c.start_ts, c.end_ts, c.dur
    FROM command AS c
    LEFT JOIN per AS p USING (command_id)
    LEFT JOIN (SELECT DISTINCT path, moved FROM moved) AS mp ON mp.path = c.path
    LEFT JOIN (SELECT DISTINCT path, moved FROM moved) AS mc ON mc.path = c.cwd
    WHERE ($trace IS NULL OR c.trace_id = $trace)
  )
SELECT command_id, program, cwd, writes, reads, comm, argv, start_ts, dur
FROM cmd
ORDER BY CAST(COALESCE(program, '') AS BLOB), CAST(COALESCE(cwd, '') AS BLOB),
         CAST(COALESCE(writes, '') AS BLOB), start_ts, dur, CAST(COALESCE(reads, '') AS BLOB),
         command_id;
