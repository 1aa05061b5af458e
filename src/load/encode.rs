//! Rows → SQL values. The [`Encoder`] is the process model's [`Sink`] on the
//! decoding side of an import: it turns each row into the owned values of
//! its INSERT (path bytes interned to ids, derived columns computed,
//! arguments formatted) and hands them on in [`Batch`]es to a
//! [`BatchTarget`]: straight to a [`super::writer::Writer`] on one thread, or
//! over a channel to the SQLite thread. No SQLite here.
//!
//! Each row is destructured exhaustively, so a field added to the contract
//! in `process/rows.rs` fails to compile here instead of being dropped.

use foldhash::{HashMap, HashMapExt};

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::ToSql;

use super::reorder::InOrder;
use super::value::{args_text, json_string_list, signed_word};
use crate::process::rows::{
    CallRow, EventRow, ExecRow, IssueRow, NameiRow, ProcessRow, Sink, SyscallStatRow, ThreadRow,
};
use crate::tables::{errno_name, NameTable};

/// The tables rows are written to, in the order of [`TABLES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(usize)]
pub enum Table {
    /// `process`.
    Process,
    /// `thread`.
    Thread,
    /// `exec`.
    Exec,
    /// `call`.
    Call,
    /// `namei`.
    Namei,
    /// `event`.
    Event,
    /// `import_issue`.
    Issue,
    /// `path`.
    Path,
    /// `syscall_stat`.
    SyscallStat,
}

/// How many tables rows are written to.
pub const TABLE_COUNT: usize = 9;

/// Each table's INSERT head (columns in value order) and column count.
pub const TABLES: [(&str, usize); TABLE_COUNT] = [
    (
        "INSERT INTO process (process_id, trace_id, pid, parent_id, running_at_start, \
         fork_syscall, fork_call_id, fork_ts, fork_offset, parent_exec_id, first_comm, \
         last_comm, first_ts, last_ts, exit_status, exit_signal, exit_ts, exit_seen, records, \
         dropped_events, cut_by_damage, calls, failed_calls, lookups, unresolved_lookups, files) \
         VALUES",
        26,
    ),
    (
        "INSERT INTO thread (thread_id, process_id, tid, first_ts, last_ts, records) VALUES",
        6,
    ),
    (
        "INSERT INTO exec (exec_id, process_id, seq, image, ts, call_id, path_id, resolved_id, \
         comm, argv, envp, success, cwd_id) VALUES",
        13,
    ),
    (
        "INSERT INTO call (call_id, process_id, thread_id, code, syscall, nargs, args, arg0, \
         arg1, ts, ret_ts, dur, retval, error, errno, errno_name, success, call_offset, \
         ret_offset, unpaired) VALUES",
        20,
    ),
    (
        "INSERT INTO namei (namei_id, call_id, process_id, seq, ts, offset, comm, path_id, \
         resolved_id, resolution) VALUES",
        10,
    ),
    (
        "INSERT INTO event (event_id, trace_id, process_id, thread_id, call_id, ts, offset, \
         kind, fd, dir, len, signo, code, name, data) VALUES",
        15,
    ),
    (
        "INSERT INTO import_issue (trace_id, offset, severity, kind, message, process_id) VALUES",
        6,
    ),
    ("INSERT INTO path (path_id, path) VALUES", 2),
    (
        "INSERT INTO syscall_stat (trace_id, code, syscall, calls, failed, no_return, timed, \
         total_dur, max_dur) VALUES",
        9,
    ),
];

/// One SQL value of a row. Like rusqlite's `Value`, but the many fixed
/// strings (syscall names, record kinds, resolutions) stay borrowed instead
/// of being copied into a `String` per row.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    /// NULL.
    Null,
    /// INTEGER.
    Int(i64),
    /// TEXT known at compile time.
    Static(&'static str),
    /// TEXT.
    Text(String),
    /// BLOB.
    Blob(Vec<u8>),
}

impl ToSql for SqlValue {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            SqlValue::Null => ValueRef::Null,
            SqlValue::Int(i) => ValueRef::Integer(*i),
            SqlValue::Static(s) => ValueRef::Text(s.as_bytes()),
            SqlValue::Text(s) => ValueRef::Text(s.as_bytes()),
            SqlValue::Blob(b) => ValueRef::Blob(b),
        }))
    }
}

/// Rows per batch handed on (a few hundred KB of values).
pub const BATCH_ROWS: usize = 4096;

