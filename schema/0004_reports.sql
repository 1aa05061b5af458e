-- kt2sql schema, part 4: the report views (ptrace.py's process tree and
-- namei list, and summaries of syscalls and processes). Created after the
-- data, like 0003; IF NOT EXISTS because `--append` re-applies this file.
-- The queries in queries/*.sql and the `tree`, `files` and `stats`
-- commands read these views. Only DDL here.

-- Every process lifetime with each of its descendants (forked children,
-- their children, …), itself included at depth 0: the subtree below any
-- process is `WHERE ancestor_id = ?`. The `tree`, `files` and `tree -v`
-- queries select their `--pid` subtree with it. It holds one row per
-- (process, ancestor) pair, so it grows with the depth of the tree.
CREATE VIEW IF NOT EXISTS process_descendant (
  -- The process lifetime at the top of the subtree.
  ancestor_id,
  -- A process lifetime in its subtree (ancestor_id itself included).
  process_id,
  -- Forks between them: 0 for the ancestor itself, 1 for its children, ….
  depth
) AS
WITH RECURSIVE below (ancestor_id, process_id, depth) AS (
  SELECT process_id, process_id, 0 FROM process
  UNION ALL
  SELECT b.ancestor_id, p.process_id, b.depth + 1
  FROM below AS b
  JOIN process AS p ON p.parent_id = b.process_id
  -- No tree is deeper than it has processes: this ends a parent_id cycle
  -- (which a correct import never writes) instead of recursing forever.
  WHERE b.depth < (SELECT COUNT(*) FROM process)
)
SELECT ancestor_id, process_id, depth FROM below;

-- One program image a process ran: its inherited image (exec seq 0), then
-- one per successful exec, with the stretch of the trace file during which
-- it was the process's image. Failed execs are not images.
CREATE VIEW IF NOT EXISTS process_image (
  -- exec.exec_id of the image.
  exec_id,
  -- Process lifetime.
  process_id,
  -- exec.seq (0 inherited, then per exec attempt, failed ones included).
  seq,
  -- 0 for the inherited image, then 1, 2, … per successful exec.
  image,
  -- Command name of the image.
  comm,
  -- Time (ns) the image began: the process's first record, or the exec's return.
  ts,
  -- File offset from which the image is current: 0 for the inherited
  -- image, the exec call's RET record otherwise (just after its CALL
  -- record when the RET was lost).
  start_offset,
  -- File offset at which the next image begins; NULL for the last one.
  end_offset
) AS
SELECT e.exec_id, e.process_id, e.seq, e.image, e.comm, e.ts,
       COALESCE(c.ret_offset, c.call_offset + 1, 0),
       lead(COALESCE(c.ret_offset, c.call_offset + 1, 0)) OVER w
FROM exec AS e
LEFT JOIN call AS c ON c.call_id = e.call_id
WHERE e.success = 1
WINDOW w AS (PARTITION BY e.process_id ORDER BY e.seq);

-- Helper for process_tree: where each process hangs. A root (no parent)
-- ranks among the roots by first appearance; a forked child hangs under
-- the parent's image that was current when the parent's fork returned
-- (process.parent_exec_id), and ranks among that image's children by the
-- file offset of that RET.
CREATE VIEW IF NOT EXISTS _tree_edge (
  -- The process lifetime placed.
  process_id,
  -- The parent's image it hangs under; NULL for a root.
  parent_exec_id,
  -- 1, 2, … among the children of that image (or among the roots).
  rank
) AS
SELECT process_id, parent_exec_id,
       row_number() OVER (PARTITION BY parent_exec_id
                          ORDER BY CASE WHEN parent_exec_id IS NULL THEN trace_id END,
                                   CASE WHEN parent_exec_id IS NULL THEN first_ts
                                        ELSE fork_offset END,
                                   process_id)
FROM process;

-- The process tree as ptrace.py -t prints it: one node per process image.
-- An exec is a sibling (the next image of the same pid, at the same
-- depth), a fork a child (under the image that forked). `ORDER BY
-- sort_key` gives the printed order: roots by first appearance, each
-- image followed by its children in fork order, depth first.
CREATE VIEW IF NOT EXISTS process_tree (
  -- Trace it was recorded in.
  trace_id,
  -- Process lifetime.
  process_id,
  -- OS pid.
  pid,
  -- The image (exec.exec_id); unique per node.
  exec_id,
  -- 0 for the inherited image, then 1, 2, … per successful exec.
  image,
  -- Command name of the image (TEXT, or BLOB when not UTF-8).
  comm,
  -- Time (ns) the image began.
  ts,
  -- The forking process's lifetime; NULL for a root.
  parent_id,
  -- The parent's image this node hangs under; NULL for a root.
  parent_exec_id,
  -- 0 for processes without a traced parent (printed under
  -- `<process_root> [0]`), one more per fork.
  depth,
  -- Text that sorts the nodes into printed order (14 hex digits per level).
  sort_key
) AS
WITH RECURSIVE node (process_id, exec_id, image, comm, ts, parent_exec_id, depth, sort_key) AS (
  SELECT i.process_id, i.exec_id, i.image, i.comm, i.ts, NULL, 0,
         printf('%08x%06x', e.rank, i.image)
  FROM _tree_edge AS e
  JOIN exec AS i ON i.process_id = e.process_id AND i.image IS NOT NULL
  WHERE e.parent_exec_id IS NULL
  UNION ALL
  SELECT i.process_id, i.exec_id, i.image, i.comm, i.ts, e.parent_exec_id, n.depth + 1,
         n.sort_key || printf('%08x%06x', e.rank, i.image)
  FROM node AS n
  JOIN _tree_edge AS e ON e.parent_exec_id = n.exec_id
  JOIN exec AS i ON i.process_id = e.process_id AND i.image IS NOT NULL
)
SELECT p.trace_id, n.process_id, p.pid, n.exec_id, n.image, n.comm, n.ts, p.parent_id,
       n.parent_exec_id, n.depth, n.sort_key
FROM node AS n
JOIN process AS p USING (process_id);

-- Every path lookup that was made absolute, with the call, its kind of
-- access and whether it succeeded: what ptrace.py's namei list is made of.
-- Lookups left relative (resolution `unknown base`) are only in
-- namei_detail.
CREATE VIEW IF NOT EXISTS file_access (
  -- namei.namei_id.
  namei_id,
  -- Trace it was recorded in.
  trace_id,
  -- Normalised absolute path (TEXT, or BLOB when not UTF-8).
  path,
  -- Its directory (`/usr/include` for `/usr/include/stdio.h`; `/` for `/`).
  dir,
  -- The call that looked it up; NULL when no call was pending.
  call_id,
  -- That call's syscall name; `coredump` for the core file a dying
  -- process looked up (namei.coredump); NULL when unknown or without a call.
  syscall,
  -- What the call did to the path (namei.access): `read`, `write`,
  -- `create`, `delete`, `rename-from`, `rename-to`, `exec`, `attr` or
  -- `probe`.
  access,
  -- Process lifetime.
  process_id,
  -- OS pid.
  pid,
  -- Command name of the image that made the call (its image at the
  -- CALL: namei.exec_id), as ptrace.py -v names it.
  comm,
  -- 1 when the call succeeded (a core file always did), 0 when it failed,
  -- NULL when it has no return or there is no call.
  success,
  -- errno of a failed call (an integer), else NULL.
  errno,
  -- Symbolic errno (`ENOENT`) when the system's table knows it.
  errno_name,
  -- Record time (ns).
  ts
) AS
SELECT n.namei_id, p.trace_id, rp.path,
       CASE WHEN rtrim(rp.path, replace(rp.path, '/', '')) = '/' THEN '/'
            ELSE rtrim(rtrim(rp.path, replace(rp.path, '/', '')), '/') END,
       n.call_id, CASE WHEN n.coredump THEN 'coredump' ELSE c.syscall END,
       n.access, n.process_id, p.pid, e.comm,
       CASE WHEN n.coredump THEN 1 ELSE c.success END,
       c.errno, c.errno_name, n.ts
FROM namei AS n
JOIN process AS p USING (process_id)
JOIN exec AS e ON e.exec_id = n.exec_id
JOIN path AS rp ON rp.path_id = n.resolved_id
LEFT JOIN call AS c ON c.call_id = n.call_id
WHERE n.resolution <> 'unknown base';

-- The distinct absolute paths successful calls looked up, per trace:
-- ptrace.py's namei list (`kt2sql files`).
CREATE VIEW IF NOT EXISTS files (
  -- Trace it was recorded in.
  trace_id,
  -- Normalised absolute path (TEXT, or BLOB when not UTF-8).
  path,
  -- Successful lookups of it.
  lookups,
  -- Distinct process lifetimes that looked it up.
  processes,
  -- 1 when a successful call changed it: file_access.access is `write`,
  -- `create`, `delete`, `rename-from`, `rename-to` or `attr`.
  written,
  -- Time (ns) of the first successful lookup.
  first_ts
) AS
SELECT trace_id, path, count(*), count(DISTINCT process_id),
       max(access IN ('write', 'create', 'delete', 'rename-from', 'rename-to', 'attr')), min(ts)
FROM file_access
WHERE success = 1
GROUP BY trace_id, path;

-- One row per syscall name (or unknown number) and trace: how often it was
-- called, how often it failed, and the time spent in it (table
-- syscall_stat, which the import counted from the call rows).
CREATE VIEW IF NOT EXISTS syscall_summary (
  -- Trace it was recorded in.
  trace_id,
  -- Syscall name, or `#N` when the system's table does not know number N.
  syscall,
  -- Syscall number.
  code,
  -- Rows of table call (returns without a call included).
  calls,
  -- Calls that failed (success = 0).
  failed,
  -- Calls without a return (exit included).
  no_return,
  -- Sum of the durations of the calls with both halves (ns).
  total_dur,
  -- Their mean duration (ns, rounded down); NULL when none.
  avg_dur,
  -- The longest of them (ns); NULL when none.
  max_dur
) AS
SELECT trace_id, COALESCE(syscall, '#' || code), code, calls, failed, no_return, total_dur,
       CASE WHEN timed > 0 THEN total_dur / timed END, max_dur
FROM syscall_stat;

-- One row per process lifetime with its activity: images, calls, lookups.
CREATE VIEW IF NOT EXISTS process_summary (
  -- Process lifetime.
  process_id,
  -- Trace it was recorded in.
  trace_id,
  -- OS pid.
  pid,
  -- The parent's pid; NULL for a root.
  ppid,
  -- Command name on its last record (after its last exec).
  comm,
  -- Successful execs (images beyond the inherited one).
  execs,
  -- Rows of table call.
  calls,
  -- Calls that failed.
  failed_calls,
  -- Path lookups (namei rows).
  lookups,
  -- Distinct absolute paths its successful calls looked up.
  files,
  -- Time (ns) of its first record.
  first_ts,
  -- last_ts - first_ts (ns).
  dur,
  -- Argument of its exit call, when seen.
  exit_status,
  -- Signal that killed it, when seen.
  exit_signal
) AS
SELECT p.process_id, p.trace_id, p.pid, pp.pid, p.last_comm,
       (SELECT count(*) FROM exec AS e
        WHERE e.process_id = p.process_id AND e.seq > 0 AND e.success = 1),
       p.calls, p.failed_calls, p.lookups, p.files,
       p.first_ts, p.last_ts - p.first_ts, p.exit_status, p.exit_signal
FROM process AS p
LEFT JOIN process AS pp ON pp.process_id = p.parent_id;

-- One command of the build: a process image (process_image), from its
-- start to the start of the next image of its process, or to the
-- process's last record. The build reports and views name commands by
-- command_id.
CREATE VIEW IF NOT EXISTS command (
  -- The image's exec.exec_id: the command's id.
  command_id,
  -- Trace it was recorded in.
  trace_id,
  -- Process lifetime.
  process_id,
  -- OS pid.
  pid,
  -- 0 for the inherited image, then 1, 2, … per successful exec.
  image,
  -- Command name of the image.
  comm,
  -- Time (ns) it started: the process's first record for image 0, the
  -- exec's return for a later image.
  start_ts,
  -- Time (ns) it ended: the next image's start, or the process's last
  -- record.
  end_ts,
  -- end_ts - start_ts (ns).
  dur,
  -- Working directory when it started, when known.
  cwd,
  -- Program, made absolute where possible: the exec's path; NULL for an
  -- image 0 (a forked copy of its parent).
  path,
  -- argv (JSON array, or BLOB of NUL-separated bytes) where the trace
  -- records it (OpenBSD `-t x`, NetBSD `-t a`); else NULL.
  argv,
  -- The command that forked or spawned its process (process.parent_exec_id;
  -- the same for every image of a lifetime); NULL for a root.
  parent_id
) AS
SELECT i.exec_id, p.trace_id, i.process_id, p.pid, i.image, i.comm, i.start_ts,
       COALESCE(lead(i.start_ts) OVER w, p.last_ts),
       COALESCE(lead(i.start_ts) OVER w, p.last_ts) - i.start_ts,
       cp.path, rp.path, i.argv, p.parent_exec_id
FROM (SELECT e.exec_id, e.process_id, e.seq, e.image, e.comm, e.argv, e.cwd_id,
             e.resolved_id, CASE WHEN e.image = 0 THEN pr.first_ts ELSE e.ts END AS start_ts
      FROM exec AS e JOIN process AS pr USING (process_id)
      WHERE e.success = 1) AS i
JOIN process AS p USING (process_id)
LEFT JOIN path AS cp ON cp.path_id = i.cwd_id
LEFT JOIN path AS rp ON rp.path_id = i.resolved_id
WINDOW w AS (PARTITION BY i.process_id ORDER BY i.seq);

-- Every lookup of an absolute path as the build analysis sees it: the
-- command that made it (the image current at its call), its access class
-- and what it did to the path if it succeeded. Lookups left relative are
-- not in it.
CREATE VIEW IF NOT EXISTS build_access (
  -- namei.namei_id.
  namei_id,
  -- Trace it was recorded in.
  trace_id,
  -- The path (namei.resolved_id).
  path_id,
  -- The command that made it (command.command_id).
  command_id,
  -- Process lifetime.
  process_id,
  -- namei.access.
  access,
  -- The call's syscall name (`coredump` for a core file).
  syscall,
  -- 1 succeeded (a core file always did), 0 failed, NULL unfinished.
  success,
  -- What a successful lookup did: `read` (read, exec), `write` (write,
  -- create, rename-to), `remove` (delete, rename-from) or `probe` (probe,
  -- attr); NULL when it failed or is unfinished.
  effect,
  -- File offset of the NAMI record: the order of the accesses.
  offset,
  -- Record time (ns).
  ts
) AS
SELECT n.namei_id, p.trace_id, n.resolved_id, n.exec_id, n.process_id, n.access,
       CASE WHEN n.coredump THEN 'coredump' ELSE c.syscall END,
       CASE WHEN n.coredump THEN 1 ELSE c.success END,
       CASE WHEN NOT (n.coredump OR c.success IS 1) THEN NULL
            WHEN n.access IN ('read', 'exec') THEN 'read'
            WHEN n.access IN ('write', 'create', 'rename-to') THEN 'write'
            WHEN n.access IN ('delete', 'rename-from') THEN 'remove'
            ELSE 'probe' END,
       n.offset, n.ts
FROM namei AS n
JOIN process AS p USING (process_id)
LEFT JOIN call AS c ON c.call_id = n.call_id
WHERE n.resolution <> 'unknown base';

-- Producer -> consumer: for each read, the latest earlier write of the
-- path (by file order; removals do not reset it); when another command
-- made it, that command produced what this one consumed. One row per
-- (path, producer, consumer), at the consumer's first such read.
CREATE VIEW IF NOT EXISTS build_flow (
  -- Trace it was recorded in.
  trace_id,
  -- The path's id (path.path_id).
  path_id,
  -- The path (TEXT, or BLOB when not UTF-8).
  path,
  -- The command that wrote it (command.command_id).
  producer_id,
  -- The command that read it afterwards.
  consumer_id,
  -- Time (ns) of that write.
  write_ts,
  -- Time (ns) of the consumer's first read after a write of the producer.
  read_ts
) AS
WITH a AS (
  SELECT trace_id, path_id, command_id, effect, offset, ts,
         count(*) FILTER (WHERE effect = 'write')
           OVER (PARTITION BY trace_id, path_id ORDER BY offset) AS grp
  FROM build_access
  WHERE effect IN ('read', 'write')
), b AS (
  SELECT trace_id, path_id, command_id, effect, offset, ts, grp,
         first_value(command_id) OVER g AS writer, first_value(ts) OVER g AS wts
  FROM a
  WINDOW g AS (PARTITION BY trace_id, path_id, grp ORDER BY offset)
)
SELECT trace_id, path_id, pa.path, writer, command_id, wts, ts
FROM (SELECT trace_id, path_id, writer, command_id, wts, ts, min(offset)
      FROM b
      WHERE effect = 'read' AND grp > 0 AND writer <> command_id
      GROUP BY trace_id, path_id, writer, command_id)
JOIN path AS pa USING (path_id);

-- Producer -> consumer per command pair: the build_flow rows summed over
-- their paths. `kt2sql graph --commands` draws one edge per row.
CREATE VIEW IF NOT EXISTS build_dep (
  -- Trace it was recorded in.
  trace_id,
  -- The command that wrote the paths (command.command_id).
  producer_id,
  -- The command that read them afterwards.
  consumer_id,
  -- How many paths flowed from the one to the other.
  paths,
  -- Time (ns) of the earliest of those writes.
  first_write_ts,
  -- Time (ns) of the consumer's earliest read of one of them.
  first_read_ts
) AS
SELECT trace_id, producer_id, consumer_id, count(*), min(write_ts), min(read_ts)
FROM build_flow
GROUP BY trace_id, producer_id, consumer_id;

-- Every path the build looked up, with its role: `temporary` (the last
-- write or removal removed it), `intermediate` (written by one command,
-- read later by another: build_flow), `output` (written, present at the
-- end), `source` (read, never written or removed), `probe` (only
-- stat-like lookups succeeded) or `ghost` (no lookup succeeded), the first
-- that applies, as ktcompose's truth states them.
CREATE VIEW IF NOT EXISTS build_file (
  -- Trace it was recorded in.
  trace_id,
  -- The path's id (path.path_id).
  path_id,
  -- The path (TEXT, or BLOB when not UTF-8).
  path,
  -- `temporary`, `intermediate`, `output`, `source`, `probe` or `ghost`.
  role,
  -- The command of the first successful write (command.command_id), or NULL.
  first_writer_id,
  -- The command of the last successful write, or NULL.
  last_writer_id,
  -- Commands that wrote it (write, create, rename-to).
  writers,
  -- Commands that read it (read, exec).
  readers,
  -- Successful lookups of it.
  lookups,
  -- Failed lookups of it.
  failed
) AS
WITH s AS (
  SELECT trace_id, path_id,
         count(DISTINCT command_id) FILTER (WHERE effect = 'read') AS readers,
         count(DISTINCT command_id) FILTER (WHERE effect = 'write') AS writers,
         count(effect) AS lookups, count(*) FILTER (WHERE success = 0) AS failed,
         max(offset * 2 + (effect = 'remove')) FILTER (WHERE effect IN ('write', 'remove'))
           AS last_change,
         min(offset) FILTER (WHERE effect = 'write') AS first_write,
         max(offset) FILTER (WHERE effect = 'write') AS last_write
  FROM build_access
  GROUP BY trace_id, path_id
), flowed AS (
  SELECT DISTINCT trace_id, path_id FROM build_flow
)
SELECT s.trace_id, s.path_id, pa.path,
       CASE WHEN s.last_change % 2 = 1 THEN 'temporary'
            WHEN fl.path_id IS NOT NULL THEN 'intermediate'
            WHEN s.writers > 0 THEN 'output'
            WHEN s.readers > 0 THEN 'source'
            WHEN s.lookups > 0 THEN 'probe'
            ELSE 'ghost' END,
       (SELECT a.command_id FROM build_access AS a
        WHERE a.path_id = s.path_id AND a.trace_id = s.trace_id AND a.offset = s.first_write),
       (SELECT a.command_id FROM build_access AS a
        WHERE a.path_id = s.path_id AND a.trace_id = s.trace_id AND a.offset = s.last_write),
       s.writers, s.readers, s.lookups, s.failed
FROM s
JOIN path AS pa USING (path_id)
LEFT JOIN flowed AS fl ON fl.trace_id = s.trace_id AND fl.path_id = s.path_id;

-- Build hazards, by ktcompose's rules (two commands of one process
-- lifetime never make one): `double-write` (commands of two or more
-- lifetimes wrote the path), `race` (a command read a path that a command
-- running at the same time wrote: neither process an ancestor of the
-- other, their lifetimes overlap), `used-then-changed` (a command read the
-- path, and later a command of another lifetime wrote it) and
-- `ghost-later-created` (a command's lookup of the path failed, and later
-- a command outside its process's subtree created it).
CREATE VIEW IF NOT EXISTS build_hazard (
  -- Trace it was recorded in.
  trace_id,
  -- `double-write`, `race`, `used-then-changed` or `ghost-later-created`.
  kind,
  -- The path's id (path.path_id).
  path_id,
  -- The path (TEXT, or BLOB when not UTF-8).
  path,
  -- The first command: the first writer (double-write), the reader (race,
  -- used-then-changed) or the command whose lookup failed
  -- (ghost-later-created).
  command_id,
  -- The other: the last writer to join (double-write), the writer (race,
  -- used-then-changed) or the creator (ghost-later-created).
  other_id,
  -- Time (ns) of command_id's first write, first read or first failed
  -- lookup of the path.
  ts,
  -- Time (ns) of other_id's write or create that makes the hazard (its
  -- first write of the path for double-write and race).
  other_ts,
  -- The failed lookup's syscall (ghost-later-created), else NULL.
  syscall,
  -- The commands involved as a JSON array: every writer in the order of
  -- its first write (double-write), else [command_id, other_id].
  commands
) AS
WITH anc AS MATERIALIZED (
  SELECT ancestor_id, process_id FROM process_descendant WHERE depth > 0
), fr AS MATERIALIZED (
  SELECT trace_id, path_id, command_id, process_id, ts, min(offset) AS off
  FROM build_access WHERE effect = 'read' GROUP BY trace_id, path_id, command_id
), fw AS MATERIALIZED (
  SELECT trace_id, path_id, command_id, process_id, ts, min(offset) AS off
  FROM build_access WHERE effect = 'write' GROUP BY trace_id, path_id, command_id
), ff AS MATERIALIZED (
  SELECT trace_id, path_id, command_id, process_id, ts, syscall, min(offset) AS off
  FROM build_access WHERE success = 0 GROUP BY trace_id, path_id, command_id
), wr AS MATERIALIZED (
  SELECT trace_id, path_id, command_id, process_id, access, ts, offset
  FROM build_access WHERE effect = 'write'
), h AS (
  SELECT trace_id, 'double-write' AS kind, path_id,
         (SELECT w.command_id FROM fw AS w WHERE w.trace_id = d.trace_id
          AND w.path_id = d.path_id ORDER BY w.off LIMIT 1) AS command_id,
         (SELECT w.command_id FROM fw AS w WHERE w.trace_id = d.trace_id
          AND w.path_id = d.path_id ORDER BY w.off DESC LIMIT 1) AS other_id,
         first_ts AS ts, last_ts AS other_ts, NULL AS syscall,
         (SELECT json_group_array(command_id)
          FROM (SELECT w.command_id FROM fw AS w WHERE w.trace_id = d.trace_id
                AND w.path_id = d.path_id ORDER BY w.off)) AS commands
  FROM (SELECT trace_id, path_id, min(ts) AS first_ts, max(ts) AS last_ts
        FROM fw GROUP BY trace_id, path_id HAVING count(DISTINCT process_id) > 1) AS d
  UNION ALL
  SELECT r.trace_id, 'race', r.path_id, r.command_id, w.command_id, r.ts, w.ts, NULL,
         json_array(r.command_id, w.command_id)
  FROM fr AS r
  JOIN fw AS w ON w.trace_id = r.trace_id AND w.path_id = r.path_id
   AND w.process_id <> r.process_id
  JOIN process AS pr ON pr.process_id = r.process_id
  JOIN process AS pw ON pw.process_id = w.process_id
  WHERE pr.first_ts < pw.last_ts AND pw.first_ts < pr.last_ts
    AND NOT EXISTS (SELECT 1 FROM anc WHERE anc.ancestor_id = r.process_id
                    AND anc.process_id = w.process_id)
    AND NOT EXISTS (SELECT 1 FROM anc WHERE anc.ancestor_id = w.process_id
                    AND anc.process_id = r.process_id)
  UNION ALL
  SELECT trace_id, 'used-then-changed', path_id, rc, wc, rts, wts, NULL, json_array(rc, wc)
  FROM (SELECT r.trace_id, r.path_id, r.command_id AS rc, w.command_id AS wc, r.ts AS rts,
               w.ts AS wts, min(w.offset)
        FROM fr AS r
        JOIN wr AS w ON w.trace_id = r.trace_id AND w.path_id = r.path_id
         AND w.offset > r.off AND w.process_id <> r.process_id
        GROUP BY r.trace_id, r.path_id, r.command_id)
  UNION ALL
  SELECT trace_id, 'ghost-later-created', path_id, lc, cc, lts, cts, sc, json_array(lc, cc)
  FROM (SELECT l.trace_id, l.path_id, l.command_id AS lc, c.command_id AS cc, l.ts AS lts,
               c.ts AS cts, l.syscall AS sc, min(c.offset)
        FROM ff AS l
        JOIN wr AS c ON c.trace_id = l.trace_id AND c.path_id = l.path_id
         AND c.access IN ('create', 'rename-to') AND c.offset > l.off
         AND c.process_id <> l.process_id
        WHERE NOT EXISTS (SELECT 1 FROM anc WHERE anc.ancestor_id = l.process_id
                          AND anc.process_id = c.process_id)
        GROUP BY l.trace_id, l.path_id, l.command_id)
)
SELECT h.trace_id, h.kind, h.path_id, pa.path, h.command_id, h.other_id, h.ts, h.other_ts,
       h.syscall, h.commands
FROM h JOIN path AS pa USING (path_id);
