//! The database schema: the embedded `schema/*.sql` files, the schema
//! version, the connection PRAGMAs, and how an existing file is recognised
//! as a kt2sql database, for the loader, the importer and the reports alike;
//! beside it the canned queries that read it (`queries.rs`: [`QUERIES`],
//! found by name; `query_header.rs`: what each one's header says,
//! [`Query`]), and what the schema's comments say of each table, view and
//! column ([`doc`]). Owns no row data and decodes nothing: the loader writes the
//! rows, and whether a file that is no database is a trace is the
//! decoder's question, asked by the reports.

pub mod doc;
mod queries;
mod query_header;

use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use crate::Error;

pub use queries::{queries, query, QUERIES};
pub use query_header::Query;

/// The first 16 bytes of every SQLite database file: how a database is
/// told from anything else, here and by the decoder (a kt2sql database
/// given where a trace goes is named as such, whatever `--dialect` says).
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Version of the table layout, stored as `PRAGMA user_version` and as
/// `meta.schema_version`. Bump it when a table or column changes, or a view
/// the canned queries read (the views are stored in the database); the
/// reports and `--append` refuse a database of another version. 5: the
/// build views rewritten to run in linear time (_build_changed,
/// _build_changed_file). 6: the queries' scope in one view (_scope) and the
/// access kinds classified in one table (_access_class). 7: exec.calls_from,
/// where an image's calls begin. 8: the views written in SQL that DuckDB
/// and Spark run too (the same rows). 9: the process tree in printed
/// order at import (tree_node), so a subtree is an index range; namei_call and namei_process;
/// build_hazard tests `_access_class.creates = 1` (Spark takes no integer
/// as a condition). 10: namei.success, so the build views read no call;
/// namei_resolved holds the access kind too, so the writes of a path are
/// found without reading its reads. 11: namei_call holds each lookup's
/// resolved_id, so `tree -v` reads a call's paths from the index alone.
/// 12: counts mean calls made: call.unpaired `child return` marks a
/// child's return from fork (or a new thread's), the view call_made leaves
/// them out, and syscall_stat.calls and process.calls no longer count them
/// (syscall_stat.child_returns does). 13: the file flow rule stated once
/// (_scope_after_write.producer; build_flow from the same blocks);
/// trace.following, 1 while `import --follow` still follows the file;
/// the view `running`. 14: the view _device_path, the device and pseudo
/// file rule once (graph, inputs, outputs, lint); `running` reads from the
/// processes alive (CROSS JOIN), not from every exec, call and lookup:
/// `kt2sql watch` reads it every second. 15: _scope_changed_file numbers
/// its rows over the default window frame, so Spark defines it (and the
/// build views over it).
pub const SCHEMA_VERSION: i64 = 15;

/// Every schema file, in the order it is applied. Listed by hand (not by
/// scanning the directory) so Cargo tracks each one; a test checks that
/// every file in `schema/` is listed.
pub const SCHEMA: &[(&str, &str)] = &[
    (
        "0001_tables.sql",
        include_str!("../../schema/0001_tables.sql"),
    ),
    (
        "0002_indexes.sql",
        include_str!("../../schema/0002_indexes.sql"),
    ),
    (
        "0003_views.sql",
        include_str!("../../schema/0003_views.sql"),
    ),
    (
        "0004_reports.sql",
        include_str!("../../schema/0004_reports.sql"),
    ),
];

/// The files applied before the data (tables).
const BEFORE_DATA: &[&str] = &["0001_tables.sql"];
/// The indexes' file.
const INDEXES: &str = "0002_indexes.sql";

/// What an existing file at the target path is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Existing {
    /// A kt2sql database of this schema version.
    Current,
    /// A kt2sql database of another schema version.
    OtherVersion(i64),
    /// Anything else: not SQLite, or SQLite without kt2sql's marks.
    Foreign(String),
}

/// The page size of a new database, in bytes ([`bulk_pragmas`]).
pub const PAGE_SIZE: i64 = 16384;

/// The page cache of a connection that writes a database (import, append,
/// follow), in `PRAGMA cache_size`'s form (KiB): SQLite's own default,
/// 2 MiB, set by name because kt2sql builds SQLite with a smaller default
/// (`.cargo/config.toml`) for the temporary tables of a report's query.
pub const WRITER_CACHE_SIZE: i64 = -2000;

