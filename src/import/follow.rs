//! `import --follow`: a trace still being written, imported into a
//! database that stays current while it grows and that readers may query
//! at any time ([`run`]).
//!
//! - The database is written in place in WAL mode (readers see the last
//!   commit, never a half-written one), its tables, indexes and views
//!   created at the start. Rows are committed at least every
//!   [`COMMIT_EVERY`] while records arrive, and as soon as the decoder has
//!   caught up with the file's end. Big WAL files are checkpointed and
//!   truncated after a commit.
//! - The file is read through [`Growing`], a reader that waits where the
//!   file ends for now; while it waits, the follower commits and asks
//!   whether to end. So a half-written record at the end is waited for,
//!   and damage in the middle meets the same decoder, resynchronisation
//!   and model as a one-shot import.
//! - A snapshot is the rows of a one-shot import of the bytes decoded so
//!   far: the rows the model wrote already, plus "provisional rows": the
//!   rows ending a copy of the model would write now
//!   ([`Model::snapshot`]: running processes with no end, calls in flight
//!   `unpaired = 'running'`, the syscall sums, the end-of-trace issues,
//!   the tree order). They are written with a copy of the path cache, and
//!   taken out again (by id) at the start of the next transaction, before
//!   any final row of it, so ids and path ids come out as in a one-shot
//!   import.
//! - It ends when every traced process has exited and the file has not
//!   grown for [`FollowOptions::settle`], after [`FollowOptions::idle`]
//!   without new bytes, or when the stop flag is set (Ctrl-C): the model is
//!   then finished as in a one-shot import and the trace row's `following`
//!   set to 0. A file replaced or truncated under the follower ends it the
//!   same way, with an error naming it.
//! - Resuming after the follower was killed: a database left by an
//!   unfinished follow of the same trace (`following = 1`, one trace, the
//!   same path, no other writer holding it) is imported again from the
//!   first byte into a fresh database in its place. Correct first: the
//!   model's state is not saved, so it is rebuilt by reading the file
//!   again.
//!
//! The model keeps every live process in memory (nothing spilled), so that
//! a copy of it is cheap and whole; memory is set by the processes alive
//! at once.

use std::cell::RefCell;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

use super::errors::{in_db, refused};
use super::trace::{conclude, damage_summary, now, Concluded};
use super::{Damage, ImportOptions, TraceSummary};
use crate::decode::growing::wait_for_start;
use crate::decode::{Abi, Decoder};
use crate::load::encode::Encoder;
use crate::load::tree_order::write_tree_order;
use crate::load::writer::Writer;
use crate::load::{begin_trace, end_trace, fingerprint, next_ids, Loader, TraceEnd, TraceStart};
use crate::process::rows::{
    CallRow, EventRow, ExecRow, IssueRow, NameiRow, ProcessRow, SyscallStatRow, ThreadRow, Totals,
};
use crate::process::{Model, ModelOptions, Sink};
use crate::record::{Body, Record};
use crate::schema::{self, sql_err, Existing};
use crate::sink::{PathCache, TraceContext};
use crate::Error;

/// Commits at least this often while records arrive.
pub const COMMIT_EVERY: Duration = Duration::from_millis(500);
/// Once the decoder has caught up, commit when the last commit is at least
/// this old (records trickling in do not make a commit each).
const MIN_GAP: Duration = Duration::from_millis(100);
/// How long to wait at the file's end before looking again.
const POLL: Duration = Duration::from_millis(50);
/// How long the file must stay the same, every traced process gone,
/// before the follow ends by itself.
pub const SETTLE: Duration = Duration::from_secs(2);
/// A WAL bigger than this after a commit is checkpointed and truncated.
const WAL_CHECKPOINT_BYTES: u64 = 32 << 20;
/// Consecutive believable records after damage (as in a one-shot import).
const RESYNC_RUN: usize = 4;
/// How far outside the time seen a believable record may be.
const RESYNC_SLACK_NS: i64 = 86_400 * 1_000_000_000;