/// Encoded rows of every table, flat: table `t`'s values are
/// `values[t]`, `TABLES[t].1` per row.
#[derive(Debug, Default)]
pub struct Batch {
    /// Values per table.
    pub values: [Vec<SqlValue>; TABLE_COUNT],
    /// Rows in all.
    pub rows: usize,
}

/// Interned paths: bytes → `path_id`, for every path in the database.
#[derive(Debug)]
pub struct PathCache {
    pub(super) ids: HashMap<Vec<u8>, i64>,
    /// The next id to give.
    pub(super) next: i64,
    pub(super) added: i64,
}

impl Default for PathCache {
    /// An empty cache for a fresh database: ids from 1.
    fn default() -> Self {
        PathCache {
            ids: HashMap::new(),
            next: 1,
            added: 0,
        }
    }
}

impl PathCache {
    /// Paths added since this cache was made.
    pub fn added(&self) -> i64 {
        self.added
    }
}

/// What every row of one trace shares.
#[derive(Debug, Clone, Copy)]
pub struct TraceContext {
    /// `trace.trace_id`.
    pub trace_id: i64,
    /// Register width, for signed arguments.
    pub word_bits: u32,
    /// errno names.
    pub names: NameTable,
}

/// Where full batches go.
pub trait BatchTarget {
    /// Why a batch could not be taken.
    type Error;
    /// Take a batch of rows; give back an empty one to fill next (a used
    /// one, cleared, keeps its capacity).
    fn take(&mut self, batch: Batch) -> Result<Batch, Self::Error>;
}

impl Batch {
    /// Empty it, keeping its capacity.
    pub fn clear(&mut self) {
        for v in &mut self.values {
            v.clear();
        }
        self.rows = 0;
    }
}

/// Columns of a `call` row.
const CALL_COLS: usize = TABLES[Table::Call as usize].1;

/// Call rows held to be written in `call_id` order: well above how late a
/// call finishes behind others in the benchmark's 8-job builds (< 1 024
/// ids), and 2.6 MB of cells.
pub const CALL_WINDOW: usize = 4096;

/// The encoding [`Sink`]: rows in, batches out to its target.
pub struct Encoder<'p, T> {
    batch: Batch,
    /// Finished call rows, put back into `call_id` order (see [`InOrder`]).
    calls: InOrder<[SqlValue; CALL_COLS]>,
    paths: &'p mut PathCache,
    ctx: TraceContext,
    issues: i64,
    /// Where batches go.
    pub target: T,
}

impl<'p, T: BatchTarget> Encoder<'p, T> {
    /// An encoder for one trace.
    pub fn new(paths: &'p mut PathCache, ctx: TraceContext, target: T) -> Self {
        Encoder {
            batch: Batch::default(),
            calls: InOrder::new(CALL_WINDOW),
            paths,
            ctx,
            issues: 0,
            target,
        }
    }

    /// Hand on the rows still waiting, call rows held for order included.
    pub fn flush(&mut self) -> Result<(), T::Error> {
        let Encoder { calls, batch, .. } = self;
        batch.rows += calls.drain(|row| batch.values[Table::Call as usize].extend(row));
        self.send()
    }

    /// Hand on the batch.
    fn send(&mut self) -> Result<(), T::Error> {
        if self.batch.rows > 0 {
            let full = std::mem::take(&mut self.batch);
            self.batch = self.target.take(full)?;
        }
        Ok(())
    }

    /// This trace's `trace_id`.
    pub fn trace_id(&self) -> i64 {
        self.ctx.trace_id
    }

    /// Issues encoded so far.
    pub fn issues(&self) -> i64 {
        self.issues
    }

    fn push(
        &mut self,
        t: Table,
        values: impl IntoIterator<Item = SqlValue>,
    ) -> Result<(), T::Error> {
        let v = &mut self.batch.values[t as usize];
        let before = v.len();
        v.extend(values);
        debug_assert_eq!(v.len() - before, TABLES[t as usize].1);
        self.batch.rows += 1;
        self.send_when_full()
    }

    fn send_when_full(&mut self) -> Result<(), T::Error> {
        if self.batch.rows >= BATCH_ROWS {
            self.send()?;
        }
        Ok(())
    }

