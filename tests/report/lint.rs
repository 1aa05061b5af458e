//! `kt2sql lint` against the truth's hazards: exactly the truth's
//! hazards, each with every command it names (every writer of a
//! double-write) as pid, comm and command id, with the times that show it,
//! absolute and from the start of the trace; a summary line per kind on
//! stderr; exit 1 when it reports a hazard (0 with `--exit-zero`), and
//! `--kind` choosing kinds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use super::build::{assert_same, s};
use super::kt2sql;

/// `lint ARGS --format json`: the exit code, the rows and stderr.
pub fn lint_json(db: &Path, args: &[&str]) -> (i32, Vec<Value>, String) {
    let out = kt2sql()
        .arg("lint")
        .arg(db)
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    let code = out.status.code().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    (code, rows.as_array().unwrap().clone(), err)
}

/// One line per hazard of the truth's form: kind, path, commands (by
/// truth id) and times (ns), from lint's rows (a double-write's rows,
/// one per later writer, grouped into one).
fn hazard_lines(rows: &[Value], ids: &BTreeMap<i64, String>, first_ns: i64) -> BTreeSet<String> {
    let mut writes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut lines = BTreeSet::new();
    for r in rows {
        let id = |k: &str| ids[&r[k].as_i64().unwrap()].clone();
        let (kind, path) = (s(&r["kind"]), s(&r["path"]));
        // Seconds from the trace's first record, to the microsecond.
        for (ts, el) in [("ts", "elapsed"), ("other_ts", "other_elapsed")] {
            let want = (r[ts].as_i64().unwrap() - first_ns) as f64 / 1e9;
            let got = r[el].as_f64().unwrap();
            assert!(
                (got - want).abs() < 1e-6,
                "{kind} {path}: {el} {got} {want}"
            );
        }
        for (pid, comm, cmd) in [
            ("pid", "comm", "command_id"),
            ("other_pid", "other_comm", "other_id"),
        ] {
            let named = id(cmd);
            assert!(named.starts_with(&format!("{}.", r[pid])), "{named} {r}");
            assert!(r[comm].is_string(), "{r}");
        }
        if kind == "double-write" {
            let w = writes
                .entry(path)
                .or_insert_with(|| vec![format!("{}@{}", id("command_id"), r["ts"])]);
            w.push(format!("{}@{}", id("other_id"), r["other_ts"]));
        } else {
            let times = format!("{} {}", r["ts"], r["other_ts"]);
            let cmds = format!("{},{}", id("command_id"), id("other_id"));
            lines.insert(format!("{kind} {path} {cmds} {times}"));
        }
    }
    for (path, w) in writes {
        lines.insert(format!("double-write {path} {}", w.join(",")));
    }
    lines
}

/// The same from the truth.
fn truth_lines(b: &Value) -> BTreeSet<String> {
    let hazards = b["hazards"].as_array().unwrap().iter();
    hazards
        .map(|h| {
            let (kind, path, d) = (s(&h["kind"]), s(&h["path"]), &h["detail"]);
            let c: Vec<String> = h["commands"].as_array().unwrap().iter().map(s).collect();
            match kind.as_str() {
                "double-write" => {
                    let w = d["writes"].as_array().unwrap().iter();
                    let w: Vec<String> = w.map(|w| format!("{}@{}", s(&w[0]), w[1])).collect();
                    format!("{kind} {path} {}", w.join(","))
                }
                "ghost-later-created" => format!(
                    "{kind} {path} {} {} {}",
                    c.join(","),
                    d["lookup_ns"],
                    d["create_ns"]
                ),
                _ => format!(
                    "{kind} {path} {} {} {}",
                    c.join(","),
                    d["read_ns"],
                    d["write_ns"]
                ),
            }
        })
        .collect()
}

