//! Reports (issue #4): `tree`, `files` (`-a`, `-v`, `-p`) against
//! ktcompose's truth JSON in every dialect, through the library and the
//! binary; golden output on the example trace and the corpus; every
//! `queries/*.sql` under the real sqlite3 shell; safe output; `sql` and
//! `query` themselves; `timeline` and the critical path (issue #16), its
//! SVG within a row budget (issue #21).

mod build;
mod compile_commands;
mod compile_removed;
mod counts;
mod critical_rows;
mod deps;
mod diff;
mod golden;
mod graph;
mod lint;
mod lint_allow;
mod lint_real;
mod lint_scope;
mod query_blocks;
mod real_build;
mod safety;
mod scope;
mod shell;
mod sql;
pub mod summaries;
mod timeline;
mod timeline_scope;
mod timeline_svg;
mod timeline_truth;
mod tree_report;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::util::truth::{self, same};
use assert_cmd::Command;
use serde_json::{json, Value};

use crate::util::{compose, Composed};
use kt2sql::import::{import, ImportOptions, NoProgress};
use kt2sql::report::{self, files, tree, Scope};

pub fn kt2sql() -> Command {
    Command::cargo_bin("kt2sql").unwrap()
}

/// Import `traces` into `dir/name`, relative paths made absolute from `cwd`.
pub fn import_into(dir: &Path, name: &str, traces: &[PathBuf], cwd: Option<&str>) -> PathBuf {
    let db = dir.join(name);
    let opts = ImportOptions {
        start_cwd: cwd.map(|c| c.as_bytes().to_vec()),
        ..ImportOptions::default()
    };
    import(traces, &db, &opts, &NoProgress).expect("imports");
    db
}

/// A composed trace imported with the truth's start directory.
struct Imported {
    c: Composed,
    db: PathBuf,
    _dir: tempfile::TempDir,
}

fn composed(dialect: &str, seed: u64, extra: &[&str]) -> Imported {
    let c = compose(dialect, seed, extra);
    let dir = tempfile::tempdir().unwrap();
    let cwd = c.truth["start_cwd"].as_str().unwrap().to_string();
    let db = import_into(
        dir.path(),
        "t.db",
        std::slice::from_ref(&c.trace),
        Some(&cwd),
    );
    Imported { c, db, _dir: dir }
}

/// ktcompose's `[pid, comm, [children]]` nesting of a tree.
fn truth_shape(t: &tree::Tree) -> Value {
    fn node(t: &tree::Tree, i: usize) -> Value {
        let n = &t.nodes[i];
        let kids: Vec<Value> = n.children.iter().map(|&c| node(t, c)).collect();
        json!([n.pid, String::from_utf8_lossy(&n.comm), kids])
    }
    Value::Array(t.roots.iter().map(|&r| node(t, r)).collect())
}

/// The same from `kt2sql tree --format json`.
fn truth_shape_json(v: &Value) -> Value {
    let nodes = v
        .as_array()
        .unwrap()
        .iter()
        .map(|n| json!([n["pid"], n["comm"], truth_shape_json(&n["children"])]));
    Value::Array(nodes.collect())
}

fn paths(f: &files::Files) -> BTreeSet<String> {
    let v = f.entries.iter();
    v.map(|e| String::from_utf8(e.path.clone()).unwrap())
        .collect()
}

/// ktcompose's `{path: [[syscall, comm, pid]…]}`, sorted by (pid, syscall, comm).
fn callers(f: &files::Files) -> Value {
    let mut m = serde_json::Map::new();
    for e in &f.entries {
        let mut list: Vec<(i64, String, String)> = Vec::new();
        for (syscall, by) in &e.calls {
            for (comm, pid) in by {
                let s = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
                list.push((*pid, s(syscall), s(comm)));
            }
        }
        list.sort();
        let list = list.into_iter().map(|(p, s, c)| json!([s, c, p])).collect();
        m.insert(
            String::from_utf8(e.path.clone()).unwrap(),
            Value::Array(list),
        );
    }
    Value::Object(m)
}