    /// The id of `path`, adding it to the batch when it is new.
    fn intern(&mut self, path: &[u8]) -> Result<i64, T::Error> {
        if let Some(&id) = self.paths.ids.get(path) {
            return Ok(id);
        }
        let id = self.paths.next;
        self.paths.next += 1;
        self.paths.added += 1;
        self.paths.ids.insert(path.to_vec(), id);
        self.push(Table::Path, [SqlValue::Int(id), bytes(path)])?;
        Ok(id)
    }

    fn intern_opt(&mut self, path: Option<&[u8]>) -> Result<SqlValue, T::Error> {
        Ok(match path {
            Some(p) => SqlValue::Int(self.intern(p)?),
            None => SqlValue::Null,
        })
    }
}

/// An optional integer.
fn int(v: Option<i64>) -> SqlValue {
    v.map_or(SqlValue::Null, SqlValue::Int)
}

/// Recorded bytes, stored losslessly: TEXT when they are valid UTF-8,
/// otherwise a BLOB with the exact bytes (so `typeof(col) = 'blob'` always
/// means "not UTF-8").
pub fn bytes(b: &[u8]) -> SqlValue {
    match std::str::from_utf8(b) {
        Ok(s) => SqlValue::Text(s.to_owned()),
        Err(_) => SqlValue::Blob(b.to_vec()),
    }
}

/// An optional fixed string.
fn text(s: Option<&'static str>) -> SqlValue {
    s.map_or(SqlValue::Null, SqlValue::Static)
}

/// NUL-separated strings: a JSON array when all are UTF-8, else the bytes.
fn string_list(b: Option<&[u8]>) -> SqlValue {
    match b {
        None => SqlValue::Null,
        Some(b) => json_string_list(b).map_or_else(|| SqlValue::Blob(b.to_vec()), SqlValue::Text),
    }
}

/// File offsets fit i64 for any file that exists.
fn off(o: u64) -> i64 {
    o as i64
}

