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
