//! `kt2sql sql` and `kt2sql query` (issues #13 and #14): only reading is
//! allowed (VACUUM INTO, ATTACH, writes, temporary objects and PRAGMAs that
//! change a setting are refused before anything runs), several statements
//! all run with each result printed, errors name the database, JSON Lines,
//! and `query --list DB`.

use std::path::{Path, PathBuf};

use super::{import_into, kt2sql};
use crate::util::manifest_dir;

fn example_db(dir: &Path) -> PathBuf {
    let trace = manifest_dir().join("example/build.ktrace");
    import_into(dir, "t.db", &[trace], Some("/usr/src/proj"))
}

fn run(db: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let o = kt2sql()
        .arg(args[0])
        .arg(db)
        .args(&args[1..])
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

#[test]
fn anything_but_reading_is_refused_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = example_db(dir.path());
    let before = std::fs::read(&db).unwrap();
    let copy = dir.path().join("copy.db");
    let other = dir.path().join("other.db");
    for (sql, says) in [
        (
            format!("VACUUM INTO '{}'", copy.display()),
            "refused `VACUUM INTO",
        ),
        (
            format!("ATTACH '{}' AS o", other.display()),
            "refused ATTACH",
        ),
        ("SELECT 1; DROP TABLE call".into(), "a schema change"),
        ("DELETE FROM call".into(), "DELETE from call"),
        ("CREATE TEMP TABLE x (a)".into(), "a schema change"),
        ("PRAGMA query_only = 0".into(), "PRAGMA query_only = 0"),
        (
            "PRAGMA journal_mode = WAL".into(),
            "PRAGMA journal_mode = WAL",
        ),
        ("SELECT 1; BEGIN".into(), "a transaction statement"),
    ] {
        let (code, out, err) = run(&db, &["sql", &sql]);
        assert_eq!(code, Some(2), "{sql}: {err}");
        assert!(out.is_empty(), "{sql}: ran something: {out}");
        let db_name = db.display().to_string();
        assert!(
            err.contains(&format!("{db_name}: only reading is allowed here; refused"))
                && err.contains(says)
                && err.contains("nothing was run"),
            "{sql}: {err}"
        );
    }
    assert!(!copy.exists() && !other.exists(), "a file was written");
    assert_eq!(std::fs::read(&db).unwrap(), before, "the database changed");
    let (code, out, err) = run(&db, &["sql", "PRAGMA table_info(trace)"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("decoded_bytes"), "{out}");
}

#[test]
fn several_statements_all_run_and_print_in_turn() {
    let dir = tempfile::tempdir().unwrap();
    let db = example_db(dir.path());
    let sql = "SELECT count(*) AS traces FROM trace; SELECT :n AS n, 'x' AS s;";
    let (code, out, err) = run(&db, &["sql", sql, "-P", "n=7", "--format", "csv"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "traces\n1\n\nn,s\n7,x\n");
    let (_, out, _) = run(&db, &["sql", sql, "-P", "n=7", "--format", "jsonl"]);
    assert_eq!(out, "{\"traces\":1}\n{\"n\":7,\"s\":\"x\"}\n");
    let (_, out, _) = run(&db, &["sql", sql, "-P", "n=7", "--format", "json"]);
    assert_eq!(out, "[\n{\"traces\":1}\n]\n[\n{\"n\":7,\"s\":\"x\"}\n]\n");
    // A parameter no statement takes is an error, before anything runs.
    let (code, out, err) = run(&db, &["sql", sql, "-P", "m=1"]);
    assert_eq!(code, Some(2));
    assert!(out.is_empty());
    assert!(err.contains("(it takes :n)") && err.contains(":m"), "{err}");
}

#[test]
fn sql_and_query_errors_name_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = example_db(dir.path());
    let name = db.display().to_string();
    let (code, _, err) = run(&db, &["sql", "SELECT nosuch FROM call"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains(&format!("{name}: running the SQL: no such column: nosuch")),
        "{err}"
    );
    let (code, _, err) = run(&db, &["query", "files", "-P", "pdi=1"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains(&format!("{name}: running queries/files.sql (it takes")),
        "{err}"
    );
}

#[test]
fn query_lists_with_or_without_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = example_db(dir.path());
    let alone = kt2sql().args(["query", "--list"]).output().unwrap();
    assert!(alone.status.success());
    let with_db = kt2sql()
        .args(["query", "--list"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        with_db.status.success(),
        "{}",
        String::from_utf8_lossy(&with_db.stderr)
    );
    assert_eq!(alone.stdout, with_db.stdout);
    assert!(String::from_utf8_lossy(&alone.stdout).contains("slow_calls  (queries/slow_calls.sql)"));
    let (code, out, err) = run(&db, &["query", "traces", "--format", "jsonl"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with("{\"trace_id\":1,"), "{out}");
}

/// `sql` streams: with a result of 100 million rows (far more than could
/// be formatted in the time allowed, or held in memory), the first rows
/// of every format arrive at once, and closing the pipe after them ends
/// the process quietly with exit code 0 (as `| head -3` does).
#[test]
fn sql_streams_rows_and_ends_quietly_on_a_closed_pipe() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let dir = tempfile::tempdir().unwrap();
    let db = example_db(dir.path());
    let sql = "WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 100000000) \
               SELECT i, 'row ' || i AS label FROM n";
    for (format, third) in [
        ("table", "   1  row 1"),
        ("csv", "2,row 2"),
        ("json", r#"{"i":2,"label":"row 2"},"#),
        ("jsonl", r#"{"i":3,"label":"row 3"}"#),
    ] {
        let t0 = Instant::now();
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("kt2sql"))
            .args(["sql", "--format", format])
            .arg(&db)
            .arg(sql)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let head: Vec<String> = (0..3).map(|_| lines.next().unwrap().unwrap()).collect();
        drop(lines); // close the pipe, as `head -3` does
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if t0.elapsed() > Duration::from_secs(10) {
                child.kill().unwrap();
                panic!("{format}: still running 10 s after its first rows were read");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert!(status.success(), "{format}: {status:?}: {err}");
        assert_eq!(err, "", "{format}");
        assert_eq!(head[2], third, "{format}: {head:?}");
    }
}

/// `query --show NAME` prints the embedded SQL of a canned query (no
/// queries/ directory is installed), without a database.
#[test]
fn query_show_prints_the_embedded_sql() {
    // Its one name (the file stem, as the dataset's duckdb/NAME.sql), and
    // the same with hyphens, the spelling of older versions.
    for q in kt2sql::report::queries() {
        assert_eq!(q.file, format!("{}.sql", q.name));
        for name in [q.name.to_string(), q.name.replace('_', "-")] {
            let o = kt2sql().args(["query", "--show", &name]).output().unwrap();
            assert!(o.status.success(), "{name}: {o:?}");
            assert_eq!(String::from_utf8(o.stdout).unwrap(), q.sql, "{name}");
        }
    }
    let o = kt2sql()
        .args(["query", "--show", "slow-cals"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("did you mean slow_calls?"), "{err}");
}

/// An unknown query name run on a database gets the nearest name.
#[test]
fn an_unknown_query_gets_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    let db = example_db(dir.path());
    // The one name, and the hyphenated spelling of older versions.
    let (code, one, _) = run(&db, &["query", "process_top"]);
    assert_eq!(code, Some(0));
    assert!(one.starts_with("process_id"), "{one}");
    assert_eq!(run(&db, &["query", "process-top"]).1, one);
    let (code, out, err) = run(&db, &["query", "critical_path_"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(err.contains("did you mean critical_path?"), "{err}");
    let (code, _, err) = run(&db, &["query", "zzzzzz"]);
    assert_eq!(code, Some(2));
    assert!(!err.contains("did you mean"), "nothing near: {err}");
}

/// `schema --list`: every table and view, one a line with its kind, each
/// of which `schema NAME` prints; a mistyped name gets the nearest.
#[test]
fn schema_lists_its_tables_and_views_and_suggests_a_name() {
    let o = kt2sql().args(["schema", "--list"]).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    let text = String::from_utf8(o.stdout).unwrap();
    let rows: Vec<(&str, &str)> = text
        .lines()
        .map(|l| l.split_once('\t').expect("NAME<TAB>KIND"))
        .collect();
    assert!(rows.contains(&("trace", "table")), "{text}");
    assert!(rows.contains(&("call_detail", "view")), "{text}");
    for (name, kind) in &rows {
        assert!(["table", "view"].contains(kind), "{name} {kind}");
        let o = kt2sql().args(["schema", name]).output().unwrap();
        let sql = String::from_utf8(o.stdout).unwrap();
        let create = format!("CREATE {}", kind.to_uppercase());
        assert!(o.status.success() && sql.contains(&create), "{name}: {sql}");
    }
    let o = kt2sql().args(["schema", "call_detal"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("did you mean call_detail?"), "{err}");
}
