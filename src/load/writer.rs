//! Batches → SQLite. The [`Writer`] holds one pair of prepared INSERTs per
//! table — one of [`PER_INSERT`] rows and one of a single row — and writes a
//! [`Batch`] with as many multi-row statements as fit, so SQLite's
//! per-statement work is paid once per 50 rows (as the floor benchmark
//! does). It runs on the thread that owns the connection; it decides no
//! value.
//!
//! A row whose id is one above the table's largest is written with a NULL
//! id: SQLite then gives it that same id (one more than the largest rowid,
//! as documented for INTEGER PRIMARY KEY) by appending at the end of the
//! B-tree, where an explicit id costs a search from the root first.
//!
//! SQLite keeps a statement's bindings from one execution to the next
//! (`sqlite3_reset` leaves them), so a parameter that already holds the
//! value it is given is not bound again: NULL in most columns of an event
//! row and in a call's `errno`, and about a fifth of the other values, the
//! same as the row [`PER_INSERT`] rows before (a call's `error` and
//! `success`, a lookup's `resolution` and `seq`, an event's `trace_id`).
//! A bind is 150–180 instructions (rusqlite's checks, SQLite releasing the old
//! value, a text copied); the comparison a few.

use rusqlite::types::ToSqlOutput;
use rusqlite::{CachedStatement, Connection, ToSql};

use super::encode::{Batch, BatchTarget, SqlValue};
use crate::schema::sql_err;
use crate::sink::table::Table;
use crate::Error;

/// Rows per multi-row INSERT.
pub const PER_INSERT: usize = 50;

/// `INSERT OR FAIL INTO name (columns…) VALUES`, to be followed by the
/// value groups.
///
/// OR FAIL rather than the default ABORT: to undo the rows a failing
/// multi-row INSERT has already added, ABORT makes SQLite copy every
/// page the statement changes into a statement journal first (2 % of
/// the writing thread). FAIL keeps those rows, which changes nothing
/// here: any failed INSERT fails the import, whose transaction is then
/// rolled back (or whose temporary file is removed) as a whole.
fn insert_head(table: Table) -> String {
    format!(
        "INSERT OR FAIL INTO {} ({}) VALUES",
        table.name(),
        table.columns().join(", ")
    )
}

/// The prepared INSERTs of every table.
pub struct Writer<'c> {
    /// The connection the statements belong to.
    pub conn: &'c Connection,
    tables: Vec<TableInsert<'c>>,
}

struct TableInsert<'c> {
    cols: usize,
    multi: Insert<'c>,
    single: Insert<'c>,
    /// The largest id in the table, for tables whose first column is their
    /// INTEGER PRIMARY KEY.
    max_id: Option<i64>,
}

impl<'c> Writer<'c> {
    /// Prepare (or fetch from the connection's cache) every INSERT.
    pub fn prepare(conn: &'c Connection) -> rusqlite::Result<Self> {
        let tables = Table::ALL
            .iter()
            .map(|&table| {
                let cols = table.columns().len();
                let head = insert_head(table);
                let group = format!("({})", vec!["?"; cols].join(","));
                let many = vec![group.as_str(); PER_INSERT].join(",");
                let max_id = if table.keyed() {
                    let sql = format!("SELECT COALESCE(MAX(rowid), 0) FROM {}", table.name());
                    Some(conn.query_row(&sql, [], |r| r.get(0))?)
                } else {
                    None
                };
                Ok(TableInsert {
                    cols,
                    multi: Insert::new(conn.prepare_cached(&format!("{head} {many}"))?),
                    single: Insert::new(conn.prepare_cached(&format!("{head} {group}"))?),
                    max_id,
                })
            })
            .collect::<rusqlite::Result<_>>()?;
        Ok(Writer { conn, tables })
    }

    /// Write every row of `batch`.
    pub fn write(&mut self, batch: &Batch) -> Result<(), Error> {
        for ((t, values), table) in self.tables.iter_mut().zip(&batch.values).zip(Table::ALL) {
            t.write(values, &batch.bytes)
                .map_err(sql_err(format!("writing table {}", table.name())))?;
        }
        Ok(())
    }
}