/// What to follow and how.
#[derive(Debug, Clone)]
pub struct FollowOptions {
    /// The trace being written.
    pub trace: PathBuf,
    /// The database to write (new, or left by an unfinished follow of the
    /// same trace).
    pub db: PathBuf,
    /// Dialect, start directory, `--keep-io-data`, `--strict` (the mode is
    /// not used: see [`run`]).
    pub import: ImportOptions,
    /// End after this long without new bytes (`--idle`).
    pub idle: Option<Duration>,
    /// End this long after every traced process exited, if the file has
    /// not grown meanwhile.
    pub settle: Duration,
}

impl FollowOptions {
    /// Follow `trace` into `db` with the defaults.
    pub fn new(trace: &Path, db: &Path) -> Self {
        FollowOptions {
            trace: trace.to_owned(),
            db: db.to_owned(),
            import: ImportOptions::default(),
            idle: None,
            settle: SETTLE,
        }
    }
}

/// Why a follow ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Every traced process exited and the file stopped growing.
    Exited,
    /// No new bytes for the `--idle` time.
    Idle,
    /// The stop flag was set (Ctrl-C, SIGTERM).
    Stopped,
}

/// What a follow did.
#[derive(Debug, Clone)]
pub struct FollowSummary {
    /// The trace as imported in the end.
    pub trace: TraceSummary,
    /// Why it ended.
    pub ended: Ended,
    /// Whether it took over a database an unfinished follow left.
    pub resumed: bool,
    /// Commits made.
    pub commits: u64,
}

/// Follow `opts.trace` into `opts.db` until it ends (see the module's
/// doc): returns then, with a database whose rows are those of a one-shot
/// import of the file as read. The database must not exist, or be one an
/// unfinished follow of the same trace left (it is then imported again
/// from the first byte). Nothing is written before the file holds enough
/// to tell its dialect; `stop` set before then is [`Error::Interrupted`].
pub fn run(opts: &FollowOptions, stop: Arc<AtomicBool>) -> Result<FollowSummary, Error> {
    let (trace, db) = (&opts.trace, &opts.db);
    let abs = std::path::absolute(trace).unwrap_or_else(|_| trace.to_owned());
    if fs::canonicalize(db)
        .ok()
        .is_some_and(|d| fs::canonicalize(trace).ok() == Some(d))
    {
        return Err(refused(trace, "is also the output database"));
    }
    let io = |source| Error::Io {
        path: trace.to_owned(),
        source,
    };
    if !fs::metadata(trace).map_err(io)?.is_file() {
        return Err(refused(
            trace,
            "--follow reads a regular file, not a pipe or device",
        ));
    }
    let resumed = check_target(db, &abs)?;
    // Declared before the decoder, whose reader borrows them.
    let conn: Connection;
    let mut paths = PathCache::default();
    if !wait_for_start(trace, opts.import.abi, &stop).map_err(io)? {
        return Err(Error::Interrupted { path: db.clone() });
    }
    let file = File::open(trace).map_err(io)?;
    let id = file_id(&file.metadata().map_err(io)?);
    let growing = Growing {
        file,
        read: 0,
        following: false,
        state: None,
    };
    let mut dec = Decoder::new(growing, opts.import.abi, None).map_err(|source| Error::Decode {
        path: trace.to_owned(),
        source,
    })?;
    dec.rearm();
    if resumed {
        remove_db(db)?;
    }
    conn = open_db(db)?;
    let ctx = |e: Error| in_db(e, db);
    let abi = dec.abi();
    let start = TraceStart {
        path: abs.as_os_str().as_encoded_bytes(),
        size: 0,
        fingerprint: None,
        abi: Some(abi),
        start_cwd: opts.import.start_cwd.as_deref(),
        keep_io_data: opts.import.keep_io_data,
        imported_at: now(),
    };
    let tctx = begin(&conn, &start).map_err(ctx)?;
    let ids = next_ids(&conn).map_err(ctx)?;
    let model = Model::new(
        abi,
        ModelOptions {
            start_cwd: opts.import.start_cwd.clone(),
            keep_io_data: opts.import.keep_io_data,
            ids,
            live_in_memory: Some(usize::MAX),
        },
    );
    let writer = Writer::prepare(&conn)
        .map_err(sql_err("preparing INSERTs".into()))
        .map_err(ctx)?;
    let state = Rc::new(RefCell::new(Follower {
        conn: &conn,
        model,
        enc: Encoder::new(&mut paths, tctx, writer),
        tctx,
        abi,
        trace: trace.clone(),
        db: db.clone(),
        id,
        stop,
        idle: opts.idle,
        settle: opts.settle,
        t0: Instant::now(),
        records: 0,
        offset: 0,
        committed: 0,
        commits: 0,
        last_commit: Instant::now(),
        last_growth: Instant::now(),
        seen_len: 0,
        damage: Vec::new(),
        prov: Provisional::default(),
        ended: None,
        failed: None,
    }));
    {
        let g = dec.reader_mut();
        g.state = Some(Rc::clone(&state));
        g.following = true;
    }
    let result = decode(&mut dec, &state, opts.import.strict);
    let read = dec.offset();
    drop(dec);
    let follower = Rc::try_unwrap(state)
        .ok()
        .expect("the reader is gone")
        .into_inner();
    result.map_err(ctx)?;
    follower.finish(&abs, read, opts.import.strict, resumed)
}