fn check_truth(dialect: &str, seed: u64, extra: &[&str]) {
    let im = composed(dialect, seed, extra);
    let (t, ctx) = (&im.c.truth, format!("{dialect} seed {seed} {extra:?}"));
    let conn = report::open(&im.db).unwrap();
    summaries::check(&conn, &ctx);
    let all = Scope::default();
    let tr = tree::tree(&conn, all, false).unwrap();
    assert_eq!(truth_shape(&tr), t["tree"], "{ctx}: tree");
    let list = |scope, all, callers| {
        files::files(
            &conn,
            files::FilesOptions {
                scope,
                all,
                callers,
                unresolved: false,
                ..Default::default()
            },
        )
        .unwrap()
    };
    // Where records were lost, the lists are what the written records show,
    // with the exec RETs the model infers.
    let f = &truth::files_seen(t);
    let by_image = |v: &Value| truth::by_image(dialect, v, t);
    assert_eq!(
        paths(&list(all, false, false)),
        crate::util::strings(&f["n"]),
        "{ctx}: -n"
    );
    assert_eq!(
        paths(&list(all, true, false)),
        crate::util::strings(&f["n_a"]),
        "{ctx}: -a"
    );
    same(
        &callers(&list(all, false, true)),
        &by_image(&f["n_v"]),
        &format!("{ctx}: -v"),
    );
    same(
        &callers(&list(all, true, true)),
        &by_image(&f["n_a_v"]),
        &format!("{ctx}: -a -v"),
    );
    for (pid, sub) in t["subtrees"].as_object().unwrap() {
        if truth::lost_inside(t, sub) {
            continue;
        }
        let scope = Scope {
            trace: None,
            pid: Some(pid.parse().unwrap()),
        };
        let pids: BTreeSet<i64> = tree::tree(&conn, scope, false)
            .unwrap()
            .nodes
            .iter()
            .map(|n| n.pid)
            .collect();
        let want: BTreeSet<i64> = sub["pids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_i64().unwrap())
            .collect();
        assert_eq!(pids, want, "{ctx}: tree -p {pid}");
        let got = list(scope, false, false);
        assert_eq!(
            paths(&got),
            crate::util::strings(&sub["n"]),
            "{ctx}: -p {pid}"
        );
        let got = list(scope, true, false);
        assert_eq!(
            paths(&got),
            crate::util::strings(&sub["n_a"]),
            "{ctx}: -p {pid} -a"
        );
        same(
            &callers(&list(scope, false, true)),
            &by_image(&sub["n_v"]),
            &format!("{ctx}: -p {pid} -v"),
        );
        same(
            &callers(&list(scope, true, true)),
            &by_image(&sub["n_a_v"]),
            &format!("{ctx}: -p {pid} -a -v"),
        );
    }
}

/// [`check_truth`] on a committed trace: the fixture part of a test, which
/// must run without `../shared`, fails when the manifest lacks it.
fn check_committed(dialect: &str, seed: u64, extra: &[&str]) {
    crate::util::fixtures::committed(dialect, seed, extra);
    check_truth(dialect, seed, extra);
}

/// A plain build of every dialect, committed.
#[test]
fn reports_match_truth_on_plain_builds_of_every_dialect() {
    for d in crate::util::COMPOSE_DIALECTS {
        check_committed(d, 2, &[]);
    }
}

/// More seeds of the plain builds.
#[test]
fn reports_match_truth_in_every_dialect() {
    crate::require_shared!(python);
    for d in crate::util::COMPOSE_DIALECTS {
        for seed in [2, 9] {
            check_truth(d, seed, &[]);
        }
    }
}

/// Reports on traces as the kernels write them recorded with `-t cn`,
/// committed for every dialect (without `-t cn`:
/// [`reports_match_truth_on_the_committed_fixtures`]).
#[test]
fn reports_match_truth_on_faithful_cn_traces() {
    for d in crate::util::COMPOSE_DIALECTS {
        check_committed(d, 4, &["--faithful", "--trpoints", "cn"]);
    }
}

/// Reports on traces as the kernels write them (every behaviour
/// ktcompose models, with and without `-t cn`), other seeds.
#[test]
fn reports_match_truth_on_faithful_traces() {
    crate::require_shared!(python);
    for d in crate::util::COMPOSE_DIALECTS {
        check_truth(d, 2, &["--faithful"]);
        check_truth(d, 4, &["--faithful", "--trpoints", "cn"]);
    }
}

/// The same on the committed fixtures, which need no `../shared`: a
/// `--faithful` trace of every dialect, with and without `--hazards`.
#[test]
fn reports_match_truth_on_the_committed_fixtures() {
    for f in crate::util::fixtures::faithful() {
        check_truth(&f.dialect, f.seed, &f.args());
    }
}

/// An exec whose RET the kernel lost (a full queue) succeeded when its new
/// image shows itself: the model infers it (`exec-inferred`), and `files
/// -p PID` lists its program as a successful lookup of that process, as
/// the truth's real lists do.
#[test]
fn execs_whose_ret_was_lost_looked_up_their_program() {
    // The committed --faithful builds that lost an exec RET: FreeBSD's
    // marked loss and NetBSD's silent one.
    let faithful = ["--faithful", "--hazards"];
    for d in ["netbsd-v2-amd64", "freebsd-v1-amd64", "netbsd-v0-i386"] {
        crate::util::fixtures::committed(d, 4, &faithful);
        check_lost_exec_rets(d, 4, &faithful);
    }
}

/// The same on other seeds and a bigger build.
#[test]
fn execs_whose_ret_was_lost_in_other_builds_looked_up_their_program() {
    crate::require_shared!(python);
    let faithful = ["--faithful", "--hazards"];
    for (d, seed, extra) in [
        (
            "netbsd-v2-amd64",
            8352,
            &["--faithful", "--processes", "60"][..],
        ),
        ("netbsd-v2-amd64", 7, &faithful[..]),
        ("freebsd-v1-amd64", 7, &faithful[..]),
        ("freebsd-v0-i386", 7, &faithful[..]),
    ] {
        check_lost_exec_rets(d, seed, extra);
    }
}

/// Each exec RET the truth says was lost: its program is listed by
/// `files -p PID -v` and its exec inferred successful.
fn check_lost_exec_rets(d: &str, seed: u64, extra: &[&str]) {
    let im = composed(d, seed, extra);
    let (t, ctx) = (&im.c.truth, format!("{d} seed {seed} {extra:?}"));
    let conn = report::open(&im.db).unwrap();
    let lost: Vec<&Value> = t["dropped_records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["type"] == "RET" && r["syscall"] == "execve")
        .collect();
    assert!(!lost.is_empty(), "{ctx}: an exec RET is lost");
    for r in lost {
        let (pid, path) = (
            r["pid"].as_i64().unwrap(),
            r["exec"]["abs"].as_str().unwrap(),
        );
        let scope = Scope {
            trace: None,
            pid: Some(pid),
        };
        let opts = files::FilesOptions {
            scope,
            all: false,
            callers: true,
            unresolved: false,
            ..Default::default()
        };
        let got = callers(&files::files(&conn, opts).unwrap());
        let real = t["files"]["n_v"][path].as_array().unwrap();
        let want: Vec<&Value> = real
            .iter()
            .filter(|e| e[0] == "execve" && e[2] == pid)
            .collect();
        assert!(!want.is_empty(), "{ctx}: the truth's {path} for pid {pid}");
        for e in want {
            let listed = got[path].as_array().is_some_and(|l| l.contains(e));
            assert!(
                listed,
                "{ctx}: files -p {pid} -v lacks {path} {e}: {}",
                got[path]
            );
        }
        let inferred: i64 = conn
            .query_row(
                "SELECT count(*) FROM call JOIN process USING (process_id)
                 WHERE pid = ?1 AND syscall = 'execve' AND ret_offset IS NULL
                   AND success = 1 AND unpaired = 'superseded'",
                [pid],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(
            inferred, 1,
            "{ctx}: pid {pid}'s exec, success without a RET"
        );
    }
}

/// A deep busy build and two cut traces, committed.
#[test]
fn a_deep_tree_and_cut_traces_match_truth() {
    check_committed(
        "openbsd-amd64",
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
    );
    check_committed("netbsd-v2-amd64", 5, &["--hazards", "--truncate", "last"]);
    check_committed("freebsd-v0-i386", 6, &["--truncate", "150000"]);
}

/// Deeper trees in more dialects, and other cuts.
#[test]
fn deep_trees_and_truncated_traces_match_truth() {
    crate::require_shared!(python);
    let deep = ["--processes", "80", "--depth", "7", "--jobs", "8"];
    for d in ["freebsd-v1-amd64", "openbsd-amd64", "darwin-ppc"] {
        check_truth(d, 21, &deep);
    }
    check_truth("netbsd-v2-amd64", 5, &["--truncate", "last"]);
    check_truth("freebsd-v0-i386", 6, &["--truncate", "150000"]);
}

/// The same answers through the binary's JSON output.
#[test]
fn the_binary_gives_the_truth_too() {
    let im = composed("freebsd-v1-amd64", 3, &[]);
    let t = &im.c.truth;
    let run = |args: &[&str]| -> Value {
        let out = kt2sql().args(args).arg(&im.db).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let tree = run(&["tree", "--format", "json"]);
    assert_eq!(truth_shape_json(&tree), t["tree"]);
    let (pid, sub) = t["subtrees"].as_object().unwrap().iter().next().unwrap();
    let got = run(&["files", "-a", "-v", "-p", pid, "--format", "json"]);
    let mut m = serde_json::Map::new();
    for e in got.as_array().unwrap() {
        let mut list: Vec<(i64, String, String)> = Vec::new();
        for c in e["calls"].as_array().unwrap() {
            for by in c["by"].as_array().unwrap() {
                let s = |v: &Value| v.as_str().unwrap().to_string();
                list.push((
                    by["pid"].as_i64().unwrap(),
                    s(&c["syscall"]),
                    s(&by["comm"]),
                ));
            }
        }
        list.sort();
        let list = list.into_iter().map(|(p, s, c)| json!([s, c, p]));
        m.insert(e["path"].as_str().unwrap().into(), list.collect());
    }
    assert_eq!(Value::Object(m), sub["n_a_v"]);
    let plain = run(&["namei", "--format", "json"]);
    let plain: BTreeSet<String> = plain
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(plain, crate::util::strings(&t["files"]["n"]));
}

/// Two traces in one database (`--append`): reports cover both unless
/// `--trace` narrows them, and every pid of the example is now reused.
#[test]
fn appended_traces_are_all_covered_unless_trace_narrows() {
    let dir = tempfile::tempdir().unwrap();
    let example = crate::util::manifest_dir().join("example/build.ktrace");
    let db = import_into(
        dir.path(),
        "two.db",
        &[example.clone(), example.clone()],
        Some("/"),
    );
    let run = |args: &[&str]| {
        let o = kt2sql()
            .arg(args[0])
            .arg(&db)
            .args(&args[1..])
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {o:?}");
        let s = |b: Vec<u8>| String::from_utf8(b).unwrap();
        (s(o.stdout), s(o.stderr))
    };
    let (both, _) = run(&["tree"]);
    let (one, _) = run(&["tree", "--trace", "2"]);
    assert_eq!(both.matches("ktrace [2310]").count(), 2, "{both}");
    assert_eq!(one.matches("ktrace [2310]").count(), 1, "{one}");
    let (csv, _) = run(&["tree", "--trace", "2", "--format", "csv"]);
    let trace_id = |l: &str| l.split(',').nth(6).map(String::from);
    assert!(
        csv.lines()
            .skip(1)
            .all(|l| trace_id(l).as_deref() == Some("2")),
        "{csv}"
    );
    let (files, note) = run(&["files", "-p", "2313"]);
    assert!(note.contains("pid 2313 was 2 processes"), "{note}");
    let (narrowed, quiet) = run(&["files", "-p", "2313", "--trace", "2"]);
    // Text: each trace under its heading, then what --trace gives.
    let heading = |id: i64| format!("Trace {id}: {}\n", example.display());
    assert_eq!(
        files,
        format!("{}{narrowed}\n{}{narrowed}", heading(1), heading(2))
    );
    assert!(quiet.is_empty(), "{quiet}");
    let (stats, _) = run(&["stats"]);
    assert!(
        stats.contains("Trace 1: ") && stats.contains("Trace 2: "),
        "{stats}"
    );
}

/// Every query that takes a `--pid` subtree selects it from the one view
/// `_scope` (or from the build views that take it from there,
/// `_scope_changed_file` and `_scope_flow`), with the same test, and none
/// writes its own (pid_lifetimes.sql lists the lifetimes of a pid, not a
/// subtree).
#[test]
fn every_pid_scope_comes_from_the_scope_view() {
    let test = "WHERE root_pid IS NOT DISTINCT FROM $pid AND ($trace IS NULL OR trace_id = $trace)";
    let mut scoped = 0;
    for q in report::queries() {
        if !q.sql.contains("$pid") || q.file == "pid_lifetimes.sql" {
            continue;
        }
        // The SQL without its comment lines (the test may sit in a block,
        // between `-- block: scope` and `-- end block: scope`).
        let code = q.sql.lines().filter(|l| !l.trim_start().starts_with("--"));
        let flat = code
            .flat_map(str::split_whitespace)
            .collect::<Vec<_>>()
            .join(" ");
        let from = ["_scope", "_scope_changed_file", "_scope_flow"];
        assert!(
            from.iter()
                .any(|v| flat.contains(&format!("FROM {v} {test}"))),
            "{}",
            q.file
        );
        assert!(!q.sql.contains("process_descendant"), "{}", q.file);
        scoped += 1;
    }
    assert_eq!(scoped, 26);
}

/// `process_descendant` is the transitive closure of `process.parent_id`
/// (each process its own descendant at depth 0), and it is the only copy
/// of that recursion: no query file recurses over the tree again (the
/// critical path's walk is no closure).
#[test]
fn process_descendant_is_the_closure_of_parent_id() {
    let dir = tempfile::tempdir().unwrap();
    let example = crate::util::manifest_dir().join("example/build.ktrace");
    let db = import_into(dir.path(), "t.db", &[example], None);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let parents: Vec<(i64, Option<i64>)> = conn
        .prepare("SELECT process_id, parent_id FROM process")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut expected = BTreeSet::new();
    for &(id, _) in &parents {
        let (mut at, mut depth) = (Some(id), 0);
        while let Some(a) = at {
            expected.insert((a, id, depth));
            at = parents
                .iter()
                .find(|(p, _)| *p == a)
                .and_then(|(_, up)| *up);
            depth += 1;
        }
    }
    let got: BTreeSet<(i64, i64, i64)> = conn
        .prepare("SELECT ancestor_id, process_id, depth FROM process_descendant")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(expected.iter().any(|&(_, _, d)| d >= 2), "a tree 3 deep");
    assert_eq!(got, expected);
    // The critical path walks the tree one chosen step at a time (issue
    // #16): a walk, not a closure; its scope comes from _scope (which reads
    // process_descendant). deps.sql walks the tree once from its roots,
    // each command once, to give it its job (a walk too), and the file
    // flows (build_flow); its scope comes from _scope as well.
    for q in report::queries() {
        let walk =
            ["critical_path.sql", "deps.sql"].contains(&q.file) && q.sql.contains("FROM _scope");
        assert!(
            walk || !q.sql.contains("RECURSIVE"),
            "{} recurses itself; use process_descendant",
            q.file
        );
    }
}