/// The summary lines the truth's hazards make, one per kind.
fn truth_summary(b: &Value) -> Vec<String> {
    let mut by_kind: BTreeMap<String, (usize, BTreeSet<String>)> = BTreeMap::new();
    for h in b["hazards"].as_array().unwrap() {
        let e = by_kind.entry(s(&h["kind"])).or_default();
        // A row per pair of commands: a double-write's writers after the
        // first, each with the first.
        e.0 += match h["kind"] == "double-write" {
            true => h["commands"].as_array().unwrap().len() - 1,
            false => 1,
        };
        e.1.insert(s(&h["path"]));
    }
    let order = [
        "double-write",
        "race",
        "used-then-changed",
        "ghost-later-created",
    ];
    let kinds = order.iter().filter_map(|k| by_kind.get(*k).map(|v| (k, v)));
    let mut lines: Vec<String> = kinds
        .map(|(k, (n, paths))| {
            let p = paths.len();
            let s = if p == 1 { "" } else { "s" };
            format!("kt2sql: lint: {n} {k} on {p} path{s}")
        })
        .collect();
    let rows: usize = by_kind.values().map(|(n, _)| n).sum();
    if rows > 0 {
        let s = if rows == 1 { "" } else { "s" };
        lines.push(format!(
            "kt2sql: lint: {rows} hazard{s}, one per row: a kind, a path and the commands in it"
        ));
    }
    lines
}

/// lint --all lists exactly the truth's hazards (build_visible's when
/// records were lost), exits 1 when there is one, and `--kind` keeps one
/// kind; by default it lists some of them.
pub fn check_lint(db: &Path, t: &Value, ids: &BTreeMap<i64, String>, ctx: &str) {
    let b = t.get("build_visible").unwrap_or(&t["build"]);
    let conn = rusqlite::Connection::open(db).unwrap();
    let first_ns: i64 = conn
        .query_row("SELECT min(first_ts) FROM trace", [], |r| r.get(0))
        .unwrap();
    let (code, rows, err) = lint_json(db, &["--all"]);
    let (_, default, _) = lint_json(db, &[]);
    assert!(
        default.iter().all(|r| rows.contains(r)),
        "{ctx}: lint within --all"
    );
    let want = truth_lines(b);
    assert_same(
        &hazard_lines(&rows, ids, first_ns),
        &want,
        &format!("{ctx}: lint"),
    );
    assert_eq!(code, i32::from(!want.is_empty()), "{ctx}: lint's exit");
    let summary: Vec<String> = err
        .lines()
        .filter(|l| l.starts_with("kt2sql: lint:"))
        .map(String::from)
        .collect();
    assert_eq!(summary, truth_summary(b), "{ctx}: lint's summary");
    let (code, _, _) = lint_json(db, &["--exit-zero", "--all"]);
    assert_eq!(code, 0, "{ctx}: --exit-zero");
    for kind in ["race", "ghost-later-created"] {
        let args = ["--all", "--kind", kind, "--kind", "double-write"];
        let (code, rows, _) = lint_json(db, &args);
        let got: BTreeSet<String> = rows
            .iter()
            .map(|r| format!("{} {}", s(&r["kind"]), s(&r["path"])))
            .collect();
        let hz = b["hazards"].as_array().unwrap().iter();
        let want: BTreeSet<String> = hz
            .filter(|h| h["kind"] == kind || h["kind"] == "double-write")
            .map(|h| format!("{} {}", s(&h["kind"]), s(&h["path"])))
            .collect();
        assert_same(&got, &want, &format!("{ctx}: lint --kind {kind}"));
        assert_eq!(code, i32::from(!want.is_empty()), "{ctx}: --kind {kind}");
    }
}

