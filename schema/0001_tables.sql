-- kt2sql schema, part 1: the tables, and the two indexes that are cheaper
-- to build as the rows come. Applied to a fresh database before the bulk
-- load; 0002_indexes.sql and 0003_views.sql follow after the data.
--
-- Conventions:
--   * `ts`, `dur` and every `*_ts` are integer nanoseconds since the Unix
--     epoch (µs-clock dialects are multiplied by 1000).
--   * Keys are `<table>_id`, assigned by kt2sql and unique across every
--     trace in the database; OS pids and tids are reusable and are not keys.
--   * Recorded byte strings (paths, command names, struct names) are stored
--     losslessly: as TEXT when they are valid UTF-8, otherwise as a BLOB
--     holding the exact bytes. `typeof(col) = 'blob'` finds the rest;
--     `CAST(col AS TEXT)` shows them lossily. Raw data (`event.data`) is
--     always a BLOB.
--   * Foreign keys are documented with REFERENCES but not enforced
--     (PRAGMA foreign_keys stays off): the process model writes a row when it
--     is finished, so a call may be written before the process it names.
--   * `*_offset` columns are byte offsets of the record header in the trace
--     file, so every row can be traced back to its bytes (`kt2sql dump`).

-- Facts about the database itself: `kt2sql_version` (of the kt2sql that
-- created it) and `schema_version` (equal to PRAGMA user_version).
CREATE TABLE meta (
  -- Name of the setting.
  key TEXT PRIMARY KEY,
  -- Its value.
  value TEXT
);

-- One row per imported ktrace file.
CREATE TABLE trace (
  -- Unique id of the import of this file.
  trace_id INTEGER PRIMARY KEY,
  -- Absolute path of the trace file at import time.
  path TEXT NOT NULL,
  -- File size in bytes.
  size INTEGER NOT NULL,
  -- Dialect as LAYOUT:ORDER:BITS[:VARIANT], e.g. `freebsd-v1:le:64`
  -- (the form `--dialect` accepts).
  dialect TEXT NOT NULL,
  -- System that wrote it: `freebsd`, `netbsd`, `openbsd` or `darwin`.
  system TEXT NOT NULL,
  -- Header version of the first record (FreeBSD 0/1, NetBSD 0/1/2, else 0).
  header_version INTEGER NOT NULL,
  -- Register width of the writing kernel: 32 or 64.
  word_bits INTEGER NOT NULL,
  -- Byte order of the writing kernel: `little` or `big`.
  byte_order TEXT NOT NULL,
  -- Records decoded.
  records INTEGER NOT NULL DEFAULT 0,
  -- Records by type label as a JSON object, e.g. {"CALL":12,"RET":12};
  -- use json_extract(records_by_type, '$.GIO').
  records_by_type TEXT NOT NULL DEFAULT '{}',
  -- CALL records (syscall entries).
  call_records INTEGER NOT NULL DEFAULT 0,
  -- RET records (syscall returns).
  ret_records INTEGER NOT NULL DEFAULT 0,
  -- NAMI records (path lookups).
  namei_records INTEGER NOT NULL DEFAULT 0,
  -- Records carrying the dropped-events flag (FreeBSD KTR_DROP): events
  -- were lost before each of them.
  dropped_records INTEGER NOT NULL DEFAULT 0,
  -- Time of the earliest record (ns); NULL when there are none.
  first_ts INTEGER,
  -- Time of the latest record (ns); NULL when there are none.
  last_ts INTEGER,
  -- Working directory assumed for every process with no parent in the
  -- trace (`--start-dir`), or NULL when relative paths of processes without
  -- a known cwd stay relative.
  start_cwd TEXT,
  -- 1 when GIO data bytes were kept (`--keep-io-data`), else 0.
  keep_io_data INTEGER NOT NULL DEFAULT 0,
  -- When the import ran, ISO 8601 UTC (`2024-05-01T12:00:00Z`).
  imported_at TEXT NOT NULL,
  -- Seconds the import of this file took.
  import_seconds REAL,
  -- Bytes decoded into complete records (the size less skipped damage).
  decoded_bytes INTEGER NOT NULL DEFAULT 0,
  -- 1 when every byte of the file was decoded; 0 when some could not be
  -- (a truncated tail, or damaged stretches that were skipped: see `damage`
  -- and the data_loss rows of import_issue).
  complete INTEGER NOT NULL DEFAULT 0,
  -- The first damaged stretch (byte range and why) and how many more;
  -- NULL when complete.
  damage TEXT,
  -- Rows in import_issue for this trace.
  issues INTEGER NOT NULL DEFAULT 0,
  -- Distinct absolute paths that successful calls looked up (the rows of
  -- the `files` view for this trace).
  files INTEGER NOT NULL DEFAULT 0,
  -- 64-bit FNV-1a hash of the file's first and last MiB (all of it when
  -- under 2 MiB), 16 hex digits; NULL for a pipe. With `size`, it tells a
  -- file imported before: `--append` warns when both match a trace here.
  fingerprint TEXT,
  -- 1 while `kt2sql import --follow` is still following the file (the
  -- build may still be running; the rows are a snapshot); 0 once the
  -- import has ended.
  following INTEGER NOT NULL DEFAULT 0
);

