//! The import driver: trace files → one database, atomically. Checks the
//! inputs and the target; writes a new database into a temporary file
//! (`atomic.rs`) renamed over the target at the end, or appends to an
//! existing one in place under SQLite's write lock; runs decoder → process
//! model → encoder → writer on two threads (`pipeline.rs`) for each trace
//! (an empty file, which has no records, gets its trace row through a
//! one-thread [`Loader`]) and adds indexes and views, all in one
//! transaction. Knows nothing of the command line or of progress bars: it
//! reports through [`Progress`].

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

mod atomic;
mod pipeline;

use crate::decode::{Abi, DecodeErrorKind, Decoder};
use crate::load::{
    begin_trace, end_trace, fingerprint, next_ids, same_file, Loader, PathCache, TraceEnd,
    TraceStart,
};
use crate::process::rows::Totals;
use crate::process::{Model, ModelOptions};
use crate::schema::{self, sql_err, Existing, SCHEMA_VERSION};
use crate::Error;
use atomic::TempTarget;
use pipeline::{Decoded, Job};

/// What to do with an existing target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImportMode {
    /// Refuse an existing target.
    #[default]
    Create,
    /// Replace whatever is there (`--force`).
    Replace,
    /// Add the traces to an existing kt2sql database of the same schema
    /// version (`--append`); create it when missing.
    Append,
}

/// How long `--append` waits by default for another writer of the database.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(600);

/// How to import.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Existing target handling.
    pub mode: ImportMode,
    /// Decode as this ABI instead of detecting it.
    pub abi: Option<Abi>,
    /// Working directory of processes whose cwd is unknown (`--start-dir`).
    pub start_cwd: Option<Vec<u8>>,
    /// Keep GIO data bytes.
    pub keep_io_data: bool,
    /// Stop at the first damage instead of skipping it (`--strict`).
    pub strict: bool,
    /// How long `--append` waits for another writer to finish.
    pub busy_timeout: Duration,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            mode: ImportMode::default(),
            abi: None,
            start_cwd: None,
            keep_io_data: false,
            strict: false,
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
        }
    }
}

/// One stretch of a trace that could not be imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// Offset of the first byte not imported.
    pub offset: u64,
    /// Where records resumed; `None` when nothing after it could be read.
    pub resumed_at: Option<u64>,
    /// What was wrong there.
    pub why: String,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.resumed_at {
            Some(to) => write!(f, "bytes {}..{to} skipped: {}", self.offset, self.why),
            None => write!(f, "stopped at byte offset {}: {}", self.offset, self.why),
        }
    }
}

/// Told how far the import is; the CLI draws a progress bar with it.
pub trait Progress {
    /// A trace of `total_bytes` starts.
    fn start(&self, _path: &Path, _total_bytes: u64) {}
    /// `bytes_done` bytes and `records_done` records of the current trace
    /// are decoded (called once per batch written, every
    /// [`BATCH_ROWS`](crate::load::encode::BATCH_ROWS) rows, not per record).
    fn advance(&self, _bytes_done: u64, _records_done: u64) {}
    /// The current trace is done (or failed).
    fn finish(&self) {}
    /// Whether to stop (Ctrl-C): asked after every batch written and
    /// between the stages of an import, which then fails with
    /// [`Error::Interrupted`] and writes nothing.
    fn cancelled(&self) -> bool {
        false
    }
}

/// A [`Progress`] that shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;
impl Progress for NoProgress {}

/// One imported trace.
#[derive(Debug, Clone)]
pub struct TraceSummary {
    /// The file.
    pub path: PathBuf,
    /// Its `trace.trace_id`.
    pub trace_id: i64,
    /// Its dialect string.
    pub dialect: String,
    /// File size.
    pub size: u64,
    /// Bytes decoded into records.
    pub decoded_bytes: u64,
    /// The model's counts.
    pub totals: Totals,
    /// Issues written.
    pub issues: i64,
    /// Stretches that could not be imported (the records around them are in).
    pub damage: Vec<Damage>,
    /// The `trace_id` of a trace already in the database with the same
    /// size and fingerprint: most likely this file, imported again.
    pub same_as: Option<i64>,
}

