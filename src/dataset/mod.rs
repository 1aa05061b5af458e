//! dataset: rows → a directory of Parquet files, the second sink beside
//! the SQLite loader (`load`): many builds, from many machines, in one dataset that
//! DuckDB, Spark or Trino read. It owns the layout, the trace key, the
//! manifest and how a trace is published; [`columns`] owns each table's
//! Parquet columns, [`file`] one table file, [`export`] the copy of an
//! existing database, [`engines`] the SQL shipped for DuckDB and Spark;
//! [`rows`] is the sink of the model's rows, [`builders`] its Arrow
//! builders. The rows' values are stored as the SQLite loader stores
//! them, both from the kit [`crate::sink`] (this module never uses the
//! SQLite sink), or, for an export, are the database's own.
//!
//! Layout (see docs/datasets.md):
//!
//! ```text
//! DIR/dataset.json                              the manifest: schema version, tables, columns
//! DIR/TABLE/trace_key=KEY/part-0.parquet        one file per table and trace, every table
//! DIR/duckdb.sql, DIR/spark.sql, DIR/duckdb/    the views and queries for other engines
//! ```
//!
//! **Keys.** Ids (`process_id`, `call_id`, …, `trace_id` too) are those the
//! trace has in the database it was imported into (or would have had), so
//! they are unique only per trace: every row carries its trace's
//! [`trace_key`], and rows join on (`trace_key`, id). The key is derived
//! from the trace file alone, so builds imported on machines that never
//! talk to each other get different keys without a central counter, and
//! the same file imported twice gets the same key: adding a trace whose
//! key is already there is refused, or replaces it when asked.
//!
//! **Publishing.** A trace's files are written in a hidden staging
//! directory (`DIR/.staging-PID`), each under a temporary name, then each
//! table's partition is renamed into place, the `trace` table's last: a
//! trace is in the dataset once its `trace` row is, and a killed run
//! leaves only the hidden staging directory (and at most, in the moment
//! between two renames, partitions of a trace without its `trace` row,
//! which the next add of that trace removes).

pub mod builders;
pub mod columns;
pub mod engines;
pub mod export;
pub mod file;
pub mod rows;

use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;

use crate::schema::{Existing, SCHEMA_VERSION};
use crate::Error;
use columns::{TableColumns, TRACE_KEY};
use file::TableFile;

/// The manifest's file name.
pub const MANIFEST: &str = "dataset.json";

/// The manifest's `format`.
const FORMAT: &str = "kt2sql-dataset";

/// The one file of a partition.
const PART: &str = "part-0.parquet";

/// The key of a trace in a dataset: its fingerprint and size
/// (`9f86d081884c7d65-1074181508`), the same wherever the file is
/// imported. A trace with no fingerprint (read from a pipe, or empty) is
/// keyed by a hash of its path, size and import time instead: `nofp-` and
/// 16 hex digits.
pub fn trace_key(fingerprint: Option<&str>, size: u64, path: &[u8], imported_at: &str) -> String {
    match fingerprint {
        Some(f) => format!("{f}-{size}"),
        None => {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            let sizes = size.to_string();
            for part in [path, sizes.as_bytes(), imported_at.as_bytes()] {
                for &b in part.iter().chain([&0u8]) {
                    h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
                }
            }
            format!("nofp-{h:016x}")
        }
    }
}

/// What to do with a trace whose key is already in the dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnDuplicate {
    /// Refuse, writing nothing.
    #[default]
    Refuse,
    /// Replace the trace that is there.
    Replace,
}

/// A dataset directory open for adding traces.
#[derive(Debug)]
pub struct Dataset {
    dir: PathBuf,
    tables: Vec<TableColumns>,
    staging: PathBuf,
}

impl Dataset {
    /// Open `dir`, creating it (and its manifest) when missing; refuse a
    /// directory that holds other things, or a dataset of another schema
    /// version.
    pub fn open(dir: &Path) -> Result<Self, Error> {
        let tables = columns::tables()?;
        let io = |source| Error::Io {
            path: dir.to_owned(),
            source,
        };
        if dir.is_file() {
            // Most likely the arguments swapped: never written over.
            let what = if crate::decode::Decoder::is_trace(dir) {
                "is a ktrace file"
            } else if matches!(
                crate::schema::inspect(dir),
                Ok(Existing::Current | Existing::OtherVersion(_))
            ) {
                "is a kt2sql database"
            } else {
                "is a file"
            };
            return Err(Error::Refused {
                path: dir.to_owned(),
                reason: format!(
                    "{what}, not a dataset directory: the dataset directory comes last \
                     (kt2sql export DB DIR); nothing was written"
                ),
            });
        }
        let manifest = dir.join(MANIFEST);
        if manifest.exists() {
            check_manifest(&manifest)?;
        } else {
            if dir.exists() {
                let mut entries = std::fs::read_dir(dir).map_err(io)?;
                if entries.next().is_some() {
                    return Err(Error::Refused {
                        path: dir.to_owned(),
                        reason: format!("is not empty and has no {MANIFEST}: not a kt2sql dataset"),
                    });
                }
            }
            std::fs::create_dir_all(dir).map_err(io)?;
            write_atomically(&manifest, manifest_json(&tables).as_bytes())?;
        }
        engines::write(dir, &tables)?;
        let staging = dir.join(format!(".staging-{}", std::process::id()));
        Ok(Dataset {
            dir: dir.to_owned(),
            tables,
            staging,
        })
    }

    /// The dataset's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every table, `trace` first.
    pub fn tables(&self) -> &[TableColumns] {
        &self.tables
    }

