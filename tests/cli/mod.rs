//! Issue #14, a CLI that never surprises: options anywhere, the missing
//! argument named, a mistyped command caught, `-d` refused when relative,
//! lookups left relative said at import and under `files`, a heading per
//! trace, and clap's errors prefixed like every other.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use rusqlite::Connection;

use crate::require_shared;
use crate::util::{corpus, manifest_dir};

// Messages that are true: scope refusals, `-` for standard input, notes
// on what a report leaves out, parameters named.
mod messages;
// One vocabulary: -o and --force everywhere, never over an input; jsonl on every report.
mod vocabulary;

/// The kt2sql binary, run in `dir`.
fn kt2sql(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("kt2sql").unwrap();
    c.current_dir(dir);
    c
}

/// The example trace shipped in `example/`.
fn example() -> PathBuf {
    manifest_dir().join("example/build.ktrace")
}

/// stdout and stderr of a finished command.
fn outputs(a: &assert_cmd::assert::Assert) -> (String, String) {
    let o = a.get_output();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn an_option_between_the_traces_and_the_database_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    kt2sql(dir.path())
        .arg(example())
        .args(["-a", "ex2.db", "-q"])
        .assert()
        .success();
    kt2sql(dir.path())
        .arg(example())
        .args(["-a", "ex2.db", "-q"])
        .assert()
        .success();
    let n: i64 = Connection::open(dir.path().join("ex2.db"))
        .unwrap()
        .query_row("SELECT count(*) FROM trace", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 2, "the second -a appended");
}

#[test]
fn a_trace_alone_says_the_database_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    for args in [vec!["build.ktrace"], vec!["import", "build.ktrace"]] {
        std::fs::copy(example(), dir.path().join("build.ktrace")).unwrap();
        let a = kt2sql(dir.path()).args(&args).assert().code(2);
        let (_, err) = outputs(&a);
        assert!(
            err.starts_with("kt2sql: error: the database is missing"),
            "{args:?}: {err}"
        );
        assert!(err.contains("build.ktrace"), "{err}");
        assert!(!err.contains("<TRACE>"), "{err}");
    }
}

#[test]
fn a_mistyped_command_is_not_imported_as_a_file() {
    let dir = tempfile::tempdir().unwrap();
    for (typed, meant) in [("stat", "stats"), ("trees", "tree"), ("fils", "files")] {
        let a = kt2sql(dir.path()).args([typed, "x.db"]).assert().code(2);
        let (_, err) = outputs(&a);
        assert_eq!(
            err.trim_end(),
            format!(
                "kt2sql: error: {typed}: no such file, and not a command; did you mean '{meant}'?"
            )
        );
    }
    assert!(!dir.path().join("x.db").exists());
    // A file of that name is a trace: imported, not questioned.
    std::fs::copy(example(), dir.path().join("stat")).unwrap();
    kt2sql(dir.path())
        .args(["stat", "x.db", "-q"])
        .assert()
        .success();
}

#[test]
fn a_relative_start_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = kt2sql(dir.path())
        .arg(example())
        .args(["x.db", "-d", "src/proj"])
        .assert()
        .code(2);
    let (_, err) = outputs(&a);
    assert!(
        err.starts_with("kt2sql: error: -d src/proj: not an absolute path"),
        "{err}"
    );
    assert!(err.contains("on the traced machine"), "{err}");
    assert!(!dir.path().join("x.db").exists());
}

#[test]
fn clap_errors_carry_the_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let a = kt2sql(dir.path())
        .args(["tree", "--bogus", "x.db"])
        .assert()
        .code(2);
    let (_, err) = outputs(&a);
    assert!(
        err.starts_with("kt2sql: error: unexpected argument '--bogus'"),
        "{err}"
    );
}

/// Import the example without `-d`: 17 of its 52 lookups stay relative.
fn unresolved_example(dir: &Path) -> (PathBuf, String) {
    let a = kt2sql(dir).arg(example()).arg("e.db").assert().success();
    (dir.join("e.db"), outputs(&a).1)
}

