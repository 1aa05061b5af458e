-- kt2sql schema, part 4: the report views (ptrace.py's process tree and
-- namei list, and summaries of syscalls and processes). Created after the
-- data, like 0003; IF NOT EXISTS because `--append` re-applies this file.
-- The queries in queries/*.sql and the `tree`, `files` and `stats`
-- commands read these views. Only DDL here, and the constant rows of
-- _access_class.

-- Every process lifetime with each of its descendants (forked children,
-- their children, …), itself included at depth 0: the subtree below any
-- process is `WHERE ancestor_id = ?`. A process's subtree is one range of
-- tree_node.pos, so the rows below one ancestor are an index range. It
-- holds one row per (process, ancestor) pair, so it grows with the depth
-- of the tree.
CREATE VIEW IF NOT EXISTS process_descendant (
  -- The process lifetime at the top of the subtree.
  ancestor_id,
  -- A process lifetime in its subtree (ancestor_id itself included).
  process_id,
  -- Forks between them: 0 for the ancestor itself, 1 for its children, ….
  depth
) AS
-- CROSS JOIN keeps the ancestor outside (SQLite does not reorder it): each
-- subtree is then one range of the primary key; the other way round, every
-- node would scan every ancestor before it.
SELECT a.process_id, d.process_id, d.depth - a.depth
FROM tree_node AS a
CROSS JOIN tree_node AS d
WHERE a.image = 0 AND d.pos BETWEEN a.pos AND a.subtree_end AND +d.image = 0;

-- Helper for _scope and for the reports that walk the tree in printed
-- order (`tree`, `tree -v`): the range of tree_node that each lifetime of
-- each pid spans with its descendants. `WHERE root_pid = $pid` finds a
-- pid's lifetimes, then each subtree is `pos BETWEEN first_pos AND
-- last_pos`.
CREATE VIEW IF NOT EXISTS _scope_span (
  -- Trace the lifetime was recorded in.
  trace_id,
  -- Its OS pid.
  root_pid,
  -- The lifetime (process.process_id).
  process_id,
  -- tree_node.pos of its first image.
  first_pos,
  -- The last tree_node.pos of its subtree (tree_node.subtree_end).
  last_pos
) AS
SELECT r.trace_id, r.pid, r.process_id, a.pos, a.subtree_end
FROM process AS r
JOIN tree_node AS a ON a.process_id = r.process_id AND a.image = 0;

-- Helper for the queries' `--pid`/`--trace` scope, the one definition of
-- which processes a report covers: with root_pid NULL, every process
-- lifetime of each trace (no `--pid`); else every lifetime of pid root_pid
-- with its descendants. A query selects its scope with
-- `WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)`.
-- CROSS JOIN: the pid's lifetimes are found first (_scope_span), then
-- each one's subtree as a range of tree_node, so a scope costs in
-- proportion to its processes. A pid reused inside a subtree of its own
-- gives a process twice; the queries read it with `IN`.
CREATE VIEW IF NOT EXISTS _scope (
  -- Trace the lifetime was recorded in.
  trace_id,
  -- OS pid of the lifetime at the top of the subtree; NULL for the rows
  -- that give the whole trace.
  root_pid,
  -- A process lifetime in the scope.
  process_id
) AS
SELECT trace_id, CAST(NULL AS INTEGER), process_id FROM process
UNION ALL
SELECT s.trace_id, s.root_pid, d.process_id
FROM _scope_span AS s
CROSS JOIN tree_node AS d
WHERE d.pos BETWEEN s.first_pos AND s.last_pos AND +d.image = 0;

-- Helper for the files and build views: what each kind of namei.access
-- means, the one place that classifies the access strings (files,
-- build_access, _build_changed and build_hazard read it). A test checks
-- that its rows name exactly the kinds the importer writes. Its rows are
-- constant, written here (OR IGNORE: `--append` applies this file again).
-- The views test a kind with `access IN (SELECT access FROM _access_class
-- WHERE …)`: a list built once per statement, cheaper than a join per
-- lookup (build_access reads every lookup).
CREATE TABLE IF NOT EXISTS _access_class (
  -- namei.access.
  access TEXT PRIMARY KEY,
  -- What a successful lookup of this kind does to the path, as the build
  -- analysis counts it: `read` (its contents or program were read),
  -- `write` (its contents were written or it was made), `remove` (it is
  -- gone from that name) or `probe` (looked at, or only its attributes
  -- changed).
  effect TEXT NOT NULL,
  -- 1 when the call changed the path: its contents, its existence, its
  -- name or its attributes (files.written).
  modifies INTEGER NOT NULL,
  -- 1 when the call may have brought the path into existence (build_hazard's
  -- `ghost-later-created`).
  creates INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO _access_class (access, effect, modifies, creates)
VALUES ('read', 'read', 0, 0),
       ('exec', 'read', 0, 0),
       ('write', 'write', 1, 0),
       ('create', 'write', 1, 1),
       ('rename-to', 'write', 1, 1),
       ('delete', 'remove', 1, 0),
       ('rename-from', 'remove', 1, 0),
       ('attr', 'probe', 1, 0),
       ('probe', 'probe', 0, 0);

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
  end_offset,
  -- The image's calls are the process's calls with a call_id from this
  -- one (exec.calls_from) …
  calls_from,
  -- … up to this one, not included; NULL for the last image. The same
  -- calls as the offsets say, found through the index call_process.
  calls_to
) AS
SELECT e.exec_id, e.process_id, e.seq, e.image, e.comm, e.ts,
       COALESCE(c.ret_offset, c.call_offset + 1, 0),
       lead(COALESCE(c.ret_offset, c.call_offset + 1, 0)) OVER w,
       e.calls_from, lead(e.calls_from) OVER w
FROM exec AS e
LEFT JOIN call AS c ON c.call_id = e.call_id
WHERE e.success = 1
WINDOW w AS (PARTITION BY e.process_id ORDER BY e.seq);

-- The process tree as ptrace.py -t prints it: one node per process image
-- (table tree_node, with what the reports show of each). An exec is a
-- sibling (the next image of the same pid, at the same depth), a fork a
-- child (under the image that forked). `ORDER BY sort_key` gives the
-- printed order: roots by first appearance, each image followed by its
-- children in fork order, depth first.
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
  -- Sorts the nodes into printed order (tree_node.pos).
  sort_key
) AS
SELECT t.trace_id, t.process_id, p.pid, t.exec_id, t.image, e.comm, e.ts, p.parent_id,
       p.parent_exec_id, t.depth, t.pos
FROM tree_node AS t
JOIN process AS p USING (process_id)
JOIN exec AS e USING (exec_id);

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
       n.call_id, CASE WHEN n.coredump = 1 THEN 'coredump' ELSE c.syscall END,
       n.access, n.process_id, p.pid, e.comm,
       CASE WHEN n.coredump = 1 THEN 1 ELSE c.success END,
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
       max(CASE WHEN access IN (SELECT access FROM _access_class WHERE modifies = 1) THEN 1 ELSE 0 END), min(ts)
FROM file_access
WHERE success = 1
GROUP BY trace_id, path;

-- One row per syscall name (or unknown number) and trace: how often it was
-- called, how often it failed, and the time spent in it (table
-- syscall_stat, which the import counted from the call rows). A fork
-- counts once: the child's return is in child_returns, not in calls.
CREATE VIEW IF NOT EXISTS syscall_summary (
  -- Trace it was recorded in.
  trace_id,
  -- Syscall name, or `#N` when the system's table does not know number N.
  syscall,
  -- Syscall number.
  code,
  -- Calls made (rows of call_made).
  calls,
  -- Rows of table call that are a child's return (unpaired `child
  -- return`), not counted in calls.
  child_returns,
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
SELECT trace_id, COALESCE(syscall, '#' || code), code, calls, child_returns, failed, no_return,
       total_dur,
       CASE WHEN timed > 0 THEN CAST((total_dur - total_dur % timed) / timed AS BIGINT) END, max_dur
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
  -- Calls it made (its rows of call_made).
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
  -- Program, made absolute where possible: the exec's path; for an image
  -- 0, the program a posix_spawn started it with (NetBSD), else NULL (a
  -- forked copy of its parent).
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
  -- The call's syscall name (`coredump` for a core file). The only column
  -- that reads the call: a query that does not ask for it reads no call.
  syscall,
  -- namei.success: 1 succeeded (a core file always did), 0 failed, NULL
  -- unfinished.
  success,
  -- What a successful lookup did: `read` (read, exec), `write` (write,
  -- create, rename-to), `remove` (delete, rename-from) or `probe` (probe,
  -- attr); NULL when it failed or is unfinished.
  effect,
  -- File offset of the NAMI record: the order of the accesses.
  "offset",
  -- Record time (ns).
  ts
) AS
SELECT n.namei_id, p.trace_id, n.resolved_id, n.exec_id, n.process_id, n.access,
       CASE WHEN n.coredump = 1 THEN 'coredump'
            ELSE (SELECT c.syscall FROM call AS c WHERE c.call_id = n.call_id) END,
       n.success,
       CASE WHEN NOT COALESCE(n.success, 0) = 1 THEN NULL
            WHEN n.access IN (SELECT access FROM _access_class WHERE effect = 'read') THEN 'read'
            WHEN n.access IN (SELECT access FROM _access_class WHERE effect = 'write') THEN 'write'
            WHEN n.access IN (SELECT access FROM _access_class WHERE effect = 'remove')
            THEN 'remove'
            ELSE 'probe' END,
       n."offset", n.ts
FROM namei AS n
JOIN process AS p USING (process_id)
WHERE n.resolution <> 'unknown base';

-- Helper for build_flow, build_file and build_hazard: the build_access
-- rows of the paths some lookup wrote, created, renamed or removed
-- (whether it succeeded or not). Flows, writers, removals and hazards
-- only ever involve these paths, a small part of what a build looks up
-- (on the 1 GiB benchmark 69 k of 608 k accesses). (`+path_id`: one
-- pass over namei in table order is cheaper than seeking each path's rows
-- through namei_resolved.)
CREATE VIEW IF NOT EXISTS _build_changed (
  -- build_access.namei_id.
  namei_id,
  -- build_access.trace_id.
  trace_id,
  -- build_access.path_id.
  path_id,
  -- build_access.command_id.
  command_id,
  -- build_access.process_id.
  process_id,
  -- build_access.access.
  access,
  -- build_access.syscall.
  syscall,
  -- build_access.success.
  success,
  -- build_access.effect.
  effect,
  -- build_access.offset.
  "offset",
  -- build_access.ts.
  ts
) AS
SELECT namei_id, trace_id, path_id, command_id, process_id, access, syscall, success,
       effect, "offset", ts
FROM build_access
WHERE +path_id IN (SELECT resolved_id FROM namei
                  WHERE access IN (SELECT access FROM _access_class
                                   WHERE effect IN ('write', 'remove')));

-- Helper for the build views and for the `-p` scope of the build reports
-- (`outputs`, `graph`): the successful reads, writes and removals the
-- build analysis reads, per scope. With root_pid NULL, the whole build's
-- of the paths it changed (_build_changed); else those of the paths some
-- lookup changed by every lifetime of pid root_pid and their descendants
-- (_scope), taken as a build of its own. The views
-- below partition every window and group by root_pid, so a query's
-- `root_pid IS NOT DISTINCT FROM $pid` reaches this view: a scope's rows
-- are its processes' lookups through the index namei_process, in
-- proportion to the subtree, and the whole build's are one pass over the
-- lookups as before.
CREATE VIEW IF NOT EXISTS _scope_changed (
  -- NULL for the whole build; else the OS pid at the top of the subtree
  -- (_scope.root_pid).
  root_pid,
  -- build_access.trace_id.
  trace_id,
  -- build_access.path_id.
  path_id,
  -- build_access.command_id.
  command_id,
  -- build_access.effect: `read`, `write` or `remove`.
  effect,
  -- build_access.offset.
  "offset",
  -- build_access.ts.
  ts
) AS
SELECT CAST(NULL AS INTEGER), trace_id, path_id, command_id, effect, "offset", ts
FROM _build_changed
WHERE access IN (SELECT access FROM _access_class WHERE effect IN ('read', 'write', 'remove'))
  AND effect IN ('read', 'write', 'remove')
UNION ALL
-- DISTINCT: a pid reused inside its own subtree gives a process twice.
-- CROSS JOIN: the scope's processes first, then each one's lookups.
-- Only the paths some lookup wrote or removed (as _build_changed), each
-- lookup's path seeked through namei_resolved (path, access).
SELECT s.root_pid, a.trace_id, a.path_id, a.command_id, a.effect, a."offset", a.ts
FROM (SELECT DISTINCT root_pid, process_id FROM _scope WHERE root_pid IS NOT NULL) AS s
CROSS JOIN build_access AS a
WHERE a.process_id = s.process_id
  -- (The access kind needs only the lookup, so it drops the others before their call is read.)
  AND a.access IN (SELECT access FROM _access_class WHERE effect IN ('read', 'write', 'remove'))
  AND a.effect IN ('read', 'write', 'remove')
  AND EXISTS (SELECT 1 FROM namei AS w
              WHERE w.resolved_id = a.path_id
                AND w.access IN (SELECT access FROM _access_class
                                 WHERE effect IN ('write', 'remove')));

-- Helper for _scope_flow and _scope_changed_file: each successful read,
-- write and removal of _scope_changed with the write it follows (the
-- latest earlier write of its path, by file order; removals do not reset
-- it), by the file flow rule (queries/blocks/flow_after_write.sql, which
-- build_flow states too). One pass over the lookups for both.
CREATE VIEW IF NOT EXISTS _scope_after_write (
  -- _scope_changed.root_pid.
  root_pid,
  -- Trace it was recorded in.
  trace_id,
  -- The path's id (path.path_id).
  path_id,
  -- The command that made it (command.command_id).
  command_id,
  -- `read`, `write` or `remove` (build_access.effect).
  effect,
  -- File offset of the lookup (build_access.offset).
  "offset",
  -- Time (ns) of the lookup.
  ts,
  -- Writes of the path up to this lookup (this one included): 0 before
  -- the first.
  grp,
  -- The command of that latest write (the write itself for a write); NULL
  -- when grp is 0.
  writer,
  -- Time (ns) of that write.
  wts,
  -- For a read of what another command wrote (a flow): that command
  -- (writer); else NULL.
  producer
) AS
WITH flow_in AS (
  SELECT root_pid, trace_id, path_id, command_id, effect, "offset", ts
  FROM _scope_changed
  WHERE effect IN ('read', 'write', 'remove')
),
-- block: flow_after_write
-- The file flow rule, stated once (part 1 of 2; part 2 is
-- flow_first_read): for each read, write and removal of flow_in
-- (root_pid, trace_id, path_id, command_id, effect, "offset", ts), the
-- latest earlier write of its path by file order (removals do not reset
-- it); when another command made it, the read consumed what that command
-- produced. Each root_pid is a build of its own.
-- grp: the path's writes up to this lookup (this one included).
flow_count AS (
  SELECT root_pid, trace_id, path_id, command_id, effect, "offset", ts,
         count(*) FILTER (WHERE effect = 'write')
           OVER (PARTITION BY root_pid, trace_id, path_id ORDER BY "offset") AS grp
  FROM flow_in
),
-- A group's first row is its write (grp counts it), so first_value is
-- that write; the rows of group 0 have none. producer: the writer, when
-- this is a read of another command's write (a flow).
flow_after (root_pid, trace_id, path_id, command_id, effect, "offset", ts, grp, writer, wts,
            producer) AS (
  SELECT root_pid, trace_id, path_id, command_id, effect, "offset", ts, grp,
         CASE WHEN grp > 0 THEN first_value(command_id) OVER g END,
         CASE WHEN grp > 0 THEN first_value(ts) OVER g END,
         CASE WHEN effect = 'read' AND grp > 0 AND first_value(command_id) OVER g <> command_id
              THEN first_value(command_id) OVER g END
  FROM flow_count
  WINDOW g AS (PARTITION BY root_pid, trace_id, path_id, grp ORDER BY "offset")
)
-- end block: flow_after_write
SELECT root_pid, trace_id, path_id, command_id, effect, "offset", ts, grp, writer, wts, producer
FROM flow_after;

-- Helper for _scope_changed_file and the `-p` scope of `graph --commands`:
-- build_flow's rows per scope of _scope_changed (root_pid NULL: the whole
-- build's, the rows of build_flow; else those of the subtree taken as a
-- build of its own).
CREATE VIEW IF NOT EXISTS _scope_flow (
  -- _scope_changed.root_pid.
  root_pid,
  -- Trace it was recorded in.
  trace_id,
  -- The path's id (path.path_id).
  path_id,
  -- The command that wrote it (command.command_id).
  producer_id,
  -- The command that read it afterwards.
  consumer_id,
  -- Time (ns) of that write.
  write_ts,
  -- Time (ns) of the consumer's first read after a write of the producer.
  read_ts
) AS
WITH flow_after AS (SELECT * FROM _scope_after_write),
-- block: flow_first_read
-- The file flow rule, part 2 (part 1 is flow_after_write): the flows of
-- flow_after, one row per (path, producer, consumer) at the consumer's
-- first read after a write of the producer. Windows, not a GROUP BY:
-- SQLite passes a filter on root_pid down through windows, not through a
-- group.
flow_first (root_pid, trace_id, path_id, producer_id, consumer_id, write_ts, read_ts) AS (
  SELECT root_pid, trace_id, path_id, producer, command_id, wts, ts
  FROM (SELECT root_pid, trace_id, path_id, producer, command_id, wts, ts,
               row_number() OVER (PARTITION BY root_pid, trace_id, path_id, producer, command_id
                                  ORDER BY "offset") AS n
        FROM flow_after
        WHERE producer IS NOT NULL)
  WHERE n = 1
)
-- end block: flow_first_read
SELECT root_pid, trace_id, path_id, producer_id, consumer_id, write_ts, read_ts
FROM flow_first;

-- Producer -> consumer: for each read, the latest earlier write of the
-- path (by file order; removals do not reset it); when another command
-- made it, that command produced what this one consumed. One row per
-- (path, producer, consumer), at the consumer's first such read. The
-- rows of _scope_flow's whole build, by the same blocks of the file flow
-- rule (queries/blocks/flow_*.sql), over _build_changed: the queries that
-- join build_flow with other tables (the timeline's flows, the critical
-- path) would not pass _scope_flow's `root_pid IS NULL` down, and would
-- compute every subtree's flows.
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
-- Removals never make a flow nor reset the latest write: only reads and
-- writes go in.
WITH flow_in AS (
  SELECT CAST(NULL AS INTEGER) AS root_pid, trace_id, path_id, command_id, effect, "offset", ts
  FROM _build_changed
  WHERE effect IN ('read', 'write')
),
-- block: flow_after_write
-- The file flow rule, stated once (part 1 of 2; part 2 is
-- flow_first_read): for each read, write and removal of flow_in
-- (root_pid, trace_id, path_id, command_id, effect, "offset", ts), the
-- latest earlier write of its path by file order (removals do not reset
-- it); when another command made it, the read consumed what that command
-- produced. Each root_pid is a build of its own.
-- grp: the path's writes up to this lookup (this one included).
flow_count AS (
  SELECT root_pid, trace_id, path_id, command_id, effect, "offset", ts,
         count(*) FILTER (WHERE effect = 'write')
           OVER (PARTITION BY root_pid, trace_id, path_id ORDER BY "offset") AS grp
  FROM flow_in
),
-- A group's first row is its write (grp counts it), so first_value is
-- that write; the rows of group 0 have none. producer: the writer, when
-- this is a read of another command's write (a flow).
flow_after (root_pid, trace_id, path_id, command_id, effect, "offset", ts, grp, writer, wts,
            producer) AS (
  SELECT root_pid, trace_id, path_id, command_id, effect, "offset", ts, grp,
         CASE WHEN grp > 0 THEN first_value(command_id) OVER g END,
         CASE WHEN grp > 0 THEN first_value(ts) OVER g END,
         CASE WHEN effect = 'read' AND grp > 0 AND first_value(command_id) OVER g <> command_id
              THEN first_value(command_id) OVER g END
  FROM flow_count
  WINDOW g AS (PARTITION BY root_pid, trace_id, path_id, grp ORDER BY "offset")
)
-- end block: flow_after_write
,
-- block: flow_first_read
-- The file flow rule, part 2 (part 1 is flow_after_write): the flows of
-- flow_after, one row per (path, producer, consumer) at the consumer's
-- first read after a write of the producer. Windows, not a GROUP BY:
-- SQLite passes a filter on root_pid down through windows, not through a
-- group.
flow_first (root_pid, trace_id, path_id, producer_id, consumer_id, write_ts, read_ts) AS (
  SELECT root_pid, trace_id, path_id, producer, command_id, wts, ts
  FROM (SELECT root_pid, trace_id, path_id, producer, command_id, wts, ts,
               row_number() OVER (PARTITION BY root_pid, trace_id, path_id, producer, command_id
                                  ORDER BY "offset") AS n
        FROM flow_after
        WHERE producer IS NOT NULL)
  WHERE n = 1
)
-- end block: flow_first_read
-- The GROUP BY adds nothing to the rows (flow_first has one per group),
-- but keeps the flows one subquery worked out once, whatever joins
-- build_flow (flattened into the joins of the timeline's flows, the
-- windows above made that query ten times slower on a 300 MB build).
SELECT f.trace_id, f.path_id, pa.path, f.producer_id, f.consumer_id, f.write_ts, f.read_ts
FROM (SELECT trace_id, path_id, producer_id, consumer_id, min(write_ts) AS write_ts,
             min(read_ts) AS read_ts
      FROM flow_first
      GROUP BY trace_id, path_id, producer_id, consumer_id) AS f
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

-- Helper for _build_changed_file and the `-p` scope of `outputs` and
-- `graph`: the paths changed (a successful write or removal) per scope of
-- _scope_changed, with the role build_file's first three rules give them:
-- `temporary` (the last change removed it), `intermediate` (_scope_flow)
-- or else `output`. The changes and the flows of a path are one window
-- partition, and windows only (no GROUP BY: SQLite passes a filter on
-- the partition's columns down through windows, not through a group), so
-- a scope's filter reaches _scope_changed.
CREATE VIEW IF NOT EXISTS _scope_changed_file (
  -- _scope_changed.root_pid.
  root_pid,
  -- Trace it was recorded in.
  trace_id,
  -- The path's id (path.path_id).
  path_id,
  -- `temporary`, `intermediate` or `output`.
  role,
  -- The command of the first successful write (command.command_id), or NULL.
  first_writer_id,
  -- The command of the last successful write, or NULL.
  last_writer_id,
  -- Commands that wrote it (write, create, rename-to).
  writers
) AS
-- One window per step: SQLite passes a filter down through a step whose
-- windows differ in their PARTITION BY no further.
WITH nth AS (
  -- A read with a producer is a flow (the file flow rule of
  -- _scope_after_write); nth: 1 for a command's first lookup of its kind.
  SELECT root_pid, trace_id, path_id, effect, "offset", grp, writer,
         CASE WHEN producer IS NOT NULL THEN 1 ELSE 0 END AS flow,
         row_number() OVER (PARTITION BY root_pid, trace_id, path_id, effect, command_id
                            ORDER BY "offset") AS nth
  FROM _scope_after_write
), p AS (
  -- The first write is group 1's writer, the last the last lookup's.
  SELECT root_pid, trace_id, path_id,
         count(*) FILTER (WHERE effect = 'write' AND nth = 1) OVER w AS writers,
         max("offset" * 2 + CASE WHEN effect = 'remove' THEN 1 ELSE 0 END)
           FILTER (WHERE effect IN ('write', 'remove')) OVER w AS last_change,
         max(CASE WHEN grp = 1 THEN writer END) OVER w AS first_writer_id,
         last_value(writer) OVER w AS last_writer_id,
         count(*) FILTER (WHERE flow = 1) OVER w AS flows,
         -- Its own window: Spark numbers rows only over the default frame.
         row_number() OVER (PARTITION BY root_pid, trace_id, path_id ORDER BY "offset") AS k
  FROM nth
  WINDOW w AS (PARTITION BY root_pid, trace_id, path_id ORDER BY "offset"
               ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
)
SELECT root_pid, trace_id, path_id,
       CASE WHEN last_change % 2 = 1 THEN 'temporary'
            WHEN flows > 0 THEN 'intermediate'
            ELSE 'output' END,
       first_writer_id, last_writer_id, writers
-- One row per path changed (each of its rows carries the path's values).
FROM p
WHERE k = 1 AND last_change IS NOT NULL;

-- Helper for build_file: the paths the build changed (a successful write
-- or removal), with the role build_file's first three rules give them:
-- `temporary` (the last change removed it), `intermediate` (build_flow)
-- or else `output`. Every other path is a source, a probe or a ghost. It
-- reads only _build_changed, so reports about outputs skip the pass over
-- every lookup that build_file's other columns need.
CREATE VIEW IF NOT EXISTS _build_changed_file (
  -- Trace it was recorded in.
  trace_id,
  -- The path's id (path.path_id).
  path_id,
  -- `temporary`, `intermediate` or `output`.
  role,
  -- The command of the first successful write (command.command_id), or NULL.
  first_writer_id,
  -- The command of the last successful write, or NULL.
  last_writer_id,
  -- Commands that wrote it (write, create, rename-to).
  writers
) AS
SELECT trace_id, path_id, role, first_writer_id, last_writer_id, writers
FROM _scope_changed_file
WHERE root_pid IS NULL;

-- Helper for the build reports: the paths of device and pseudo files,
-- in /dev (/dev/null, /dev/tty, /dev/fd/3), /proc and /sys. No build
-- makes or reads a file there: `outputs`, `inputs` and `graph` leave
-- them out, and `lint` unless asked (--devices). The one statement of
-- the rule.
CREATE VIEW IF NOT EXISTS _device_path (
  -- The path's id (path.path_id).
  path_id
) AS
SELECT path_id FROM path
WHERE path IN ('/dev', '/proc', '/sys')
   OR (path >= '/dev/' AND path < '/dev0')
   OR (path >= '/proc/' AND path < '/proc0')
   OR (path >= '/sys/' AND path < '/sys0');

-- Every path the build looked up, with its role: `temporary` (the last
-- write or removal removed it), `intermediate` (written by one command,
-- read later by another: build_flow), `output` (written, present at the
-- end), `source` (read, never written or removed), `probe` (only
-- stat-like lookups succeeded) or `ghost` (no lookup succeeded), the first
-- that applies, in that order.
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
         count(effect) AS lookups, count(*) FILTER (WHERE success = 0) AS failed
  FROM build_access
  GROUP BY trace_id, path_id
)
SELECT s.trace_id, s.path_id, pa.path,
       COALESCE(cf.role, CASE WHEN s.readers > 0 THEN 'source'
                              WHEN s.lookups > 0 THEN 'probe'
                              ELSE 'ghost' END),
       cf.first_writer_id, cf.last_writer_id, COALESCE(cf.writers, 0),
       s.readers, s.lookups, s.failed
FROM s
JOIN path AS pa USING (path_id)
LEFT JOIN _build_changed_file AS cf ON cf.trace_id = s.trace_id AND cf.path_id = s.path_id;

-- Who read and who wrote each path of build_file: one row per path,
-- command and effect, the commands of each effect numbered in the order
-- of their first such access.
CREATE VIEW IF NOT EXISTS build_file_command (
  -- Trace it was recorded in.
  trace_id,
  -- The path's id (path.path_id).
  path_id,
  -- The path (TEXT, or BLOB when not UTF-8).
  path,
  -- `read` (read or exec) or `write` (write, create or rename-to).
  effect,
  -- 1 for the command that did it first, 2 for the next, ….
  seq,
  -- The command (command.command_id).
  command_id,
  -- Time (ns) of its first such access of the path.
  first_ts
) AS
WITH u AS (
  SELECT trace_id, path_id, command_id, effect, min("offset") AS first_offset, min(ts) AS first_ts
  FROM build_access
  WHERE effect IN ('read', 'write')
  GROUP BY trace_id, path_id, command_id, effect
)
SELECT u.trace_id, u.path_id, pa.path, u.effect,
       row_number() OVER (PARTITION BY u.trace_id, u.path_id, u.effect
                          ORDER BY u.first_offset, u.command_id),
       u.command_id, u.first_ts
FROM u
JOIN path AS pa USING (path_id);

-- Build hazards (two commands of one process
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
WITH RECURSIVE anc AS MATERIALIZED (
  SELECT ancestor_id, process_id FROM process_descendant WHERE depth > 0
), ch AS MATERIALIZED (
  -- Only the paths the build changed can have a hazard.
  SELECT namei_id, trace_id, path_id, command_id, process_id, access, success, effect,
         "offset", ts
  FROM _build_changed
), fr AS MATERIALIZED (
  -- Each command's first read of a path (ts: that read's).
  SELECT trace_id, path_id, command_id, process_id, ts, "offset" AS off
  FROM (SELECT trace_id, path_id, command_id, process_id, ts, "offset",
               row_number() OVER (PARTITION BY trace_id, path_id, command_id
                                  ORDER BY "offset") AS n
        FROM ch WHERE effect = 'read')
  WHERE n = 1
), fw AS MATERIALIZED (
  -- Each command's first write of a path.
  SELECT trace_id, path_id, command_id, process_id, ts, "offset" AS off
  FROM (SELECT trace_id, path_id, command_id, process_id, ts, "offset",
               row_number() OVER (PARTITION BY trace_id, path_id, command_id
                                  ORDER BY "offset") AS n
        FROM ch WHERE effect = 'write')
  WHERE n = 1
), ff AS MATERIALIZED (
  -- Each command's first failed lookup of a path (only their calls are
  -- read, for the syscall).
  SELECT trace_id, path_id, command_id, process_id, ts,
         (SELECT max(b.syscall) FROM build_access AS b WHERE b.namei_id = f.namei_id) AS syscall,
         "offset" AS off
  FROM (SELECT namei_id, trace_id, path_id, command_id, process_id, ts, "offset",
               row_number() OVER (PARTITION BY trace_id, path_id, command_id
                                  ORDER BY "offset") AS n
        FROM ch WHERE success = 0) AS f
  WHERE n = 1
), wr AS MATERIALIZED (
  -- Every write, with the next write of its path (nxt: offset, nxp: process).
  SELECT trace_id, path_id, command_id, process_id, access, ts, "offset",
         lead("offset") OVER w AS nxt, lead(process_id) OVER w AS nxp
  FROM ch WHERE effect = 'write'
  WINDOW w AS (PARTITION BY trace_id, path_id ORDER BY "offset")
), wn AS MATERIALIZED (
  -- nd: the offset of the first later write by another process than this
  -- write's. The writes up to the end of this one's run of same-process
  -- writes are its process's; the run's last write says where the next
  -- process's begins, and those offsets grow along the path, so the
  -- nearest run end is the smallest such offset at or after this write.
  SELECT trace_id, path_id, command_id, process_id, ts, "offset",
         min(CASE WHEN nxp <> process_id THEN nxt END)
           OVER (PARTITION BY trace_id, path_id ORDER BY "offset" DESC) AS nd
  FROM wr
), cr AS MATERIALIZED (
  -- Every create (create, rename-to), with the offset of the next one.
  SELECT trace_id, path_id, command_id, process_id, ts, "offset",
         lead("offset") OVER (PARTITION BY trace_id, path_id ORDER BY "offset") AS nxt
  FROM wr WHERE access IN (SELECT access FROM _access_class WHERE creates = 1)
), iv AS MATERIALIZED (
  -- race: the first reads and first writes of the paths both read and
  -- written, each with its process's interval [s, e] and its rank k among
  -- them by start.
  SELECT trace_id, path_id, rw, command_id, process_id, ts, s, e,
         row_number() OVER (PARTITION BY trace_id, path_id ORDER BY s, rw, command_id) AS k
  FROM (SELECT r.trace_id, r.path_id, 0 AS rw, r.command_id, r.process_id, r.ts,
               p.first_ts AS s, p.last_ts AS e
        FROM fr AS r JOIN process AS p USING (process_id)
        WHERE r.path_id IN (SELECT path_id FROM fw)
        UNION ALL
        SELECT w.trace_id, w.path_id, 1, w.command_id, w.process_id, w.ts, p.first_ts, p.last_ts
        FROM fw AS w JOIN process AS p USING (process_id)
        WHERE w.path_id IN (SELECT path_id FROM fr))
), reach AS MATERIALIZED (
  -- hi: how many of them start before this one ends (ends sort before
  -- starts at the same time), so ranks k + 1 … hi are the later-ranked
  -- ones that overlap it.
  SELECT trace_id, path_id, rw, command_id, hi
  FROM (SELECT trace_id, path_id, rw, command_id, ev,
               count(*) FILTER (WHERE ev = 1)
                 OVER (PARTITION BY trace_id, path_id ORDER BY t, ev, rw, command_id) AS hi
        FROM (SELECT trace_id, path_id, rw, command_id, s AS t, 1 AS ev FROM iv
              UNION ALL
              SELECT trace_id, path_id, rw, command_id, e, 0 FROM iv))
  WHERE ev = 0
), pair (trace_id, path_id, xk, yk, hi) AS (
  -- Every overlapping pair once, walked rank by rank: as many rows as
  -- pairs, not readers × writers.
  SELECT x.trace_id, x.path_id, x.k, x.k + 1, r.hi
  FROM iv AS x
  JOIN reach AS r ON r.trace_id = x.trace_id AND r.path_id = x.path_id AND r.rw = x.rw
   AND r.command_id = x.command_id
  WHERE r.hi > x.k
  UNION ALL
  SELECT trace_id, path_id, xk, yk + 1, hi FROM pair WHERE yk < hi
), un AS MATERIALIZED (
  -- used-then-changed: each first read with the first write after it (nw).
  SELECT trace_id, path_id, command_id, process_id, ts, nw
  FROM (SELECT trace_id, path_id, command_id, process_id, ts, isw,
               min("offset") FILTER (WHERE isw = 1)
                 OVER (PARTITION BY trace_id, path_id ORDER BY "offset" DESC) AS nw
        FROM (SELECT trace_id, path_id, command_id, process_id, ts, off AS "offset", 0 AS isw
              FROM fr
              UNION ALL
              SELECT trace_id, path_id, NULL, NULL, NULL, "offset", 1 FROM wr))
  WHERE isw = 0 AND nw IS NOT NULL
), walk (trace_id, path_id, lc, lp, lts, sc, coff) AS (
  -- ghost-later-created: from each first failed lookup, the creates after
  -- it one by one, until one outside the lookup's process subtree.
  SELECT trace_id, path_id, command_id, process_id, ts, syscall, nc
  FROM (SELECT trace_id, path_id, command_id, process_id, ts, syscall, isc,
               min("offset") FILTER (WHERE isc = 1)
                 OVER (PARTITION BY trace_id, path_id ORDER BY "offset" DESC) AS nc
        FROM (SELECT trace_id, path_id, command_id, process_id, ts, syscall, off AS "offset",
                     0 AS isc
              FROM ff
              WHERE path_id IN (SELECT path_id FROM cr)
              UNION ALL
              SELECT trace_id, path_id, NULL, NULL, NULL, NULL, "offset", 1 FROM cr))
  WHERE isc = 0 AND nc IS NOT NULL
  UNION ALL
  SELECT w.trace_id, w.path_id, w.lc, w.lp, w.lts, w.sc, c.nxt
  FROM walk AS w
  JOIN cr AS c ON c.trace_id = w.trace_id AND c.path_id = w.path_id AND c."offset" = w.coff
  WHERE c.nxt IS NOT NULL
    AND (c.process_id = w.lp
         OR EXISTS (SELECT 1 FROM anc WHERE anc.ancestor_id = w.lp
                    AND anc.process_id = c.process_id))
), h AS (
  SELECT trace_id, 'double-write' AS kind, path_id,
         (SELECT w.command_id FROM fw AS w WHERE w.trace_id = d.trace_id
          AND w.path_id = d.path_id ORDER BY w.off LIMIT 1) AS command_id,
         (SELECT w.command_id FROM fw AS w WHERE w.trace_id = d.trace_id
          AND w.path_id = d.path_id ORDER BY w.off DESC LIMIT 1) AS other_id,
         first_ts AS ts, last_ts AS other_ts, CAST(NULL AS TEXT) AS syscall,
         (SELECT json_group_array(command_id)
          FROM (SELECT w.command_id FROM fw AS w WHERE w.trace_id = d.trace_id
                AND w.path_id = d.path_id ORDER BY w.off)) AS commands
  FROM (SELECT trace_id, path_id, min(ts) AS first_ts, max(ts) AS last_ts
        FROM fw GROUP BY trace_id, path_id HAVING count(DISTINCT process_id) > 1) AS d
  UNION ALL
  SELECT trace_id, 'race', path_id, rc, wc, rts, wts, NULL, json_array(rc, wc)
  FROM (SELECT p.trace_id, p.path_id,
               CASE x.rw WHEN 0 THEN x.command_id ELSE y.command_id END AS rc,
               CASE x.rw WHEN 0 THEN y.command_id ELSE x.command_id END AS wc,
               CASE x.rw WHEN 0 THEN x.ts ELSE y.ts END AS rts,
               CASE x.rw WHEN 0 THEN y.ts ELSE x.ts END AS wts
        FROM pair AS p
        CROSS JOIN iv AS x
        JOIN iv AS y ON y.trace_id = p.trace_id AND y.path_id = p.path_id AND y.k = p.yk
        WHERE x.trace_id = p.trace_id AND x.path_id = p.path_id AND x.k = p.xk
          AND x.rw <> y.rw AND x.process_id <> y.process_id AND x.s < y.e AND y.s < x.e
          AND NOT EXISTS (SELECT 1 FROM anc WHERE anc.ancestor_id = x.process_id
                          AND anc.process_id = y.process_id)
          AND NOT EXISTS (SELECT 1 FROM anc WHERE anc.ancestor_id = y.process_id
                          AND anc.process_id = x.process_id))
  UNION ALL
  SELECT r.trace_id, 'used-then-changed', r.path_id, r.command_id, b.command_id, r.ts, b.ts,
         NULL, json_array(r.command_id, b.command_id)
  FROM un AS r
  CROSS JOIN wn AS a
  JOIN wn AS b ON b.trace_id = r.trace_id AND b.path_id = r.path_id
   AND b."offset" = CASE WHEN a.process_id <> r.process_id THEN a."offset" ELSE a.nd END
  WHERE a.trace_id = r.trace_id AND a.path_id = r.path_id AND a."offset" = r.nw
  UNION ALL
  SELECT w.trace_id, 'ghost-later-created', w.path_id, w.lc, c.command_id, w.lts, c.ts, w.sc,
         json_array(w.lc, c.command_id)
  FROM walk AS w
  CROSS JOIN cr AS c
  WHERE c.trace_id = w.trace_id AND c.path_id = w.path_id AND c."offset" = w.coff
    AND c.process_id <> w.lp
    AND NOT EXISTS (SELECT 1 FROM anc WHERE anc.ancestor_id = w.lp
                    AND anc.process_id = c.process_id)
)
SELECT h.trace_id, h.kind, h.path_id, pa.path, h.command_id, h.other_id, h.ts, h.other_ts,
       h.syscall, h.commands
FROM h JOIN path AS pa USING (path_id);

-- The build as it is now: one row per process alive at the snapshot of a
-- trace that `kt2sql import --follow` is still following (trace.following
-- = 1), with the command it runs, the call it is in and the last path it
-- looked up. The snapshot's time is the trace's latest record
-- (trace.last_ts): every elapsed time here runs to it. Empty for a trace
-- whose import has ended: its processes that were still running where it
-- ends are `process.exit_seen = 0`.
CREATE VIEW IF NOT EXISTS running (
  -- Trace it was recorded in.
  trace_id,
  -- Process lifetime.
  process_id,
  -- OS pid.
  pid,
  -- The parent's pid; NULL for a root.
  ppid,
  -- The command it runs now: its current image (command.command_id,
  -- exec.exec_id).
  command_id,
  -- Command name of that image.
  comm,
  -- argv of the exec that started it (JSON array, or BLOB of
  -- NUL-separated bytes) where the trace records it; else NULL.
  argv,
  -- Program, made absolute where possible; for an image 0, the program a
  -- posix_spawn started it with (NetBSD, whose spawn call looks it up),
  -- else NULL (a forked copy of its parent).
  program,
  -- Working directory when the command started, when known.
  cwd,
  -- Time (ns) the process began (its first record).
  process_start_ts,
  -- Time (ns) the command began: the process's first record for image 0,
  -- the exec's return otherwise.
  start_ts,
  -- snapshot_ts - start_ts (ns): how long the command has run so far.
  elapsed,
  -- The call it is in now: of its calls in flight (call.unpaired
  -- `running`), the one begun first (the longest wait when several of its
  -- threads are in calls); NULL when it is in none.
  call_id,
  -- That call's syscall name (`wait4`, `read`, `open`, …).
  call,
  -- Its arguments, kdump style.
  call_args,
  -- Time (ns) of its CALL record.
  call_ts,
  -- snapshot_ts - call_ts (ns): how long it has been in the call.
  call_elapsed,
  -- Its calls in flight (one per thread in a call).
  calls_in_flight,
  -- The last path it looked up (its lookup numbered last: lookups are
  -- numbered in file order as their calls end), made absolute where
  -- possible; NULL when it looked up none.
  last_path,
  -- Time (ns) of that lookup.
  last_path_ts,
  -- The snapshot's time (ns): trace.last_ts, the trace's latest record.
  snapshot_ts
) AS
WITH
  alive (process_id, trace_id, pid, parent_id, first_ts, snap) AS (
    SELECT p.process_id, p.trace_id, p.pid, p.parent_id, p.first_ts, t.last_ts
    FROM trace AS t
    JOIN process AS p ON p.trace_id = t.trace_id
    WHERE t.following = 1 AND p.exit_seen = 0 AND p.cut_by_damage = 0
  ),
  -- Each CTE starts from the few processes alive (CROSS JOIN keeps that
  -- order), not from every exec, call and lookup of the build.
  -- Its current image: the last successful exec.
  current (process_id, seq) AS (
    SELECT e.process_id, max(e.seq)
    FROM alive AS a CROSS JOIN exec AS e
    WHERE e.process_id = a.process_id AND e.success = 1
    GROUP BY e.process_id
  ),
  -- Call ids follow file order: the least is the call begun first.
  pending (process_id, call_id, n) AS (
    SELECT c.process_id, min(c.call_id), count(*)
    FROM alive AS a CROSS JOIN call AS c
    WHERE c.process_id = a.process_id AND c.unpaired = 'running'
    GROUP BY c.process_id
  ),
  looked (process_id, namei_id) AS (
    SELECT n.process_id, max(n.namei_id)
    FROM alive AS a CROSS JOIN namei AS n
    WHERE n.process_id = a.process_id
    GROUP BY n.process_id
  )
SELECT a.trace_id, a.process_id, a.pid, pp.pid, e.exec_id, e.comm, e.argv, rp.path, cp.path,
       a.first_ts,
       CASE WHEN e.image = 0 THEN a.first_ts ELSE e.ts END,
       a.snap - CASE WHEN e.image = 0 THEN a.first_ts ELSE e.ts END,
       c.call_id, c.syscall, c.args, c.ts, a.snap - c.ts, COALESCE(q.n, 0),
       lp.path, n.ts, a.snap
FROM alive AS a
JOIN current AS i ON i.process_id = a.process_id
JOIN exec AS e ON e.process_id = i.process_id AND e.seq = i.seq
LEFT JOIN process AS pp ON pp.process_id = a.parent_id
LEFT JOIN path AS rp ON rp.path_id = e.resolved_id
LEFT JOIN path AS cp ON cp.path_id = e.cwd_id
LEFT JOIN pending AS q ON q.process_id = a.process_id
LEFT JOIN call AS c ON c.call_id = q.call_id
LEFT JOIN looked AS l ON l.process_id = a.process_id
LEFT JOIN namei AS n ON n.namei_id = l.namei_id
LEFT JOIN path AS lp ON lp.path_id = n.resolved_id;