-- One process lifetime: a pid reused later in the trace is another row.
CREATE TABLE process (
  -- Unique process lifetime id (perfetto's upid).
  process_id INTEGER PRIMARY KEY,
  -- Trace it was recorded in.
  trace_id INTEGER NOT NULL REFERENCES trace(trace_id),
  -- OS process id.
  pid INTEGER NOT NULL,
  -- The forking process's lifetime; NULL for a root.
  parent_id INTEGER REFERENCES process(process_id),
  -- 1 when no fork of it was seen: it was running when tracing began, or
  -- its parent was not traced.
  running_at_start INTEGER NOT NULL,
  -- Syscall the parent created it with (`fork`, `vfork`, `rfork`, …).
  fork_syscall TEXT,
  -- The parent's fork call.
  fork_call_id INTEGER REFERENCES call(call_id),
  -- Time of the parent's fork return (ns).
  fork_ts INTEGER,
  -- File offset of the parent's fork return record.
  fork_offset INTEGER,
  -- The parent's image (program) that was current when the fork
  -- returned: the node this process hangs under in the process tree.
  parent_exec_id INTEGER REFERENCES exec(exec_id),
  -- Command name on its first record (lossless bytes, see above).
  first_comm TEXT NOT NULL,
  -- Command name on its last record (changes with exec).
  last_comm TEXT NOT NULL,
  -- Time of its earliest record (ns): of its first record, unless a later
  -- one bears an earlier time (NetBSD's EMUL of a fork child).
  first_ts INTEGER NOT NULL,
  -- Time of its latest record (ns).
  last_ts INTEGER NOT NULL,
  -- Argument of its exit call, when seen.
  exit_status INTEGER,
  -- Signal that killed it, when seen.
  exit_signal INTEGER,
  -- Time of the first record that showed its end (ns): see end_seen_by.
  exit_ts INTEGER,
  -- 1 when its end was seen (end_seen_by is set); 0 when it was still
  -- running where the trace ends.
  exit_seen INTEGER NOT NULL,
  -- Records that belong to it.
  records INTEGER NOT NULL,
  -- Its records carrying the dropped-events flag.
  dropped_events INTEGER NOT NULL,
  -- 1 when it was still running where the trace ends in damage, so its
  -- later activity is missing.
  cut_by_damage INTEGER NOT NULL,
  -- Calls it made: its rows in table call less its return from the fork
  -- that created it (unpaired `child return`), its rows in call_made.
  calls INTEGER NOT NULL DEFAULT 0,
  -- Of them, those that failed (success = 0).
  failed_calls INTEGER NOT NULL DEFAULT 0,
  -- Its rows in table namei (path lookups).
  lookups INTEGER NOT NULL DEFAULT 0,
  -- Of them, those left relative (resolution `unknown base`).
  unresolved_lookups INTEGER NOT NULL DEFAULT 0,
  -- Distinct absolute paths its successful calls looked up.
  files INTEGER NOT NULL DEFAULT 0,
  -- What first showed its end: `exit` (its exit call: exit_status),
  -- `signal` (a PSIG of a fatal signal with SIG_DFL: exit_signal), `core`
  -- (the core file it looked up as it died), `procdtor` (FreeBSD's
  -- PROCDTOR), `wait` (its parent's wait4/wait6 returned its pid; nothing
  -- of its own was recorded, as under `ktrace -t cn`); NULL when it was
  -- still running where the trace ends. `core`, `procdtor` or `wait`
  -- without exit_status means it was killed by a signal the trace does not
  -- name.
  end_seen_by TEXT
);

-- One thread of a process (dialects that record thread / LWP ids).
CREATE TABLE thread (
  -- Unique thread id (perfetto's utid).
  thread_id INTEGER PRIMARY KEY,
  -- Owning process lifetime.
  process_id INTEGER NOT NULL REFERENCES process(process_id),
  -- OS thread / LWP id.
  tid INTEGER NOT NULL,
  -- Time of its first record (ns).
  first_ts INTEGER NOT NULL,
  -- Time of its last record (ns).
  last_ts INTEGER NOT NULL,
  -- Records of this thread.
  records INTEGER NOT NULL
);

-- Interned path strings: every path, resolved path and working directory
-- is stored once and referenced by id (a build looks up the same headers
-- thousands of times). Lossless bytes: TEXT or, when not UTF-8, BLOB.
CREATE TABLE path (
  -- Unique id of the string.
  path_id INTEGER PRIMARY KEY,
  -- The path bytes.
  path TEXT NOT NULL
);

-- One program image a process ran or tried to run: seq 0 is the image it
-- had when first seen, then one row per exec attempt (failed ones too).
CREATE TABLE exec (
  -- Unique exec id.
  exec_id INTEGER PRIMARY KEY,
  -- Process lifetime.
  process_id INTEGER NOT NULL REFERENCES process(process_id),
  -- 0 for the inherited image, then 1, 2, … per exec attempt in order.
  seq INTEGER NOT NULL,
  -- 0 for the inherited image, then 1, 2, … per successful exec; NULL for
  -- a failed exec (it is not an image).
  image INTEGER,
  -- Time (ns): the first record for the inherited image, the return of
  -- the exec call otherwise.
  ts INTEGER NOT NULL,
  -- The execve call; NULL for the inherited image.
  call_id INTEGER REFERENCES call(call_id),
  -- Where the image's calls begin: they are the process's calls with a
  -- call_id from this one up to (not including) the next image's
  -- calls_from (call ids follow a process's records in file order). 0 for
  -- the inherited image; on a failed exec, where the next image would have
  -- begun.
  calls_from INTEGER NOT NULL,
  -- Program path as passed to exec; NULL when not recorded.
  path_id INTEGER REFERENCES path(path_id),
  -- The same made absolute where possible.
  resolved_id INTEGER REFERENCES path(path_id),
  -- Command name of the image (after the exec when it succeeded).
  comm TEXT NOT NULL,
  -- argv, where the trace holds it: a JSON array of strings when every
  -- string is UTF-8 (json_each works on it), else a BLOB of the raw
  -- NUL-separated bytes.
  argv TEXT,
  -- Environment, where the trace holds it: same encoding as argv.
  envp TEXT,
  -- 1 when the exec succeeded (always 1 for the inherited image).
  success INTEGER NOT NULL,
  -- Working directory at that moment, when known.
  cwd_id INTEGER REFERENCES path(path_id)
);

-- One system call: its CALL record paired with its RET record. A row
-- can lack either half; `unpaired` says why. A child's return from the
-- call that created it (a forked process's or a new thread's first RET,
-- unpaired `child return`) is a row too, but no call the child made: the
-- view call_made leaves those out, and so does every count of calls.
CREATE TABLE call (
  -- Unique call id.
  call_id INTEGER PRIMARY KEY,
  -- Process lifetime.
  process_id INTEGER NOT NULL REFERENCES process(process_id),
  -- Thread, where the dialect records thread ids.
  thread_id INTEGER REFERENCES thread(thread_id),
  -- Syscall number in the trace's system.
  code INTEGER NOT NULL,
  -- Syscall name; NULL when the system's table does not know the number.
  syscall TEXT,
  -- Number of argument words recorded.
  nargs INTEGER NOT NULL,
  -- Argument words, comma-separated, hexadecimal with 0x (0 is `0`),
  -- as kdump prints them: `0x3,0x7ffe12,0`.
  args TEXT NOT NULL,
  -- First argument as a signed integer of the trace's word size (an fd,
  -- AT_FDCWD = -100); NULL when there is none.
  arg0 INTEGER,
  -- Second argument, the same way.
  arg1 INTEGER,
  -- CALL time (ns); NULL for a return without a call.
  ts INTEGER,
  -- RET time (ns); NULL when there was no return.
  ret_ts INTEGER,
  -- ret_ts - ts (ns) when both are known.
  dur INTEGER,
  -- Return value as the program saw it: -1 for a call that failed with an
  -- errno (error > 0; the errno is in `errno`), else the recorded value;
  -- NULL when there was no return.
  retval INTEGER,
  -- The RET's raw error field: 0 success, > 0 an errno, -1 ERESTART,
  -- -2 EJUSTRETURN; NULL when there was no return.
  error INTEGER,
  -- The errno of a failed call (error > 0), else NULL.
  errno INTEGER,
  -- Symbolic errno (`ENOENT`) when the system's table knows it.
  errno_name TEXT,
  -- 1 when the call succeeded as the program sees it (error 0, or -2
  -- EJUSTRETURN: sigreturn, execve on newer kernels), 0 when it failed,
  -- NULL when there was no return; 1 for an exec whose RET was lost but
  -- whose new image's records follow (import issue `exec-inferred`).
  success INTEGER,
  -- File offset of the CALL record.
  call_offset INTEGER,
  -- File offset of the RET record.
  ret_offset INTEGER,
  -- Why the row lacks a half: `exit`, `thread exit`, `process gone`,
  -- `superseded`, `end of trace`, `no call` (a call made whose CALL is not
  -- in the trace: the tracer's own ktrace), `returned in vfork parent`,
  -- `child return` (a forked child's first RET from fork, vfork, rfork, …,
  -- or a new thread's from __tfork, thr_new or _lwp_create: not a call
  -- made); NULL when paired.
  unpaired TEXT
);

-- The sums of a trace's calls per syscall number, counted at import so
-- that summaries (`kt2sql stats`, syscall_summary) need not scan table
-- call: `calls` equals the trace's rows in call_made with that code,
-- `calls + child_returns` its rows in call. (Per process:
-- `SELECT process_id, syscall, count(*) FROM call_made GROUP BY 1, 2`.)
CREATE TABLE syscall_stat (
  -- Trace it was recorded in.
  trace_id INTEGER NOT NULL REFERENCES trace(trace_id),
  -- Syscall number.
  code INTEGER NOT NULL,
  -- Syscall name; NULL when the system's table does not know the number.
  syscall TEXT,
  -- Calls made: its rows in call_made.
  calls INTEGER NOT NULL,
  -- Its rows in call that are a child's return (unpaired `child return`),
  -- not counted in calls.
  child_returns INTEGER NOT NULL,
  -- Of the calls, those that failed (success = 0).
  failed INTEGER NOT NULL,
  -- Of them, those without a return (retval NULL; exit included).
  no_return INTEGER NOT NULL,
  -- Of them, those with both halves (dur not NULL).
  timed INTEGER NOT NULL,
  -- Sum of their durations (ns).
  total_dur INTEGER NOT NULL,
  -- The longest duration (ns); NULL when none was timed.
  max_dur INTEGER,
  -- One row per trace and syscall number.
  PRIMARY KEY (trace_id, code)
) WITHOUT ROWID;

-- One path lookup (NAMI record).
CREATE TABLE namei (
  -- Unique lookup id. A call's lookups are numbered in file order when the
  -- call ends (so its row can say whether it succeeded).
  namei_id INTEGER PRIMARY KEY,
  -- The call it belongs to; NULL when no call was pending.
  call_id INTEGER REFERENCES call(call_id),
  -- Process lifetime.
  process_id INTEGER NOT NULL REFERENCES process(process_id),
  -- Position within the call: 0 for the first lookup (rename has two).
  seq INTEGER NOT NULL,
  -- Record time (ns).
  ts INTEGER NOT NULL,
  -- File offset of the NAMI record.
  offset INTEGER NOT NULL,
  -- Command name on the record.
  comm TEXT NOT NULL,
  -- Path as recorded (NetBSD's trailing NUL dropped).
  path_id INTEGER NOT NULL REFERENCES path(path_id),
  -- Lexically normalised absolute path, or the normalised relative path
  -- when its base is unknown.
  resolved_id INTEGER NOT NULL REFERENCES path(path_id),
  -- How it was made absolute: `absolute`, `cwd`, `dirfd` or `unknown base`.
  resolution TEXT NOT NULL,
  -- The image that made the lookup: the process's image current at the
  -- call's CALL. Its comm is who made the call, which the record's comm
  -- may not say (OpenBSD writes an exec's ld.so lookup under the new name).
  exec_id INTEGER NOT NULL REFERENCES exec(exec_id),
  -- 1 for the core file a process looks up as it dies of a signal: made
  -- by no call of its own (call_id is NULL), successful, and a file the
  -- process wrote; reports name its call `coredump`.
  coredump INTEGER NOT NULL DEFAULT 0,
  -- What the call did to this path, decided at import from the call, its
  -- flags (open/openat's O_ACCMODE, O_CREAT, O_TRUNC in the system's
  -- values) and the lookup's position: `read` (open for reading only),
  -- `write` (open with O_WRONLY, O_RDWR or O_TRUNC and without O_CREAT;
  -- truncate), `create` (open with O_CREAT, creat, mkdir, mkfifo, mknod,
  -- symlink's and link's new name, the core file), `delete` (unlink,
  -- rmdir), `rename-from` and `rename-to` (a rename's first and second
  -- lookup), `exec` (execve's and posix_spawn's program and runtime
  -- linker), `attr` (chmod, chown, utimes, chflags, …) or `probe` (stat,
  -- access, readlink, chdir, link's existing name and every other call).
  -- Whether the call succeeded is `success`.
  access TEXT NOT NULL,
  -- 1 when its call succeeded (call.success; a core file always did), 0
  -- when it failed, NULL when the call never returned. Stored so the build
  -- views need not read the call. (A call's lookups past its 16th, which
  -- only a damaged trace makes, are NULL too.)
  success INTEGER
);

-- Lookups of a process: `files -p` and the timeline's file counts read a
-- subtree's lookups without reading every lookup. Built as the rows come
-- (created with the table, unlike the indexes of 0002_indexes.sql): lookups
-- arrive in file order, so each entry lands at the end of one of the few
-- processes running at that moment, and this costs less than reading the
-- table back and sorting it after the load.
CREATE INDEX namei_process ON namei(process_id);

-- Lookups of a call, in file order (namei_id), with the path each
-- resolved to: `tree -v` walks each image's calls and their paths without
-- sorting them and without reading a namei row. Built as the rows come,
-- like namei_process: calls are numbered in file order too, so the
-- entries are appended near the end.
CREATE INDEX namei_call ON namei(call_id, namei_id, resolved_id);

-- Every other record: signals, I/O, structs, sysctl names, context
-- switches, faults, user records, ….
CREATE TABLE event (
  -- Unique event id.
  event_id INTEGER PRIMARY KEY,
  -- Trace it was recorded in.
  trace_id INTEGER NOT NULL REFERENCES trace(trace_id),
  -- Process lifetime; NULL for records of no process (OpenBSD START).
  process_id INTEGER REFERENCES process(process_id),
  -- Thread.
  thread_id INTEGER REFERENCES thread(thread_id),
  -- The call pending on that thread, if any.
  call_id INTEGER REFERENCES call(call_id),
  -- Record time (ns).
  ts INTEGER NOT NULL,
  -- File offset of the record.
  offset INTEGER NOT NULL,
  -- Record type label as kdump prints it: GIO, PSIG, STRU, CSW, USER, ….
  kind TEXT NOT NULL,
  -- File descriptor (GIO, NetBSD exec FD).
  fd INTEGER,
  -- Direction: GIO `read`/`write`, CSW `out`/`in`.
  dir TEXT,
  -- Payload or data length in bytes.
  len INTEGER,
  -- Address: the faulting address (PFLT), the calling address of a
  -- pinsyscall violation (PINS).
  addr INTEGER,
  -- Signal number (PSIG).
  signo INTEGER,
  -- Error returned to the process: errno of a pledge or pinsyscall
  -- violation (PLDG, PINS).
  error INTEGER,
  -- Signal code (PSIG), fault type (PFLT) or result (PRET), pledge promise
  -- bit (PLDG), CAP type, PROCCTOR flags, NetBSD exec FD type, CSW user
  -- flag, record type of an unknown record.
  code INTEGER,
  -- Struct name, emulation, sysctl MIB, USER label or wait channel
  -- (lossless bytes).
  name TEXT,
  -- Data bytes (always a BLOB): struct and USER bytes; GIO data only with
  -- `--keep-io-data`.
  data BLOB
);

-- Something the importer noticed: lost data, guesses, oddities. Nothing is
-- dropped silently; look here when counts do not add up.
CREATE TABLE import_issue (
  -- Unique issue id.
  import_issue_id INTEGER PRIMARY KEY,
  -- Trace it concerns.
  trace_id INTEGER NOT NULL REFERENCES trace(trace_id),
  -- File offset it concerns, when there is one.
  offset INTEGER,
  -- `info`, `warning` or `data_loss`.
  severity TEXT NOT NULL,
  -- What it is about: `empty` (no records), `skipped` (damaged bytes
  -- skipped), `truncated` (decoding stopped early), `dropped-events` (the
  -- kernel flagged lost records), `superseded-call` (a thread's next CALL
  -- came before a RET), `ambiguous-pairing` (no thread ids to pair two
  -- same calls), `return-without-call`, `unknown-parent` (a pid no fork
  -- claimed), `pid-reused` (a pid began again before its end was seen),
  -- `fork-inferred` (an edge known from the parent's wait, its fork RET
  -- missing), `parent-corrected` (a posix_spawn child re-linked by the
  -- wait that reaped it), `exec-inferred` (an exec whose
  -- RET is missing, seen from the new image), `end-inferred` (an end known
  -- only from the parent's wait), `unresolved-lookups` (how many lookups
  -- stayed relative, their base directory unknown; import -d resolves those
  -- relative to the start directory), `spill-failed` (the temporary file
  -- idle processes are moved to when millions are alive could not be
  -- written, or read back).
  kind TEXT NOT NULL,
  -- What happened, for people.
  message TEXT NOT NULL,
  -- Process lifetime concerned, if any.
  process_id INTEGER REFERENCES process(process_id)
);

-- The process tree in printed order (`kt2sql tree`): one row per process
-- image, written once a trace's rows are in (and, with `--append`, for the
-- new traces only); in a dataset, each trace's rows numbered from 1. An exec is a sibling (the next image of the same
-- process, at the same depth), a fork a child (under the image that was
-- current when the fork returned: process.parent_exec_id). Roots rank by
-- trace, then first appearance (first_ts); the children of an image by the
-- file offset of their fork's RET. Each process and everything forked
-- below it are one range of pos, so a subtree is an index range.
CREATE TABLE tree_node (
  -- Place in printed order: 1, 2, … over the whole database, the traces in
  -- trace_id order.
  pos INTEGER PRIMARY KEY,
  -- Trace it was recorded in.
  trace_id INTEGER NOT NULL REFERENCES trace(trace_id),
  -- Process lifetime.
  process_id INTEGER NOT NULL REFERENCES process(process_id),
  -- The image (exec.exec_id).
  exec_id INTEGER NOT NULL REFERENCES exec(exec_id),
  -- 0 for the inherited image, then 1, 2, … per successful exec (exec.image).
  image INTEGER NOT NULL,
  -- 0 for processes without a traced parent, one more per fork.
  depth INTEGER NOT NULL,
  -- The last pos of the process's subtree (the same on each of its
  -- images): its images and every process forked below them are the rows
  -- from the pos of its image 0 to this one.
  subtree_end INTEGER NOT NULL,
  -- The image's calls are the process's calls with a call_id from this
  -- one (exec.calls_from) …
  calls_from INTEGER NOT NULL,
  -- … up to this one, not included: the next image's calls_from, or for
  -- the last image one more than the trace's last call_id (its own
  -- calls_from when that is higher): a finite id, which a dataset offsets
  -- per trace like every id.
  calls_to INTEGER NOT NULL
);
