//! One table's file of one trace: rows in as SQLite values (read from a
//! database, or the `trace` row) with Arrow columns built per [`Kind`], or
//! columns already built ([`super::rows`]), written as zstd-compressed
//! Parquet row groups. The file is
//! written under a hidden temporary name in its directory (readers and
//! Spark skip names starting with `.`) and renamed into place by
//! [`TableFile::finish`]: a reader never sees half a file, and dropping an
//! unfinished one deletes it.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::Schema;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use rusqlite::types::ValueRef;

use super::columns::{Kind, TableColumns, BYTES_SUFFIX, TRACE_KEY};
use crate::Error;

/// Rows gathered before they are handed to the Parquet writer.
const ROWS_PER_BATCH: usize = 16 * 1024;

/// Rows per row group: small enough that the ten files of an import,
/// open together, buffer little (a row group is held until complete).
const ROWS_PER_GROUP: usize = 128 * 1024;

/// The builder of one column (and of its `_bytes` companion).
enum Builder {
    Int(Int64Builder),
    Real(Float64Builder),
    Text(StringBuilder),
    Bytes(StringBuilder, BinaryBuilder),
    Blob(BinaryBuilder),
}

/// A Parquet file being written.
pub struct TableFile {
    table: &'static str,
    key: String,
    schema: Arc<Schema>,
    kinds: Vec<(Kind, bool)>,
    builders: Vec<Builder>,
    rows: usize,
    /// The trace key repeated, sliced for each batch's key column.
    keys: StringArray,
    /// Rows written in all.
    pub total: u64,
    writer: Option<ArrowWriter<File>>,
    tmp: PathBuf,
    path: PathBuf,
}

/// Whether a column's values are (nearly) all different, row by row: times,
/// offsets, durations, argument words and text, return values, addresses,
/// data, the table's own id. A dictionary of them overflows its page and is
/// thrown away, once per column chunk, after hashing every value: plain
/// encoding and zstd cost less CPU and give smaller files. (Integer columns
/// have no dictionary at all: see [`properties`].)
fn unique_per_row(table: &str, column: &str) -> bool {
    column.ends_with("_ts")
        || matches!(
            column,
            "ts" | "offset" | "dur" | "args" | "arg0" | "arg1" | "retval" | "addr" | "data"
        )
        || column.strip_suffix("_id") == Some(table)
}

/// The writer's settings for `table`'s file: zstd level 1; every integer
/// column DELTA_BINARY_PACKED without a dictionary (ids, times and offsets
/// rise row by row, and the few-valued ones, numbers, flags, pids, come in
/// runs: the deltas are small either way, and no value is hashed); no
/// dictionary for the other columns whose values are all different; no
/// statistics for the trace key.
fn properties(table: &TableColumns) -> WriterProperties {
    let mut props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).expect("level 1")))
        .set_max_row_group_row_count(Some(ROWS_PER_GROUP))
        .set_created_by(format!("kt2sql {}", env!("CARGO_PKG_VERSION")))
        // One value per partition: its statistics say nothing.
        .set_column_statistics_enabled(ColumnPath::from(TRACE_KEY), EnabledStatistics::None);
    for c in &table.columns {
        let path = || ColumnPath::from(c.name.clone());
        if c.kind == Kind::Int {
            props = props
                .set_column_dictionary_enabled(path(), false)
                .set_column_encoding(path(), Encoding::DELTA_BINARY_PACKED);
        } else if unique_per_row(table.name, &c.name) {
            for name in [c.name.clone(), format!("{}{BYTES_SUFFIX}", c.name)] {
                props = props.set_column_dictionary_enabled(ColumnPath::from(name), false);
            }
        }
    }
    props.build()
}