#[test]
fn lookups_left_relative_are_said_at_import() {
    let dir = tempfile::tempdir().unwrap();
    let (db, err) = unresolved_example(dir.path());
    let warning = err.lines().next().unwrap();
    assert!(
        warning.ends_with(
            "build.ktrace: 17 of 52 lookups stayed relative (base directory unknown); \
             -d DIR, the directory the traced command started in, resolves them; \
             kt2sql files --unresolved lists them"
        ),
        "{err}"
    );
    assert!(
        err.contains(" 52 lookups (17 unresolved), 1 issue in "),
        "summary: {err}"
    );
    assert!(!err.contains(" paths,"), "the paths figure is gone: {err}");
    let (kind, severity, msg): (String, String, String) = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT kind, severity, message FROM import_issue",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(
        (kind.as_str(), severity.as_str()),
        ("unresolved-lookups", "warning")
    );
    assert!(msg.starts_with("17 of 52 lookups stayed relative"), "{msg}");
    assert!(msg.contains("-d DIR"), "{msg}");
    // With -d, nothing stays relative and nothing is said.
    let a = kt2sql(dir.path())
        .arg(example())
        .args(["d.db", "-d", "/usr/src/proj"])
        .assert()
        .success();
    let (_, err) = outputs(&a);
    assert!(!err.contains("relative"), "{err}");
    assert!(
        err.contains(" 52 lookups (0 unresolved), 0 issues in "),
        "{err}"
    );
}

#[test]
fn files_notes_and_lists_what_it_cannot_list() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = unresolved_example(dir.path());
    let a = kt2sql(dir.path()).arg("files").arg(&db).assert().success();
    let (out, err) = outputs(&a);
    assert!(!out.contains("Makefile"), "{out}");
    assert!(
        err.starts_with("kt2sql: note: 10 relative paths are not listed"),
        "{err}"
    );
    assert!(err.contains("kt2sql files --unresolved"), "{err}");
    let a = kt2sql(dir.path())
        .args(["files", "--unresolved"])
        .arg(&db)
        .assert()
        .success();
    let (out, err) = outputs(&a);
    assert_eq!(
        out,
        "Unresolved lookups (relative, base directory unknown):\n\
         ../src/main.c\n../src/util.c\n../tests\nMakefile\nmain.o\nmain.o.tmp\n\
         obj\nprog\nutil.o\nutil.o.tmp\n"
    );
    assert_eq!(err, "", "--unresolved lists them: no note");
}

/// One relative path is "1 relative path is"; `files --unresolved` has
/// the same columns in JSON and CSV (the paths; with -v their callers).
#[test]
fn files_unresolved_formats_agree_and_one_path_is_singular() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = unresolved_example(dir.path());
    let a = kt2sql(dir.path())
        .args(["files", "-p", "2315"])
        .arg(&db)
        .assert()
        .success();
    let err = outputs(&a).1;
    assert!(
        err.starts_with("kt2sql: note: 1 relative path is not listed: its base directory"),
        "{err}"
    );
    assert!(
        err.contains("lists it;") && err.ends_with("resolves it)\n"),
        "{err}"
    );
    // The command the note gives lists that path: it keeps the scope.
    assert!(err.contains(" -p 2315 lists it;"), "{err}");
    let run = |format: &str, verbose: bool| {
        let mut cmd = kt2sql(dir.path());
        cmd.args(["files", "--unresolved", "--format", format]);
        if verbose {
            cmd.arg("-v");
        }
        outputs(&cmd.arg(&db).assert().success()).0
    };
    let json: Vec<serde_json::Value> = serde_json::from_str(&run("json", false)).unwrap();
    let csv = run("csv", false);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("path"));
    let csv_paths: Vec<&str> = lines.collect();
    let json_paths: Vec<&str> = json
        .iter()
        .map(|o| {
            assert_eq!(o.as_object().unwrap().len(), 1, "{o}");
            o["path"].as_str().unwrap()
        })
        .collect();
    assert_eq!(csv_paths, json_paths);
    assert_eq!(csv_paths.len(), 10);
    // With -v, each caller: a CSV row per (path, syscall, comm, pid).
    let json: Vec<serde_json::Value> = serde_json::from_str(&run("json", true)).unwrap();
    let callers: usize = json
        .iter()
        .flat_map(|o| o["calls"].as_array().unwrap())
        .map(|c| c["by"].as_array().unwrap().len())
        .sum();
    let csv = run("csv", true);
    assert!(csv.starts_with("path,syscall,comm,pid\n"), "{csv}");
    assert_eq!(csv.lines().count() - 1, callers);
}

