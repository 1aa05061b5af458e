//! The same answers on every engine (`answers.py`): every view and every
//! canned query, run with DuckDB over a dataset of composed builds of
//! several dialects (their ids overlapping), gives each trace the rows its
//! SQLite database gives, in the same order. DuckDB is required (CI
//! installs it).

use std::path::PathBuf;
use std::process::Command;

use super::{builds, export, import};
use crate::require_shared;
use crate::util::{manifest_dir, skip};

#[test]
fn duckdb_gives_every_view_and_query_the_rows_of_sqlite() {
    let _shared = require_shared!(python);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    let dbs: Vec<PathBuf> = builds()
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let db = tmp.path().join(format!("{i}.db"));
            import(&b.trace, &db);
            export(&db, &dir);
            db
        })
        .collect();
    for f in ["duckdb.sql", "spark.sql", "duckdb/files.sql"] {
        assert!(dir.join(f).is_file(), "{f} is shipped with the dataset");
    }
    let out = Command::new("python3")
        .arg(manifest_dir().join("tests/dataset/answers.py"))
        .arg(&dir)
        .args(&dbs)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    if out.status.code() == Some(3) {
        skip(text.trim());
        return;
    }
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{}", text.trim());
}