impl TableFile {
    /// A new file for `table`'s rows of the trace `key`, to be renamed to
    /// `path` when finished.
    pub fn create(table: &TableColumns, key: &str, path: &Path) -> Result<Self, Error> {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
        let io = |source| Error::Io {
            path: tmp.clone(),
            source,
        };
        if let Some(dir) = tmp.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = File::create(&tmp).map_err(io)?;
        let props = properties(table);
        let schema = table.schema();
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(props))
            .map_err(|e| parquet_err(&tmp, e))?;
        let kinds: Vec<(Kind, bool)> = table.columns.iter().map(|c| (c.kind, c.nullable)).collect();
        let builders = kinds.iter().map(|&(k, _)| new_builder(k)).collect();
        Ok(TableFile {
            table: table.name,
            key: key.to_owned(),
            schema,
            kinds,
            builders,
            rows: 0,
            keys: StringArray::from(Vec::<&str>::new()),
            total: 0,
            writer: Some(writer),
            tmp,
            path: path.to_owned(),
        })
    }

    /// Add one row: a value per SQLite column, in the table's order.
    pub fn push<'v>(&mut self, row: impl IntoIterator<Item = ValueRef<'v>>) -> Result<(), Error> {
        let mut n = 0;
        for ((b, &(_, nullable)), v) in self.builders.iter_mut().zip(&self.kinds).zip(row) {
            if (!nullable && v == ValueRef::Null) || !append(b, v) {
                return Err(self.bad_value(n, v));
            }
            n += 1;
        }
        assert_eq!(n, self.kinds.len(), "a value per column");
        self.rows += 1;
        self.total += 1;
        if self.rows >= ROWS_PER_BATCH {
            self.write_batch()?;
        }
        Ok(())
    }

    fn bad_value(&self, column: usize, v: ValueRef<'_>) -> Error {
        Error::Dataset {
            path: self.path.clone(),
            message: format!(
                "table {} column {}: cannot store {:?} as {:?}",
                self.table,
                column,
                v.data_type(),
                self.kinds[column]
            ),
        }
    }

    /// The key column of `rows` rows.
    fn keys(&mut self, rows: usize) -> ArrayRef {
        if self.keys.len() < rows {
            let n = rows.max(ROWS_PER_BATCH);
            self.keys = StringArray::from_iter_values(std::iter::repeat_n(&self.key, n));
        }
        Arc::new(self.keys.slice(0, rows))
    }

    /// Add `rows` rows given as columns: one array per column of the file
    /// but the trace key.
    pub fn write_columns(&mut self, rows: usize, columns: Vec<ArrayRef>) -> Result<(), Error> {
        if self.rows > 0 {
            self.write_batch()?;
        }
        let mut arrays = Vec::with_capacity(columns.len() + 1);
        arrays.push(self.keys(rows));
        arrays.extend(columns);
        self.total += rows as u64;
        self.write_arrays(arrays)
    }

    fn write_batch(&mut self) -> Result<(), Error> {
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.schema.fields().len());
        arrays.push(self.keys(self.rows));
        for b in &mut self.builders {
            match b {
                Builder::Int(b) => arrays.push(Arc::new(b.finish())),
                Builder::Real(b) => arrays.push(Arc::new(b.finish())),
                Builder::Text(b) => arrays.push(Arc::new(b.finish())),
                Builder::Bytes(t, raw) => {
                    arrays.push(Arc::new(t.finish()));
                    arrays.push(Arc::new(raw.finish()));
                }
                Builder::Blob(b) => arrays.push(Arc::new(b.finish())),
            }
        }
        self.rows = 0;
        self.write_arrays(arrays)
    }

    fn write_arrays(&mut self, arrays: Vec<ArrayRef>) -> Result<(), Error> {
        let batch =
            RecordBatch::try_new(self.schema.clone(), arrays).map_err(|e| Error::Dataset {
                path: self.path.clone(),
                message: format!("table {}: {e}", self.table),
            })?;
        let writer = self.writer.as_mut().expect("open until finished");
        writer.write(&batch).map_err(|e| parquet_err(&self.tmp, e))
    }

    /// Write what is left, close the file and give it its name.
    pub fn finish(mut self) -> Result<u64, Error> {
        self.write_batch()?;
        let writer = self.writer.take().expect("open until finished");
        let file = writer.into_inner().map_err(|e| parquet_err(&self.tmp, e))?;
        let io = |source| Error::Io {
            path: self.tmp.clone(),
            source,
        };
        file.sync_all().map_err(io)?;
        drop(file);
        std::fs::rename(&self.tmp, &self.path).map_err(io)?;
        Ok(self.total)
    }
}

impl Drop for TableFile {
    /// An unfinished file is deleted.
    fn drop(&mut self) {
        if self.writer.is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

fn new_builder(kind: Kind) -> Builder {
    match kind {
        Kind::Int => Builder::Int(Int64Builder::new()),
        Kind::Real => Builder::Real(Float64Builder::new()),
        Kind::Text => Builder::Text(StringBuilder::new()),
        Kind::Bytes => Builder::Bytes(StringBuilder::new(), BinaryBuilder::new()),
        Kind::Blob => Builder::Blob(BinaryBuilder::new()),
    }
}

/// Append `v` to its column; false when it cannot be stored there.
fn append(b: &mut Builder, v: ValueRef<'_>) -> bool {
    match (b, v) {
        (Builder::Int(b), ValueRef::Integer(i)) => b.append_value(i),
        (Builder::Int(b), ValueRef::Null) => b.append_null(),
        (Builder::Real(b), ValueRef::Real(f)) => b.append_value(f),
        (Builder::Real(b), ValueRef::Integer(i)) => b.append_value(i as f64),
        (Builder::Real(b), ValueRef::Null) => b.append_null(),
        (Builder::Text(b), ValueRef::Text(t)) => b.append_value(String::from_utf8_lossy(t)),
        (Builder::Text(b), ValueRef::Null) => b.append_null(),
        // Recorded bytes: TEXT when UTF-8, else a BLOB of the exact bytes.
        (Builder::Bytes(t, raw), ValueRef::Text(s) | ValueRef::Blob(s)) => {
            match std::str::from_utf8(s) {
                Ok(s) => {
                    t.append_value(s);
                    raw.append_null();
                }
                Err(_) => {
                    t.append_value(String::from_utf8_lossy(s));
                    raw.append_value(s);
                }
            }
        }
        (Builder::Bytes(t, raw), ValueRef::Null) => {
            t.append_null();
            raw.append_null();
        }
        (Builder::Blob(b), ValueRef::Blob(d) | ValueRef::Text(d)) => b.append_value(d),
        (Builder::Blob(b), ValueRef::Null) => b.append_null(),
        _ => return false,
    }
    true
}

fn parquet_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Dataset {
        path: path.to_owned(),
        message: format!("writing Parquet: {e}"),
    }
}
