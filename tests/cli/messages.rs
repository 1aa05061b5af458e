//! Messages that are true: every command refuses a `--trace` that names
//! no trace with one message; `-` is standard input; a mistyped first word
//! is not a trace; what a build report leaves out is said on stderr;
//! `sql`/`query` parameters are named when wrong or missing; wording.

use std::path::{Path, PathBuf};

use super::{example, kt2sql, outputs};
use crate::require_shared;
use crate::util::compose;

/// The example imported without `-d` (e.db) and with it (d.db).
fn example_dbs(dir: &Path) -> (PathBuf, PathBuf) {
    kt2sql(dir)
        .arg(example())
        .args(["e.db", "-q"])
        .assert()
        .success();
    kt2sql(dir)
        .arg(example())
        .args(["d.db", "-q", "-d", "/usr/src/proj"])
        .assert()
        .success();
    (dir.join("e.db"), dir.join("d.db"))
}

#[test]
fn every_command_refuses_a_trace_it_does_not_hold_alike() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = example_dbs(dir.path());
    let commands: &[&[&str]] = &[
        &["tree"],
        &["files"],
        &["stats"],
        &["inputs"],
        &["outputs"],
        &["lint"],
        &["deps", "/usr/src/proj/obj/prog"],
        &["graph"],
        &["timeline"],
        &["compile-commands"],
    ];
    let mut said = None;
    for args in commands {
        let a = kt2sql(dir.path())
            .arg(args[0])
            .arg(&db)
            .args(&args[1..])
            .args(["--trace", "9"])
            .assert()
            .code(2);
        let (out, err) = outputs(&a);
        assert_eq!(out, "", "{args:?}");
        assert_eq!(
            err,
            format!(
                "kt2sql: error: {}: no trace 9: it holds trace 1 \
                 (kt2sql query {} traces describes them)\n",
                db.display(),
                db.display()
            ),
            "{args:?}"
        );
        // One message, whatever the command.
        assert_eq!(said.get_or_insert_with(|| err.clone()), &err, "{args:?}");
    }
}

#[test]
fn one_dropped_record_is_singular() {
    let _shared = require_shared!(python);
    let c = compose("freebsd-v1-amd64", 4, &["--drop-flag", "1"]);
    let dir = tempfile::tempdir().unwrap();
    let a = kt2sql(dir.path())
        .arg(&c.trace)
        .args(["t.db", "-q"])
        .assert()
        .code(0);
    let (_, err) = outputs(&a);
    assert!(
        err.contains("the kernel dropped events before 1 record (see import_issue"),
        "{err}"
    );
}

/// `kt2sql ARGS…` in `dir`: exit code, stdout, stderr.
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let o = kt2sql(dir).args(args).output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn parameters_given_twice_positional_or_missing_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let (_, db) = example_dbs(dir.path());
    let db = db.to_str().unwrap();
    for cmd in [
        vec!["sql", db, "SELECT :n", "-P", "n=1", "-P", "n=2"],
        vec!["query", db, "traces", "-P", "trace=1", "-P", ":trace=2"],
    ] {
        let (code, out, err) = run(dir.path(), &cmd);
        assert_eq!(code, Some(2), "{cmd:?}: {err}");
        assert_eq!(out, "");
        assert!(err.contains("given twice ("), "{err}");
        assert!(err.contains("give each parameter once"), "{err}");
    }
    for (sql, shown) in [("SELECT ?", "?"), ("SELECT 1; SELECT ?2", "?2")] {
        let (code, out, err) = run(dir.path(), &["sql", db, sql]);
        assert_eq!(code, Some(2), "{sql}: {err}");
        assert_eq!(out, "", "nothing runs");
        assert_eq!(
            err,
            format!(
                "kt2sql: error: {db}: positional parameter {shown}: not supported; \
                 name it (:name) and bind it with --param name=VALUE (nothing was run)\n"
            )
        );
    }
    let (code, out, err) = run(dir.path(), &["query", db, "deps"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(out, "");
    assert_eq!(
        err,
        "kt2sql: error: query deps needs --param files=…: \
         The files, as a JSON array of absolute paths.\n"
    );
    let (code, _, err) = run(dir.path(), &["query", db, "pid-lifetimes"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("needs --param pid=…: The OS pid.\n"), "{err}");
    let (code, out, _) = run(
        dir.path(),
        &[
            "query",
            db,
            "deps",
            "-P",
            r#"files=["/usr/src/proj/obj/prog"]"#,
        ],
    );
    assert_eq!(code, Some(0));
    assert!(out.contains("/usr/src/proj/obj/prog  source"), "{out}");
}

#[test]
fn a_lone_word_that_is_neither_file_nor_command_is_said_so() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["bogus"][..], &["bogus", "x.db"]] {
        let (code, out, err) = run(dir.path(), args);
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(out, "");
        assert_eq!(
            err,
            "kt2sql: error: bogus: no such file, and not a command \
             (kt2sql --help lists the commands)\n"
        );
    }
    assert!(!dir.path().join("x.db").exists());
}

#[test]
fn a_dash_reads_the_trace_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(example()).unwrap();
    let from_file = kt2sql(dir.path())
        .arg("dump")
        .arg(example())
        .assert()
        .success();
    let want = outputs(&from_file).0;
    for args in [&["dump", "-"][..], &["dump", "-f", "-"]] {
        let a = kt2sql(dir.path())
            .args(args)
            .write_stdin(bytes.clone())
            .assert()
            .success();
        assert_eq!(outputs(&a).0, want, "{args:?}");
    }
    for (args, db) in [(&["-"][..], "a.db"), (&["import", "-"], "b.db")] {
        kt2sql(dir.path())
            .args(args)
            .args([db, "-q", "-d", "/usr/src/proj"])
            .write_stdin(bytes.clone())
            .assert()
            .success();
        let (code, out, _) = run(dir.path(), &["sql", db, "SELECT records FROM trace"]);
        assert_eq!(code, Some(0));
        assert_eq!(out.lines().nth(2).map(str::trim), Some("223"), "{args:?}");
    }
    // Standard input is read once, and is no database.
    let (code, _, err) = run(dir.path(), &["-", "-", "c.db"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("- (standard input) given twice"), "{err}");
    let (code, _, err) = run(dir.path(), &["import", example().to_str().unwrap(), "-"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("the database cannot be standard output"),
        "{err}"
    );
}