#[test]
fn the_corpus_traces_say_how_many_lookups_stayed_relative() {
    let shared = require_shared!();
    let dir = tempfile::tempdir().unwrap();
    // FreeBSD 9: 101 of 192; OpenBSD: the program's own input file (LICENSE)
    // and the program it ran (./get-mad).
    for (name, n, all, listed) in [
        ("freebsd9-i386", 101, 192, None),
        ("openbsd73-amd64", 4, 17, Some("./get-mad\nLICENSE\n")),
    ] {
        let db = dir.path().join(format!("{name}.db"));
        let a = kt2sql(dir.path())
            .arg(corpus(&shared, name))
            .arg(&db)
            .assert()
            .success();
        let (_, err) = outputs(&a);
        let said = format!("{n} of {all} lookups stayed relative");
        assert!(err.contains(&said), "{name}: {err}");
        assert!(
            err.contains(&format!(" {all} lookups ({n} unresolved), ")),
            "{name}: {err}"
        );
        let msg: String = Connection::open(&db)
            .unwrap()
            .query_row(
                "SELECT message FROM import_issue WHERE kind = 'unresolved-lookups'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(msg.starts_with(&said), "{name}: {msg}");
        let a = kt2sql(dir.path()).arg("files").arg(&db).assert().success();
        assert!(
            outputs(&a).1.contains("relative paths are not listed"),
            "{name}"
        );
        if let Some(listed) = listed {
            let a = kt2sql(dir.path())
                .args(["files", "--unresolved"])
                .arg(&db)
                .assert()
                .success();
            let out = outputs(&a).0;
            assert!(out.ends_with(listed), "{name}: {out}");
        }
    }
}

#[test]
fn several_traces_get_a_heading_each_in_text() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("two.db");
    for d in ["/usr/src/proj", "/usr/src/other"] {
        kt2sql(dir.path())
            .arg(example())
            .arg(&db)
            .args(["-a", "-q", "-d", d])
            .assert()
            .success();
    }
    let ex = example().display().to_string();
    let a = kt2sql(dir.path())
        .args(["files", "-p", "2314"])
        .arg(&db)
        .assert()
        .success();
    let part = |id: i64, base: &str| {
        format!(
            "Trace {id}: {ex}\nNamei list:\n/lib/libc.so.7\n/libexec/ld-elf.so.1\n/usr/bin/ld\n\
             /usr/lib/libc.so\n{base}/obj/main.o\n{base}/obj/prog\n{base}/obj/util.o\n"
        )
    };
    assert_eq!(
        outputs(&a).0,
        format!(
            "{}\n{}",
            part(1, "/usr/src/proj"),
            part(2, "/usr/src/other")
        )
    );
    let a = kt2sql(dir.path()).arg("tree").arg(&db).assert().success();
    let out = outputs(&a).0;
    assert!(
        out.starts_with(&format!("Trace 1: {ex}\nProcess tree:\n")),
        "{out}"
    );
    assert!(
        out.contains(&format!("\n\nTrace 2: {ex}\nProcess tree:\n")),
        "{out}"
    );
    assert_eq!(out.matches("ktrace [2310]").count(), 2);
    // One trace chosen, or another format: no heading.
    for args in [vec!["--trace", "2"], vec!["--format", "csv"]] {
        let a = kt2sql(dir.path())
            .arg("tree")
            .arg(&db)
            .args(&args)
            .assert()
            .success();
        assert!(!outputs(&a).0.contains("Trace 1:"), "{args:?}");
    }
}

#[test]
fn stats_top_limits_the_syscall_histogram_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e.db");
    kt2sql(dir.path())
        .arg(example())
        .arg(&db)
        .args(["-q", "-d", "/usr/src/proj"])
        .assert()
        .success();
    let a = kt2sql(dir.path())
        .args(["stats", "--top", "3"])
        .arg(&db)
        .assert()
        .success();
    let out = outputs(&a).0;
    let hist = &out[out.find("Syscalls:\n").unwrap()..];
    let rows: Vec<&str> = hist.lines().skip(2).collect();
    assert_eq!(rows.len(), 4, "{hist}");
    assert!(rows[0].trim_start().starts_with("open |"), "{hist}");
    assert!(rows[2].trim_start().starts_with("execve |"), "{hist}");
    assert_eq!(rows[3].trim(), "… (12 more syscalls; --top N shows N)");
    // The bars stay shares of every call made: open's 21 of 73 is 12 of
    // 40 (a fork's child returning is no call).
    assert!(
        rows[0].contains(&format!("|{:<40} 21", "@".repeat(12))),
        "{hist}"
    );
    let a = kt2sql(dir.path())
        .args(["stats", "--top", "3", "--format", "csv"])
        .arg(&db)
        .assert()
        .success();
    // Every section, by its `section` column: 3 syscalls, 12 left out.
    let csv = outputs(&a).0;
    assert!(csv.starts_with("section,"), "{csv}");
    let rows = |s: &str| {
        csv.lines()
            .filter(|l| l.starts_with(&format!("{s},")))
            .count()
    };
    assert_eq!(rows("syscalls"), 3, "{csv}");
    for section in ["traces", "build", "processes", "critical_path"] {
        assert!(rows(section) > 0, "{section}: {csv}");
    }
    let more = csv
        .lines()
        .find(|l| l.starts_with("syscalls_more,"))
        .unwrap();
    assert!(more.ends_with(",12"), "{more}");
}

