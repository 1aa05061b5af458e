//! Golden output of every report command, through the binary, on the
//! example trace (imported with `-d /usr/src/proj`) and on each corpus
//! file. `UPDATE_GOLDEN=1 cargo test report::golden` rewrites the files in
//! tests/golden/; read the diff before committing it.

use std::fmt::Write as _;
use std::path::Path;

use super::{import_into, kt2sql};
use crate::util::{assert_golden, corpus, manifest_dir, shared_dir, CORPUS};

/// `$ kt2sql ARGS` and its stdout (and stderr, when there is any), with
/// the database path shown as `DB` and trace paths made machine-neutral.
fn transcript(db: &Path, runs: &[&[&str]]) -> String {
    let mut out = String::new();
    for args in runs {
        let mut cmd = kt2sql();
        let mut shown = Vec::new();
        for a in args.iter() {
            if *a == "DB" {
                cmd.arg(db);
            } else {
                cmd.arg(a);
            }
            shown.push(if a.contains(' ') {
                format!("\"{a}\"")
            } else {
                a.to_string()
            });
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "kt2sql {args:?}: {o:?}");
        let _ = writeln!(out, "$ kt2sql {}", shown.join(" "));
        out.push_str(&neutral(&String::from_utf8(o.stdout).unwrap(), db));
        if !o.stderr.is_empty() {
            let err = neutral(&String::from_utf8(o.stderr).unwrap(), db);
            let _ = write!(out, "[stderr] {err}");
        }
        out.push('\n');
    }
    out
}

fn neutral(s: &str, db: &Path) -> String {
    let mut s = s.replace(&db.display().to_string(), "DB");
    s = s.replace(&manifest_dir().display().to_string(), "$CRATE");
    if let Some(shared) = shared_dir() {
        s = s.replace(&shared.display().to_string(), "$SHARED");
    }
    s
}

fn example_db(dir: &Path) -> std::path::PathBuf {
    let trace = manifest_dir().join("example/build.ktrace");
    import_into(dir, "example.db", &[trace], Some("/usr/src/proj"))
}

#[test]
fn example_tree() {
    let dir = tempfile::tempdir().unwrap();
    let db = example_db(dir.path());
    let runs: &[&[&str]] = &[
        &["tree", "DB"],
        &["tree", "DB", "-p", "2313"],
        &["tree", "DB", "-v"],
        &["tree", "DB", "--format", "csv"],
        &["tree", "DB", "-p", "2313", "--format", "json"],
        &["tree", "DB", "-p", "2313", "-v", "--format", "json"],
        &["tree", "DB", "-p", "2313", "-v", "--format", "csv"],
        &["tree", "DB", "--format", "dot"],
    ];
    assert_golden("report-example-tree.txt", &transcript(&db, runs));
}

#[test]
fn example_files() {
    let dir = tempfile::tempdir().unwrap();
    let db = example_db(dir.path());
    let runs: &[&[&str]] = &[
        &["files", "DB"],
        &["files", "DB", "-a"],
        &["files", "DB", "-v"],
        &["namei", "DB", "-a", "-v"],
        &["files", "DB", "-p", "2313", "-v"],
        &["files", "DB", "-p", "2314", "-v", "--format", "json"],
        &["files", "DB", "-p", "2311", "-a", "-v", "--format", "csv"],
        &["files", "DB", "--trace", "1", "--format", "csv"],
    ];
    assert_golden("report-example-files.txt", &transcript(&db, runs));
}

#[test]
fn example_stats() {
    let dir = tempfile::tempdir().unwrap();
    let db = example_db(dir.path());
    let runs: &[&[&str]] = &[
        &["stats", "DB"],
        &["stats", "DB", "--top", "2", "--format", "json"],
        &["stats", "DB", "--format", "csv"],
    ];
    assert_golden("report-example-stats.txt", &transcript(&db, runs));
}

#[test]
fn example_sql_query_and_schema() {
    let dir = tempfile::tempdir().unwrap();
    let db = example_db(dir.path());
    let runs: &[&[&str]] = &[
        &[
            "sql",
            "DB",
            "SELECT pid, comm, calls, files FROM process_summary WHERE calls > :n ORDER BY pid",
            "--param",
            "n=9",
        ],
        &[
            "sql",
            "DB",
            "SELECT path, access, pid FROM file_access WHERE access NOT IN ('read', 'exec', 'probe')",
            "--format",
            "csv",
        ],
        &[
            "sql",
            "DB",
            "SELECT * FROM files WHERE written",
            "--format",
            "json",
        ],
        &["query", "DB", "slow_calls", "-P", "limit=5"],
        &["query", "DB", "failed_lookups"],
        &["query", "DB", "pid_lifetimes", "--param", "pid=2313"],
        &["query", "DB", "issues"],
        &["query", "--list"],
        &["schema", "file_access"],
        &["schema", "process_tree"],
    ];
    assert_golden("report-example-sql.txt", &transcript(&db, runs));
}

#[test]
fn corpus_reports() {
    let shared = crate::require_shared!();
    let dir = tempfile::tempdir().unwrap();
    for (name, _, _) in CORPUS {
        let db = import_into(
            dir.path(),
            &format!("{name}.db"),
            &[corpus(&shared, name)],
            None,
        );
        let runs: &[&[&str]] = &[
            &["tree", "DB"],
            &["tree", "DB", "-v"],
            &["files", "DB", "-a", "-v"],
            &["stats", "DB"],
        ];
        assert_golden(&format!("report-corpus-{name}.txt"), &transcript(&db, runs));
    }
}