/// Feed every record to the model, as a one-shot import does (damage
/// skipped and recorded), until the reader ends the stream.
fn decode(
    dec: &mut Decoder<Growing<'_>>,
    state: &Rc<RefCell<Follower<'_>>>,
    strict: bool,
) -> Result<(), Error> {
    let mut span: Option<(i64, i64)> = None;
    loop {
        let (offset, why) = match dec.next_record() {
            Ok(Some(rec)) => {
                if !matches!(rec.body, Body::Start) {
                    span = Some(
                        span.map_or((rec.ts, rec.ts), |(a, b)| (a.min(rec.ts), b.max(rec.ts))),
                    );
                }
                let mut st = state.borrow_mut();
                let f = &mut *st;
                f.model.record(&rec, &mut f.enc)?;
                f.records += 1;
                f.offset = dec.offset();
                if f.records % 1024 == 0 && f.last_commit.elapsed() >= COMMIT_EVERY {
                    f.commit()?;
                }
                continue;
            }
            Ok(None) => return Ok(()),
            Err(e) => (e.offset, e.kind.to_string()),
        };
        let mut st = state.borrow_mut();
        let f = &mut *st;
        if strict {
            f.damage.push(Damage {
                offset,
                resumed_at: None,
                why,
            });
            return Ok(());
        }
        drop(st);
        let believable = |r: &Record<'_>| {
            span.is_none_or(|(a, b)| {
                matches!(r.body, Body::Start)
                    || (a - RESYNC_SLACK_NS..=b + RESYNC_SLACK_NS).contains(&r.ts)
            })
        };
        let resumed_at = dec.resync(offset, RESYNC_RUN, &believable);
        // The file's length as read (it may have been cut since).
        let len = dec.reader_mut().read;
        let mut st = state.borrow_mut();
        let f = &mut *st;
        f.model.damage(offset, resumed_at, &why, len, &mut f.enc)?;
        f.damage.push(Damage {
            offset,
            resumed_at,
            why,
        });
        if let Some(to) = resumed_at {
            f.offset = to;
        } else {
            return Ok(());
        }
    }
}

