//! Rows → SQL values. The [`Encoder`] is the process model's [`Sink`] on the
//! decoding side of an import: it turns each row into the owned values of
//! its INSERT (path bytes interned to ids, derived columns computed,
//! arguments formatted) and hands them on in [`Batch`]es to a
//! [`BatchTarget`]: straight to a [`super::writer::Writer`] on one thread, or
//! over a channel to the SQLite thread. No SQLite here.
//!
//! Each row is destructured exhaustively, so a field added to the contract
//! in `process/rows.rs` fails to compile here instead of being dropped.

use std::hash::BuildHasher;

use foldhash::{HashMap, HashMapExt};

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::ToSql;

use super::reorder::InOrder;
use super::table::{named, Table, TABLE_COUNT};
use super::value::{args_text, json_string_list, signed_word};
use crate::process::rows::{
    CallRow, EventRow, ExecRow, IssueRow, NameiRow, ProcessRow, Sink, SyscallStatRow, ThreadRow,
};
use crate::tables::{errno_name, NameTable};

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
/// `values[t.index()]`, `t.columns().len()` per row.
#[derive(Debug, Default)]
pub struct Batch {
    /// Values per table.
    pub values: [Vec<SqlValue>; TABLE_COUNT],
    /// Rows in all.
    pub rows: usize,
}

/// Interned paths: bytes → `path_id`, for every path in the database.
///
/// A path is known by two 64-bit hashes of its bytes under seeds drawn per
/// import, not by its bytes: 16 bytes a path however long, where the bytes
/// themselves made 2 M distinct paths cost 220 MB (issue #12). The first
/// hash is the key; the value packs the id with 24 bits of the second, so
/// a path whose first hash collides with another's is told apart and kept
/// in `collided` under both hashes in full. Two paths share an id only if
/// 88 bits collide: odds about n²/2⁸⁹ (10⁻¹⁴ at 2 M paths), and a trace
/// cannot aim at random seeds.
#[derive(Debug)]
pub struct PathCache {
    ids: HashMap<u64, u64>,
    collided: HashMap<[u64; 2], i64>,
    seeds: [foldhash::quality::RandomState; 2],
    /// The next id to give.
    pub(super) next: i64,
    pub(super) added: i64,
}