/// What an import did.
#[derive(Debug, Clone)]
pub struct ImportSummary {
    /// The database written.
    pub db: PathBuf,
    /// Per trace, in order.
    pub traces: Vec<TraceSummary>,
    /// Distinct paths added to the `path` table.
    pub paths_added: i64,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl ImportSummary {
    /// Some trace ended in damage: imported, with data loss.
    pub fn data_loss(&self) -> bool {
        self.traces.iter().any(|t| !t.damage.is_empty())
    }
}

/// Import `traces` into the database `db`. On error nothing changes: an
/// existing `db` is as it was and no temporary file stays behind.
///
/// A new database (or `--force`) is written to a temporary file renamed
/// over `db` at the end; `--append` to an existing one writes in place,
/// inside one SQLite transaction that holds the database's write lock from
/// start to commit (see [`append_in_place`]).
pub fn import(
    traces: &[PathBuf],
    db: &Path,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<ImportSummary, Error> {
    let started = Instant::now();
    check_traces(traces, db, opts.abi)?;
    let (done, paths_added) = if check_target(db, opts.mode)? {
        append_in_place(traces, db, opts, progress)?
    } else {
        create(traces, db, opts, progress).map_err(|e| appeared(e, db, opts.mode))?
    };
    Ok(ImportSummary {
        db: db.to_owned(),
        traces: done,
        paths_added,
        elapsed: started.elapsed(),
    })
}

/// A new database: written in a temporary file beside `db`, put in its
/// place once complete ([`TempTarget::commit`]).
fn create(
    traces: &[PathBuf],
    db: &Path,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<(Vec<TraceSummary>, i64), Error> {
    let tmp = TempTarget::create(db)?;
    interrupted(db, progress)?;
    // Only this thread uses the connection (the decoding thread only sends
    // it values), so SQLite's per-call mutex is pure cost: multi-thread mode.
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = Connection::open_with_flags(tmp.path(), flags).map_err(sql_err(format!(
        "{}: opening the temporary database {}",
        db.display(),
        tmp.path().display()
    )))?;
    let ctx = |e: Error| in_db(e, db);
    schema::bulk_pragmas(&conn).map_err(ctx)?;
    let tx = conn
        .transaction()
        .map_err(sql_err("starting a transaction".into()))
        .map_err(ctx)?;
    schema::create_tables(&tx).map_err(ctx)?;
    let mut paths = PathCache::default();
    let done = load_all(&tx, &mut paths, traces, db, opts, progress)?;
    tx.commit()
        .map_err(sql_err("committing".into()))
        .map_err(ctx)?;
    conn.close().map_err(|(_, source)| {
        ctx(Error::Sqlite {
            context: "closing".into(),
            source,
        })
    })?;
    tmp.commit(opts.mode == ImportMode::Replace)?;
    Ok((done, paths.added()))
}

/// `--append` to an existing database, in place: `BEGIN IMMEDIATE` takes
/// SQLite's write lock before anything is read (so ids and interned paths
/// continue from what is committed, and a concurrent append waits for this
/// one, up to `opts.busy_timeout`), every trace, the indexes and the views
/// go into that one transaction, and the commit makes it all visible at
/// once. A failure or Ctrl-C rolls it back; a process killed outright
/// leaves SQLite's journal, which the next connection rolls back. The
/// database keeps its own journal mode; a symlink is written through.
fn append_in_place(
    traces: &[PathBuf],
    db: &Path,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<(Vec<TraceSummary>, i64), Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let ctx = |e: Error| busy(in_db(e, db), db, opts.busy_timeout);
    let conn = Connection::open_with_flags(db, flags)
        .map_err(sql_err("opening".into()))
        .map_err(ctx)?;
    schema::append_pragmas(&conn).map_err(ctx)?;
    let tx = write_lock(&conn, db, opts.busy_timeout, progress)?;
    // Another process may have replaced or upgraded it before the lock.
    match schema::version(&tx).map_err(ctx)? {
        SCHEMA_VERSION => {}
        v => return Err(other_version(db, v)),
    }
    let mut paths = PathCache::load(&tx).map_err(ctx)?;
    // load_all names the database itself.
    let done = load_all(&tx, &mut paths, traces, db, opts, progress)
        .map_err(|e| busy(e, db, opts.busy_timeout))?;
    tx.commit()
        .map_err(sql_err("committing".into()))
        .map_err(ctx)?;
    Ok((done, paths.added()))
}

/// `BEGIN IMMEDIATE`: wait up to `timeout` for SQLite's write lock, in
/// short steps so that Ctrl-C is noticed while waiting, then set `timeout`
/// as the connection's busy timeout for the waits that may follow (for
/// readers to finish, when the cache spills and at commit).
fn write_lock<'c>(
    conn: &'c Connection,
    db: &Path,
    timeout: Duration,
    progress: &dyn Progress,
) -> Result<rusqlite::Transaction<'c>, Error> {
    const STEP: Duration = Duration::from_millis(100);
    let ctx = |e: rusqlite::Error| {
        let e = sql_err("taking the write lock (BEGIN IMMEDIATE)".into())(e);
        busy(in_db(e, db), db, timeout)
    };
    let t0 = Instant::now();
    conn.busy_timeout(STEP.min(timeout)).map_err(ctx)?;
    let tx = loop {
        match Transaction::new_unchecked(conn, TransactionBehavior::Immediate) {
            Ok(tx) => break tx,
            Err(rusqlite::Error::SqliteFailure(f, _))
                if f.code == rusqlite::ErrorCode::DatabaseBusy && t0.elapsed() < timeout =>
            {
                interrupted(db, progress)?;
            }
            Err(e) => return Err(ctx(e)),
        }
    };
    conn.busy_timeout(timeout).map_err(ctx)?;
    interrupted(db, progress)?;
    Ok(tx)
}

/// Every trace, then the indexes and views, into `conn` (inside the
/// caller's transaction), asking between the stages whether to stop.
fn load_all(
    conn: &Connection,
    paths: &mut PathCache,
    traces: &[PathBuf],
    db: &Path,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<Vec<TraceSummary>, Error> {
    let ctx = |e: Error| in_db(e, db);
    let mut done = Vec::with_capacity(traces.len());
    for trace in traces {
        done.push(import_one(conn, paths, trace, opts, progress).map_err(ctx)?);
        interrupted(db, progress)?;
    }
    schema::create_indexes_and_views(conn).map_err(ctx)?;
    interrupted(db, progress)?;
    Ok(done)
}

/// [`Error::Interrupted`] once the user asked to stop.
fn interrupted(db: &Path, progress: &dyn Progress) -> Result<(), Error> {
    match progress.cancelled() {
        true => Err(Error::Interrupted {
            path: db.to_owned(),
        }),
        false => Ok(()),
    }
}

/// Every trace must open (detection included) before anything is written,
/// and none may be the target itself.
fn check_traces(traces: &[PathBuf], db: &Path, abi: Option<Abi>) -> Result<(), Error> {
    if traces.is_empty() {
        return Err(refused(db, "no trace files given"));
    }
    let db_abs = fs::canonicalize(db).ok();
    for t in traces {
        if db_abs.is_some() && fs::canonicalize(t).ok() == db_abs {
            return Err(refused(t, "is also the output database"));
        }
        // A pipe can be read only once: it is checked when it is imported.
        if fs::metadata(t).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            continue;
        }
        match Decoder::open(t, abi) {
            Ok(_) => {}
            // An empty regular file imports as a trace row with no records
            // (a device or pipe with no data is not a trace).
            Err(Error::Decode { source, .. })
                if source.kind == DecodeErrorKind::Empty && is_empty_file(t) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Decide what to do with an existing target; `Ok(true)` to append to it.
fn check_target(db: &Path, mode: ImportMode) -> Result<bool, Error> {
    let meta = match fs::symlink_metadata(db) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(source) => {
            return Err(Error::Io {
                path: db.to_owned(),
                source,
            })
        }
    };
    if meta.is_dir() {
        return Err(refused(db, "is a directory"));
    }
    match mode {
        ImportMode::Replace => Ok(false),
        ImportMode::Create => Err(refused(
            db,
            "already exists; use --force to replace it or --append to add to it",
        )),
        ImportMode::Append => match schema::inspect(db)? {
            Existing::Current => Ok(true),
            Existing::OtherVersion(v) => Err(other_version(db, v)),
            Existing::Foreign(why) => Err(refused(
                db,
                &format!("not a kt2sql database ({why}); will not append to it"),
            )),
        },
    }
}

fn other_version(db: &Path, v: i64) -> Error {
    refused(
        db,
        &format!(
            "has kt2sql schema version {v}, this kt2sql writes version \
             {SCHEMA_VERSION}; cannot append (use --force to replace it)"
        ),
    )
}

/// Decode one trace through the process model into the database (inside
/// the caller's transaction).
fn import_one(
    conn: &Connection,
    paths: &mut PathCache,
    trace: &Path,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<TraceSummary, Error> {
    let t0 = Instant::now();
    let size = fs::metadata(trace)
        .map_err(|source| Error::Io {
            path: trace.to_owned(),
            source,
        })?
        .len();
    if is_empty_file(trace) {
        return import_empty(conn, paths, trace, opts);
    }
    let dec = Decoder::open(trace, opts.abi)?;
    let abs = std::path::absolute(trace).unwrap_or_else(|_| trace.to_owned());
    let abi = dec.abi();
    let ids = next_ids(conn)?;
    let fingerprint = fingerprint::of_file(trace, size)?;
    let same_as = match &fingerprint {
        Some(f) => same_file(conn, size, f)?,
        None => None,
    };
    let start = TraceStart {
        path: abs.as_os_str().as_encoded_bytes(),
        size,
        fingerprint: fingerprint.as_deref(),
        abi: Some(abi),
        start_cwd: opts.start_cwd.as_deref(),
        keep_io_data: opts.keep_io_data,
        imported_at: now(),
    };
    let ctx = begin_trace(conn, &start)?;
    let model = Model::new(
        abi,
        ModelOptions {
            start_cwd: opts.start_cwd.clone(),
            keep_io_data: opts.keep_io_data,
            ids,
            live_in_memory: None,
        },
    );
    let job = Job {
        dec,
        model,
        size,
        strict: opts.strict,
        paths,
        ctx,
    };
    progress.start(trace, size);
    let loaded = pipeline::load(conn, job, progress);
    progress.finish();
    let Decoded {
        totals,
        damage,
        read,
        issues,
    } = loaded?;
    // Unreadable from its first byte on: nothing of it is a trace.
    if let Some(d) = damage
        .first()
        .filter(|d| d.offset == 0 && d.resumed_at.is_none())
    {
        return Err(Error::Decode {
            path: trace.to_owned(),
            source: crate::decode::DecodeError {
                offset: 0,
                record: 0,
                kind: DecodeErrorKind::Unrecognized(format!(
                    "read as {abi}, its first record is already damaged ({}) and \
                     nothing after it is believable",
                    d.why
                )),
            },
        });
    }
    // A pipe's size is what it held.
    let size = if fs::metadata(trace).is_ok_and(|m| m.is_file()) {
        size
    } else {
        read
    };
    if opts.strict {
        if let Some(d) = damage.first() {
            return Err(refused(trace, &format!("{d} (--strict: nothing imported)")));
        }
    }
    let skipped: u64 = damage
        .iter()
        .map(|d| d.resumed_at.unwrap_or(size).saturating_sub(d.offset))
        .sum();
    let summary = match damage.as_slice() {
        [] => None,
        [one] => Some(one.to_string()),
        [first, rest @ ..] => Some(format!(
            "{first}; and {} more damaged stretches",
            rest.len()
        )),
    };
    let end = TraceEnd {
        totals: &totals,
        decoded_bytes: size.saturating_sub(skipped).min(read),
        size,
        damage: summary,
        seconds: t0.elapsed().as_secs_f64(),
    };
    end_trace(conn, ctx.trace_id, issues, &end)?;
    Ok(TraceSummary {
        path: trace.to_owned(),
        trace_id: ctx.trace_id,
        dialect: abi.to_string(),
        size,
        decoded_bytes: read,
        totals,
        issues,
        damage,
        same_as,
    })
}

/// An empty file: its trace row, no records, and a warning issue.
fn import_empty(
    conn: &Connection,
    paths: &mut PathCache,
    trace: &Path,
    opts: &ImportOptions,
) -> Result<TraceSummary, Error> {
    let abs = std::path::absolute(trace).unwrap_or_else(|_| trace.to_owned());
    let start = TraceStart {
        path: abs.as_os_str().as_encoded_bytes(),
        size: 0,
        // Every empty file is the same: nothing worth a warning.
        fingerprint: None,
        abi: opts.abi,
        start_cwd: opts.start_cwd.as_deref(),
        keep_io_data: opts.keep_io_data,
        imported_at: now(),
    };
    let mut loader = Loader::begin(conn, paths, &start)?;
    use crate::process::{IssueRow, Severity, Sink};
    loader.issue(&IssueRow {
        offset: None,
        severity: Severity::Warning,
        kind: crate::process::IssueKind::Empty,
        message: "the trace file is empty: no records".into(),
        process_id: None,
    })?;
    let totals = Totals::default();
    let (trace_id, issues) = (loader.trace_id(), loader.issues());
    loader.end(&TraceEnd {
        totals: &totals,
        decoded_bytes: 0,
        size: 0,
        damage: None,
        seconds: 0.0,
    })?;
    Ok(TraceSummary {
        path: trace.to_owned(),
        trace_id,
        dialect: opts.abi.map_or("unknown".into(), |a| a.to_string()),
        size: 0,
        decoded_bytes: 0,
        totals,
        issues,
        damage: Vec::new(),
        same_as: None,
    })
}

fn is_empty_file(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0)
}

fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn refused(path: &Path, reason: &str) -> Error {
    Error::Refused {
        path: path.to_owned(),
        reason: reason.to_owned(),
    }
}

/// A target created by another process while this import wrote its own:
/// theirs is kept, and this import says so.
fn appeared(e: Error, db: &Path, mode: ImportMode) -> Error {
    match &e {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists => {
            let again = match mode {
                ImportMode::Append => "run the import again to append to it",
                _ => "use --append to add to it or --force to replace it",
            };
            refused(
                db,
                &format!(
                    "was created by another process during this import; it was left \
                          alone and nothing was written ({again})"
                ),
            )
        }
        _ => e,
    }
}

/// SQLite gave up waiting for a lock: say so, and what would help.
fn busy(e: Error, db: &Path, waited: Duration) -> Error {
    use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
    match &e {
        Error::Sqlite {
            source: rusqlite::Error::SqliteFailure(f, _),
            ..
        } if matches!(f.code, DatabaseBusy | DatabaseLocked) => refused(
            db,
            &format!(
                "another process kept the database locked for {} s (another import, or a \
                 long transaction of another program); nothing was appended \
                 (--busy-timeout SECONDS waits longer)",
                waited.as_secs()
            ),
        ),
        _ => e,
    }
}

/// Name the target database in SQL errors (the temporary file's name means
/// nothing to the user).
fn in_db(e: Error, db: &Path) -> Error {
    match e {
        Error::Sqlite { context, source } => Error::Sqlite {
            context: format!("{}: {context}", db.display()),
            source,
        },
        Error::Interrupted { .. } => Error::Interrupted {
            path: db.to_owned(),
        },
        other => other,
    }
}
