//! DuckDB and Spark read the dataset (`engines.py`): the Parquet schema of
//! every table against SQLite's columns, every trace's rows against its
//! database, and a DuckDB compaction that keeps every row. Both engines
//! are required under `CI=true` (CI installs them); elsewhere a missing
//! one is skipped, saying why.

use std::path::PathBuf;
use std::process::Command;

use super::{builds, export, import};
use crate::require_shared;
use crate::util::{manifest_dir, skip};

/// Run `engines.py ENGINE` over three builds exported into one dataset;
/// false when the engine is not installed.
fn engine_reads_the_dataset(engine: &str) -> bool {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    let dbs: Vec<PathBuf> = builds()
        .iter()
        .take(3)
        .enumerate()
        .map(|(i, b)| {
            let db = tmp.path().join(format!("{i}.db"));
            import(&b.trace, &db);
            export(&db, &dir);
            db
        })
        .collect();
    let out = Command::new("python3")
        .arg(manifest_dir().join("tests/dataset/engines.py"))
        .arg(engine)
        .arg(&dir)
        .args(&dbs)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    if out.status.code() == Some(3) {
        skip(text.trim());
        return false;
    }
    assert!(
        out.status.success(),
        "{engine}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{}", text.trim());
    true
}

#[test]
fn duckdb_reads_the_rows_of_every_database() {
    let _shared = require_shared!(python);
    engine_reads_the_dataset("duckdb");
}

/// Spark (local mode): required under `CI=true` (CI installs pyspark and
/// a Java 17 runtime); elsewhere skipped, saying why, when not installed.
#[test]
fn spark_reads_the_rows_of_every_database() {
    let _shared = require_shared!(python);
    engine_reads_the_dataset("spark");
}
