//! The process model against ktcompose's ground truth: fork edges, exec
//! images, exits, threads, the ptrace.py process tree, and the file lists
//! (`-n`, `-n -a`, `-v`, `-p`, unresolved paths), in every dialect
//! ktcompose writes, with several seeds and shapes.

mod reuse;
mod sink;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::util::{compose, decode};
use kt2sql::process::{Model, ModelOptions, Resolution};
use sink::{Collected, Rows};

/// Decode a composed trace and run the model over it with the truth's start cwd.
fn model(c: &crate::util::Composed) -> Rows {
    let bytes = std::fs::read(&c.trace).unwrap();
    let d = decode(&bytes, None).expect("decodes");
    let cwd = c.truth["start_cwd"].as_str().unwrap().as_bytes().to_vec();
    let mut m = Model::new(
        d.abi,
        ModelOptions {
            start_cwd: Some(cwd),
            ..ModelOptions::default()
        },
    );
    let mut sink = Collected::default();
    for r in &d.records {
        m.record(r, &mut sink).unwrap();
    }
    if let Some(e) = &d.error {
        m.damage(
            e.offset,
            None,
            &e.kind.to_string(),
            bytes.len() as u64,
            &mut sink,
        )
        .unwrap();
    }
    let totals = m.finish(&mut sink).unwrap();
    Rows::new(sink, totals)
}

fn check_all(dialect: &str, seed: u64, extra: &[&str]) {
    let c = compose(dialect, seed, extra);
    let rows = model(&c);
    let t = &c.truth;
    let ctx = format!("{dialect} seed {seed} {extra:?}");
    assert_eq!(rows.forks(), sorted_pairs(&t["forks"]), "{ctx}: fork edges");
    assert_eq!(
        rows.process_summary(),
        truth_processes(t),
        "{ctx}: processes"
    );
    assert_eq!(rows.tree(), t["tree"], "{ctx}: tree");
    rows.check_summaries(&ctx);
    let files = &t["files"];
    let all = rows.files(None);
    assert_eq!(all.n, crate::util::strings(&files["n"]), "{ctx}: files -n");
    assert_eq!(
        all.n_a,
        crate::util::strings(&files["n_a"]),
        "{ctx}: files -n -a"
    );
    assert_eq!(all.n_v, files["n_v"], "{ctx}: files -n -v");
    assert_eq!(all.n_a_v, files["n_a_v"], "{ctx}: files -n -a -v");
    assert_eq!(
        rows.unresolved(),
        unresolved(&files["unresolved"]),
        "{ctx}: unresolved"
    );
    for (pid, sub) in t["subtrees"].as_object().unwrap() {
        let pid: i64 = pid.parse().unwrap();
        let got = rows.files(Some(pid));
        assert_eq!(got.pids, ints(&sub["pids"]), "{ctx}: -p {pid} members");
        assert_eq!(got.n, crate::util::strings(&sub["n"]), "{ctx}: -p {pid} -n");
        assert_eq!(
            got.n_a,
            crate::util::strings(&sub["n_a"]),
            "{ctx}: -p {pid} -n -a"
        );
        assert_eq!(got.n_v, sub["n_v"], "{ctx}: -p {pid} -v");
    }
    let calls = &t["calls"];
    assert_eq!(
        rows.paired(),
        calls["paired"].as_i64().unwrap(),
        "{ctx}: paired calls"
    );
    assert_eq!(
        rows.unpaired_count(),
        (
            calls["without_ret"].as_i64().unwrap(),
            calls["rets_without_call"].as_i64().unwrap()
        ),
        "{ctx}: calls without RET, RETs without CALL"
    );
    assert_eq!(
        rows.totals.records,
        t["records"]["total"].as_i64().unwrap(),
        "{ctx}"
    );
}

#[test]
fn composed_traces_match_truth_in_every_dialect() {
    crate::require_shared!(python);
    for d in crate::util::COMPOSE_DIALECTS {
        for seed in [1, 7] {
            check_all(d, seed, &[]);
        }
    }
}

#[test]
fn deep_concurrent_threaded_builds_match_truth() {
    crate::require_shared!(python);
    for d in crate::util::COMPOSE_DIALECTS {
        check_all(
            d,
            11,
            &[
                "--processes",
                "60",
                "--depth",
                "6",
                "--jobs",
                "8",
                "--threads",
                "4",
            ],
        );
        check_all(
            d,
            12,
            &[
                "--processes",
                "5",
                "--depth",
                "1",
                "--jobs",
                "1",
                "--threads",
                "1",
            ],
        );
    }
}

#[test]
fn truncated_traces_keep_what_they_hold() {
    crate::require_shared!(python);
    for d in ["freebsd-v1-amd64", "openbsd-amd64", "netbsd-v2-amd64"] {
        check_all(d, 5, &["--truncate", "last"]);
        check_all(d, 6, &["--truncate", "200000"]);
    }
}

#[test]
fn dropped_event_flags_are_counted_per_process() {
    crate::require_shared!(python);
    let c = compose("freebsd-v1-amd64", 9, &["--drop-flag", "3"]);
    let rows = model(&c);
    let flagged: i64 = rows.c.processes.iter().map(|p| p.dropped_events).sum();
    assert_eq!(flagged, c.truth["dropped"].as_i64().unwrap());
    assert!(rows.c.issues.iter().any(|i| i.kind == "dropped-events"));
}

fn sorted_pairs(v: &Value) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["parent"].as_i64().unwrap(), e["child"].as_i64().unwrap()))
        .collect();
    out.sort();
    out
}

fn ints(v: &Value) -> BTreeSet<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_i64().unwrap())
        .collect()
}

/// pid → (ppid, exit, exec (path, abs, comm) list, tids) from the truth.
fn truth_processes(t: &Value) -> BTreeMap<i64, Value> {
    t["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let execs: Vec<Value> = p["execs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| json!([e["path"], e["abs"], e["comm"]]))
                .collect();
            let v = json!({"ppid": p["ppid"], "exit": p["exit"], "execs": execs, "tids": p["tids"], "first_comm": p["first_comm"]});
            (p["pid"].as_i64().unwrap(), v)
        })
        .collect()
}

/// (pid, syscall, raw path) of each unresolved lookup.
fn unresolved(v: &Value) -> BTreeSet<(i64, String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["pid"].as_i64().unwrap(),
                u["syscall"].as_str().unwrap().to_string(),
                u["path"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `Resolution::Unknown` is what the truth calls unresolved.
pub fn is_resolved(r: Resolution) -> bool {
    r != Resolution::Unknown
}