impl<T: BatchTarget> Sink for Encoder<'_, T> {
    type Error = T::Error;

    fn process(&mut self, r: &ProcessRow) -> Result<(), T::Error> {
        let ProcessRow {
            id,
            pid,
            parent_id,
            running_at_start,
            fork_syscall,
            fork_call_id,
            fork_ts,
            fork_offset,
            parent_exec_id,
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
            calls,
            failed_calls,
            lookups,
            unresolved_lookups,
            files,
        } = r;
        let trace_id = self.ctx.trace_id;
        self.push(
            Table::Process,
            [
                SqlValue::Int(*id),
                SqlValue::Int(trace_id),
                SqlValue::Int(*pid),
                int(*parent_id),
                SqlValue::Int((*running_at_start).into()),
                fork_syscall.clone().map_or(SqlValue::Null, SqlValue::Text),
                int(*fork_call_id),
                int(*fork_ts),
                int(fork_offset.map(off)),
                int(*parent_exec_id),
                bytes(first_comm),
                bytes(last_comm),
                SqlValue::Int(*first_ts),
                SqlValue::Int(*last_ts),
                int(*exit_status),
                int(*exit_signal),
                int(*exit_ts),
                SqlValue::Int((*exit_seen).into()),
                SqlValue::Int(*records),
                SqlValue::Int(*dropped_events),
                SqlValue::Int((*cut_by_damage).into()),
                SqlValue::Int(*calls),
                SqlValue::Int(*failed_calls),
                SqlValue::Int(*lookups),
                SqlValue::Int(*unresolved_lookups),
                SqlValue::Int(*files),
            ],
        )
    }

    fn thread(&mut self, r: &ThreadRow) -> Result<(), T::Error> {
        let &ThreadRow {
            id,
            process_id,
            tid,
            first_ts,
            last_ts,
            records,
        } = r;
        self.push(
            Table::Thread,
            [id, process_id, tid, first_ts, last_ts, records].map(SqlValue::Int),
        )
    }

    fn exec(&mut self, r: &ExecRow<'_>) -> Result<(), T::Error> {
        let &ExecRow {
            id,
            process_id,
            seq,
            image,
            ts,
            call_id,
            path,
            resolved,
            comm,
            argv,
            envp,
            success,
            cwd,
        } = r;
        let ids = [
            self.intern_opt(path)?,
            self.intern_opt(resolved)?,
            self.intern_opt(cwd)?,
        ];
        let [path_id, resolved_id, cwd_id] = ids;
        self.push(
            Table::Exec,
            [
                SqlValue::Int(id),
                SqlValue::Int(process_id),
                SqlValue::Int(seq),
                int(image),
                SqlValue::Int(ts),
                int(call_id),
                path_id,
                resolved_id,
                bytes(comm),
                string_list(argv),
                string_list(envp),
                SqlValue::Int(success.into()),
                cwd_id,
            ],
        )
    }

    fn call(&mut self, r: &CallRow<'_>) -> Result<(), T::Error> {
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
        let TraceContext {
            word_bits, names, ..
        } = self.ctx;
        let errno = error.filter(|&e| e > 0);
        let dur = ts.zip(ret_ts).map(|(a, b)| b - a);
        let row = [
            SqlValue::Int(id),
            SqlValue::Int(process_id),
            int(thread_id),
            SqlValue::Int(code.into()),
            text(syscall),
            SqlValue::Int(args.len() as i64),
            SqlValue::Text(args_text(args)),
            int(args.first().map(|&w| signed_word(w, word_bits))),
            int(args.get(1).map(|&w| signed_word(w, word_bits))),
            int(ts),
            int(ret_ts),
            int(dur),
            int(retval),
            int(error.map(i64::from)),
            int(errno.map(i64::from)),
            text(errno.and_then(|e| errno_name(names, i64::from(e)).map(|(n, _)| n))),
            int(error.map(|e| i64::from(e == 0 || e == crate::record::EJUSTRETURN))),
            int(call_offset.map(off)),
            int(ret_offset.map(off)),
            text(unpaired.map(|u| u.as_str())),
        ];
        let Encoder { calls, batch, .. } = self;
        batch.rows += calls.push(id, row, |row| {
            batch.values[Table::Call as usize].extend(row)
        });
        self.send_when_full()
    }

    fn namei(&mut self, r: &NameiRow<'_>) -> Result<(), T::Error> {
        let &NameiRow {
            id,
            call_id,
            process_id,
            seq,
            ts,
            offset,
            comm,
            path,
            resolved,
            resolution,
        } = r;
        let path_id = self.intern(path)?;
        let resolved_id = self.intern(resolved)?;
        self.push(
            Table::Namei,
            [
                SqlValue::Int(id),
                int(call_id),
                SqlValue::Int(process_id),
                SqlValue::Int(seq),
                SqlValue::Int(ts),
                SqlValue::Int(off(offset)),
                bytes(comm),
                SqlValue::Int(path_id),
                SqlValue::Int(resolved_id),
                SqlValue::Static(resolution.as_str()),
            ],
        )
    }

    fn event(&mut self, r: &EventRow<'_>) -> Result<(), T::Error> {
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
        let trace_id = self.ctx.trace_id;
        self.push(
            Table::Event,
            [
                SqlValue::Int(id),
                SqlValue::Int(trace_id),
                int(process_id),
                int(thread_id),
                int(call_id),
                SqlValue::Int(ts),
                SqlValue::Int(off(offset)),
                SqlValue::Static(kind),
                int(fd),
                text(dir),
                int(len),
                int(signo),
                int(code),
                name.map_or(SqlValue::Null, bytes),
                data.map_or(SqlValue::Null, |d| SqlValue::Blob(d.to_vec())),
            ],
        )
    }

    fn issue(&mut self, r: &IssueRow) -> Result<(), T::Error> {
        let IssueRow {
            offset,
            severity,
            kind,
            message,
            process_id,
        } = r;
        self.issues += 1;
        let trace_id = self.ctx.trace_id;
        self.push(
            Table::Issue,
            [
                SqlValue::Int(trace_id),
                int(offset.map(off)),
                SqlValue::Static(severity.as_str()),
                SqlValue::Static(kind),
                SqlValue::Text(message.clone()),
                int(*process_id),
            ],
        )
    }

    fn syscall_stat(&mut self, r: &SyscallStatRow) -> Result<(), T::Error> {
        let &SyscallStatRow {
            code,
            syscall,
            calls,
            failed,
            no_return,
            timed,
            total_dur,
            max_dur,
        } = r;
        self.push(
            Table::SyscallStat,
            [
                SqlValue::Int(self.ctx.trace_id),
                SqlValue::Int(code.into()),
                text(syscall),
                SqlValue::Int(calls),
                SqlValue::Int(failed),
                SqlValue::Int(no_return),
                SqlValue::Int(timed),
                SqlValue::Int(total_dur),
                int(max_dur),
            ],
        )
    }
}
