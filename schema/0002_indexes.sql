-- kt2sql schema, part 2: indexes. Created after the bulk load (building an
-- index once over sorted data is much cheaper than updating it per row).
-- IF NOT EXISTS because `--append` re-applies this file to a database that
-- has them already. Only DDL here.

-- Interned paths are unique; also the lookup for "which id has this path".
CREATE UNIQUE INDEX IF NOT EXISTS path_path ON path(path);

-- Processes of a trace, by pid, and the process tree.
CREATE INDEX IF NOT EXISTS process_trace ON process(trace_id, pid);
CREATE INDEX IF NOT EXISTS process_parent ON process(parent_id);

-- Threads of a process.
CREATE INDEX IF NOT EXISTS thread_process ON thread(process_id, tid);

-- Exec history of a process; execs by program.
CREATE INDEX IF NOT EXISTS exec_process ON exec(process_id, seq);
CREATE INDEX IF NOT EXISTS exec_resolved ON exec(resolved_id);

-- Calls of a process in time order; calls by syscall name.
CREATE INDEX IF NOT EXISTS call_process_ts ON call(process_id, ts);
CREATE INDEX IF NOT EXISTS call_syscall ON call(syscall);

-- Lookups by path, by resolved path, by call and by process.
CREATE INDEX IF NOT EXISTS namei_path ON namei(path_id);
CREATE INDEX IF NOT EXISTS namei_resolved ON namei(resolved_id);
CREATE INDEX IF NOT EXISTS namei_call ON namei(call_id);
CREATE INDEX IF NOT EXISTS namei_process_ts ON namei(process_id, ts);

-- Events of a process in time order; events by kind; events of a call.
CREATE INDEX IF NOT EXISTS event_process_ts ON event(process_id, ts);
CREATE INDEX IF NOT EXISTS event_kind ON event(kind);
CREATE INDEX IF NOT EXISTS event_call ON event(call_id);

-- Issues of a trace.
CREATE INDEX IF NOT EXISTS import_issue_trace ON import_issue(trace_id, severity);
