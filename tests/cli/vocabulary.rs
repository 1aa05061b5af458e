//! One vocabulary: `-o FILE` on every command that writes a file, written
//! whole or not at all and never over an input (a trace, a kt2sql
//! database) nor, without `--force`, over any file; `--force` for
//! replacing everywhere (`export --replace` kept); `jsonl` on every report.

use std::path::Path;

use super::{example, kt2sql, outputs};

/// The example imported as ex.db in `dir`, with the trace beside it.
fn setup(dir: &Path) {
    std::fs::copy(example(), dir.join("t.ktrace")).unwrap();
    kt2sql(dir)
        .args(["t.ktrace", "ex.db", "-q", "-d", "/usr/src/proj"])
        .assert()
        .success();
}

/// Every file in `dir` but those given: no temporary file left behind.
fn others(dir: &Path, known: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !known.contains(&n.as_str()))
        .collect();
    v.sort();
    v
}

#[test]
fn every_command_writing_a_file_takes_o_and_never_writes_over_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let trace = std::fs::read(d.join("t.ktrace")).unwrap();
    let db = std::fs::read(d.join("ex.db")).unwrap();
    let commands: &[&[&str]] = &[
        &["graph", "ex.db"],
        &["timeline", "ex.db"],
        &["deps", "ex.db", "/usr/src/proj/obj/main.o"],
        &["rdeps", "ex.db", "src/main.c"],
        &["compile-commands", "ex.db"],
        &["tree", "ex.db", "--format", "dot"],
        &["man"],
    ];
    for cmd in commands {
        for (target, what) in [
            ("t.ktrace", "is a ktrace file, an input"),
            ("ex.db", "is a kt2sql database, an input"),
        ] {
            for force in [&[][..], &["--force"]] {
                let a = kt2sql(d)
                    .args(*cmd)
                    .args(["-o", target])
                    .args(force)
                    .assert()
                    .code(2);
                let (out, err) = outputs(&a);
                assert_eq!(out, "", "{cmd:?}");
                assert!(
                    err.starts_with(&format!("kt2sql: error: {target}: {what}")),
                    "{cmd:?} {force:?}: {err}"
                );
            }
        }
        assert_eq!(std::fs::read(d.join("t.ktrace")).unwrap(), trace);
        assert_eq!(std::fs::read(d.join("ex.db")).unwrap(), db);
        assert_eq!(others(d, &["t.ktrace", "ex.db"]), Vec::<String>::new());
    }
}

#[test]
fn o_refuses_an_existing_file_without_force_and_replaces_it_whole_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let stdout = |args: &[&str]| {
        let a = kt2sql(d).args(args).assert().success();
        outputs(&a).0
    };
    for (cmd, file) in [
        (&["graph", "ex.db"][..], "g.dot"),
        (&["timeline", "ex.db"], "t.svg"),
        (&["deps", "ex.db", "/usr/src/proj/obj/main.o"], "main.d"),
        (&["tree", "ex.db"], "tree.dot"),
        (&["man"], "kt2sql.1"),
    ] {
        let mut expected = cmd.to_vec();
        if file.ends_with(".svg") {
            expected.extend(["--format", "svg"]);
        }
        if file.ends_with(".dot") && cmd[0] == "tree" {
            expected.extend(["--format", "dot"]);
        }
        if file.ends_with(".d") {
            expected.extend(["--format", "make"]);
        }
        let want = stdout(&expected);
        assert!(!want.is_empty(), "{cmd:?}");
        // A new file: what standard output gets, the format by extension.
        kt2sql(d).args(cmd).args(["-o", file]).assert().success();
        assert_eq!(std::fs::read_to_string(d.join(file)).unwrap(), want);
        // An existing one: refused without --force, left as it was.
        std::fs::write(d.join(file), "mine").unwrap();
        let a = kt2sql(d).args(cmd).args(["-o", file]).assert().code(2);
        let (_, err) = outputs(&a);
        assert_eq!(
            err,
            format!(
                "kt2sql: error: {file}: already exists; use --force to replace it \
                 (nothing was written)\n"
            )
        );
        assert_eq!(std::fs::read_to_string(d.join(file)).unwrap(), "mine");
        // --force (or -f) replaces it.
        kt2sql(d)
            .args(cmd)
            .args(["-o", file, "-f"])
            .assert()
            .success();
        assert_eq!(std::fs::read_to_string(d.join(file)).unwrap(), want);
        assert_eq!(
            others(d, &["t.ktrace", "ex.db", file]),
            Vec::<String>::new()
        );
        std::fs::remove_file(d.join(file)).unwrap();
    }
    // --force means nothing without -o: clap says so.
    let a = kt2sql(d)
        .args(["graph", "ex.db", "--force"])
        .assert()
        .code(2);
    assert!(outputs(&a).1.contains("--output <FILE>"));
}