impl BatchTarget for Writer<'_> {
    type Error = Error;
    fn take(&mut self, mut batch: Batch) -> Result<Batch, Error> {
        self.write(&batch)?;
        batch.clear();
        Ok(batch)
    }
}

impl TableInsert<'_> {
    fn write(&mut self, values: &[SqlValue], bytes: &[u8]) -> rusqlite::Result<()> {
        let TableInsert {
            cols,
            multi,
            single,
            max_id,
        } = self;
        let cols = *cols;
        multi.new_batch();
        single.new_batch();
        let mut chunks = values.chunks_exact(cols * PER_INSERT);
        for many in &mut chunks {
            multi.bind_rows(many, bytes, cols, max_id)?;
            multi.stmt.raw_execute()?;
        }
        for one in chunks.remainder().chunks_exact(cols) {
            single.bind_rows(one, bytes, cols, max_id)?;
            single.stmt.raw_execute()?;
        }
        Ok(())
    }
}

/// A prepared INSERT, and the value each of its parameters holds.
struct Insert<'c> {
    stmt: CachedStatement<'c>,
    /// The value bound to each parameter (by index from 0), None when not
    /// known (a statement from the cache comes with its bindings cleared,
    /// to NULL, but a None here only costs a bind). A text or blob is known
    /// only within the batch whose bytes it lies in ([`Insert::new_batch`]).
    held: Vec<Option<SqlValue>>,
}

impl<'c> Insert<'c> {
    fn new(stmt: CachedStatement<'c>) -> Self {
        let held = vec![None; stmt.parameter_count()];
        Insert { stmt, held }
    }

    /// Forget the texts and blobs held: their bytes were the last batch's.
    fn new_batch(&mut self) {
        for h in &mut self.held {
            if matches!(h, Some(SqlValue::Text(_) | SqlValue::Blob(_))) {
                *h = None;
            }
        }
    }

    /// Bind the values of `rows` (their bytes in `bytes`) to the parameters
    /// in order, with the id of
    /// each row that is one above `max_id` (which it keeps up to date) made
    /// NULL: SQLite gives it the same id by appending. Tables without an id
    /// key (`max_id` None) are bound unchanged.
    fn bind_rows(
        &mut self,
        rows: &[SqlValue],
        bytes: &[u8],
        cols: usize,
        max_id: &mut Option<i64>,
    ) -> rusqlite::Result<()> {
        let Insert { stmt, held } = self;
        debug_assert_eq!(rows.len(), held.len(), "one value per parameter");
        // Parameter `i + 1` holds `held[i]`; zipped, so no index is checked
        // per value.
        let mut at = 0;
        for (row, held) in rows.chunks_exact(cols).zip(held.chunks_exact_mut(cols)) {
            let first = appended(row[0], max_id);
            for (v, h) in std::iter::once(first)
                .chain(row[1..].iter().copied())
                .zip(held)
            {
                at += 1;
                bind(stmt, at, h, v, bytes)?;
            }
        }
        Ok(())
    }
}

/// Bind parameter `at` (from 1) of `stmt`, which holds `held`, to `v`,
/// unless it holds `v` already.
#[inline]
fn bind(
    stmt: &mut CachedStatement<'_>,
    at: usize,
    held: &mut Option<SqlValue>,
    v: SqlValue,
    bytes: &[u8],
) -> rusqlite::Result<()> {
    if let Some(old) = *held {
        if old.same(v, bytes) {
            return Ok(());
        }
    }
    stmt.raw_bind_parameter(at, Bound(v, bytes))?;
    *held = Some(v);
    Ok(())
}

/// A value and the bytes of its batch, as rusqlite binds it.
struct Bound<'a>(SqlValue, &'a [u8]);

impl ToSql for Bound<'_> {
    #[inline]
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(self.0.get(self.1)))
    }
}

/// A row's first value as it is bound: its id, or NULL when the id is one
/// above `max_id` (kept up to date); unchanged for a table without an id
/// key (`max_id` None).
#[inline]
fn appended(first: SqlValue, max_id: &mut Option<i64>) -> SqlValue {
    match (max_id.as_mut(), first) {
        (Some(max), SqlValue::Int(id)) => {
            let next = max.checked_add(1);
            *max = id.max(*max);
            if next == Some(id) {
                SqlValue::Null
            } else {
                first
            }
        }
        _ => first,
    }
}
