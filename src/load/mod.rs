//! load: rows → SQLite. The [`Loader`] is the process model's [`Sink`]: it
//! stores the rows it is given (interning paths on the way) and counts; it
//! never decodes bytes or decides a value. [`import`] drives a whole import
//! into a temporary file renamed over the target; [`schema`] owns the DDL.
//!
//! Ids are the model's, continued from [`next_ids`] so a database that is
//! appended to keeps them unique. `trace_id`, `path_id` and
//! `import_issue_id` are the loader's own (SQLite rowids).

mod atomic;
pub mod import;
pub mod insert;
pub mod schema;
pub mod value;

use std::collections::HashMap;

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use crate::decode::{Abi, Endianness};
use crate::process::rows::{
    CallRow, EventRow, ExecRow, IdBase, IssueRow, NameiRow, ProcessRow, Sink, ThreadRow, Totals,
};
use crate::tables::NameTable;
use crate::Error;
pub use import::{
    import, ImportMode, ImportOptions, ImportSummary, NoProgress, Progress, TraceSummary,
};
use insert::Statements;
use schema::sql_err;
use value::Bytes;

/// Interned paths: bytes → `path_id`, for every path in the database.
#[derive(Debug, Default)]
pub struct PathCache {
    ids: HashMap<Vec<u8>, i64>,
    added: i64,
}

impl PathCache {
    /// The paths already in a database (for `--append`).
    pub fn load(conn: &Connection) -> Result<Self, Error> {
        let ctx = || sql_err("reading table path".into());
        let mut stmt = conn
            .prepare("SELECT path_id, path FROM path")
            .map_err(ctx())?;
        let mut rows = stmt.query([]).map_err(ctx())?;
        let mut ids = HashMap::new();
        while let Some(row) = rows.next().map_err(ctx())? {
            let id: i64 = row.get(0).map_err(ctx())?;
            let bytes = match row.get_ref(1).map_err(ctx())? {
                ValueRef::Text(b) | ValueRef::Blob(b) => b.to_vec(),
                _ => continue,
            };
            ids.insert(bytes, id);
        }
        Ok(PathCache { ids, added: 0 })
    }

    /// Paths added since this cache was made.
    pub fn added(&self) -> i64 {
        self.added
    }
}

/// The first free id of every model table: `max(id) + 1`, or 1 when empty.
pub fn next_ids(conn: &Connection) -> Result<IdBase, Error> {
    let next = |table: &str| -> Result<i64, Error> {
        let sql = format!("SELECT COALESCE(MAX({table}_id), 0) + 1 FROM {table}");
        conn.query_row(&sql, [], |r| r.get(0))
            .map_err(sql_err(format!("reading the last {table}_id")))
    };
    Ok(IdBase {
        process: next("process")?,
        thread: next("thread")?,
        exec: next("exec")?,
        call: next("call")?,
        namei: next("namei")?,
        event: next("event")?,
    })
}

/// What is known about a trace before its records are read.
#[derive(Debug, Clone)]
pub struct TraceStart<'a> {
    /// Path of the file (absolute, as bytes).
    pub path: &'a [u8],
    /// File size.
    pub size: u64,
    /// Its ABI; `None` for an empty file, which has none.
    pub abi: Option<Abi>,
    /// `--start-dir`.
    pub start_cwd: Option<&'a [u8]>,
    /// `--keep-io-data`.
    pub keep_io_data: bool,
    /// ISO 8601 UTC.
    pub imported_at: String,
}

/// What is known once the model has finished.
#[derive(Debug, Clone)]
pub struct TraceEnd<'a> {
    /// The model's counts.
    pub totals: &'a Totals,
    /// Bytes decoded into records.
    pub decoded_bytes: u64,
    /// Bytes the input held (a pipe's size is known only now).
    pub size: u64,
    /// Why decoding stopped early, if it did.
    pub damage: Option<String>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// The [`Sink`] that writes one trace's rows into a database (inside the
/// caller's transaction).
pub struct Loader<'c> {
    conn: &'c Connection,
    stmts: Statements<'c>,
    paths: &'c mut PathCache,
    trace_id: i64,
    word_bits: u32,
    names: NameTable,
    issues: i64,
}

