-- The slowest commands: the commands (process images) that ran longest,
-- each with its own time (its start to the next image's start, or to its
-- process's last record; what its children did after it ended is not
-- counted), what it ran, where, and what it wrote. `kt2sql stats` shows
-- them and marks the compiler drivers among them.
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
-- @column dur         Its own time (ns): command.dur.
-- @column cwd         Working directory when it started, when known.
-- @column path        Program, made absolute where possible; NULL for an
--                     image 0 (a forked copy of its parent).
-- @column argv        argv (JSON array, or BLOB of NUL-separated bytes)
--                     where the trace records it; else NULL.
-- @column writes      Distinct paths it wrote, created or renamed to
--                     (successfully).
-- @column first_write The first of them (TEXT, or BLOB when not UTF-8);
--                     NULL when it wrote none.
WITH slow AS MATERIALIZED (
  SELECT c.command_id, c.trace_id, c.pid, c.comm, c.start_ts, c.dur, c.cwd, c.path, c.argv
  FROM command AS c
  WHERE ($trace IS NULL OR c.trace_id = $trace)
    AND ($pid IS NULL OR c.process_id IN (
          SELECT process_id FROM _scope
          -- block: scope
          WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)
          -- end block: scope
          ))
  ORDER BY c.dur DESC, c.command_id
  LIMIT COALESCE($limit, 10)),
-- Each path the slow commands wrote, at its first write: one pass over the
-- lookups, reading the calls of the slow commands' lookups only.
wrote AS MATERIALIZED (
  SELECT a.command_id, a.path_id, min(a."offset") AS first
  FROM build_access AS a
  WHERE a.command_id IN (SELECT command_id FROM slow) AND a.effect = 'write'
  GROUP BY a.command_id, a.path_id)
SELECT s.command_id, s.trace_id, s.pid, s.comm, s.start_ts, s.dur, s.cwd, s.path, s.argv,
       (SELECT count(*) FROM wrote AS w WHERE w.command_id = s.command_id) AS writes,
       (SELECT pa.path FROM wrote AS w JOIN path AS pa USING (path_id)
        WHERE w.command_id = s.command_id ORDER BY w.first LIMIT 1) AS first_write
FROM slow AS s
ORDER BY s.dur DESC, s.command_id;