/// A database that does not exist (`Ok(false)`), or one an unfinished
/// follow of the trace at `abs` left and no one writes now (`Ok(true)`:
/// it is imported again); anything else is refused.
fn check_target(db: &Path, abs: &Path) -> Result<bool, Error> {
    match fs::symlink_metadata(db) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(source) => {
            return Err(Error::Io {
                path: db.to_owned(),
                source,
            })
        }
        Ok(m) if m.is_dir() => return Err(refused(db, "is a directory")),
        Ok(_) => {}
    }
    let theirs = "already exists; import --follow writes a new database, or resumes its \
                  own unfinished follow of the same trace (nothing was written)";
    if !matches!(schema::inspect(db)?, Existing::Current) {
        return Err(refused(db, theirs));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(db, flags)
        .map_err(sql_err("opening".into()))
        .map_err(|e| in_db(e, db))?;
    let row: (i64, i64, Vec<u8>) = conn
        .query_row(
            "SELECT count(*), COALESCE(max(following), 0), COALESCE(CAST(max(path) AS BLOB), x'') \
             FROM trace",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .map_err(sql_err("reading table trace".into()))
        .map_err(|e| in_db(e, db))?;
    if row != (1, 1, abs.as_os_str().as_encoded_bytes().to_vec()) {
        return Err(refused(db, theirs));
    }
    // A follower still running holds the write lock nearly always.
    if conn.execute_batch("BEGIN IMMEDIATE; ROLLBACK").is_err() {
        return Err(refused(
            db,
            "is being written by another kt2sql import --follow; nothing was written",
        ));
    }
    Ok(true)
}

/// Remove a database an unfinished follow left, with its WAL files.
fn remove_db(db: &Path) -> Result<(), Error> {
    for suffix in ["", "-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        match fs::remove_file(&p) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                return Err(Error::Io {
                    path: p.into(),
                    source: e,
                })
            }
            _ => {}
        }
    }
    Ok(())
}

/// A new database in WAL mode, so readers see each commit while the
/// follower writes the next.
fn open_db(db: &Path) -> Result<Connection, Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    // create_new: never another file created meanwhile.
    match fs::OpenOptions::new().write(true).create_new(true).open(db) {
        Ok(_) => {}
        Err(source) => {
            return Err(Error::Io {
                path: db.to_owned(),
                source,
            })
        }
    }
    let ctx = |e: Error| in_db(e, db);
    let conn = Connection::open_with_flags(db, flags)
        .map_err(sql_err("opening".into()))
        .map_err(ctx)?;
    let pragma = |name: &str, value: i64| {
        conn.pragma_update(None, name, value)
            .map_err(sql_err(format!("setting PRAGMA {name}")))
            .map_err(ctx)
    };
    pragma("page_size", schema::PAGE_SIZE)?;
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
        .map_err(sql_err("setting PRAGMA journal_mode".into()))
        .map_err(ctx)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(ctx(refused(
            db,
            &format!("SQLite kept journal mode {mode}, not WAL"),
        )));
    }
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(sql_err("setting PRAGMA synchronous".into()))
        .map_err(ctx)?;
    conn.pragma_update(None, "foreign_keys", "OFF")
        .map_err(sql_err("setting PRAGMA foreign_keys".into()))
        .map_err(ctx)?;
    pragma("journal_size_limit", WAL_CHECKPOINT_BYTES as i64)?;
    pragma("wal_autocheckpoint", (16 << 20) / schema::PAGE_SIZE)?;
    Ok(conn)
}

/// The tables, indexes and views, and the trace row, committed at once; then
/// the transaction the first rows go into.
fn begin(conn: &Connection, start: &TraceStart<'_>) -> Result<TraceContext, Error> {
    conn.execute_batch("BEGIN")
        .map_err(sql_err("starting a transaction".into()))?;
    schema::create_tables(conn)?;
    schema::create_indexes_and_views(conn)?;
    let tctx = begin_trace(conn, start)?;
    let totals = Totals::default();
    end_trace(
        conn,
        tctx.trace_id,
        0,
        &TraceEnd {
            totals: &totals,
            decoded_bytes: 0,
            size: 0,
            damage: None,
            seconds: 0.0,
            following: true,
        },
    )?;
    conn.execute_batch("COMMIT; BEGIN")
        .map_err(sql_err("committing".into()))?;
    Ok(tctx)
}

