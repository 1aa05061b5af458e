//! load: rows → SQLite. The process model's rows are turned into SQL values
//! by the [`encode::Encoder`] (its [`Sink`](crate::process::Sink)), which
//! interns paths and hands them on in batches; the [`writer::Writer`]
//! stores batches with multi-row INSERTs. A [`Loader`] does both on one
//! thread; [`crate::import`] runs the encoder on a second thread and the
//! writer on the connection's. [`trace`] writes a file's `trace` row,
//! [`tree_order`] the tree order of a finished trace's processes, read
//! back from its rows ([`tree_scratch`] orders the same way the words a
//! sink without a database gathers); [`crate::schema`] owns the DDL. What
//! the two sinks share (the table list, the forms of the values, the path
//! cache, the order of call rows, the `trace` row's values, the tree
//! order) is the kit's, [`crate::sink`]; this module never uses the
//! dataset sink. Nothing here decodes bytes or starts threads. Besides the
//! database, the files opened are the trace itself, by [`fingerprint`],
//! to hash its ends, and [`tree_scratch`]'s temporary database.
//!
//! Ids are the model's, continued from [`next_ids`] so a database that is
//! appended to keeps them unique; `path_id`s are the encoder's, continued
//! from [`PathCache::load`]. `trace_id` and `import_issue_id` are SQLite's.

pub mod encode;
pub mod fingerprint;
pub mod trace;
pub mod tree_order;
pub mod tree_scratch;
pub mod writer;

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use crate::process::rows::IdBase;
use crate::schema::sql_err;
use crate::sink::table;
pub use crate::sink::trace::{TraceEnd, TraceStart};
pub use crate::sink::PathCache;
use crate::Error;
use encode::Encoder;
pub use trace::{begin_trace, end_trace, same_file};
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

#[cfg(test)]
mod tests;
