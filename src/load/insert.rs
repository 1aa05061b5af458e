//! One prepared INSERT per table, binding a row's fields in column order
//! (the encodings are in [`super::value`]). No row logic: the process model
//! has decided every value; this only stores it, plus the columns derived
//! from one field (`dur`, `errno`, `success`, `arg0`, …).
//!
//! Each row is destructured exhaustively, so a field added to the contract
//! in `process/rows.rs` fails to compile here instead of being dropped.
//!
//! The three big tables (call, namei, event) are written [`PER_INSERT`] rows
//! at a time through one multi-row INSERT: SQLite's per-statement work is
//! paid once per 50 rows (the floor benchmark does the same). Their rows
//! wait in a buffer of owned values until it fills or [`Statements::flush`].

use rusqlite::types::Value;
use rusqlite::{params, params_from_iter, CachedStatement, Connection};

use super::value::{args_text, signed_word, Bytes, StringList};
use crate::process::rows::{CallRow, EventRow, ExecRow, IssueRow, NameiRow, ProcessRow, ThreadRow};
use crate::tables::{errno_name, NameTable};

/// Rows per multi-row INSERT.
pub const PER_INSERT: usize = 50;

/// The per-table INSERTs, prepared once per trace (and cached by the
/// connection across traces).
pub struct Statements<'c> {
    process: CachedStatement<'c>,
    thread: CachedStatement<'c>,
    exec: CachedStatement<'c>,
    call: Batched<'c>,
    namei: Batched<'c>,
    event: Batched<'c>,
    issue: CachedStatement<'c>,
    path: CachedStatement<'c>,
}

/// A table written PER_INSERT rows per statement.
struct Batched<'c> {
    cols: usize,
    multi: CachedStatement<'c>,
    single: CachedStatement<'c>,
    buf: Vec<Value>,
}

impl<'c> Batched<'c> {
    /// `sql` is `INSERT INTO t (…) VALUES ` plus one `(?,…)` group of `cols`.
    fn prepare(conn: &'c Connection, head: &str, cols: usize) -> rusqlite::Result<Self> {
        let group = format!("({})", vec!["?"; cols].join(","));
        let many = vec![group.as_str(); PER_INSERT].join(",");
        Ok(Batched {
            cols,
            multi: conn.prepare_cached(&format!("{head} {many}"))?,
            single: conn.prepare_cached(&format!("{head} {group}"))?,
            buf: Vec::with_capacity(cols * PER_INSERT),
        })
    }