/// The dev and inode of an open file, to tell when its path names
/// another file.
#[cfg(unix)]
fn file_id(m: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// The follow's state, shared by the decoding loop and the reader (which
/// commits and decides to end while it waits for bytes).
struct Follower<'c> {
    conn: &'c Connection,
    model: Model,
    enc: Loader<'c>,
    tctx: TraceContext,
    abi: Abi,
    trace: PathBuf,
    db: PathBuf,
    /// The file followed, to tell when the path names another one.
    id: Option<(u64, u64)>,
    stop: Arc<AtomicBool>,
    idle: Option<Duration>,
    settle: Duration,
    t0: Instant,
    /// Records decoded.
    records: u64,
    /// Where the last record decoded ends.
    offset: u64,
    /// Records decoded at the last commit.
    committed: u64,
    commits: u64,
    last_commit: Instant,
    /// When the file was last seen to grow.
    last_growth: Instant,
    /// The file's size when last looked at.
    seen_len: u64,
    damage: Vec<Damage>,
    /// The rows of the last commit's snapshot, taken out at the start of
    /// the next transaction.
    prov: Provisional,
    ended: Option<Ended>,
    failed: Option<Error>,
}

/// The provisional rows written by a snapshot, by table key.
#[derive(Default)]
struct Provisional {
    process: Vec<i64>,
    thread: Vec<i64>,
    exec: Vec<i64>,
    call: Vec<i64>,
    namei: Vec<i64>,
    event: Vec<i64>,
    /// The first `path_id` and `import_issue_id` the snapshot gave.
    path_from: i64,
    issue_from: i64,
}

