//! Messages that are true: every command refuses a `--trace` that names
//! no trace with one message; `-` is standard input; a mistyped first word
//! is not a trace; what a build report leaves out is said on stderr;
//! `sql`/`query` parameters are named when wrong or missing; wording.

use std::path::{Path, PathBuf};

use super::{example, kt2sql, outputs};
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
    let (code, _, err) = run(dir.path(), &["query", db, "pid_lifetimes"]);
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

/// A trace imported with `-d /w` whose one lookup stays relative anyway:
/// `cc` opens `rel.h` relative to a directory fd (7) opened before
/// tracing began.
fn dirfd_db(dir: &Path) -> PathBuf {
    use crate::util::records::{call, rec, ret, T0};
    use crate::util::writer::TraceWriter;
    use kt2sql::record::Body;
    let abi = "freebsd-v1:le:64".parse().unwrap();
    let mut t = T0;
    let mut at = |body: Body<'static>| {
        t += 1000;
        let mut r = rec(100, Some(1001), "cc", t, body);
        r.version = 1;
        r
    };
    let rs = vec![
        at(call(499, &[7, 0x1000, 0])),
        at(Body::Namei(b"rel.h".to_vec().into())),
        at(ret(499, 0, 3)),
        at(call(1, &[0])),
    ];
    let trace = dir.join("fd.out");
    std::fs::write(&trace, TraceWriter::new(abi).records(&rs).bytes()).unwrap();
    kt2sql(dir)
        .arg(&trace)
        .args(["fd.db", "-q", "-d", "/w"])
        .assert()
        .success();
    dir.join("fd.db")
}

#[test]
fn build_reports_say_what_lookups_left_relative_leave_out() {
    let dir = tempfile::tempdir().unwrap();
    let (e, d) = example_dbs(dir.path());
    let e = e.to_str().unwrap();
    let advice = "importing with -d DIR, the directory the traced command started in, \
                  resolves them)\n";
    for cmd in ["inputs", "outputs", "lint"] {
        // lint checks reads only with --allow, and exits 1 when it
        // lists one.
        let allow: &[&str] = match cmd {
            "lint" => &["--allow", "/usr/src/proj"],
            _ => &[],
        };
        let code = i32::from(cmd == "lint");
        let (got, out, err) = run(dir.path(), &[&[cmd, e], allow].concat());
        assert_eq!(got, Some(code), "{cmd}: {err}");
        assert!(out.starts_with("path") || out.starts_with("kind"), "{out}");
        let note = err.lines().next().unwrap_or_default();
        assert_eq!(
            format!("{note}\n"),
            format!(
                "kt2sql: note: 17 lookups stayed relative (base directory unknown) and are \
                 not in this report (kt2sql files --unresolved {e} lists them; {advice}"
            ),
            "{cmd}"
        );
        // Imported with -d, nothing is left out and nothing is said.
        let (got, out, err) = run(dir.path(), &[&[cmd, d.to_str().unwrap()], allow].concat());
        assert_eq!(got, Some(code), "{cmd}: {err}");
        let err: Vec<&str> = err
            .lines()
            .filter(|l| !l.starts_with("kt2sql: lint:"))
            .collect();
        assert!(err.is_empty(), "{cmd}: {err:?}");
        assert!(out.lines().count() > 2, "{cmd}: {out}");
    }
    // -p keeps its scope in the note.
    let (_, _, err) = run(dir.path(), &["inputs", e, "-p", "2313"]);
    assert!(
        err.contains("3 lookups stayed relative")
            && err.contains("--unresolved")
            && err.contains(" -p 2313 lists them"),
        "{err}"
    );
}

#[test]
fn notes_advise_d_only_when_the_import_lacked_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dirfd_db(dir.path());
    let db = db.to_str().unwrap();
    let (code, out, err) = run(dir.path(), &["files", db]);
    assert_eq!(code, Some(0));
    assert_eq!(out, "Namei list:\n");
    assert_eq!(
        err,
        format!(
            "kt2sql: note: 1 relative path is not listed: its base directory is unknown \
             (kt2sql files --unresolved {db} lists it; -d at import does not resolve it: its \
             base, a directory fd or the working directory of a process already running \
             when tracing began, is not in the trace)\n"
        )
    );
    let (code, _, err) = run(dir.path(), &["inputs", db]);
    assert_eq!(code, Some(0));
    assert!(
        err.contains("1 lookup stayed relative (base directory unknown) and is not"),
        "{err}"
    );
    assert!(err.contains("-d at import does not resolve it"), "{err}");
    assert!(!err.contains("importing with -d"), "{err}");
}

#[test]
fn relative_under_and_allow_are_taken_from_the_start_directory_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (e, d) = example_dbs(dir.path());
    let (e, d) = (e.to_str().unwrap(), d.to_str().unwrap());
    let same = |relative: &[&str], absolute: &[&str]| {
        let (code, rel, err) = run(dir.path(), relative);
        // lint exits 1 when it lists a hazard.
        assert_eq!(
            code,
            Some(i32::from(relative[0] == "lint")),
            "{relative:?}: {err}"
        );
        let (_, abs, _) = run(dir.path(), absolute);
        assert_eq!(rel, abs, "{relative:?}");
        assert!(rel.lines().count() > 2, "{relative:?}: {rel}");
    };
    same(
        &["outputs", d, "--under", "obj"],
        &["outputs", d, "--under", "/usr/src/proj/obj"],
    );
    same(
        &["inputs", d, "--under", "./src/../src/"],
        &["inputs", d, "--under", "/usr/src/proj/src"],
    );
    same(
        &["lint", d, "--allow", ".", "--allow", "../../../lib"],
        &["lint", d, "--allow", "/usr/src/proj", "--allow", "/lib"],
    );
    for (cmd, flag) in [
        ("outputs", "--under"),
        ("inputs", "--under"),
        ("lint", "--allow"),
    ] {
        let (code, out, err) = run(dir.path(), &[cmd, e, flag, "src"]);
        assert_eq!(code, Some(2), "{cmd}: {err}");
        assert_eq!(out, "");
        assert_eq!(
            err,
            format!(
                "kt2sql: error: {e}: {flag} src: a relative directory, and trace 1 was \
                 imported without -d, so what it is relative to is unknown: give an \
                 absolute path\n"
            )
        );
    }
}

/// `dump --help` and kt2sql-dump(1) say `e` is emulation (exec arguments
/// and environment have letters of their own), and `tree`/`files` say
/// `-p` takes every process that had the pid, as they do.
#[test]
fn help_says_what_e_and_p_select() {
    let dir = tempfile::tempdir().unwrap();
    let (code, help, _) = run(dir.path(), &["dump", "--help"]);
    assert_eq!(code, Some(0));
    assert!(help.contains("e emulation"), "{help}");
    assert!(!help.contains("exec env or emulation"), "{help}");
    assert_eq!(run(dir.path(), &["man", "--dir", "."]).0, Some(0));
    let page = std::fs::read_to_string(dir.path().join("kt2sql-dump.1")).unwrap();
    assert!(page.contains("e emulation"), "{page}");
    assert!(!page.contains("env or emulation"), "{page}");
    for cmd in ["tree", "files"] {
        for h in ["-h", "--help"] {
            let (code, help, _) = run(dir.path(), &[cmd, h]);
            assert_eq!(code, Some(0));
            let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                help.contains("a reused pid takes every process that had it"),
                "{cmd} {h}: {help}"
            );
            assert!(!help.contains("first process"), "{cmd} {h}: {help}");
        }
    }
}
