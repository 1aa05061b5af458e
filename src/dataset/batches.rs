//! The encoder's batches → one trace's files: the sink of
//! `kt2sql import --to parquet`. A batch holds each model table's values in
//! the order of its declaration ([`Table::columns`]); they go to the
//! columns of the same names. The one column a batch lacks, the
//! `import_issue_id` SQLite would give, is numbered here as SQLite numbers
//! it in a fresh database (1, 2, …), and the `trace` row is built from the
//! same values [`crate::load::trace`] writes to SQLite.

use rusqlite::types::{Value, ValueRef};

use super::TraceFiles;
use crate::load::encode::Batch;
use crate::load::table::Table;
use crate::load::trace::{end_values, start_values, TraceEnd, TraceStart};
use crate::Error;

/// The `trace_id` of every trace imported straight into a dataset: the id
/// it would have in a database of its own.
pub const TRACE_ID: i64 = 1;

/// One trace's files, fed batches.
pub struct BatchFiles<'d> {
    files: TraceFiles<'d>,
    /// Per model table: the position of each declared value among the
    /// table's columns, and the position of the key SQLite gives, if the
    /// declaration has none.
    layout: Vec<(Vec<usize>, Option<usize>)>,
    /// Per model table: the last key given here.
    keys: Vec<i64>,
}

impl<'d> BatchFiles<'d> {
    /// Batches into `files`.
    pub fn new(files: TraceFiles<'d>) -> Self {
        let layout = Table::ALL
            .iter()
            .map(|t| {
                let cols = &files.dataset.tables[1 + t.index()];
                debug_assert_eq!(cols.name, t.name());
                let at = cols.positions_of(t.columns());
                let key = (cols.columns.len() > at.len())
                    .then(|| (0..cols.columns.len()).find(|i| !at.contains(i)))
                    .flatten();
                (at, key)
            })
            .collect();
        BatchFiles {
            files,
            layout,
            keys: vec![0; Table::ALL.len()],
        }
    }

    /// Write every row of `batch`.
    pub fn write(&mut self, batch: &Batch) -> Result<(), Error> {
        for &t in Table::ALL {
            let (at, key) = &self.layout[t.index()];
            let width = at.len() + usize::from(key.is_some());
            let values = &batch.values[t.index()];
            for row in values.chunks_exact(at.len()) {
                let mut cells = vec![ValueRef::Null; width];
                for (v, &i) in row.iter().zip(at) {
                    cells[i] = as_ref(v);
                }
                if let Some(k) = key {
                    self.keys[t.index()] += 1;
                    cells[*k] = ValueRef::Integer(self.keys[t.index()]);
                }
                self.files.push(1 + t.index(), cells)?;
            }
        }
        Ok(())
    }

    /// Write the `trace` row, finish every file and publish the trace.
    pub fn finish(
        mut self,
        start: &TraceStart<'_>,
        issues: i64,
        end: &TraceEnd<'_>,
    ) -> Result<Vec<u64>, Error> {
        let mut named: Vec<(&str, Value)> = vec![("trace_id", Value::Integer(TRACE_ID))];
        named.extend(start_values(start));
        // `size` again at the end (a pipe's is known only then): the last wins.
        named.extend(end_values(issues, end));
        let cols = &self.files.dataset.tables[0].columns;
        let row: Vec<ValueRef<'_>> = cols
            .iter()
            .map(|c| {
                named
                    .iter()
                    .rev()
                    .find(|(n, _)| *n == c.name)
                    .map_or(ValueRef::Null, |(_, v)| ValueRef::from(v))
            })
            .collect();
        self.files.push(0, row)?;
        self.files.finish()
    }
}

fn as_ref(v: &crate::load::encode::SqlValue) -> ValueRef<'_> {
    use crate::load::encode::SqlValue;
    match v {
        SqlValue::Null => ValueRef::Null,
        SqlValue::Int(i) => ValueRef::Integer(*i),
        SqlValue::Static(s) => ValueRef::Text(s.as_bytes()),
        SqlValue::Text(s) => ValueRef::Text(s.as_bytes()),
        SqlValue::Blob(b) => ValueRef::Blob(b),
    }
}