impl Follower<'_> {
    /// Called by the reader at the file's end: commit what is new, then
    /// whether to end the stream (`true`), else wait a little.
    fn at_end(&mut self, read: u64) -> bool {
        if self.ended.is_some() || self.failed.is_some() {
            return true;
        }
        if let Err(e) = self.look_at_file(read) {
            self.failed = Some(e);
            return true;
        }
        if self.records > self.committed && self.last_commit.elapsed() >= MIN_GAP {
            if let Err(e) = self.commit() {
                self.failed = Some(e);
                return true;
            }
        }
        let quiet = self.last_growth.elapsed();
        self.ended = if self.stop.load(Ordering::SeqCst) {
            Some(Ended::Stopped)
        } else if self.idle.is_some_and(|d| quiet >= d) {
            Some(Ended::Idle)
        } else if quiet >= self.settle && self.model.all_exited() {
            Some(Ended::Exited)
        } else {
            None
        };
        if self.ended.is_none() {
            std::thread::sleep(POLL);
        }
        self.ended.is_some()
    }

    /// Whether the path still names the file followed, at least as long as
    /// what was read of it.
    fn look_at_file(&mut self, read: u64) -> Result<(), Error> {
        let meta = fs::metadata(&self.trace).map_err(|source| Error::Io {
            path: self.trace.clone(),
            source,
        })?;
        if self.id.is_some() && file_id(&meta) != self.id {
            return Err(refused(
                &self.trace,
                &format!(
                    "was replaced by another file while it was followed; the database \
                     keeps what was read of the first ({read} bytes)"
                ),
            ));
        }
        if meta.len() < read {
            return Err(refused(
                &self.trace,
                &format!(
                    "was truncated to {} bytes while it was followed, after {read} bytes \
                     were read; the database keeps those",
                    meta.len()
                ),
            ));
        }
        if meta.len() != self.seen_len {
            self.seen_len = meta.len();
            self.last_growth = Instant::now();
        }
        Ok(())
    }

    /// Write the snapshot's provisional rows and the trace row, commit,
    /// and open the next transaction with them taken out again.
    fn commit(&mut self) -> Result<(), Error> {
        let conn = self.conn;
        self.enc.flush()?;
        let mut paths = self.enc.paths().clone();
        self.prov.path_from = paths.next_id();
        self.prov.issue_from = conn
            .query_row(
                "SELECT COALESCE(max(import_issue_id), 0) + 1 FROM import_issue",
                [],
                |r| r.get(0),
            )
            .map_err(sql_err("reading the last import_issue_id".into()))?;
        let writer = Writer::prepare(conn).map_err(sql_err("preparing INSERTs".into()))?;
        let mut snap = Encoder::new(&mut paths, self.tctx, writer);
        let mut rec = Recording {
            inner: &mut snap,
            prov: &mut self.prov,
        };
        let totals = self.model.snapshot(&mut rec)?;
        snap.flush()?;
        let issues = self.enc.issues() + snap.issues();
        drop(snap);
        let skipped: u64 = self
            .damage
            .iter()
            .filter_map(|d| d.resumed_at.map(|to| to - d.offset))
            .sum();
        end_trace(
            conn,
            self.tctx.trace_id,
            issues,
            &TraceEnd {
                totals: &totals,
                decoded_bytes: self.offset.saturating_sub(skipped),
                size: self.seen_len.max(self.offset),
                damage: damage_summary(&self.damage),
                seconds: self.t0.elapsed().as_secs_f64(),
                following: true,
            },
        )?;
        write_tree_order(conn)?;
        conn.execute_batch("COMMIT")
            .map_err(sql_err("committing".into()))?;
        self.commits += 1;
        self.committed = self.records;
        self.last_commit = Instant::now();
        self.checkpoint();
        conn.execute_batch("BEGIN")
            .map_err(sql_err("starting a transaction".into()))?;
        self.take_out_provisional()
    }

    /// Truncate a big WAL when the readers let it (never waits for them).
    fn checkpoint(&self) {
        let mut wal = self.db.as_os_str().to_owned();
        wal.push("-wal");
        if fs::metadata(&wal).is_ok_and(|m| m.len() > WAL_CHECKPOINT_BYTES) {
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }

    /// Delete the last snapshot's provisional rows (inside the new
    /// transaction: readers still see them until the next commit).
    fn take_out_provisional(&mut self) -> Result<(), Error> {
        let conn = self.conn;
        let p = std::mem::take(&mut self.prov);
        let ctx = || sql_err("taking out the rows of the last snapshot".into());
        for (table, key, ids) in [
            ("process", "process_id", &p.process),
            ("thread", "thread_id", &p.thread),
            ("exec", "exec_id", &p.exec),
            ("call", "call_id", &p.call),
            ("namei", "namei_id", &p.namei),
            ("event", "event_id", &p.event),
        ] {
            if ids.is_empty() {
                continue;
            }
            let mut del = conn
                .prepare_cached(&format!("DELETE FROM {table} WHERE {key} = ?1"))
                .map_err(ctx())?;
            for id in ids {
                del.execute([id]).map_err(ctx())?;
            }
        }
        conn.execute(
            "DELETE FROM import_issue WHERE import_issue_id >= ?1",
            [p.issue_from.max(1)],
        )
        .map_err(ctx())?;
        if p.path_from > 0 {
            conn.execute("DELETE FROM path WHERE path_id >= ?1", [p.path_from])
                .map_err(ctx())?;
        }
        conn.execute(
            "DELETE FROM syscall_stat WHERE trace_id = ?1",
            [self.tctx.trace_id],
        )
        .map_err(ctx())?;
        conn.execute("DELETE FROM tree_node", []).map_err(ctx())?;
        Ok(())
    }

    /// The end: the model finished as in a one-shot import, the trace row
    /// completed (`following = 0`), the last commit; the database left as
    /// a plain (rollback-journal) file when no reader holds it.
    fn finish(
        self,
        abs: &Path,
        read: u64,
        strict: bool,
        resumed: bool,
    ) -> Result<FollowSummary, Error> {
        let Follower {
            conn,
            model,
            mut enc,
            tctx,
            abi,
            trace,
            db,
            t0,
            damage,
            commits,
            ended,
            failed,
            ..
        } = self;
        let ctx = |e: Error| in_db(e, &db);
        let totals = model.finish(&mut enc).map_err(ctx)?;
        enc.flush().map_err(ctx)?;
        let issues = enc.issues();
        drop(enc);
        let size = fs::metadata(&trace).map_or(read, |m| m.len());
        let decoded = super::pipeline::Decoded {
            totals,
            damage,
            read,
            issues,
        };
        let Concluded {
            totals,
            damage,
            read,
            issues,
            size,
            decoded_bytes,
            summary,
        } = conclude(&trace, abi, size, decoded, strict)?;
        end_trace(
            conn,
            tctx.trace_id,
            issues,
            &TraceEnd {
                totals: &totals,
                decoded_bytes,
                size,
                damage: summary,
                seconds: t0.elapsed().as_secs_f64(),
                following: false,
            },
        )
        .map_err(ctx)?;
        let fp = match failed {
            None => fingerprint::of_file(&trace, size)?,
            Some(_) => None,
        };
        conn.execute(
            "UPDATE trace SET fingerprint = ?1 WHERE trace_id = ?2",
            rusqlite::params![fp, tctx.trace_id],
        )
        .map_err(sql_err("completing the trace row".into()))
        .map_err(ctx)?;
        write_tree_order(conn).map_err(ctx)?;
        conn.execute_batch("COMMIT")
            .map_err(sql_err("committing".into()))
            .map_err(ctx)?;
        // A plain database file again; a reader still holding it keeps
        // it in WAL mode, which is as good.
        let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        let _ = conn.query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()));
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(FollowSummary {
            trace: TraceSummary {
                path: abs.to_owned(),
                trace_id: tctx.trace_id,
                dialect: abi.to_string(),
                size,
                decoded_bytes: read,
                totals,
                issues,
                damage,
                same_as: None,
            },
            ended: ended.unwrap_or(Ended::Stopped),
            resumed,
            commits: commits + 1,
        })
    }
}

