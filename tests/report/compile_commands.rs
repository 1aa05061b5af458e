//! `kt2sql compile-commands` (issue #15) on composed OpenBSD traces, the
//! only dialect ktcompose writes argv for (ARGS records): one entry per
//! compiler execution the database holds argv for, its directory the
//! truth's cwd of that command and its arguments the recorded argv, no
//! other command; `-p`, `--trace` and `-o`; and the error, naming which
//! recordings hold argv, on traces without any (FreeBSD, OpenBSD `-t cn`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use rusqlite::Connection;
use serde_json::Value;

use super::build::s;
use super::{composed, import_into, kt2sql};
use crate::util::manifest_dir;

/// One entry as a line: directory, arguments, file, output.
fn line(dir: &str, args: &[String], file: &str, output: Option<&str>) -> String {
    format!(
        "{dir} | {} | {file} | {}",
        args.join(" "),
        output.unwrap_or("-")
    )
}

/// The entries of `kt2sql compile-commands DB ARGS…`, parsed; stderr.
fn run(db: &Path, args: &[&str]) -> (Vec<String>, String) {
    let o = kt2sql()
        .arg("compile-commands")
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{args:?}: {o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let entries = v.as_array().expect("an array").iter().map(|e| {
        let keys: BTreeSet<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
        let allowed = BTreeSet::from(["directory", "arguments", "file", "output"]);
        assert!(keys.is_subset(&allowed), "{keys:?}");
        let args: Vec<String> = e["arguments"].as_array().unwrap().iter().map(s).collect();
        line(
            e["directory"].as_str().unwrap(),
            &args,
            e["file"].as_str().unwrap(),
            e.get("output").and_then(Value::as_str),
        )
    });
    (entries.collect(), String::from_utf8(o.stderr).unwrap())
}

/// What a compile-commands run must give, from the truth and the recorded
/// argv, told apart by ktcompose's own forms rather than by kt2sql's rules:
/// a command the truth calls `cc` whose argv compiles one `.c` file with
/// `-c` (its links and its `cc -cc1` children are no compilations). Each
/// with the truth key of its lifetime, in start order.
fn expected(conn: &Connection, b: &Value) -> Vec<(String, String)> {
    let truth: BTreeMap<String, &Value> = b["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (s(&c["id"]), c))
        .collect();
    let mut st = conn
        .prepare(
            "SELECT c.pid || '.' ||
                    (SELECT count(*) FROM process AS q
                     WHERE q.trace_id = c.trace_id AND q.pid = c.pid
                       AND q.process_id <= c.process_id) || '#' || c.image, c.argv
             FROM command AS c WHERE c.argv IS NOT NULL ORDER BY c.start_ts",
        )
        .unwrap();
    let rows = st
        .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .unwrap();
    let mut want = Vec::new();
    for row in rows {
        let (id, argv) = row.unwrap();
        let argv: Vec<String> = serde_json::from_str(&argv).unwrap();
        let t = truth[&id];
        let compiles = argv.iter().any(|a| a == "-c") && argv.last().unwrap().ends_with(".c");
        if s(&t["comm"]) == "cc" && compiles {
            let entry = line(
                t["cwd"].as_str().unwrap(),
                &argv,
                argv.last().unwrap(),
                None,
            );
            want.push((s(&t["key"]), entry));
        }
    }
    want
}

/// `dir/file` with `.` and `..` folded.
fn join(dir: &str, file: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in file.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

fn check(seed: u64, extra: &[&str]) {
    let im = composed("openbsd-amd64", seed, extra);
    let ctx = format!("openbsd-amd64 seed {seed} {extra:?}");
    let t = &im.c.truth;
    let b = t.get("build_visible").unwrap_or(&t["build"]);
    let conn = Connection::open(&im.db).unwrap();
    let want = expected(&conn, b);
    assert!(want.len() >= 2, "{ctx}: a build with compilations");
    let (got, note) = run(&im.db, &[]);
    assert!(note.is_empty(), "{ctx}: {note}");
    let lines: Vec<String> = want.iter().map(|(_, l)| l.clone()).collect();
    assert_eq!(got, lines, "{ctx}: entries, in start order");
    // Every C source the build read is the file of an entry.
    let files: BTreeSet<String> = got
        .iter()
        .map(|l| {
            let f: Vec<&str> = l.split(" | ").collect();
            join(f[0], f[2])
        })
        .collect();
    let read: BTreeSet<String> = b["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["role"] == "source" && s(&f["path"]).ends_with(".c"))
        .map(|f| s(&f["path"]))
        .collect();
    let missing: Vec<_> = read.difference(&files).collect();
    assert!(
        missing.is_empty(),
        "{ctx}: sources without an entry {missing:?}"
    );
    // --under and --exclude: the entries whose source is in (not in) a
    // directory tree, relative to the start directory or absolute.
    let start = s(&t["start_cwd"]);
    let source = |l: &String| {
        let f: Vec<&str> = l.split(" | ").collect();
        join(f[0], f[2])
    };
    let dirs: BTreeSet<String> = got
        .iter()
        .map(|l| {
            let src = source(l);
            src[..src.rfind('/').unwrap()].to_string()
        })
        .collect();
    for dir in &dirs {
        let rel = dir.strip_prefix(&format!("{start}/")).unwrap_or(dir);
        let inside = |l: &String| source(l).starts_with(&format!("{dir}/"));
        let (under, _) = run(&im.db, &["--under", rel]);
        let want: Vec<String> = got.iter().filter(|l| inside(l)).cloned().collect();
        assert_eq!(under, want, "{ctx}: --under {rel}");
        let (outside, _) = run(&im.db, &["--exclude", dir]);
        let want: Vec<String> = got.iter().filter(|l| !inside(l)).cloned().collect();
        assert_eq!(outside, want, "{ctx}: --exclude {dir}");
    }
    // -p: the compilations of the subtree's lifetimes.
    for (pid, sub) in t["subtrees"].as_object().unwrap() {
        // `keys` is there when pids were reused; else each pid had one life.
        let keys: BTreeSet<String> = match sub.get("keys") {
            Some(k) => k.as_array().unwrap().iter().map(s).collect(),
            None => sub["pids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| format!("{p}.1"))
                .collect(),
        };
        let (got, _) = run(&im.db, &["-p", pid]);
        let lines: Vec<String> = want
            .iter()
            .filter(|(k, _)| keys.contains(k))
            .map(|(_, l)| l.clone())
            .collect();
        assert_eq!(got, lines, "{ctx}: -p {pid}");
    }
}

/// On the committed builds, which need no `../shared`: plain, `--faithful`
/// with and without hazards, and a deep busy one.
#[test]
fn entries_are_the_compiler_executions_on_the_committed_fixtures() {
    for (seed, extra) in [
        (2, &[][..]),
        (4, &["--faithful"]),
        (4, &["--faithful", "--hazards"]),
        (
            21,
            &[
                "--processes",
                "40",
                "--depth",
                "7",
                "--jobs",
                "8",
                "--hazards",
            ],
        ),
    ] {
        crate::util::fixtures::committed("openbsd-amd64", seed, extra);
        check(seed, extra);
    }
}

/// Other seeds and a deeper build.
#[test]
fn entries_are_the_compiler_executions_with_their_cwd_and_argv() {
    crate::require_shared!(python);
    check(9, &[]);
    check(5, &["--faithful", "--hazards"]);
    check(21, &["--processes", "80", "--depth", "7", "--jobs", "8"]);
}

/// argv recorded, but no compiler ran in scope: `[]` and a note; `-o`
/// writes the file; two traces are refused without `--trace`, which
/// chooses one.
#[test]
fn empty_scopes_files_and_traces() {
    let im = composed("openbsd-amd64", 2, &[]);
    let conn = Connection::open(&im.db).unwrap();
    // A process that runs one tool and no compiler.
    let mv: i64 = conn
        .query_row(
            "SELECT pid FROM command WHERE comm IN ('mkdir', 'rm', 'install', 'mv') LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let (got, note) = run(&im.db, &["-p", &mv.to_string()]);
    assert!(got.is_empty());
    assert!(
        note.starts_with("kt2sql: note: no compiler execution"),
        "{note}"
    );
    let o = kt2sql()
        .args(["compile-commands", "-p", &mv.to_string()])
        .arg(&im.db)
        .output()
        .unwrap();
    assert_eq!(o.stdout, b"[]\n");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("compile_commands.json");
    let (all, _) = run(&im.db, &[]);
    let o = kt2sql()
        .arg("compile-commands")
        .arg(&im.db)
        .arg("-o")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        o.status.success() && o.stdout.is_empty() && o.stderr.is_empty(),
        "{o:?}"
    );
    let stdout = kt2sql()
        .arg("compile-commands")
        .arg(&im.db)
        .output()
        .unwrap()
        .stdout;
    assert_eq!(
        std::fs::read(&file).unwrap(),
        stdout,
        "-o writes what stdout gets"
    );

    let cwd = im.c.truth["start_cwd"].as_str().unwrap();
    let traces = [im.c.trace.clone(), im.c.trace.clone()];
    let two = import_into(dir.path(), "two.db", &traces, Some(cwd));
    let refused = kt2sql().arg("compile-commands").arg(&two).output().unwrap();
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(refused.stdout.is_empty(), "{refused:?}");
    assert!(
        err.contains("2 traces")
            && err.contains("--trace")
            && err.contains("1 (")
            && err.contains("2 ("),
        "{err}"
    );
    let (second, _) = run(&two, &["--trace", "2"]);
    assert_eq!(second, all);
}

/// No argv in scope: exit 2, one error line naming the database and the
/// recordings that hold argv, nothing on stdout, no file made by `-o`.
fn refused(db: &Path, system: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("compile_commands.json");
    let o = kt2sql()
        .arg("compile-commands")
        .arg(db)
        .arg("-o")
        .arg(&file)
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(o.stdout.is_empty());
    assert!(!file.exists(), "-o made a file");
    assert_eq!(err.lines().count(), 1, "{err}");
    let name = db.display().to_string();
    for part in [
        "kt2sql: error: ",
        name.as_str(),
        "never rebuilds a command line",
        "OpenBSD `ktrace -t x`",
        "NetBSD `ktrace -t a`",
        system,
    ] {
        assert!(err.contains(part), "{part:?} not in {err}");
    }
}

#[test]
fn traces_without_argv_are_refused_with_the_recordings_that_have_it() {
    let dir = tempfile::tempdir().unwrap();
    let example = manifest_dir().join("example/build.ktrace");
    let db = import_into(dir.path(), "ex.db", &[example], Some("/usr/src/proj"));
    refused(&db, "trace 1 (freebsd-v1:le:64: no ARGS records)");
    // Committed builds: FreeBSD writes no argv, OpenBSD without `-t x`,
    // NetBSD without `-t a`.
    let committed = |d: &str, seed: u64, extra: &[&str]| {
        crate::util::fixtures::committed(d, seed, extra);
        composed(d, seed, extra)
    };
    let im = committed("freebsd-v1-amd64", 4, &["--faithful"]);
    refused(&im.db, "freebsd-v1:le:64: no ARGS records");
    let im = committed("openbsd-amd64", 4, &["--faithful", "--trpoints", "cn"]);
    refused(&im.db, "openbsd:le:64: recorded without `ktrace -t x`");
    let im = committed("netbsd-v2-amd64", 2, &[]);
    refused(&im.db, "recorded without `ktrace -t a`");
}

/// docs/build.md's section states the rules: which programs, which invocations.
#[test]
fn docs_state_the_rules() {
    let doc = std::fs::read_to_string(manifest_dir().join("docs/build.md")).unwrap();
    let at = doc
        .find("## `kt2sql compile-commands")
        .expect("a compile-commands section");
    let section = &doc[at..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    for word in ["`as`", "`cpp`", "`-E`", "`-M`", "`-cc1`", "clangd"] {
        assert!(
            section.contains(word),
            "docs/build.md's section does not mention {word}"
        );
    }
}

/// An OpenBSD trace written record by record: one process that execs a
/// compiler three times: argv not UTF-8, no ARGS record at all, and a
/// compile with `-o`.
fn crafted() -> Vec<u8> {
    use crate::util::records::{call, rec, ret, T0};
    use crate::util::writer::TraceWriter;
    use kt2sql::record::Body;
    use std::borrow::Cow;
    let abi: kt2sql::decode::Abi = "openbsd:le:64".parse().unwrap();
    let b = |s: &[u8]| Cow::Owned(s.to_vec());
    let exec = |from: &'static str, to: &'static str, path: &[u8], argv: Option<&[u8]>| {
        let mut v = vec![
            (from, call(59, &[0x7000, 0x7040, 0x7060])),
            (from, Body::Namei(b(path))),
        ];
        if let Some(a) = argv {
            v.push((from, Body::ExecArgs(b(a))));
        }
        v.push((to, ret(59, -2, 0)));
        v
    };
    let mut bodies = vec![("", Body::Start)];
    bodies.extend(exec(
        "ktrace",
        "cc",
        b"/usr/bin/cc",
        Some(b"cc\0-c\0caf\xe9.c\0"),
    ));
    bodies.extend(exec("cc", "clang", b"/usr/bin/clang", None));
    bodies.extend(exec(
        "clang",
        "cc",
        b"/usr/bin/cc",
        Some(b"cc\0-c\0a.c\0-o\0obj/a.o\0"),
    ));
    bodies.push(("cc", call(1, &[0])));
    let records: Vec<_> = bodies
        .into_iter()
        .enumerate()
        .map(|(i, (comm, body))| {
            let start = matches!(body, Body::Start);
            let pid = if start { -1 } else { 4242 };
            let tid = (!start).then_some(549_797);
            rec(pid, tid, comm, T0 + 1000 * i as i64, body)
        })
        .collect();
    TraceWriter::new(abi).records(&records).bytes()
}

/// What JSON cannot hold exactly, or the format cannot place (no known
/// directory), is left out and counted on stderr, as are compiler
/// executions without argv.
#[test]
fn what_cannot_be_written_exactly_is_left_out_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("cc.ktrace");
    std::fs::write(&trace, crafted()).unwrap();
    let db = import_into(
        dir.path(),
        "d.db",
        std::slice::from_ref(&trace),
        Some("/src"),
    );
    let (got, note) = run(&db, &[]);
    let argv = ["cc", "-c", "a.c", "-o", "obj/a.o"].map(String::from);
    assert_eq!(got, [line("/src", &argv, "a.c", Some("obj/a.o"))]);
    assert!(
        note.contains(
            "kt2sql: note: 1 execution of a compiler program without argv recorded: left out"
        ),
        "{note}"
    );
    assert!(
        note.contains(
            "kt2sql: note: 1 compiler execution with an argv or directory that is not UTF-8"
        ),
        "{note}"
    );
    // Imported without -d: the root process's directory is unknown.
    let db = import_into(dir.path(), "n.db", std::slice::from_ref(&trace), None);
    let (got, note) = run(&db, &[]);
    assert!(got.is_empty());
    assert!(
        note.contains(
            "kt2sql: note: 2 compiler executions without a known working directory: left out"
        ),
        "{note}"
    );
}
