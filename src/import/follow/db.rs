//! The follower's database: the target checked (new, or left by an
//! unfinished follow of the same trace), opened in WAL mode with the
//! schema, the trace row begun; and how a file is told from another.

use std::fs::{self};
use std::io::{self};
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::import::errors::{in_db, refused};
use crate::load::{begin_trace, end_trace, TraceEnd, TraceStart};
use crate::process::rows::Totals;
use crate::schema::{self, sql_err, Existing};
use crate::sink::TraceContext;
use crate::Error;

use super::WAL_CHECKPOINT_BYTES;

/// A database that does not exist (`Ok(false)`), or one an unfinished
/// follow of the trace at `abs` left and no one writes now (`Ok(true)`:
/// it is imported again); anything else is refused.
pub(super) fn check_target(db: &Path, abs: &Path) -> Result<bool, Error> {
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
pub(super) fn remove_db(db: &Path) -> Result<(), Error> {
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
pub(super) fn open_db(db: &Path) -> Result<Connection, Error> {
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
pub(super) fn begin(conn: &Connection, start: &TraceStart<'_>) -> Result<TraceContext, Error> {
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
pub(super) fn file_id(m: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
pub(super) fn file_id(_: &fs::Metadata) -> Option<(u64, u64)> {
    None
}
