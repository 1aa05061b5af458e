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
        e.0 += 1;
        e.1.insert(s(&h["path"]));
    }
    let order = [
        "double-write",
        "race",
        "used-then-changed",
        "ghost-later-created",
    ];
    let kinds = order.iter().filter_map(|k| by_kind.get(*k).map(|v| (k, v)));
    kinds
        .map(|(k, (n, paths))| {
            let p = paths.len();
            let s = if p == 1 { "" } else { "s" };
            format!("kt2sql: lint: {n} {k} on {p} path{s}")
        })
        .collect()
}

/// lint lists exactly the truth's hazards (build_visible's when records
/// were lost), exits 1 when there is one, and `--kind` keeps one kind.
pub fn check_lint(db: &Path, t: &Value, ids: &BTreeMap<i64, String>, ctx: &str) {
    let b = t.get("build_visible").unwrap_or(&t["build"]);
    let conn = rusqlite::Connection::open(db).unwrap();
    let first_ns: i64 = conn
        .query_row("SELECT min(first_ts) FROM trace", [], |r| r.get(0))
        .unwrap();
    let (code, rows, err) = lint_json(db, &[]);
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
    let (code, _, _) = lint_json(db, &["--exit-zero"]);
    assert_eq!(code, 0, "{ctx}: --exit-zero");
    for kind in ["race", "ghost-later-created"] {
        let (code, rows, _) = lint_json(db, &["--kind", kind, "--kind", "double-write"]);
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
