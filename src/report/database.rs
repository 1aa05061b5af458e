//! Opening a kt2sql database for reports: read-only, checked to be a
//! kt2sql database of this schema version with the report views, and
//! guarded for reading only ([`guard`]), with SQLite's memory kept small
//! (`memory_limits`: a small page cache, sorts and temporary tables in
//! files) so that a report's memory does not grow with the database. The
//! one use of the decoder: a file that is not a kt2sql database goes
//! through its detection (`Decoder::open`), so that a trace given where
//! the database goes is named as one, to be imported first.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OpenFlags};

use super::guard;
use crate::schema::{self, sql_err, Existing};
use crate::Error;

/// How long a report waits for a writer of the database to commit.
pub const READ_BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// A kt2sql database opened for reading: the connection (which it derefs
/// to), the path it was opened by, and what its guard refused last.
#[derive(Debug)]
pub struct Database {
    pub(super) conn: Connection,
    /// The path as the user gave it, for messages.
    pub path: PathBuf,
    /// What the guard refused last ([`guard::refused`]).
    pub(super) refused: Arc<Mutex<Option<String>>>,
    /// Set while the guard lets statements change the temporary schema
    /// ([`Database::in_temp`]).
    temp: Arc<AtomicBool>,
}

impl Database {
    /// Run `f` with the guard lifted for the connection's temporary schema
    /// only: the statements it prepares may create, fill and drop
    /// temporary tables and views, which live and die with this
    /// connection; the database stays read-only. For a report's own
    /// statements, never for SQL a user gave.
    pub fn in_temp<T>(&self, f: impl FnOnce(&Connection) -> Result<T, Error>) -> Result<T, Error> {
        self.temp.store(true, Ordering::Relaxed);
        let out = f(&self.conn);
        self.temp.store(false, Ordering::Relaxed);
        out
    }
}

impl std::ops::Deref for Database {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.conn
    }
}

/// Open a kt2sql database read-only, for reading only: SQLite's authorizer
/// refuses anything else while a statement is prepared ([`guard`]).
/// Refuses files that are not kt2sql databases of this schema version, and
/// databases without the report views (imported before they existed:
/// re-import to get them).
pub fn open(db: &Path) -> Result<Database, Error> {
    let refuse = |reason: String| Error::Refused {
        path: db.to_owned(),
        reason,
    };
    match schema::inspect(db)? {
        Existing::Current => {}
        Existing::OtherVersion(v) => {
            return Err(refuse(format!(
                "a kt2sql database of schema version {v}; this kt2sql reads version {}",
                schema::SCHEMA_VERSION
            )))
        }
        // A trace given where the database goes: say what to do with it.
        Existing::Foreign(_) if crate::decode::Decoder::is_trace(db) => {
            return Err(refuse(
                "this is a ktrace file: import it first with `kt2sql TRACE DB`".into(),
            ))
        }
        Existing::Foreign(why) => return Err(refuse(format!("not a kt2sql database: {why}"))),
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(db, flags)
        .map_err(sql_err(format!("{}: opening", db.display())))?;
    // An `--append` writing this database (rollback journal) keeps readers
    // out from its first spilled page to its commit: wait for it a while.
    conn.busy_timeout(READ_BUSY_TIMEOUT)
        .map_err(sql_err(format!(
            "{}: setting the busy timeout",
            db.display()
        )))?;
    memory_limits(&conn).map_err(sql_err(format!(
        "{}: setting the memory limits",
        db.display()
    )))?;
    let views: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'view' AND name = 'process_tree'",
            [],
            |r| r.get(0),
        )
        .map_err(sql_err(format!("{}: reading the schema", db.display())))?;
    if views == 0 {
        return Err(refuse(
            "has no report views (imported by an older kt2sql); import the trace again".into(),
        ));
    }
    let temp = Arc::new(AtomicBool::new(false));
    let refused = guard::install(&conn, Arc::clone(&temp));
    Ok(Database {
        conn,
        path: db.to_owned(),
        refused,
        temp,
    })
}

/// The page cache of a report's main database, in `PRAGMA cache_size`'s
/// form: negative, KiB (1 MiB). It is also the most a sort holds in memory
/// before it writes a sorted run to a temporary file (at least
/// SQLITE_SORTER_PMASZ pages, `.cargo/config.toml`), and a report's query
/// holds a dozen sorts at once. Each temporary b-tree of a query has
/// SQLite's default cache, 128 KiB in kt2sql's build.
pub const CACHE_SIZE: i64 = -1024;

/// Bytes of heap past which SQLite frees cached pages before it allocates
/// more (a soft limit: a statement never fails for it). Only an SQLite that
/// keeps memory statistics acts on it; kt2sql's own build does not
/// (`.cargo/config.toml`), and bounds a query's temporary b-trees by their
/// default cache instead.
pub const SOFT_HEAP_LIMIT: i64 = 24 << 20;

/// Keep a report's SQLite memory flat however big the database: a small
/// page cache, temporary tables and sorts in temporary files (a sort past
/// the cache is merged from sorted runs on disk), no memory-mapped reads,
/// and a soft heap limit. Set before the guard, which refuses these
/// pragmas to what a user runs.
fn memory_limits(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "cache_size", CACHE_SIZE)?;
    conn.pragma_update(None, "temp_store", "FILE")?;
    conn.pragma_update(None, "mmap_size", 0)?;
    conn.pragma_update(None, "soft_heap_limit", SOFT_HEAP_LIMIT)?;
    Ok(())
}