/// The example build has no hazard: lint prints nothing and exits 0.
#[test]
fn a_clean_build_lints_silently() {
    let dir = tempfile::tempdir().unwrap();
    let example = crate::util::manifest_dir().join("example/build.ktrace");
    let db = super::import_into(dir.path(), "ex.db", &[example], Some("/usr/src/proj"));
    let out = kt2sql().arg("lint").arg(&db).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"");
    assert_eq!(out.stderr, b"");
    // Checking reads: everything the example's commands read outside
    // the tree, but nothing the tracer (ktrace before its exec of make)
    // read: /usr/bin/make is make's own program.
    let (code, rows, _) = lint_json(&db, &["--allow", "/usr/src/proj"]);
    assert_eq!(code, 1);
    let paths: BTreeSet<String> = rows.iter().map(|r| s(&r["path"])).collect();
    assert!(paths.contains("/usr/include/stdio.h"), "{paths:?}");
    assert!(!paths.contains("/usr/bin/make"), "{paths:?}");
    assert!(rows.iter().all(|r| r["comm"] != "ktrace"), "{rows:?}");
    // read-outside needs the allowed directories.
    let out = kt2sql()
        .arg("lint")
        .arg(&db)
        .args(["--kind", "read-outside"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs --allow DIR"));
}

/// `lint ARGS` on `db`: the exit code, stdout and stderr.
fn lint_raw(db: &Path, args: &[&str]) -> (i32, String, String) {
    let out = kt2sql().arg("lint").arg(db).args(args).output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (
        out.status.code().unwrap(),
        text(out.stdout),
        text(out.stderr),
    )
}

/// `kind path` of each truth hazard (one per double-write's later writer,
/// as lint's rows) whose path `keep` keeps.
fn truth_kind_paths(b: &Value, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    for h in b["hazards"].as_array().unwrap() {
        let path = s(&h["path"]);
        if !keep(&path) {
            continue;
        }
        let n = match h["kind"] == "double-write" {
            true => h["commands"].as_array().unwrap().len() - 1,
            false => 1,
        };
        out.extend(std::iter::repeat_n(format!("{} {path}", s(&h["kind"])), n));
    }
    out.sort();
    out
}

/// `kind path` of each of lint's rows.
fn row_kind_paths(rows: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = rows
        .iter()
        .map(|r| format!("{} {}", s(&r["kind"]), s(&r["path"])))
        .collect();
    out.sort();
    out
}

/// Whether `path` is `dir` or below it.
fn below(path: &str, dir: &str) -> bool {
    path == dir || path.starts_with(&format!("{dir}/"))
}

/// On the committed --faithful --hazards builds: the summary counts the
/// rows printed; `--under` and `--exclude` (relative to the start
/// directory) split the truth's hazards by path; a temporary that two
/// make recipes share (the truth's role `temporary`) is still reported;
/// a baseline written by `--format json` accepts every hazard (exit 0,
/// nothing printed), and one that lacks a row fails on that row only.
#[test]
fn lint_under_exclude_and_a_baseline_on_composed_builds() {
    for d in ["openbsd-amd64", "freebsd-v1-amd64", "netbsd-v2-amd64"] {
        let im = super::composed(d, 4, &["--faithful", "--hazards"]);
        let (db, t) = (&im.db, &im.c.truth);
        let b = t.get("build_visible").unwrap_or(&t["build"]);
        let top = s(&t["start_cwd"]);
        let obj = format!("{top}/obj");
        let (_, all, err) = lint_json(db, &[]);
        assert_eq!(row_kind_paths(&all), truth_kind_paths(b, |_| true), "{d}");
        // The summary: rows per kind, then the rows in all.
        let n = all.len();
        let last = format!("kt2sql: lint: {n} hazards, one per row:");
        assert!(err.lines().any(|l| l.starts_with(&last)), "{d}: {err}");
        let dw = all.iter().filter(|r| r["kind"] == "double-write").count();
        assert!(
            err.contains(&format!("kt2sql: lint: {dw} double-write on ")),
            "{d}: {err}"
        );
        // --under and --exclude, a relative DIR from the start directory.
        let (_, under, _) = lint_json(db, &["--under", "obj"]);
        let want = truth_kind_paths(b, |p| below(p, &obj));
        assert!(!want.is_empty(), "{d}: hazards under obj");
        assert_eq!(row_kind_paths(&under), want, "{d}: --under obj");
        let (_, rest, _) = lint_json(db, &["--exclude", "obj", "--exclude", "include/"]);
        let inc = format!("{top}/include");
        let want = truth_kind_paths(b, |p| !below(p, &obj) && !below(p, &inc));
        assert_eq!(row_kind_paths(&rest), want, "{d}: --exclude obj include");
        assert!(
            rest.len() < all.len() - under.len(),
            "{d}: include has hazards"
        );
        // Every hazard of these builds is between commands make runs:
        // nothing is left out, nor is a rule refined.
        let (_, every, _) = lint_json(db, &["--all"]);
        assert_eq!(every, all, "{d}: lint --all");
        // The baseline: the JSON output accepts all of it.
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("base.json");
        let out = kt2sql()
            .arg("lint")
            .arg(db)
            .args(["--format", "json"])
            .output()
            .unwrap();
        std::fs::write(&base, &out.stdout).unwrap();
        let base_arg = base.to_str().unwrap();
        let (code, out, err) = lint_raw(db, &["--baseline", base_arg]);
        assert_eq!((code, out.as_str()), (0, ""), "{d}: {err}");
        let accepted = format!("kt2sql: lint: {n} more in the baseline, not shown; no new hazard");
        assert!(err.contains(&accepted), "{d}: {err}");
        // Without the first used-then-changed row, that row is new.
        let mut rows = all.clone();
        let at = rows
            .iter()
            .position(|r| r["kind"] == "used-then-changed")
            .unwrap();
        let gone = rows.remove(at);
        std::fs::write(&base, serde_json::to_vec(&rows).unwrap()).unwrap();
        let (code, new, err) = lint_json(db, &["--baseline", base_arg]);
        assert_eq!(code, 1, "{d}: {err}");
        assert_eq!(new, vec![gone], "{d}: the row the baseline lacks");
        assert!(
            err.contains(&format!("{} more in the baseline", n - 1)),
            "{d}: {err}"
        );
        // A garbled or missing baseline: exit 2, naming the file.
        std::fs::write(&base, b"[{\"kind\": \"race\"}]").unwrap();
        let (code, out, err) = lint_raw(db, &["--baseline", base_arg]);
        assert_eq!((code, out.as_str()), (2, ""), "{d}");
        assert!(
            err.contains(&format!("--baseline {base_arg}: not a")),
            "{err}"
        );
        assert!(err.contains("row 1 has no rel_path"), "{err}");
        let missing = dir.path().join("none.json");
        let (code, _, err) = lint_raw(db, &["--baseline", missing.to_str().unwrap()]);
        assert_eq!(code, 2, "{d}");
        assert!(
            err.contains(&format!("--baseline {}", missing.display())),
            "{err}"
        );
    }
}

/// A baseline matches hazards by kind, path relative to the start
/// directory and command names: the same build composed in another
/// directory passes against the first one's baseline, whose paths all
/// differ.
#[test]
fn a_baseline_matches_the_same_build_recorded_in_another_directory() {
    crate::require_shared!(python);
    let d = "openbsd-amd64";
    let first = super::composed(d, 4, &["--faithful", "--hazards"]);
    let extra = ["--faithful", "--hazards", "--start-cwd", "/home/ci/build"];
    let c = crate::util::ktcompose(d, 4, &extra);
    let dir = tempfile::tempdir().unwrap();
    let db = super::import_into(
        dir.path(),
        "b.db",
        std::slice::from_ref(&c.trace),
        Some("/home/ci/build"),
    );
    let (_, old, _) = lint_json(&first.db, &[]);
    let (_, new, _) = lint_json(&db, &[]);
    assert!(
        !old.is_empty() && old.len() == new.len(),
        "{} {}",
        old.len(),
        new.len()
    );
    let paths = |rows: &[Value]| rows.iter().map(|r| s(&r["path"])).collect::<BTreeSet<_>>();
    assert!(paths(&old).is_disjoint(&paths(&new)));
    let base = dir.path().join("base.json");
    std::fs::write(&base, serde_json::to_vec(&old).unwrap()).unwrap();
    let (code, out, err) = lint_raw(&db, &["--baseline", base.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
}