/// A sink that passes rows on and keeps the keys of those it passed: the
/// snapshot's provisional rows.
struct Recording<'s, S> {
    inner: &'s mut S,
    prov: &'s mut Provisional,
}

impl<S: Sink> Sink for Recording<'_, S> {
    type Error = S::Error;
    fn process(&mut self, row: &ProcessRow) -> Result<(), S::Error> {
        self.prov.process.push(row.id);
        self.inner.process(row)
    }
    fn thread(&mut self, row: &ThreadRow) -> Result<(), S::Error> {
        self.prov.thread.push(row.id);
        self.inner.thread(row)
    }
    fn exec(&mut self, row: &ExecRow<'_>) -> Result<(), S::Error> {
        self.prov.exec.push(row.id);
        self.inner.exec(row)
    }
    fn call(&mut self, row: &CallRow<'_>) -> Result<(), S::Error> {
        self.prov.call.push(row.id);
        self.inner.call(row)
    }
    fn namei(&mut self, row: &NameiRow<'_>) -> Result<(), S::Error> {
        self.prov.namei.push(row.id);
        self.inner.namei(row)
    }
    fn event(&mut self, row: &EventRow<'_>) -> Result<(), S::Error> {
        self.prov.event.push(row.id);
        self.inner.event(row)
    }
    fn issue(&mut self, row: &IssueRow) -> Result<(), S::Error> {
        self.inner.issue(row)
    }
    fn syscall_stat(&mut self, row: &SyscallStatRow) -> Result<(), S::Error> {
        self.inner.syscall_stat(row)
    }
}

/// The trace file as a stream that waits where the file ends for now:
/// there it hands over to the follower ([`Follower::at_end`]), which
/// commits and says when the stream ends.
struct Growing<'c> {
    file: File,
    read: u64,
    /// Waiting at the end (after detection read what was there).
    following: bool,
    state: Option<Rc<RefCell<Follower<'c>>>>,
}

impl Read for Growing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.file.read(buf)?;
            self.read += n as u64;
            if n > 0 || buf.is_empty() || !self.following {
                return Ok(n);
            }
            let Some(state) = &self.state else {
                return Ok(0);
            };
            if state.borrow_mut().at_end(self.read) {
                return Ok(0);
            }
        }
    }
}