/// Bulk-load settings for a database file only this process can see (the
/// temporary file beside the target), set outside any transaction because
/// `journal_mode` is a no-op inside one.
///
/// * `journal_mode = MEMORY`: durability comes from writing a temporary
///   file and renaming it over the target, not from SQLite's journal, so the
///   journal need not reach the disk. MEMORY rather than OFF keeps ROLLBACK
///   working; on a fresh file it costs almost nothing, because pages added
///   past the original end of the file are never journaled.
/// * `synchronous = OFF`: no fsync per commit; the importer fsyncs the file
///   once, before the rename.
/// * `foreign_keys = OFF`: the model writes a row when it is finished, so a
///   call may name a process written later (rusqlite's bundled SQLite turns
///   enforcement on by default). The references hold once the load is done.
/// * `locking_mode = EXCLUSIVE`: nobody else opens the temporary file, so
///   skip lock churn.
/// * The page cache stays at SQLite's usual default, 2 MiB
///   ([`WRITER_CACHE_SIZE`]), and `temp_store` at its default (temp
///   files on disk): rows are appended, which needs no cache, and sorting
///   for the indexes in memory made memory grow with the trace (210 MB at
///   1 GiB) without being faster (bench/NOTES.md).
///
/// None of these is persistent: the renamed file is an ordinary rollback-
/// journal database. One setting is, and is set first, before the file
/// holds anything:
///
/// * `page_size = 16384` (SQLite's default is 4096): a quarter of the
///   pages to fill, balance, hand to the kernel and read back for the
///   indexes, for the same rows. With it the 1 GiB import was faster in
///   every alternated run, and the reports were as fast (bench/NOTES.md).
pub fn bulk_pragmas(conn: &Connection) -> Result<(), Error> {
    let ctx = |what: &str| sql_err(format!("setting PRAGMA {what}"));
    conn.pragma_update(None, "page_size", PAGE_SIZE)
        .map_err(ctx("page_size"))?;
    let mode: String = conn
        .pragma_update_and_check(None, "journal_mode", "MEMORY", |r| r.get(0))
        .map_err(ctx("journal_mode"))?;
    if !mode.eq_ignore_ascii_case("memory") {
        return Err(Error::Sqlite {
            context: format!("setting PRAGMA journal_mode: SQLite kept {mode}"),
            source: rusqlite::Error::InvalidQuery,
        });
    }
    conn.pragma_update(None, "cache_size", WRITER_CACHE_SIZE)
        .map_err(ctx("cache_size"))?;
    conn.pragma_update(None, "foreign_keys", "OFF")
        .map_err(ctx("foreign_keys"))?;
    conn.pragma_update(None, "synchronous", "OFF")
        .map_err(ctx("synchronous"))?;
    let _: String = conn
        .pragma_update_and_check(None, "locking_mode", "EXCLUSIVE", |r| r.get(0))
        .map_err(ctx("locking_mode"))?;
    Ok(())
}

/// Settings for appending in place to a database other processes may use,
/// set outside any transaction. The database's journal mode is kept (a
/// kt2sql database uses SQLite's default rollback journal; one switched to
/// WAL stays WAL), and so is `synchronous` (FULL): the commit is durable.
/// The busy timeout is the importer's (it waits for the write lock itself).
///
/// * `foreign_keys = OFF`: as in [`bulk_pragmas`], rows may name rows
///   written later in the same transaction.
///
/// The page cache stays at 2 MiB ([`WRITER_CACHE_SIZE`]): 64 MiB made appending a 1 GiB trace to a
/// 1.1 GB database no faster (bench/NOTES.md) and memory 3 times larger.
pub fn append_pragmas(conn: &Connection) -> Result<(), Error> {
    conn.pragma_update(None, "cache_size", WRITER_CACHE_SIZE)
        .map_err(sql_err("setting PRAGMA cache_size".into()))?;
    conn.pragma_update(None, "foreign_keys", "OFF")
        .map_err(sql_err("setting PRAGMA foreign_keys".into()))
}

/// The schema version of an open kt2sql database (`PRAGMA user_version`).
pub fn version(conn: &Connection) -> Result<i64, Error> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(sql_err("reading PRAGMA user_version".into()))
}

/// Create the tables of a fresh database and record the versions.
pub fn create_tables(conn: &Connection) -> Result<(), Error> {
    for (name, sql) in SCHEMA.iter().filter(|(n, _)| BEFORE_DATA.contains(n)) {
        conn.execute_batch(sql)
            .map_err(sql_err(format!("applying {name}")))?;
    }
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('kt2sql_version', ?1), ('schema_version', ?2)",
        (env!("CARGO_PKG_VERSION"), SCHEMA_VERSION.to_string()),
    )
    .map_err(sql_err("writing meta".into()))?;
    conn.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(sql_err("setting PRAGMA user_version".into()))?;
    Ok(())
}

