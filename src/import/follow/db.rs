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
use crate::sink::trace::trace_context;
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

/// The `meta` key of the point the last commit stopped at, while a follow
/// is unfinished: records decoded, damaged stretches met, byte offset.
const RESUME_KEY: &str = "follow_resume";

/// Where a commit stopped: the follow is in that state after its
/// `records`-th record and `damage`-th damaged stretch, at byte `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ResumeAt {
    pub(super) records: u64,
    pub(super) damage: usize,
    pub(super) offset: u64,
}

/// Record in the open transaction where it stops.
pub(super) fn write_resume(conn: &Connection, at: ResumeAt) -> Result<(), Error> {
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
        (
            RESUME_KEY,
            format!("{} {} {}", at.records, at.damage, at.offset),
        ),
    )
    .map_err(sql_err("writing table meta".into()))?;
    Ok(())
}

/// Take the resume point out (the follow has ended: a one-shot import's
/// `meta` has none).
pub(super) fn clear_resume(conn: &Connection) -> Result<(), Error> {
    conn.execute("DELETE FROM meta WHERE key = ?1", [RESUME_KEY])
        .map_err(sql_err("writing table meta".into()))?;
    Ok(())
}

/// A database an unfinished follow left, opened to go on with it: the
/// connection (in a transaction), where its last commit stopped, the
/// trace's context and whether the indexes exist. `None` when it holds no
/// resume point (then it is imported again).
pub(super) fn reopen(
    db: &Path,
    start: &TraceStart<'_>,
) -> Result<Option<(Connection, ResumeAt, TraceContext, bool)>, Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let ctx = |e: Error| in_db(e, db);
    let conn = Connection::open_with_flags(db, flags)
        .map_err(sql_err("opening".into()))
        .map_err(ctx)?;
    pragmas(&conn, db)?;
    let read = |sql: &str| -> Result<Option<String>, Error> {
        match conn.query_row(sql, [RESUME_KEY], |r| r.get::<_, Option<String>>(0)) {
            Ok(v) => Ok(v),
            Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
            Err(e) => Err(ctx(sql_err("reading table meta".into())(e))),
        }
    };
    let Some(v) = read("SELECT value FROM meta WHERE key = ?1")? else {
        return Ok(None);
    };
    let w: Vec<u64> = v.split(' ').filter_map(|w| w.parse().ok()).collect();
    let [records, damage, offset] = w[..] else {
        return Ok(None);
    };
    let (trace_id, indexes): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT trace_id FROM trace), (SELECT count(*) FROM sqlite_master \
             WHERE type = 'index' AND sql IS NOT NULL)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(sql_err("reading table trace".into()))
        .map_err(ctx)?;
    conn.execute_batch("BEGIN")
        .map_err(sql_err("starting a transaction".into()))
        .map_err(ctx)?;
    let at = ResumeAt {
        records,
        damage: damage as usize,
        offset,
    };
    Ok(Some((
        conn,
        at,
        trace_context(start, trace_id),
        indexes > 0,
    )))
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
    conn.pragma_update(None, "page_size", schema::PAGE_SIZE)
        .map_err(sql_err("setting PRAGMA page_size".into()))
        .map_err(ctx)?;
    pragmas(&conn, db)?;
    Ok(conn)
}

/// WAL mode and the follower's other settings.
fn pragmas(conn: &Connection, db: &Path) -> Result<(), Error> {
    let ctx = |e: Error| in_db(e, db);
    let pragma = |name: &str, value: i64| {
        conn.pragma_update(None, name, value)
            .map_err(sql_err(format!("setting PRAGMA {name}")))
            .map_err(ctx)
    };
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
    // Not synced while it runs: a follower killed (SIGKILL) leaves a WAL
    // database that is whole (SQLite writes it in order), and the syncs of
    // each checkpoint made a catch-up a fifth slower. The end of the follow
    // syncs it once ([`durable_end`]); a machine that goes down meanwhile
    // may leave it unusable, to be imported again from the trace.
    conn.pragma_update(None, "synchronous", "OFF")
        .map_err(sql_err("setting PRAGMA synchronous".into()))
        .map_err(ctx)?;
    conn.pragma_update(None, "foreign_keys", "OFF")
        .map_err(sql_err("setting PRAGMA foreign_keys".into()))
        .map_err(ctx)?;
    pragma("cache_size", schema::WRITER_CACHE_SIZE)?;
    pragma("journal_size_limit", WAL_CHECKPOINT_BYTES as i64)?;
    pragma("wal_autocheckpoint", (16 << 20) / schema::PAGE_SIZE)?;
    Ok(())
}

/// The tables, indexes and views, and the trace row, committed at once; then
/// the transaction the first rows go into.
pub(super) fn begin(conn: &Connection, start: &TraceStart<'_>) -> Result<TraceContext, Error> {
    conn.execute_batch("BEGIN")
        .map_err(sql_err("starting a transaction".into()))?;
    schema::create_tables(conn)?;
    schema::create_views(conn)?;
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
    write_resume(
        conn,
        ResumeAt {
            records: 0,
            damage: 0,
            offset: 0,
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

/// Make the finished follow's database durable, as a one-shot import's: a
/// last checkpoint with its syncs (the follow ran without them), then a
/// plain database file again (a reader still holding it keeps it in WAL
/// mode, which is as good).
pub(super) fn durable_end(conn: &Connection) {
    let _ = conn.pragma_update(None, "synchronous", "NORMAL");
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    let _ = conn.query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()));
}