#[test]
fn a_failed_call_stores_retval_minus_one_and_errno_is_an_integer_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e.db");
    kt2sql(dir.path())
        .arg(example())
        .arg(&db)
        .args(["-q", "-d", "/usr/src/proj"])
        .assert()
        .success();
    let conn = Connection::open(&db).unwrap();
    let q = |sql: &str| -> Vec<String> {
        let mut st = conn.prepare(sql).unwrap();
        st.query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    // The first execve of the example fails with ENOENT: raw error 2.
    assert_eq!(
        q(
            "SELECT DISTINCT format('%d %d %d %s', retval, error, errno, errno_name) \
           FROM call WHERE error > 0 ORDER BY 1"
        ),
        ["-1 2 2 ENOENT"]
    );
    assert_eq!(
        q("SELECT format('%d', count(*)) FROM call WHERE error > 0 AND retval <> -1"),
        ["0"]
    );
    // Every table or view with an errno column, and every canned query
    // returning one (its parameters unset: NULL, their documented default),
    // has an integer errno beside a text errno_name.
    let views = q(
        "SELECT m.name FROM sqlite_master AS m WHERE m.type IN ('table', 'view') \
         AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) AS p WHERE p.name = 'errno') \
         ORDER BY m.name",
    );
    for v in ["call", "call_detail", "namei_detail", "file_access"] {
        assert!(views.iter().any(|n| n == v), "{v} not among {views:?}");
    }
    let mut checked = Vec::new();
    for view in &views {
        let types = q(&format!(
            "SELECT DISTINCT typeof(errno) || ' ' || typeof(errno_name) FROM {view} \
             WHERE errno IS NOT NULL"
        ));
        assert_eq!(types, ["integer text"], "{view}");
        checked.push(view.clone());
    }
    let mut queries: Vec<PathBuf> = std::fs::read_dir(manifest_dir().join("queries"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    queries.sort();
    for path in &queries {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let mut st = conn
            .prepare(&std::fs::read_to_string(path).unwrap())
            .unwrap();
        let cols: Vec<String> = st.column_names().iter().map(|c| c.to_string()).collect();
        let Some(e) = cols.iter().position(|c| c == "errno") else {
            continue;
        };
        let n = cols.iter().position(|c| c == "errno_name");
        let n = n.unwrap_or_else(|| panic!("{name}: errno without errno_name"));
        let mut types = std::collections::BTreeSet::new();
        let mut rows = st.raw_query();
        while let Some(r) = rows.next().unwrap() {
            let t = |i: usize| format!("{:?}", r.get_ref(i).unwrap().data_type());
            if t(e) != "Null" {
                types.insert(format!("{} {}", t(e), t(n)));
            }
        }
        let types: Vec<String> = types.into_iter().collect();
        assert_eq!(types, ["Integer Text"], "queries/{name}.sql");
        checked.push(name);
    }
    for q in [
        "timeline_calls",
        "slow_calls",
        "tree_calls",
        "failed_lookups",
    ] {
        assert!(
            checked.iter().any(|c| c == q),
            "{q} not checked: {checked:?}"
        );
    }
}

#[test]
fn completions_and_manual_pages_come_from_the_clap_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let script = |shell: &str| {
        let a = kt2sql(dir.path())
            .args(["completions", shell])
            .assert()
            .success();
        outputs(&a).0
    };
    let bash = script("bash");
    assert!(
        bash.contains("_kt2sql()") && bash.contains("--start-dir"),
        "{bash}"
    );
    let checked = std::process::Command::new("bash")
        .args(["-n", "-c", &bash])
        .status();
    if let Ok(status) = checked {
        assert!(status.success(), "bash -n refuses the script");
    }
    assert!(script("zsh").starts_with("#compdef kt2sql"));
    assert!(script("fish").contains("complete -c kt2sql"));
    let a = kt2sql(dir.path()).arg("man").assert().success();
    let page = outputs(&a).0;
    assert!(page.contains(".TH kt2sql 1"), "{page}");
    assert!(page.contains("kt2sql\\-stats(1)"), "{page}");
    kt2sql(dir.path())
        .args(["man", "--dir", "."])
        .assert()
        .success();
    let import = std::fs::read_to_string(dir.path().join("kt2sql-import.1")).unwrap();
    assert!(import.contains("\\-\\-start\\-dir"), "{import}");
    assert!(dir.path().join("kt2sql-completions.1").exists());
}

/// Every manual page has EXIT STATUS, EXAMPLES (at least one) and SEE
/// ALSO, and kt2sql-lint(1) says what each hazard kind means.
#[test]
fn every_manual_page_has_exit_status_examples_and_see_also() {
    let dir = tempfile::tempdir().unwrap();
    kt2sql(dir.path())
        .args(["man", "--dir", "."])
        .assert()
        .success();
    let mut pages = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let page = std::fs::read_to_string(&path).unwrap();
        let name = path.display();
        for section in [
            ".SH \"EXIT STATUS\"",
            ".SH EXAMPLES\n.PP\n",
            ".SH \"SEE ALSO\"",
        ] {
            assert!(page.contains(section), "{name}: no {section}");
        }
        assert!(
            page.contains("kt2sql(1)") || page.contains("kt2sql-lint(1)"),
            "{name}"
        );
        pages += 1;
    }
    assert!(pages > 10, "{pages} pages");
    let lint = std::fs::read_to_string(dir.path().join("kt2sql-lint.1")).unwrap();
    let hazards = lint.split(".SH HAZARDS").nth(1).expect("a HAZARDS section");
    for kind in [
        "double-write",
        "race",
        "used-then-changed",
        "ghost-later-created",
        "read-outside",
    ] {
        let entry = format!(".TP\n\\fB{kind}\\fR\n");
        assert!(hazards.contains(&entry), "kt2sql-lint(1) explains {kind}");
    }
}

