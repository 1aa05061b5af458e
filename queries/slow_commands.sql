-- The slowest commands: the commands (process images) that ran longest by
-- their own time, what they ran, where, and what they wrote. A command's
-- own time is its wall time (its start to the next image's start, or to
-- its process's last record) less the time its children were alive within
-- it: the union of the lifetimes (first to last record) of the processes
-- it forked or spawned (process.parent_exec_id), each cut to the command's
-- start and end. So a make or a compiler driver is not charged the time it
-- waited for its jobs, cc1 or as; what its children did after it ended is
-- not counted either. `kt2sql stats` shows them and marks the compiler
-- drivers among them.
--
-- @param  trace       Only this trace_id (default: every trace).
-- @param  pid         Only every lifetime of this pid and their descendants
--                     (default: every process).
-- @param  limit       Maximum rows (default: 10).
-- @column command_id  The command (command.command_id).
-- @column trace_id    Trace it was recorded in.
-- @column pid         OS pid.
-- @column comm        Command name of the image.
-- @column start_ts    Time (ns) it started.
-- @column dur         Its own time (ns): wall less children.
-- @column wall        Its wall time (ns): command.dur.
-- @column children    Time (ns) within it when one or more of its children
--                     were alive: wall - dur.
-- @column cwd         Working directory when it started, when known.
-- @column path        Program, made absolute where possible; NULL for an
--                     image 0 (a forked copy of its parent).
-- @column argv        argv (JSON array, or BLOB of NUL-separated bytes)
--                     where the trace records it; else NULL.
-- @column writes      Distinct paths it wrote, created or renamed to
--                     (successfully).
-- @column first_write The first of them (TEXT, or BLOB when not UTF-8);
--                     NULL when it wrote none.
WITH cmd AS MATERIALIZED (
  SELECT c.command_id, c.trace_id, c.pid, c.comm, c.start_ts, c.end_ts, c.dur, c.cwd, c.path,
         c.argv
  FROM command AS c
  WHERE ($trace IS NULL OR c.trace_id = $trace)
    AND ($pid IS NULL OR c.process_id IN (
          SELECT process_id FROM _scope
          -- block: scope
          WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
          -- end block: scope
          ))),
-- Each child's lifetime cut to its command's span, and the latest end of
-- the children that began before it (by start): the union of the spans is
-- the sum of what each adds past that end.
kid AS (
  SELECT k.command_id, k.s, k.e,
         max(k.e) OVER (PARTITION BY k.command_id ORDER BY k.s, k.e, k.process_id
                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
  FROM (SELECT c.command_id, p.process_id,
               CASE WHEN p.first_ts > c.start_ts THEN p.first_ts ELSE c.start_ts END AS s,
               CASE WHEN p.last_ts < c.end_ts THEN p.last_ts ELSE c.end_ts END AS e
        FROM process AS p JOIN cmd AS c ON c.command_id = p.parent_exec_id) AS k
  WHERE k.e > k.s),
-- What each child adds: from its start, or the latest end before it if
-- that is later, to its end (nothing when that end is later still).
-- (CASE, not min/max of two values, which DuckDB and Spark spell
-- otherwise.)
added AS (
  SELECT command_id, e,
         CASE WHEN before IS NOT NULL AND before > s THEN before ELSE s END AS b
  FROM kid),
children AS (
  SELECT command_id, sum(CASE WHEN e > b THEN e - b ELSE 0 END) AS alive
  FROM added
  GROUP BY command_id),
slow AS MATERIALIZED (
  SELECT c.command_id, c.trace_id, c.pid, c.comm, c.start_ts,
         c.dur - COALESCE(k.alive, 0) AS dur, c.dur AS wall, COALESCE(k.alive, 0) AS children,
         c.cwd, c.path, c.argv
  FROM cmd AS c
  LEFT JOIN children AS k USING (command_id)
  ORDER BY c.dur - COALESCE(k.alive, 0) DESC, c.command_id
  LIMIT COALESCE($limit, 10)),
-- Each path the slow commands wrote, at its first write: one pass over the
-- lookups, reading the calls of the slow commands' lookups only.
wrote AS MATERIALIZED (
  SELECT a.command_id, a.path_id, min(a."offset") AS first
  FROM build_access AS a
  WHERE a.command_id IN (SELECT command_id FROM slow) AND a.effect = 'write'
  GROUP BY a.command_id, a.path_id)
SELECT s.command_id, s.trace_id, s.pid, s.comm, s.start_ts, s.dur, s.wall, s.children, s.cwd,
       s.path, s.argv,
       (SELECT count(*) FROM wrote AS w WHERE w.command_id = s.command_id) AS writes,
       (SELECT pa.path FROM wrote AS w JOIN path AS pa USING (path_id)
        WHERE w.command_id = s.command_id ORDER BY w.first LIMIT 1) AS first_write
FROM slow AS s
ORDER BY s.dur DESC, s.command_id;
