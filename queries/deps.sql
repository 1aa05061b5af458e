-- What each file was made from (`kt2sql deps`) or, with $reverse = 1,
-- what was built from it (`kt2sql rdeps`). Commands work in jobs: a
-- recipe (a process that a make forked, every image of it and every
-- command below it but those of a nearer make's recipes), else a compiler
-- run (a compiler driver and every command below it: gcc's cc1, as, ld),
-- else the command alone. A job's commands count together because they
-- share descriptors: `sed x.in > gen.h` has the shell open gen.h and sed
-- write it, `cc -pipe` has cc1 write to the `as` that writes the object,
-- and neither is a lookup.
--
-- Forward (the default): the jobs of the commands that wrote the file,
-- the jobs of the commands that wrote a temporary those read
-- (build_file.role `temporary`: a compiler's /tmp/cc*.s) and so on up,
-- and every path they read: a `source` (never written or removed by the
-- build) or a `generated` path (written, not a temporary and not by
-- them), as `gcc -MD` lists the prerequisites of an object; never a
-- directory (a path the trace looked up paths below, or one mkdir(2)
-- created: `mkdir -p obj` in a recipe makes no target). With
-- $sources = 1, the producers of every path they read are followed
-- (build_flow), and only the sources any of them read are listed.
--
-- Reverse: the jobs of the commands that read the file, the jobs of the
-- commands that read what any of them wrote (build_flow, any path), and
-- so on down; and the paths they wrote that are still there at the end
-- (`built`: role `output` or `intermediate`), the file itself and
-- directories aside.
--
-- @param  files      The files, as a JSON array of absolute paths (required).
-- @param  trace      Only this trace_id (default: every trace).
-- @param  pid        Only commands of the processes of this pid and their
--                    descendants (default: the whole build).
-- @param  makes      The programs that run recipes (make), as a JSON array
--                    of absolute paths (default: none; `kt2sql deps` passes
--                    those of the trace that are).
-- @param  compilers  The programs that are compiler drivers, likewise.
-- @param  sources    1: the leaf sources, transitively, instead of the
--                    direct prerequisites (default: the direct ones).
-- @param  reverse    1: what was built from the files (default: what they
--                    were made from).
-- @column file       The file asked about (TEXT).
-- @column kind       `command` (a command of the jobs found); forward
--                    `source` or `generated` (a path they read), reverse
--                    `built` (a path they wrote).
-- @column path       That path, or the command's program (NULL for a
--                    forked image that ran no exec).
-- @column pid        The command's pid; for `built`, the pid of the last
--                    of the commands found to write it; NULL for a path
--                    read.
-- @column comm       The command's name, likewise.
-- @column direct     1 for a command of the jobs that wrote the file
--                    (reverse: read it), and for a path one of those read
--                    (reverse: wrote); 0 for one reached through what
--                    they read (reverse: wrote).
WITH RECURSIVE wanted (file) AS (
  SELECT value FROM json_each($files)
), scoped AS MATERIALIZED (
  SELECT process_id FROM _scope
  -- block: scope
  WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
  -- end block: scope
), ch AS MATERIALIZED (
  -- The build's changes: one pass over the lookups of the paths changed.
  SELECT trace_id, path_id, command_id, effect, "offset" FROM _build_changed
  WHERE effect IN ('write', 'remove') AND ($trace IS NULL OR trace_id = $trace)
), temporary AS MATERIALIZED (
  -- build_file's role `temporary`: the last change removed it.
  SELECT trace_id, path_id FROM ch
  GROUP BY trace_id, path_id
  HAVING max("offset" * 2 + CASE WHEN effect = 'remove' THEN 1 ELSE 0 END) % 2 = 1
), flow AS MATERIALIZED (
  SELECT DISTINCT f.producer_id, f.consumer_id,
         CASE WHEN EXISTS (SELECT 1 FROM temporary AS t
                           WHERE t.trace_id = f.trace_id AND t.path_id = f.path_id)
              THEN 1 ELSE 0 END AS temporary
  FROM build_flow AS f
  WHERE $trace IS NULL OR f.trace_id = $trace
), maker AS MATERIALIZED (
  SELECT e.exec_id FROM exec AS e JOIN path AS pa ON pa.path_id = e.resolved_id
  WHERE e.success = 1 AND pa.path IN (SELECT value FROM json_each($makes))
), compiler AS MATERIALIZED (
  SELECT e.exec_id FROM exec AS e JOIN path AS pa ON pa.path_id = e.resolved_id
  WHERE e.success = 1 AND pa.path IN (SELECT value FROM json_each($compilers))
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
SELECT f.file, 'command' AS kind, rp.path, p.pid, e.comm, f.direct
FROM found AS f
JOIN exec AS e ON e.exec_id = f.command_id
JOIN process AS p USING (process_id)
LEFT JOIN path AS rp ON rp.path_id = e.resolved_id
UNION ALL
-- Forward: the paths they read, but their own writes and temporaries; a
-- source when the build never wrote or removed it. (One pass over the
-- reads, keeping those of the commands found: namei has no index by
-- command.)
SELECT f.file, CASE WHEN c.path_id IS NULL THEN 'source' ELSE 'generated' END, pa.path,
       NULL, NULL, max(f.direct)
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
UNION ALL
-- Reverse: the paths they wrote that are still there, the file aside.
SELECT w.file, 'built', pa.path, p.pid, e.comm, w.any_direct
FROM wrote AS w
JOIN path AS pa ON pa.path_id = w.path_id
JOIN exec AS e ON e.exec_id = w.command_id
JOIN process AS p USING (process_id)
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
ORDER BY 1, 2, 3, 4;