    fn partition(&self, root: &Path, table: &str, key: &str) -> PathBuf {
        root.join(table).join(format!("{TRACE_KEY}={key}"))
    }

    /// Whether a trace with this key is in the dataset (its `trace` row).
    pub fn contains(&self, key: &str) -> bool {
        self.partition(&self.dir, "trace", key).join(PART).exists()
    }

    /// Start writing the trace `key`: refused when it is there already,
    /// unless it is to be replaced.
    pub fn begin(&self, key: &str, on_dup: OnDuplicate) -> Result<TraceFiles<'_>, Error> {
        if on_dup == OnDuplicate::Refuse && self.contains(key) {
            return Err(Error::Refused {
                path: self.dir.clone(),
                reason: format!(
                    "already holds the trace {key} (the same file, imported before); \
                     --force replaces it"
                ),
            });
        }
        let files = self
            .tables
            .iter()
            .map(|t| {
                let path = self.partition(&self.staging, t.name, key).join(PART);
                TableFile::create(t, key, &path)
            })
            .collect::<Result<_, _>>()?;
        Ok(TraceFiles {
            dataset: self,
            key: key.to_owned(),
            files,
        })
    }

    /// Move the staged partitions of `key` into place, the `trace` table's
    /// last, replacing whatever partitions of `key` are there.
    fn publish(&self, key: &str) -> Result<(), Error> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| Error::Io { path, source }
        };
        let old = self.staging.join("replaced");
        // The trace row goes first, so the old trace is gone as a whole
        // before its tables change.
        for t in &self.tables {
            let there = self.partition(&self.dir, t.name, key);
            if there.exists() {
                let aside = old.join(t.name);
                std::fs::create_dir_all(&old).map_err(io(&old))?;
                std::fs::rename(&there, &aside).map_err(io(&there))?;
            }
        }
        for t in self.tables.iter().skip(1).chain(&self.tables[..1]) {
            let staged = self.partition(&self.staging, t.name, key);
            let there = self.partition(&self.dir, t.name, key);
            let parent = there.parent().expect("a table directory");
            std::fs::create_dir_all(parent).map_err(io(parent))?;
            std::fs::rename(&staged, &there).map_err(io(&there))?;
        }
        if old.exists() {
            std::fs::remove_dir_all(&old).map_err(io(&old))?;
        }
        Ok(())
    }
}

impl Drop for Dataset {
    /// The staging directory goes (empty once every trace is published).
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.staging);
    }
}

/// The files of one trace being written, one per table in the order of
/// [`Dataset::tables`].
pub struct TraceFiles<'d> {
    dataset: &'d Dataset,
    key: String,
    files: Vec<TableFile>,
}

impl TraceFiles<'_> {
    /// The trace's key.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Add a row to table number `table` (of [`Dataset::tables`]).
    pub fn push<'v>(
        &mut self,
        table: usize,
        row: impl IntoIterator<Item = ValueRef<'v>>,
    ) -> Result<(), Error> {
        self.files[table].push(row)
    }

    /// Add `rows` rows to table number `table`, given as columns (see
    /// [`TableFile::write_columns`]).
    pub fn write_columns(
        &mut self,
        table: usize,
        rows: usize,
        columns: Vec<arrow_array::ArrayRef>,
    ) -> Result<(), Error> {
        self.files[table].write_columns(rows, columns)
    }

    /// Finish every file and publish the trace; its rows per table.
    pub fn finish(self) -> Result<Vec<u64>, Error> {
        let counts = self
            .files
            .into_iter()
            .map(TableFile::finish)
            .collect::<Result<Vec<_>, _>>()?;
        self.dataset.publish(&self.key)?;
        Ok(counts)
    }
}

/// The manifest: what the dataset is, its schema version and every
/// table's columns with their Parquet types.
fn manifest_json(tables: &[TableColumns]) -> String {
    let tables: serde_json::Map<String, serde_json::Value> = tables
        .iter()
        .map(|t| {
            let cols = std::iter::once(serde_json::json!({
                "name": TRACE_KEY, "type": "STRING", "nullable": false
            }))
            .chain(t.columns.iter().flat_map(|c| {
                let mut v = vec![serde_json::json!({
                    "name": c.name, "type": c.kind.parquet_name(), "nullable": c.nullable
                })];
                if c.kind == columns::Kind::Bytes {
                    v.push(serde_json::json!({
                        "name": format!("{}{}", c.name, columns::BYTES_SUFFIX),
                        "type": "BINARY", "nullable": true
                    }));
                }
                v
            }))
            .collect();
            (t.name.to_owned(), serde_json::Value::Array(cols))
        })
        .collect();
    let m = serde_json::json!({
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "kt2sql_version": env!("CARGO_PKG_VERSION"),
        "layout": format!("TABLE/{TRACE_KEY}=KEY/{PART}"),
        "tables": tables,
    });
    serde_json::to_string_pretty(&m).expect("JSON") + "\n"
}

/// A dataset of this schema version, or a refusal saying what it is.
fn check_manifest(path: &Path) -> Result<(), Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    let refuse = |reason: String| Error::Refused {
        path: path.to_owned(),
        reason,
    };
    let m: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| refuse(format!("not JSON: {e}")))?;
    if m["format"] != FORMAT {
        return Err(refuse("not a kt2sql dataset manifest".into()));
    }
    match m["schema_version"].as_i64() {
        Some(SCHEMA_VERSION) => Ok(()),
        v => Err(refuse(format!(
            "a dataset of schema version {}, this kt2sql writes {SCHEMA_VERSION}",
            v.map_or("?".into(), |v| v.to_string())
        ))),
    }
}

/// Write `bytes` to a temporary name beside `path`, then rename it.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}
