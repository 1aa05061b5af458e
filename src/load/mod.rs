//! load: rows → SQLite. The process model's rows are turned into SQL values
//! by the [`encode::Encoder`] (its [`Sink`](crate::process::Sink)), which
//! interns paths and hands them on in batches; the [`writer::Writer`]
//! stores batches with multi-row INSERTs. A [`Loader`] does both on one
//! thread; [`crate::import`] runs the encoder on a second thread and the
//! writer on the connection's. [`crate::schema`] owns the DDL. Nothing
//! here decodes bytes, decides a value, opens files or starts threads.
//!
//! Ids are the model's, continued from [`next_ids`] so a database that is
//! appended to keeps them unique; `path_id`s are the encoder's, continued
//! from [`PathCache::load`]. `trace_id` and `import_issue_id` are SQLite's.

pub mod encode;
pub mod fingerprint;
mod reorder;
pub mod table;
pub mod value;
pub mod writer;

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use crate::decode::{Abi, Endianness};
use crate::process::rows::{IdBase, Totals};
use crate::schema::sql_err;
use crate::tables::NameTable;
use crate::Error;
pub use encode::PathCache;
use encode::{Encoder, TraceContext};
use writer::Writer;

impl PathCache {
    /// The paths already in a database (for `--append`).
    pub fn load(conn: &Connection) -> Result<Self, Error> {
        let ctx = || sql_err("reading table path".into());
        let mut stmt = conn
            .prepare("SELECT path_id, path FROM path")
            .map_err(ctx())?;
        let mut rows = stmt.query([]).map_err(ctx())?;
        let mut cache = PathCache::default();
        while let Some(row) = rows.next().map_err(ctx())? {
            let id: i64 = row.get(0).map_err(ctx())?;
            cache.next = cache.next.max(id + 1);
            match row.get_ref(1).map_err(ctx())? {
                ValueRef::Text(b) | ValueRef::Blob(b) => cache.insert(b, id),
                _ => continue,
            }
        }
        Ok(cache)
    }
}

/// The first free id of every table whose ids the model gives:
/// `max(id) + 1`, or 1 when empty.
pub fn next_ids(conn: &Connection) -> Result<IdBase, Error> {
    table::id_base(|t| {
        let (table, key) = (t.name(), t.columns()[0]);
        let sql = format!("SELECT COALESCE(MAX({key}), 0) + 1 FROM {table}");
        conn.query_row(&sql, [], |r| r.get(0))
            .map_err(sql_err(format!("reading the last {key}")))
    })
}

/// What is known about a trace before its records are read.
#[derive(Debug, Clone)]
pub struct TraceStart<'a> {
    /// Path of the file (absolute, as bytes).
    pub path: &'a [u8],
    /// File size.
    pub size: u64,
    /// [`fingerprint::of_file`]; `None` for a pipe.
    pub fingerprint: Option<&'a str>,
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

/// Encoder and writer on one thread: the process model's [`Sink`](crate::process::Sink) that
/// writes one trace's rows into a database (inside the caller's transaction).
pub type Loader<'c> = Encoder<'c, Writer<'c>>;

impl<'c> Loader<'c> {
    /// Write the `trace` row (completed by [`Loader::end`]) and prepare
    /// the INSERTs.
    pub fn begin(
        conn: &'c Connection,
        paths: &'c mut PathCache,
        t: &TraceStart<'_>,
    ) -> Result<Self, Error> {
        let ctx = begin_trace(conn, t)?;
        let writer = Writer::prepare(conn).map_err(sql_err("preparing INSERTs".into()))?;
        Ok(Encoder::new(paths, ctx, writer))
    }

    /// Write the rows still waiting and complete the `trace` row.
    pub fn end(mut self, e: &TraceEnd<'_>) -> Result<(), Error> {
        self.flush()?;
        end_trace(self.target.conn, self.trace_id(), self.issues(), e)
    }
}

/// Write the `trace` row of a trace about to be imported; its context for
/// the encoder.
pub fn begin_trace(conn: &Connection, t: &TraceStart<'_>) -> Result<TraceContext, Error> {
    let order = match t.abi.map(|a| a.endianness) {
        Some(Endianness::Little) => "little",
        Some(Endianness::Big) => "big",
        None => "unknown",
    };
    conn.execute(
        "INSERT INTO trace (path, size, dialect, system, header_version, word_bits, \
         byte_order, start_cwd, keep_io_data, imported_at, fingerprint) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        rusqlite::params![
            encode::bytes(t.path),
            t.size as i64,
            t.abi.map_or("unknown".into(), |a| a.to_string()),
            t.abi.map_or("unknown", |a| a.system_name()),
            t.abi.map_or(0, |a| a.version),
            t.abi.map_or(0, |a| a.width.bits()),
            order,
            t.start_cwd.map(encode::bytes),
            t.keep_io_data,
            t.imported_at,
            t.fingerprint,
        ],
    )
    .map_err(sql_err("writing the trace row".into()))?;
    Ok(TraceContext {
        trace_id: conn.last_insert_rowid(),
        word_bits: t.abi.map_or(64, |a| a.width.bits()),
        names: t.abi.map_or(NameTable::FreeBsd, |a| a.name_table()),
    })
}

/// The first trace already in the database with this size and
/// fingerprint: the same file imported before.
pub fn same_file(conn: &Connection, size: u64, fingerprint: &str) -> Result<Option<i64>, Error> {
    use rusqlite::OptionalExtension;
    conn.query_row(
        "SELECT trace_id FROM trace WHERE size = ?1 AND fingerprint = ?2 \
         ORDER BY trace_id LIMIT 1",
        rusqlite::params![size as i64, fingerprint],
        |r| r.get(0),
    )
    .optional()
    .map_err(sql_err("looking for the same file in table trace".into()))
}

/// Complete the `trace` row with the counts.
pub fn end_trace(
    conn: &Connection,
    trace_id: i64,
    issues: i64,
    e: &TraceEnd<'_>,
) -> Result<(), Error> {
    let t = e.totals;
    let by = |k: &str| t.by_type.get(k).copied().unwrap_or(0);
    let json = by_type_json(t);
    let complete = e.damage.is_none() && e.decoded_bytes == e.size;
    conn.execute(
        "UPDATE trace SET records = ?2, records_by_type = ?3, call_records = ?4, \
         ret_records = ?5, namei_records = ?6, dropped_records = ?7, first_ts = ?8, \
         last_ts = ?9, import_seconds = ?10, decoded_bytes = ?11, complete = ?12, \
         damage = ?13, issues = ?14, size = ?15, files = ?16 WHERE trace_id = ?1",
        rusqlite::params![
            trace_id,
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
            issues,
            e.size as i64,
            t.files,
        ],
    )
    .map_err(sql_err("completing the trace row".into()))?;
    Ok(())
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

#[cfg(test)]
mod tests;