/// Apply the files that come after the data: indexes, then views. Safe to
/// run again on a database that has them (`--append`).
pub fn create_indexes_and_views(conn: &Connection) -> Result<(), Error> {
    apply(conn, |n| !BEFORE_DATA.contains(&n))
}

/// Apply the indexes alone (`import --follow` creates the views first and
/// the indexes once it has caught up with the file). Safe to run again.
pub fn create_indexes(conn: &Connection) -> Result<(), Error> {
    apply(conn, |n| n == INDEXES)
}

/// Apply the views alone, which need no index. Safe to run again.
pub fn create_views(conn: &Connection) -> Result<(), Error> {
    apply(conn, |n| !BEFORE_DATA.contains(&n) && n != INDEXES)
}

/// Apply the schema files `which` picks, in order.
fn apply(conn: &Connection, which: impl Fn(&str) -> bool) -> Result<(), Error> {
    for (name, sql) in SCHEMA.iter().filter(|(n, _)| which(n)) {
        conn.execute_batch(sql)
            .map_err(sql_err(format!("applying {name}")))?;
    }
    Ok(())
}

/// Look at an existing file without changing it: is it a kt2sql database,
/// and of which schema version?
pub fn inspect(path: &Path) -> Result<Existing, Error> {
    let mut magic = [0u8; 16];
    let n = read_prefix(path, &mut magic)?;
    if n < 16 || &magic != SQLITE_MAGIC {
        return Ok(Existing::Foreign("not an SQLite database".into()));
    }
    // Read-only and no mutex games: this must never modify the file.
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let foreign = |e: rusqlite::Error| Existing::Foreign(format!("cannot read it: {e}"));
    let conn = match Connection::open_with_flags(path, flags) {
        Ok(c) => c,
        Err(e) => return Ok(foreign(e)),
    };
    let user_version: i64 = match conn.pragma_query_value(None, "user_version", |r| r.get(0)) {
        Ok(v) => v,
        Err(e) => return Ok(foreign(e)),
    };
    let meta: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .optional()
        .unwrap_or(None);
    Ok(match meta.and_then(|v| v.parse::<i64>().ok()) {
        None => Existing::Foreign("an SQLite database, but not one kt2sql wrote".into()),
        Some(v) if v != user_version => Existing::Foreign(format!(
            "meta says schema {v}, user_version says {user_version}"
        )),
        Some(SCHEMA_VERSION) => Existing::Current,
        Some(v) => Existing::OtherVersion(v),
    })
}

fn read_prefix(path: &Path, buf: &mut [u8]) -> Result<usize, Error> {
    use std::io::Read;
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]).map_err(io)? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// A `map_err` adapter that attaches what was being done.
pub fn sql_err(context: String) -> impl FnOnce(rusqlite::Error) -> Error {
    move |source| Error::Sqlite { context, source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_file_is_registered() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".sql"))
            .collect();
        on_disk.sort();
        let listed: Vec<&str> = SCHEMA.iter().map(|(n, _)| *n).collect();
        assert_eq!(on_disk, listed, "schema/*.sql and SCHEMA differ");
    }

    #[test]
    fn schema_applies_and_is_recognised() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let conn = Connection::open(&path).unwrap();
        bulk_pragmas(&conn).unwrap();
        create_tables(&conn).unwrap();
        create_indexes_and_views(&conn).unwrap();
        create_indexes_and_views(&conn).unwrap(); // idempotent (append)
        let page: i64 = conn
            .pragma_query_value(None, "page_size", |r| r.get(0))
            .unwrap();
        assert_eq!(page, PAGE_SIZE);
        drop(conn);
        assert_eq!(inspect(&path).unwrap(), Existing::Current);
        std::fs::write(&path, b"hello").unwrap();
        assert!(matches!(inspect(&path).unwrap(), Existing::Foreign(_)));
    }

    /// Every table, view and column has a `--` comment on the line above.
    #[test]
    fn every_table_view_and_column_is_commented() {
        for (name, sql) in SCHEMA {
            let lines: Vec<&str> = sql.lines().map(str::trim).collect();
            let mut in_body = false;
            for (i, line) in lines.iter().enumerate() {
                let prev = if i > 0 { lines[i - 1] } else { "" };
                let starts = line.starts_with("CREATE TABLE") || line.starts_with("CREATE VIEW");
                if starts || (in_body && !line.starts_with("--") && !line.starts_with(')')) {
                    assert!(
                        prev.starts_with("--"),
                        "{name}:{}: no comment above: {line}",
                        i + 1
                    );
                }
                if starts {
                    in_body = true;
                } else if line.starts_with(')') {
                    in_body = false;
                }
            }
        }
    }
}
