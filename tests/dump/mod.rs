//! `kt2sql dump` as kdump(1) (issue #14): the plain layout's golden output
//! on one corpus file per dialect, each kdump option on corpus files and
//! composed traces (checked against the JSON Lines form of the same
//! records and ktcompose's truth), `-l` on a file written in steps, a
//! trace read from a pipe or FIFO, and the cross-hints between traces and
//! databases.

mod follow;
mod options;
mod pipes;

use std::path::Path;

use crate::util::{assert_golden, corpus, manifest_dir, CORPUS};

pub fn kt2sql() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("kt2sql").unwrap()
}

/// stdout of a successful `kt2sql dump ARGS -f TRACE`.
pub fn dump(trace: &Path, args: &[&str]) -> String {
    let out = kt2sql()
        .arg("dump")
        .args(args)
        .arg("-f")
        .arg(trace)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// The records of `trace` as JSON values (`dump --format jsonl`).
pub fn records(trace: &Path) -> Vec<serde_json::Value> {
    dump(trace, &["--format", "jsonl"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Record lines of the text form (not data or argument continuation
/// lines, not "Events dropped."): the words before the type column (at
/// least `min_before`; an empty command name leaves one out) and the type.
pub fn record_lines(text: &str, min_before: usize) -> Vec<(Vec<&str>, &str)> {
    text.lines()
        .filter(|l| !l.starts_with('\t') && !l.starts_with("       "))
        .filter(|l| !l.ends_with("Events dropped."))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let at = (min_before.saturating_sub(1)..words.len())
                .find(|&i| is_label(words[i]))
                .unwrap_or_else(|| panic!("no type column in {l:?}"));
            (words[..at].to_vec(), words[at])
        })
        .collect()
}

fn is_label(w: &str) -> bool {
    kt2sql::dump::points::LABELS.contains(&w) || w.starts_with("UNKNOWN(")
}

/// The plain layout, `  PID COMM     TYPE  body`, on one corpus file of
/// each dialect (the first 400 lines of each, so the golden files stay
/// small). `UPDATE_GOLDEN=1 cargo test dump::golden` rewrites them.
#[test]
fn golden_plain_layout() {
    let shared = crate::require_shared!();
    for (name, _, _) in CORPUS {
        let text = dump(&corpus(&shared, name), &[]);
        let head: Vec<&str> = text.lines().take(400).collect();
        assert_golden(&format!("dump-{name}.txt"), &(head.join("\n") + "\n"));
    }
}

/// `kt2sql dump` on a database says what it is, and only a database kt2sql
/// wrote is called one; `kt2sql DB` alone (the import shorthand) says the
/// same; `kt2sql tree` on a trace says to import it first.
#[test]
fn cross_hints_between_traces_and_databases() {
    let trace = manifest_dir().join("example/build.ktrace");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e.db");
    kt2sql().arg(&trace).arg(&db).assert().success();
    let stderr = |out: &assert_cmd::assert::Assert| {
        assert!(out.get_output().stdout.is_empty());
        String::from_utf8_lossy(&out.get_output().stderr).to_string()
    };
    let dumps = [vec!["dump", "-f"], vec!["dump"], vec!["dump", "-l", "-f"]];
    for args in &dumps {
        let err = stderr(&kt2sql().args(args).arg(&db).assert().code(2));
        assert!(err.contains("this is a kt2sql database"), "{args:?}: {err}");
    }
    let err = stderr(&kt2sql().arg(&db).assert().code(2));
    assert!(err.contains("this is a kt2sql database"), "{err}");
    assert!(!err.contains("the database is missing"), "{err}");
    // Another program's SQLite file is SQLite, not a kt2sql database.
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        .unwrap();
    for args in &dumps {
        let err = stderr(&kt2sql().args(args).arg(&other).assert().code(2));
        assert!(
            err.contains("an SQLite database (not one kt2sql wrote)"),
            "{err}"
        );
        assert!(!err.contains("kt2sql database"), "{err}");
    }
    for cmd in ["tree", "files", "stats"] {
        let err = stderr(&kt2sql().arg(cmd).arg(&trace).assert().code(2));
        assert!(
            err.contains("this is a ktrace file: import it first with `kt2sql TRACE DB`"),
            "{cmd}: {err}"
        );
    }
}
