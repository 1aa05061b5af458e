//! Batches → SQLite. The [`Writer`] holds one pair of prepared INSERTs per
//! table — one of [`PER_INSERT`] rows and one of a single row — and writes a
//! [`Batch`] with as many multi-row statements as fit, so SQLite's
//! per-statement work is paid once per 50 rows (as the floor benchmark
//! does). It runs on the thread that owns the connection; it decides no
//! value.

use rusqlite::{params_from_iter, CachedStatement, Connection};

use super::encode::{Batch, BatchTarget, Cell, TABLES, TABLE_COUNT};
use super::schema::sql_err;
use crate::Error;

/// Rows per multi-row INSERT.
pub const PER_INSERT: usize = 50;

/// The prepared INSERTs of every table.
pub struct Writer<'c> {
    /// The connection the statements belong to.
    pub conn: &'c Connection,
    tables: Vec<TableInsert<'c>>,
}

struct TableInsert<'c> {
    cols: usize,
    multi: CachedStatement<'c>,
    single: CachedStatement<'c>,
}

impl<'c> Writer<'c> {
    /// Prepare (or fetch from the connection's cache) every INSERT.
    pub fn prepare(conn: &'c Connection) -> rusqlite::Result<Self> {
        let tables = TABLES
            .iter()
            .map(|&(head, cols)| {
                let group = format!("({})", vec!["?"; cols].join(","));
                let many = vec![group.as_str(); PER_INSERT].join(",");
                Ok(TableInsert {
                    cols,
                    multi: conn.prepare_cached(&format!("{head} {many}"))?,
                    single: conn.prepare_cached(&format!("{head} {group}"))?,
                })
            })
            .collect::<rusqlite::Result<_>>()?;
        Ok(Writer { conn, tables })
    }

    /// Write every row of `batch`.
    pub fn write(&mut self, batch: &Batch) -> Result<(), Error> {
        for ((t, values), name) in self.tables.iter_mut().zip(&batch.values).zip(NAMES) {
            t.write(values)
                .map_err(sql_err(format!("writing table {name}")))?;
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

/// Table names in [`TABLES`] order, for error messages.
const NAMES: [&str; TABLE_COUNT] = [
    "process",
    "thread",
    "exec",
    "call",
    "namei",
    "event",
    "import_issue",
    "path",
    "syscall_stat",
];

impl TableInsert<'_> {
    fn write(&mut self, values: &[Cell]) -> rusqlite::Result<()> {
        let mut chunks = values.chunks_exact(self.cols * PER_INSERT);
        for many in &mut chunks {
            self.multi.execute(params_from_iter(many.iter()))?;
        }
        for one in chunks.remainder().chunks(self.cols) {
            self.single.execute(params_from_iter(one.iter()))?;
        }
        Ok(())
    }
}
