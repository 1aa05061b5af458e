//! One prepared INSERT per table, binding a row's fields in column order
//! (the encodings are in [`super::value`]). No row logic: the process model
//! has decided every value; this only stores it, plus the columns derived
//! from one field (`dur`, `errno`, `success`, `arg0`, …).
//!
//! Each row is destructured exhaustively, so a field added to the contract
//! in `process/rows.rs` fails to compile here instead of being dropped.

use rusqlite::{params, CachedStatement, Connection};

use super::value::{args_text, signed_word, Blob, Bytes, StringList};
use crate::process::rows::{CallRow, EventRow, ExecRow, IssueRow, NameiRow, ProcessRow, ThreadRow};
use crate::tables::{errno_name, NameTable};

/// The per-table INSERTs, prepared once per trace (and cached by the
/// connection across traces).
pub struct Statements<'c> {
    process: CachedStatement<'c>,
    thread: CachedStatement<'c>,
    exec: CachedStatement<'c>,
    call: CachedStatement<'c>,
    namei: CachedStatement<'c>,
    event: CachedStatement<'c>,
    issue: CachedStatement<'c>,
    path: CachedStatement<'c>,
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
    ret_offset, unpaired) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, \
    ?19, ?20)";
const NAMEI: &str = "INSERT INTO namei (namei_id, call_id, process_id, seq, ts, offset, comm, \
    path_id, resolved_id, resolution) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
const EVENT: &str = "INSERT INTO event (event_id, trace_id, process_id, thread_id, call_id, \
    ts, offset, kind, fd, dir, len, signo, code, name, data) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";
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
            call: conn.prepare_cached(CALL)?,
            namei: conn.prepare_cached(NAMEI)?,
            event: conn.prepare_cached(EVENT)?,
            issue: conn.prepare_cached(ISSUE)?,
            path: conn.prepare_cached(PATH)?,
        })
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
        self.call.execute(params![
            id,
            process_id,
            thread_id,
            code,
            syscall,
            args.len() as i64,
            args_text(args),
            args.first().map(|&w| signed_word(w, word_bits)),
            args.get(1).map(|&w| signed_word(w, word_bits)),
            ts,
            ret_ts,
            dur,
            retval,
            error,
            errno,
            errno.and_then(|e| errno_name(names, i64::from(e)).map(|(n, _)| n)),
            error.map(|e| e == 0 || e == crate::model::EJUSTRETURN),
            call_offset.map(off),
            ret_offset.map(off),
            unpaired.map(|u| u.as_str()),
        ])?;
        Ok(())
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
        self.namei.execute(params![
            id,
            call_id,
            process_id,
            seq,
            ts,
            off(offset),
            Bytes(comm),
            path_id,
            resolved_id,
            resolution.as_str(),
        ])?;
        Ok(())
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
        self.event.execute(params![
            id,
            trace_id,
            process_id,
            thread_id,
            call_id,
            ts,
            off(offset),
            kind,
            fd,
            dir,
            len,
            signo,
            code,
            name.map(Bytes),
            data.map(Blob),
        ])?;
        Ok(())
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