/// One `--format` vocabulary: `text` for people everywhere, `table` still
/// taken (hidden) for it, each command refusing a format it has not with
/// the list of those it takes.
#[test]
fn one_format_vocabulary_with_table_kept_for_text() {
    let dir = tempfile::tempdir().unwrap();
    kt2sql(dir.path())
        .arg(example())
        .args(["ex.db", "-q"])
        .assert()
        .success();
    let out = |args: &[&str]| {
        let a = kt2sql(dir.path()).args(args).assert().success();
        outputs(&a).0
    };
    for cmd in [
        &[
            "sql",
            "ex.db",
            "SELECT pid FROM process ORDER BY process_id",
        ][..],
        &["query", "ex.db", "traces"],
        &["inputs", "ex.db"],
        &["outputs", "ex.db"],
        &["lint", "ex.db", "--allow", "/usr", "--exit-zero"],
        &["tree", "ex.db"],
        &["stats", "ex.db"],
    ] {
        let default = out(cmd);
        assert!(!default.is_empty(), "{cmd:?}");
        let mut text = cmd.to_vec();
        text.extend(["--format", "text"]);
        let mut table = cmd.to_vec();
        table.extend(["--format", "table"]);
        assert_eq!(out(&text), default, "{cmd:?}");
        assert_eq!(out(&table), default, "{cmd:?}");
    }
    for (cmd, refused, takes) in [
        (
            &["tree", "ex.db"][..],
            "make",
            "text, csv, json, jsonl, dot",
        ),
        (&["files", "ex.db"], "dot", "text, csv, json, jsonl"),
        (&["stats", "ex.db"], "dot", "text, csv, json, jsonl"),
        (&["diff", "ex.db", "ex.db"], "dot", "text, csv, json, jsonl"),
        (
            &["sql", "ex.db", "SELECT 1"],
            "dot",
            "text, csv, json, jsonl",
        ),
        (&["timeline", "ex.db"], "text", "chrome, svg"),
        (&["graph", "ex.db"], "json", "dot"),
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--format", refused]);
        let a = kt2sql(dir.path()).args(&args).assert().code(2);
        let (_, err) = outputs(&a);
        assert!(
            err.starts_with(&format!("kt2sql: error: invalid value '{refused}'")),
            "{args:?}: {err}"
        );
        assert!(
            err.contains(&format!("[possible values: {takes}]")),
            "{args:?}: {err}"
        );
    }
}