/// `man --dir DIR` writes each page as -o writes a FILE: an existing page
/// only with --force, never over a trace, nothing left half-written.
#[test]
fn man_dir_writes_each_page_as_o_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let pages = d.join("man1");
    kt2sql(d).args(["man", "--dir", "man1"]).assert().success();
    let tree = std::fs::read_to_string(pages.join("kt2sql-tree.1")).unwrap();
    assert!(tree.contains(".TH"), "{tree}");
    let a = kt2sql(d).args(["man"]).assert().success();
    let top = outputs(&a).0;
    assert_eq!(
        std::fs::read_to_string(pages.join("kt2sql.1")).unwrap(),
        top
    );
    // Again: the first page already there is refused, and left alone.
    std::fs::write(pages.join("kt2sql-tree.1"), "mine").unwrap();
    let a = kt2sql(d).args(["man", "--dir", "man1"]).assert().code(2);
    assert!(
        outputs(&a).1.contains("already exists; use --force"),
        "{a:?}"
    );
    assert_eq!(
        std::fs::read_to_string(pages.join("kt2sql-tree.1")).unwrap(),
        "mine"
    );
    kt2sql(d)
        .args(["man", "--dir", "man1", "--force"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(pages.join("kt2sql-tree.1")).unwrap(),
        tree
    );
    // A trace where a page goes is never replaced.
    std::fs::copy(d.join("t.ktrace"), pages.join("kt2sql-tree.1")).unwrap();
    let a = kt2sql(d)
        .args(["man", "--dir", "man1", "-f"])
        .assert()
        .code(2);
    assert!(outputs(&a).1.contains("is a ktrace file"), "{a:?}");
    assert_eq!(
        std::fs::read(pages.join("kt2sql-tree.1")).unwrap(),
        std::fs::read(d.join("t.ktrace")).unwrap()
    );
    let left: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".1"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
    // -o and --dir are one or the other.
    kt2sql(d)
        .args(["man", "--dir", "man1", "-o", "x.1"])
        .assert()
        .code(2);
}

/// compile-commands without argv: the error, and no file made, nor an
/// existing one touched (even with --force); no temporary file left.
#[test]
fn compile_commands_without_argv_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    kt2sql(d)
        .args(["compile-commands", "ex.db", "-o", "cc.json"])
        .assert()
        .code(2);
    assert!(!d.join("cc.json").exists());
    std::fs::write(d.join("cc.json"), "[]").unwrap();
    kt2sql(d)
        .args(["compile-commands", "ex.db", "-o", "cc.json", "--force"])
        .assert()
        .code(2);
    assert_eq!(std::fs::read_to_string(d.join("cc.json")).unwrap(), "[]");
    assert_eq!(
        others(d, &["t.ktrace", "ex.db", "cc.json"]),
        Vec::<String>::new()
    );
}

/// `export` takes --force as every command does (and --replace, its old
/// name); arguments given the wrong way round are refused by name and
/// nothing is written over.
#[test]
fn export_takes_force_and_refuses_its_arguments_swapped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    kt2sql(d)
        .args(["export", "-q", "ex.db", "ds"])
        .assert()
        .success();
    let a = kt2sql(d).args(["export", "ex.db", "ds"]).assert().code(2);
    assert!(outputs(&a).1.contains("--force replaces it"));
    for force in ["--force", "-f", "--replace"] {
        kt2sql(d)
            .args(["export", "-q", force, "ex.db", "ds"])
            .assert()
            .success();
    }
    let db = std::fs::read(d.join("ex.db")).unwrap();
    for (args, err) in [
        (
            ["ex.db", "t.ktrace"],
            "kt2sql: error: t.ktrace: is a ktrace file, not a dataset directory: the dataset \
             directory comes last (kt2sql export DB DIR); nothing was written\n",
        ),
        (
            ["ex.db", "ex.db"],
            "kt2sql: error: ex.db: is a kt2sql database, not a dataset directory: the dataset \
             directory comes last (kt2sql export DB DIR); nothing was written\n",
        ),
        (
            ["t.ktrace", "ds2"],
            "kt2sql: error: t.ktrace: is a ktrace file, not a database: import it first \
             (kt2sql import TRACE DB), or write the dataset from it (kt2sql import --to \
             parquet TRACE DIR)\n",
        ),
    ] {
        let a = kt2sql(d).arg("export").args(args).assert().code(2);
        assert_eq!(outputs(&a).1, err, "{args:?}");
    }
    assert_eq!(std::fs::read(d.join("ex.db")).unwrap(), db);
    assert!(!d.join("ds2").exists());
}

/// `jsonl` on every report: one JSON object per line, the same rows as
/// the CSV (tree, files, stats with a `section` key, diff).
#[test]
fn every_report_writes_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let run = |args: &[&str], code: i32| {
        let a = kt2sql(d).args(args).assert().code(code);
        outputs(&a).0
    };
    for (cmd, code) in [
        (&["tree", "ex.db"][..], 0),
        (&["tree", "ex.db", "-v"], 0),
        (&["files", "ex.db"], 0),
        (&["files", "ex.db", "-v"], 0),
        (&["stats", "ex.db"], 0),
        (&["diff", "ex.db", "ex.db"], 0),
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--format", "jsonl"]);
        let jsonl = run(&args, code);
        let mut args = cmd.to_vec();
        args.extend(["--format", "csv"]);
        let csv = run(&args, code);
        let objects: Vec<serde_json::Value> = jsonl
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{cmd:?}: {l}: {e}")))
            .collect();
        assert!(objects.iter().all(|o| o.is_object()), "{cmd:?}");
        // Every CSV row is an object (stats: its sections' rows).
        let rows = csv.lines().count() - 1;
        assert!(rows > 0, "{cmd:?}");
        assert_eq!(objects.len(), rows, "{cmd:?}: {jsonl}");
        if cmd[0] == "stats" {
            assert!(objects.iter().all(|o| o.get("section").is_some()));
            let build = objects.iter().find(|o| o["section"] == "build").unwrap();
            assert_eq!(build["processes"], 6, "{build}");
            assert!(build.get("path").is_none(), "a section's own columns only");
        }
        if cmd == ["files", "ex.db"] {
            assert_eq!(objects[0], serde_json::json!({"path": "/bin/sh"}));
        }
    }
}