impl Default for PathCache {
    /// An empty cache for a fresh database: ids from 1.
    fn default() -> Self {
        PathCache {
            ids: HashMap::new(),
            collided: HashMap::new(),
            seeds: Default::default(),
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

    /// The id of `path`, if it has one.
    pub(super) fn get(&self, path: &[u8]) -> Option<i64> {
        let [a, b] = self.hashes(path);
        match self.ids.get(&a) {
            Some(&v) if v & FP_MASK == b & FP_MASK => Some((v >> FP_BITS) as i64),
            _ => self.collided.get(&[a, b]).copied(),
        }
    }

    /// Give `path` the id `id`.
    pub(super) fn insert(&mut self, path: &[u8], id: i64) {
        let [a, b] = self.hashes(path);
        let packs = (0..1 << (64 - FP_BITS)).contains(&id);
        if packs && !self.ids.contains_key(&a) {
            self.ids.insert(a, (id as u64) << FP_BITS | (b & FP_MASK));
        } else {
            self.collided.insert([a, b], id);
        }
    }

    fn hashes(&self, path: &[u8]) -> [u64; 2] {
        [self.seeds[0].hash_one(path), self.seeds[1].hash_one(path)]
    }
}

/// Bits of a path's second hash kept next to its id in [`PathCache`]; ids
/// below 2⁴⁰ pack, larger ones (never given, only read by `--append`) go
/// to `collided`.
const FP_BITS: u32 = 24;
const FP_MASK: u64 = (1 << FP_BITS) - 1;

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
const CALL_COLS: usize = Table::Call.columns().len();

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
        batch.rows += calls.drain(|row| batch.values[Table::Call.index()].extend(row));
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

    /// Add a row of `t`, its values beside their column names.
    fn push<const N: usize>(
        &mut self,
        t: Table,
        row: [(&'static str, SqlValue); N],
    ) -> Result<(), T::Error> {
        self.batch.values[t.index()].extend(named(t, row));
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
        if let Some(id) = self.paths.get(path) {
            return Ok(id);
        }
        let id = self.paths.next;
        self.paths.next += 1;
        self.paths.added += 1;
        self.paths.insert(path, id);
        self.push(
            Table::Path,
            [("path_id", SqlValue::Int(id)), ("path", bytes(path))],
        )?;
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
            end_seen_by,
        } = r;
        let trace_id = self.ctx.trace_id;
        self.push(
            Table::Process,
            [
                ("process_id", SqlValue::Int(*id)),
                ("trace_id", SqlValue::Int(trace_id)),
                ("pid", SqlValue::Int(*pid)),
                ("parent_id", int(*parent_id)),
                (
                    "running_at_start",
                    SqlValue::Int((*running_at_start).into()),
                ),
                (
                    "fork_syscall",
                    fork_syscall.clone().map_or(SqlValue::Null, SqlValue::Text),
                ),
                ("fork_call_id", int(*fork_call_id)),
                ("fork_ts", int(*fork_ts)),
                ("fork_offset", int(fork_offset.map(off))),
                ("parent_exec_id", int(*parent_exec_id)),
                ("first_comm", bytes(first_comm)),
                ("last_comm", bytes(last_comm)),
                ("first_ts", SqlValue::Int(*first_ts)),
                ("last_ts", SqlValue::Int(*last_ts)),
                ("exit_status", int(*exit_status)),
                ("exit_signal", int(*exit_signal)),
                ("exit_ts", int(*exit_ts)),
                ("exit_seen", SqlValue::Int((*exit_seen).into())),
                ("records", SqlValue::Int(*records)),
                ("dropped_events", SqlValue::Int(*dropped_events)),
                ("cut_by_damage", SqlValue::Int((*cut_by_damage).into())),
                ("calls", SqlValue::Int(*calls)),
                ("failed_calls", SqlValue::Int(*failed_calls)),
                ("lookups", SqlValue::Int(*lookups)),
                ("unresolved_lookups", SqlValue::Int(*unresolved_lookups)),
                ("files", SqlValue::Int(*files)),
                ("end_seen_by", text(end_seen_by.map(|e| e.as_str()))),
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
            [
                ("thread_id", SqlValue::Int(id)),
                ("process_id", SqlValue::Int(process_id)),
                ("tid", SqlValue::Int(tid)),
                ("first_ts", SqlValue::Int(first_ts)),
                ("last_ts", SqlValue::Int(last_ts)),
                ("records", SqlValue::Int(records)),
            ],
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
                ("exec_id", SqlValue::Int(id)),
                ("process_id", SqlValue::Int(process_id)),
                ("seq", SqlValue::Int(seq)),
                ("image", int(image)),
                ("ts", SqlValue::Int(ts)),
                ("call_id", int(call_id)),
                ("path_id", path_id),
                ("resolved_id", resolved_id),
                ("comm", bytes(comm)),
                ("argv", string_list(argv)),
                ("envp", string_list(envp)),
                ("success", SqlValue::Int(success.into())),
                ("cwd_id", cwd_id),
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
            success,
            errno,
            call_offset,
            ret_offset,
            unpaired,
        } = r;
        let TraceContext {
            word_bits, names, ..
        } = self.ctx;
        let dur = ts.zip(ret_ts).map(|(a, b)| b - a);
        let row = named(
            Table::Call,
            [
                ("call_id", SqlValue::Int(id)),
                ("process_id", SqlValue::Int(process_id)),
                ("thread_id", int(thread_id)),
                ("code", SqlValue::Int(code.into())),
                ("syscall", text(syscall)),
                ("nargs", SqlValue::Int(args.len() as i64)),
                ("args", SqlValue::Text(args_text(args))),
                (
                    "arg0",
                    int(args.first().map(|&w| signed_word(w, word_bits))),
                ),
                ("arg1", int(args.get(1).map(|&w| signed_word(w, word_bits)))),
                ("ts", int(ts)),
                ("ret_ts", int(ret_ts)),
                ("dur", int(dur)),
                ("retval", int(retval)),
                ("error", int(error.map(i64::from))),
                ("errno", int(errno)),
                (
                    "errno_name",
                    text(errno.and_then(|e| errno_name(names, e).map(|(n, _)| n))),
                ),
                ("success", int(success.map(i64::from))),
                ("call_offset", int(call_offset.map(off))),
                ("ret_offset", int(ret_offset.map(off))),
                ("unpaired", text(unpaired.map(|u| u.as_str()))),
            ],
        );
        let Encoder { calls, batch, .. } = self;
        batch.rows += calls.push(id, row, |row| batch.values[Table::Call.index()].extend(row));
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
            exec_id,
            coredump,
            path,
            resolved,
            resolution,
            access,
        } = r;
        let path_id = self.intern(path)?;
        let resolved_id = self.intern(resolved)?;
        self.push(
            Table::Namei,
            [
                ("namei_id", SqlValue::Int(id)),
                ("call_id", int(call_id)),
                ("process_id", SqlValue::Int(process_id)),
                ("seq", SqlValue::Int(seq)),
                ("ts", SqlValue::Int(ts)),
                ("offset", SqlValue::Int(off(offset))),
                ("comm", bytes(comm)),
                ("path_id", SqlValue::Int(path_id)),
                ("resolved_id", SqlValue::Int(resolved_id)),
                ("resolution", SqlValue::Static(resolution.as_str())),
                ("exec_id", SqlValue::Int(exec_id)),
                ("coredump", SqlValue::Int(coredump.into())),
                ("access", SqlValue::Static(access.as_str())),
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
            addr,
            signo,
            error,
            code,
            name,
            data,
        } = r;
        let trace_id = self.ctx.trace_id;
        self.push(
            Table::Event,
            [
                ("event_id", SqlValue::Int(id)),
                ("trace_id", SqlValue::Int(trace_id)),
                ("process_id", int(process_id)),
                ("thread_id", int(thread_id)),
                ("call_id", int(call_id)),
                ("ts", SqlValue::Int(ts)),
                ("offset", SqlValue::Int(off(offset))),
                ("kind", SqlValue::Static(kind)),
                ("fd", int(fd)),
                ("dir", text(dir)),
                ("len", int(len)),
                ("addr", int(addr)),
                ("signo", int(signo)),
                ("error", int(error)),
                ("code", int(code)),
                ("name", name.map_or(SqlValue::Null, bytes)),
                (
                    "data",
                    data.map_or(SqlValue::Null, |d| SqlValue::Blob(d.to_vec())),
                ),
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
                ("trace_id", SqlValue::Int(trace_id)),
                ("offset", int(offset.map(off))),
                ("severity", SqlValue::Static(severity.as_str())),
                ("kind", SqlValue::Static(kind.as_str())),
                ("message", SqlValue::Text(message.clone())),
                ("process_id", int(*process_id)),
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
                ("trace_id", SqlValue::Int(self.ctx.trace_id)),
                ("code", SqlValue::Int(code.into())),
                ("syscall", text(syscall)),
                ("calls", SqlValue::Int(calls)),
                ("failed", SqlValue::Int(failed)),
                ("no_return", SqlValue::Int(no_return)),
                ("timed", SqlValue::Int(timed)),
                ("total_dur", SqlValue::Int(total_dur)),
                ("max_dur", int(max_dur)),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::PathCache;

    #[test]
    fn path_cache_gives_each_path_its_own_id() {
        let mut cache = PathCache::default();
        let paths: Vec<Vec<u8>> = (0..10_000)
            .map(|i| format!("/usr/src/f{i}.c").into_bytes())
            .collect();
        for (id, p) in (1..).zip(&paths) {
            assert_eq!(cache.get(p), None);
            cache.insert(p, id);
        }
        for (id, p) in (1..).zip(&paths) {
            assert_eq!(cache.get(p), Some(id));
        }
        assert_eq!(cache.get(b"/usr/src/f10000.c"), None);
    }

    #[test]
    fn path_cache_keeps_ids_too_large_to_pack() {
        // An --append database may hold any id; past 2^40 it cannot share
        // a word with the hash check and is kept in full.
        let mut cache = PathCache::default();
        let big = 1_i64 << 50;
        cache.insert(b"/etc/passwd", big);
        cache.insert(b"/etc/group", 7);
        assert_eq!(cache.get(b"/etc/passwd"), Some(big));
        assert_eq!(cache.get(b"/etc/group"), Some(7));
        assert_eq!(cache.collided.len(), 1);
    }
}