    /// Take one row's values (exactly `cols` of them).
    fn row(&mut self, values: impl IntoIterator<Item = Value>) -> rusqlite::Result<()> {
        self.buf.extend(values);
        debug_assert_eq!(self.buf.len() % self.cols, 0);
        if self.buf.len() == self.cols * PER_INSERT {
            self.multi.execute(params_from_iter(self.buf.iter()))?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Write the rows still waiting.
    fn flush(&mut self) -> rusqlite::Result<()> {
        for row in self.buf.chunks(self.cols) {
            self.single.execute(params_from_iter(row.iter()))?;
        }
        self.buf.clear();
        Ok(())
    }
}

/// An optional integer as a SQL value.
fn int(v: Option<i64>) -> Value {
    v.map_or(Value::Null, Value::Integer)
}

/// Recorded bytes: TEXT when UTF-8, else an exact BLOB (as [`Bytes`]).
fn bytes(b: &[u8]) -> Value {
    match std::str::from_utf8(b) {
        Ok(s) => Value::Text(s.to_owned()),
        Err(_) => Value::Blob(b.to_vec()),
    }
}

fn text(s: Option<&str>) -> Value {
    s.map_or(Value::Null, |s| Value::Text(s.to_owned()))
}

const PROCESS: &str = "INSERT INTO process (process_id, trace_id, pid, parent_id, \
    running_at_start, fork_syscall, fork_call_id, fork_ts, first_comm, last_comm, first_ts, \
    last_ts, exit_status, exit_signal, exit_ts, exit_seen, records, dropped_events, cut_by_damage) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)";
const THREAD: &str = "INSERT INTO thread (thread_id, process_id, tid, first_ts, last_ts, \
    records) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
const EXEC: &str = "INSERT INTO exec (exec_id, process_id, seq, ts, call_id, path_id, \
    resolved_id, comm, argv, envp, success, cwd_id) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
const CALL: &str = "INSERT INTO call (call_id, process_id, thread_id, code, syscall, nargs, \
    args, arg0, arg1, ts, ret_ts, dur, retval, error, errno, errno_name, success, call_offset, \
    ret_offset, unpaired) VALUES";
const CALL_COLS: usize = 20;
const NAMEI: &str = "INSERT INTO namei (namei_id, call_id, process_id, seq, ts, offset, comm, \
    path_id, resolved_id, resolution) VALUES";
const NAMEI_COLS: usize = 10;
const EVENT: &str = "INSERT INTO event (event_id, trace_id, process_id, thread_id, call_id, \
    ts, offset, kind, fd, dir, len, signo, code, name, data) VALUES";
const EVENT_COLS: usize = 15;
const ISSUE: &str = "INSERT INTO import_issue (trace_id, offset, severity, kind, message, \
    process_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
const PATH: &str = "INSERT INTO path (path) VALUES (?1)";

/// File offsets fit i64 for any file that exists.
fn off(o: u64) -> i64 {
    o as i64
}

impl<'c> Statements<'c> {
    /// Prepare (or fetch from the connection's cache) every INSERT.
    pub fn prepare(conn: &'c Connection) -> rusqlite::Result<Self> {
        Ok(Statements {
            process: conn.prepare_cached(PROCESS)?,
            thread: conn.prepare_cached(THREAD)?,
            exec: conn.prepare_cached(EXEC)?,
            call: Batched::prepare(conn, CALL, CALL_COLS)?,
            namei: Batched::prepare(conn, NAMEI, NAMEI_COLS)?,
            event: Batched::prepare(conn, EVENT, EVENT_COLS)?,
            issue: conn.prepare_cached(ISSUE)?,
            path: conn.prepare_cached(PATH)?,
        })
    }

    /// Write the buffered rows of the batched tables.
    pub fn flush(&mut self) -> rusqlite::Result<()> {
        self.call.flush()?;
        self.namei.flush()?;
        self.event.flush()
    }

    /// A process row.
    pub fn process(&mut self, trace_id: i64, r: &ProcessRow) -> rusqlite::Result<()> {
        let ProcessRow {
            id,
            pid,
            parent_id,
            running_at_start,
            fork_syscall,
            fork_call_id,
            fork_ts,
            first_comm,
            last_comm,
            first_ts,
            last_ts,
            exit_status,
            exit_signal,
            exit_ts,
            exit_seen,
            records,
            dropped_events,
            cut_by_damage,
        } = r;
        self.process.execute(params![
            id,
            trace_id,
            pid,
            parent_id,
            running_at_start,
            fork_syscall,
            fork_call_id,
            fork_ts,
            Bytes(first_comm),
            Bytes(last_comm),
            first_ts,
            last_ts,
            exit_status,
            exit_signal,
            exit_ts,
            exit_seen,
            records,
            dropped_events,
            cut_by_damage,
        ])?;
        Ok(())
    }

    /// A thread row.
    pub fn thread(&mut self, r: &ThreadRow) -> rusqlite::Result<()> {
        let &ThreadRow {
            id,
            process_id,
            tid,
            first_ts,
            last_ts,
            records,
        } = r;
        self.thread
            .execute(params![id, process_id, tid, first_ts, last_ts, records])?;
        Ok(())
    }

    /// An exec row; the path ids are interned by the caller.
    pub fn exec(&mut self, r: &ExecRow<'_>, ids: [Option<i64>; 3]) -> rusqlite::Result<()> {
        let &ExecRow {
            id,
            process_id,
            seq,
            ts,
            call_id,
            path: _,
            resolved: _,
            comm,
            argv,
            envp,
            success,
            cwd: _,
        } = r;
        let [path_id, resolved_id, cwd_id] = ids;
        self.exec.execute(params![
            id,
            process_id,
            seq,
            ts,
            call_id,
            path_id,
            resolved_id,
            Bytes(comm),
            argv.map(StringList),
            envp.map(StringList),
            success,
            cwd_id,
        ])?;
        Ok(())
    }

    /// A call row, with the derived columns (dur, errno, success, …).
    pub fn call(
        &mut self,
        r: &CallRow<'_>,
        word_bits: u32,
        names: NameTable,
    ) -> rusqlite::Result<()> {
        let &CallRow {
            id,
            process_id,
            thread_id,
            code,
            syscall,
            args,
            ts,
            ret_ts,
            retval,
            error,
            call_offset,
            ret_offset,
            unpaired,
        } = r;
        let errno = error.filter(|&e| e > 0);
        let dur = ts.zip(ret_ts).map(|(a, b)| b - a);
        self.call.row([
            Value::Integer(id),
            Value::Integer(process_id),
            int(thread_id),
            Value::Integer(code.into()),
            text(syscall),
            Value::Integer(args.len() as i64),
            Value::Text(args_text(args)),
            int(args.first().map(|&w| signed_word(w, word_bits))),
            int(args.get(1).map(|&w| signed_word(w, word_bits))),
            int(ts),
            int(ret_ts),
            int(dur),
            int(retval),
            int(error.map(i64::from)),
            int(errno.map(i64::from)),
            text(errno.and_then(|e| errno_name(names, i64::from(e)).map(|(n, _)| n))),
            int(error.map(|e| i64::from(e == 0 || e == crate::model::EJUSTRETURN))),
            int(call_offset.map(off)),
            int(ret_offset.map(off)),
            text(unpaired.map(|u| u.as_str())),
        ])
    }

    /// A namei row with its interned path ids.
    pub fn namei(
        &mut self,
        r: &NameiRow<'_>,
        path_id: i64,
        resolved_id: i64,
    ) -> rusqlite::Result<()> {
        let &NameiRow {
            id,
            call_id,
            process_id,
            seq,
            ts,
            offset,
            comm,
            path: _,
            resolved: _,
            resolution,
        } = r;
        self.namei.row([
            Value::Integer(id),
            int(call_id),
            Value::Integer(process_id),
            Value::Integer(seq),
            Value::Integer(ts),
            Value::Integer(off(offset)),
            bytes(comm),
            Value::Integer(path_id),
            Value::Integer(resolved_id),
            Value::Text(resolution.as_str().to_owned()),
        ])
    }

    /// An event row.
    pub fn event(&mut self, trace_id: i64, r: &EventRow<'_>) -> rusqlite::Result<()> {
        let &EventRow {
            id,
            process_id,
            thread_id,
            call_id,
            ts,
            offset,
            kind,
            fd,
            dir,
            len,
            signo,
            code,
            name,
            data,
        } = r;
        self.event.row([
            Value::Integer(id),
            Value::Integer(trace_id),
            int(process_id),
            int(thread_id),
            int(call_id),
            Value::Integer(ts),
            Value::Integer(off(offset)),
            Value::Text(kind.to_owned()),
            int(fd),
            text(dir),
            int(len),
            int(signo),
            int(code),
            name.map_or(Value::Null, bytes),
            data.map_or(Value::Null, |d| Value::Blob(d.to_vec())),
        ])
    }

    /// An import issue (its id is assigned by SQLite).
    pub fn issue(&mut self, trace_id: i64, r: &IssueRow) -> rusqlite::Result<()> {
        let IssueRow {
            offset,
            severity,
            kind,
            message,
            process_id,
        } = r;
        self.issue.execute(params![
            trace_id,
            offset.map(off),
            severity.as_str(),
            kind,
            message,
            process_id,
        ])?;
        Ok(())
    }

    /// A new interned path; returns its id.
    pub fn path(&mut self, conn: &Connection, path: &[u8]) -> rusqlite::Result<i64> {
        self.path.execute([Bytes(path)])?;
        Ok(conn.last_insert_rowid())
    }
}