impl<'c> Loader<'c> {
    /// Write the `trace` row (completed by [`Loader::end`]) and prepare
    /// the INSERTs.
    pub fn begin(
        conn: &'c Connection,
        paths: &'c mut PathCache,
        t: &TraceStart<'_>,
    ) -> Result<Self, Error> {
        let order = match t.abi.map(|a| a.endianness) {
            Some(Endianness::Little) => "little",
            Some(Endianness::Big) => "big",
            None => "unknown",
        };
        conn.execute(
            "INSERT INTO trace (path, size, dialect, system, header_version, word_bits, \
             byte_order, start_cwd, keep_io_data, imported_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            rusqlite::params![
                Bytes(t.path),
                t.size as i64,
                t.abi.map_or("unknown".into(), |a| a.to_string()),
                t.abi.map_or("unknown", |a| a.system_name()),
                t.abi.map_or(0, |a| a.version),
                t.abi.map_or(0, |a| a.width.bits()),
                order,
                t.start_cwd.map(Bytes),
                t.keep_io_data,
                t.imported_at,
            ],
        )
        .map_err(sql_err("writing the trace row".into()))?;
        let trace_id = conn.last_insert_rowid();
        let stmts = Statements::prepare(conn).map_err(sql_err("preparing INSERTs".into()))?;
        Ok(Loader {
            conn,
            stmts,
            paths,
            trace_id,
            word_bits: t.abi.map_or(64, |a| a.width.bits()),
            names: t.abi.map_or(NameTable::FreeBsd, |a| a.name_table()),
            issues: 0,
        })
    }

    /// This trace's `trace_id`.
    pub fn trace_id(&self) -> i64 {
        self.trace_id
    }

    /// Issues written so far.
    pub fn issues(&self) -> i64 {
        self.issues
    }

    /// Complete the `trace` row with the counts.
    pub fn end(mut self, e: &TraceEnd<'_>) -> Result<(), Error> {
        self.stmts
            .flush()
            .map_err(sql_err("writing the last rows".into()))?;
        let t = e.totals;
        let by = |k: &str| t.by_type.get(k).copied().unwrap_or(0);
        let json = by_type_json(t);
        let complete = e.damage.is_none() && e.decoded_bytes == e.size;
        self.conn
            .execute(
                "UPDATE trace SET records = ?2, records_by_type = ?3, call_records = ?4, \
                 ret_records = ?5, namei_records = ?6, dropped_records = ?7, first_ts = ?8, \
                 last_ts = ?9, import_seconds = ?10, decoded_bytes = ?11, complete = ?12, \
                 damage = ?13, issues = ?14, size = ?15 WHERE trace_id = ?1",
                rusqlite::params![
                    self.trace_id,
                    t.records,
                    json,
                    by("CALL"),
                    by("RET"),
                    by("NAMI"),
                    t.dropped,
                    t.first_ts,
                    t.last_ts,
                    e.seconds,
                    e.decoded_bytes as i64,
                    complete,
                    e.damage,
                    self.issues,
                    e.size as i64,
                ],
            )
            .map_err(sql_err("completing the trace row".into()))?;
        Ok(())
    }

    fn intern(&mut self, path: &[u8]) -> Result<i64, Error> {
        if let Some(&id) = self.paths.ids.get(path) {
            return Ok(id);
        }
        let id = self
            .stmts
            .path(self.conn, path)
            .map_err(sql_err("writing table path".into()))?;
        self.paths.ids.insert(path.to_vec(), id);
        self.paths.added += 1;
        Ok(id)
    }

    fn intern_opt(&mut self, path: Option<&[u8]>) -> Result<Option<i64>, Error> {
        path.map(|p| self.intern(p)).transpose()
    }
}

/// `{"CALL":12,"RET":12}` (labels are plain ASCII, so no escaping).
fn by_type_json(t: &Totals) -> String {
    let items: Vec<String> = t
        .by_type
        .iter()
        .map(|(k, v)| format!("\"{k}\":{v}"))
        .collect();
    format!("{{{}}}", items.join(","))
}

fn table(name: &'static str) -> impl FnOnce(rusqlite::Error) -> Error {
    move |source| Error::Sqlite {
        context: format!("writing table {name}"),
        source,
    }
}

impl Sink for Loader<'_> {
    type Error = Error;

    fn process(&mut self, row: &ProcessRow) -> Result<(), Error> {
        self.stmts
            .process(self.trace_id, row)
            .map_err(table("process"))
    }

    fn thread(&mut self, row: &ThreadRow) -> Result<(), Error> {
        self.stmts.thread(row).map_err(table("thread"))
    }

    fn exec(&mut self, row: &ExecRow<'_>) -> Result<(), Error> {
        let ids = [
            self.intern_opt(row.path)?,
            self.intern_opt(row.resolved)?,
            self.intern_opt(row.cwd)?,
        ];
        self.stmts.exec(row, ids).map_err(table("exec"))
    }

    fn call(&mut self, row: &CallRow<'_>) -> Result<(), Error> {
        self.stmts
            .call(row, self.word_bits, self.names)
            .map_err(table("call"))
    }

    fn namei(&mut self, row: &NameiRow<'_>) -> Result<(), Error> {
        let path = self.intern(row.path)?;
        let resolved = self.intern(row.resolved)?;
        self.stmts
            .namei(row, path, resolved)
            .map_err(table("namei"))
    }

    fn event(&mut self, row: &EventRow<'_>) -> Result<(), Error> {
        self.stmts.event(self.trace_id, row).map_err(table("event"))
    }

    fn issue(&mut self, row: &IssueRow) -> Result<(), Error> {
        self.issues += 1;
        self.stmts
            .issue(self.trace_id, row)
            .map_err(table("import_issue"))
    }
}

#[cfg(test)]
mod tests;
