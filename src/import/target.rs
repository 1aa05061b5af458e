//! What happens to the target database file: an existing one is refused,
//! replaced (`--force`) or appended to (`--append`, when it is a kt2sql
//! database of this schema version). A new database is written in a
//! temporary file beside the target ([`TempTarget`]) and put in its place
//! once complete; an append writes in place inside one transaction that
//! holds SQLite's write lock from `BEGIN IMMEDIATE` to the commit, waiting
//! for another writer up to `--busy-timeout`. What goes into the
//! transaction is [`super::trace`]'s job.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

pub use super::atomic::TempTarget;
use super::errors::{busy, in_db, other_version, refused};
use super::trace::{import_traces, TraceDone};
use super::write_back::WriteBack;
use super::{interrupted, ImportMode, ImportOptions, Progress};
use crate::schema::{self, sql_err, Existing, SCHEMA_VERSION};
use crate::sink::PathCache;
use crate::Error;

/// A new database: written in a temporary file beside `db`, flushed to disk
/// as it is written ([`WriteBack`]), put in its place once complete
/// ([`TempTarget::commit`]).
pub(super) fn create(
    traces: &[PathBuf],
    db: &Path,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<TraceDone, Error> {
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
    let write_back = WriteBack::start(tmp.path(), db)?;
    let done = import_traces(&tx, &mut paths, traces, db, opts, progress)?;
    tx.commit()
        .map_err(sql_err("committing".into()))
        .map_err(ctx)?;
    conn.close().map_err(|(_, source)| {
        ctx(Error::Sqlite {
            context: "closing".into(),
            source,
        })
    })?;
    write_back.finish()?;
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
pub(super) fn append_in_place(
    traces: &[PathBuf],
    db: &Path,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<TraceDone, Error> {
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
    // import_traces names the database itself.
    let done = import_traces(&tx, &mut paths, traces, db, opts, progress)
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
) -> Result<Transaction<'c>, Error> {
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

/// What a trace given where the database goes is.
const IS_TRACE: &str = "is a ktrace file, not a database: the database comes last";

/// Whether a report may write its output file (`-o FILE`) at `path`: a
/// missing file yes; a directory, a ktrace file or a kt2sql database never
/// (they are what the reports read: `-o` never writes over its input,
/// `force` or not); any other existing file only with `force` (`--force`).
/// The file is then written in a temporary file renamed over it
/// ([`TempTarget`]), so it is whole or as it was.
pub fn check_output(path: &Path, force: bool) -> Result<(), Error> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(Error::Io {
                path: path.to_owned(),
                source,
            })
        }
    };
    if meta.is_dir() {
        return Err(refused(path, "is a directory; -o names the file to write"));
    }
    if crate::decode::Decoder::is_trace(path) {
        return Err(refused(
            path,
            "is a ktrace file, an input: -o never writes over a trace, --force or not; \
             nothing was written",
        ));
    }
    match schema::inspect(path)? {
        Existing::Current | Existing::OtherVersion(_) => Err(refused(
            path,
            "is a kt2sql database, an input: -o never writes over a database, --force or \
             not; nothing was written",
        )),
        Existing::Foreign(_) if force => Ok(()),
        Existing::Foreign(_) => Err(refused(
            path,
            "already exists; use --force to replace it (nothing was written)",
        )),
    }
}

/// Decide what to do with an existing target; `Ok(true)` to append to it.
pub(super) fn check_target(db: &Path, mode: ImportMode) -> Result<bool, Error> {
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
    // Only kt2sql's own databases are ever replaced or appended to: a
    // trace, or any other file, given where the database goes is someone's
    // data, whatever the flags say. An empty file holds nothing to lose.
    match (mode, schema::inspect(db)?) {
        (_, Existing::Foreign(_)) if crate::decode::Decoder::is_trace(db) => Err(refused(
            db,
            &format!("{IS_TRACE} (kt2sql import TRACE... DB); nothing was written"),
        )),
        (ImportMode::Replace, Existing::Foreign(_)) if meta.len() == 0 => Ok(false),
        (_, Existing::Foreign(why)) => Err(refused(
            db,
            &format!(
                "is not a kt2sql database ({why}); kt2sql replaces or appends to its own \
                 databases only, --force or not"
            ),
        )),
        (ImportMode::Replace, _) => Ok(false),
        (ImportMode::Create, _) => Err(refused(
            db,
            "already exists; use --force to replace it or --append to add to it",
        )),
        (ImportMode::Append, Existing::Current) => Ok(true),
        (ImportMode::Append, Existing::OtherVersion(v)) => Err(other_version(db, v)),
    }
}
