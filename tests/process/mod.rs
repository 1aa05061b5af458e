//! The process model against ktcompose's ground truth: fork edges, exec
//! images, exits, threads, the ptrace.py process tree, and the file lists
//! (`-n`, `-n -a`, `-v`, `-p`, unresolved paths), in every dialect
//! ktcompose writes, with several seeds and shapes.

mod ends;
mod reuse;
mod sink;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::util::truth::{self, key_of, same};
use crate::util::{compose, decode};
use kt2sql::process::{IssueKind, Model, ModelOptions, Resolution, Unpaired};
use sink::{Collected, Rows};

/// Decode a composed trace and run the model over it with the truth's start cwd.
fn model(c: &crate::util::Composed) -> Rows {
    model_with(c, None)
}

/// [`model`], keeping at most `live_in_memory` live processes in memory.
fn model_with(c: &crate::util::Composed, live_in_memory: Option<usize>) -> Rows {
    let bytes = std::fs::read(&c.trace).unwrap();
    let d = decode(&bytes, None).expect("decodes");
    let cwd = c.truth["start_cwd"].as_str().unwrap().as_bytes().to_vec();
    let mut m = Model::new(
        d.abi,
        ModelOptions {
            start_cwd: Some(cwd),
            live_in_memory,
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
    same(
        &json!(rows.process_summary()),
        &json!(truth_processes(t)),
        &format!("{ctx}: processes"),
    );
    assert_eq!(rows.tree(), t["tree"], "{ctx}: tree");
    rows.check_summaries(&ctx);
    // Where records were lost, the lists are what the written records show,
    // with the exec RETs the model infers.
    let files = &truth::files_seen(t);
    let all = rows.files(None);
    assert_eq!(all.n, crate::util::strings(&files["n"]), "{ctx}: files -n");
    assert_eq!(
        all.n_a,
        crate::util::strings(&files["n_a"]),
        "{ctx}: files -n -a"
    );
    let by_image = |v: &Value| truth::by_image(dialect, v, t);
    same(
        &all.n_v,
        &by_image(&files["n_v"]),
        &format!("{ctx}: files -n -v"),
    );
    same(
        &all.n_a_v,
        &by_image(&files["n_a_v"]),
        &format!("{ctx}: files -n -a -v"),
    );
    assert_eq!(
        rows.unresolved(),
        unresolved(&files["unresolved"]),
        "{ctx}: unresolved"
    );
    for (pid, sub) in t["subtrees"].as_object().unwrap() {
        let pid: i64 = pid.parse().unwrap();
        let lost_inside = truth::lost_inside(t, sub);
        if lost_inside {
            continue;
        }
        let got = rows.files(Some(pid));
        assert_eq!(got.pids, ints(&sub["pids"]), "{ctx}: -p {pid} members");
        assert_eq!(got.n, crate::util::strings(&sub["n"]), "{ctx}: -p {pid} -n");
        assert_eq!(
            got.n_a,
            crate::util::strings(&sub["n_a"]),
            "{ctx}: -p {pid} -n -a"
        );
        same(
            &got.n_v,
            &by_image(&sub["n_v"]),
            &format!("{ctx}: -p {pid} -v"),
        );
    }
    // The truth counts records: a Mac OS X vfork parent's `CALL vfork` and
    // the `RET execve <child>` it returns through have different codes, so
    // it counts one CALL without RET and one RET without CALL where kt2sql
    // pairs them (the child's execve row, ended by that RET, says so).
    let calls = &t["calls"];
    let through_exec = rows
        .c
        .calls
        .iter()
        .filter(|c| c.unpaired == Some(Unpaired::VforkParent))
        .count() as i64;
    assert_eq!(
        rows.paired() - through_exec,
        calls["paired"].as_i64().unwrap(),
        "{ctx}: paired calls"
    );
    let (no_ret, no_call) = rows.unpaired_count();
    assert_eq!(
        (no_ret + through_exec, no_call + through_exec),
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

/// A committed trace: the fixture part of a test, which must run without
/// `../shared`, fails when the manifest lacks it.
fn check_committed(dialect: &str, seed: u64, extra: &[&str]) {
    crate::util::fixtures::committed(dialect, seed, extra);
    check_all(dialect, seed, extra);
}

/// A plain build of every dialect, committed.
#[test]
fn plain_traces_match_truth_in_every_dialect() {
    for d in crate::util::COMPOSE_DIALECTS {
        check_committed(d, 2, &[]);
    }
}

/// More seeds of the plain builds.
#[test]
fn composed_traces_match_truth_in_every_dialect() {
    crate::require_shared!(python);
    for d in crate::util::COMPOSE_DIALECTS {
        for seed in [1, 7] {
            check_all(d, seed, &[]);
        }
    }
}

/// A deep build of many concurrent jobs and threads, and a serial one
/// (one job, no threads), committed.
#[test]
fn deep_concurrent_threaded_and_serial_builds_match_truth() {
    check_committed(
        "freebsd-v1-amd64",
        11,
        &[
            "--processes",
            "20",
            "--depth",
            "6",
            "--jobs",
            "8",
            "--threads",
            "4",
        ],
    );
    check_committed(
        "netbsd-v2-amd64",
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

/// The same shapes, bigger, in every dialect.
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

/// Issue #12: live processes spilled to a temporary file and read back
/// (two kept in memory, so every build spills on each fork) give exactly
/// the rows of a model that keeps them all.
fn check_spilling(d: &str, c: &crate::util::Composed) {
    let kept = model(c);
    let spilled = model_with(c, Some(2));
    assert!(
        kept.c.processes.len() > 10,
        "{d}: a build of many processes"
    );
    assert_eq!(
        format!("{:?}", spilled.c),
        format!("{:?}", kept.c),
        "{d}: rows"
    );
    assert_eq!(spilled.totals, kept.totals, "{d}: totals");
}

/// On the committed `--faithful` build of every dialect.
#[test]
fn spilling_idle_processes_changes_no_row() {
    for d in crate::util::COMPOSE_DIALECTS {
        let f = crate::util::fixtures::committed(d, 4, &["--faithful"]);
        check_spilling(d, &compose(d, f.seed, &f.args()));
    }
}

/// On bigger, busier `--faithful` builds.
#[test]
fn spilling_idle_processes_of_busier_builds_changes_no_row() {
    crate::require_shared!(python);
    for d in crate::util::COMPOSE_DIALECTS {
        let c = compose(d, 5, &["--faithful", "--processes", "40", "--jobs", "8"]);
        check_spilling(d, &c);
    }
}

/// The kernel-behaviour flags ktcompose has for `dialect`, one at a time
/// (`--faithful` turns on all of them but `--parent-first`).
fn behaviours(dialect: &str) -> Vec<Vec<&'static str>> {
    let mut v: Vec<Vec<&str>> = vec![
        vec!["--kills", "3", "--cores"],
        vec!["--kills", "2", "--cores", "--trpoints", "cn"],
        vec!["--pid-max", "140", "--processes", "30"],
        vec!["--parent-first"],
    ];
    if dialect.starts_with("freebsd") {
        v.push(vec!["--drop-structural", "2"]);
        v.push(vec!["--freebsd-vfork-ret-early"]);
        v.push(vec!["--freebsd-thread-ret"]);
        v.push(vec!["--freebsd-vfork-ret-early", "--parent-first"]);
    }
    if dialect.starts_with("netbsd") {
        v.push(vec!["--drop-silent", "2"]);
        v.push(vec!["--netbsd-emul"]);
    }
    if dialect == "netbsd-v2-amd64" {
        v.push(vec!["--posix-spawn"]);
        v.push(vec!["--posix-spawn", "--trpoints", "cn"]);
        v.push(vec!["--posix-spawn", "--parent-first"]);
        v.push(vec!["--netbsd-thread-late-ret"]);
    }
    if dialect == "openbsd-amd64" {
        v.push(vec!["--openbsd-vfork-early-wake"]);
    }
    if dialect == "darwin-ppc" {
        v.push(vec!["--darwin-vfork"]);
        v.push(vec!["--darwin-vfork", "--trpoints", "cn"]);
        v.push(vec!["--darwin-vfork", "--parent-first"]);
    }
    v
}

/// `--faithful` traces recorded with `-t cn`, in every dialect, and one in
/// uniprocessor order, committed (the plain `--faithful` ones are
/// [`committed_fixtures_match_truth`]'s).
#[test]
fn faithful_cn_and_parent_first_traces_match_truth() {
    for d in crate::util::COMPOSE_DIALECTS {
        check_committed(d, 4, &["--faithful", "--trpoints", "cn"]);
    }
    check_committed(
        "darwin-ppc",
        3,
        &[
            "--faithful",
            "--parent-first",
            "--jobs",
            "8",
            "--processes",
            "10",
        ],
    );
}

/// More seeds of the same, in every dialect.
#[test]
fn faithful_traces_match_truth_in_every_dialect() {
    crate::require_shared!(python);
    for d in crate::util::COMPOSE_DIALECTS {
        for seed in [1, 7] {
            check_all(d, seed, &["--faithful"]);
            check_all(d, seed + 20, &["--faithful", "--trpoints", "cn"]);
        }
        check_all(d, 3, &["--faithful", "--parent-first", "--jobs", "8"]);
    }
}

/// The committed fixtures, which need no `../shared`: a `--faithful`
/// trace of every dialect, with and without `--hazards`.
#[test]
fn committed_fixtures_match_truth() {
    for f in crate::util::fixtures::faithful() {
        check_all(&f.dialect, f.seed, &f.args());
    }
}

/// Each kernel behaviour alone, once, on a committed small build (eight
/// processes, or its own count) of a dialect it applies to: every flag
/// set [`behaviours`] names for any dialect has one.
#[test]
fn each_kernel_behaviour_matches_truth_once() {
    let mut seen: Vec<Vec<&str>> = Vec::new();
    let fixtures = crate::util::fixtures::manifest();
    for d in crate::util::COMPOSE_DIALECTS {
        for flags in behaviours(d) {
            if seen.contains(&flags) {
                continue;
            }
            let mut small = flags.clone();
            if !flags.contains(&"--processes") {
                small.extend(["--processes", "8"]);
            }
            let f = fixtures
                .iter()
                .find(|f| f.args() == small && behaviours(&f.dialect).contains(&flags))
                .unwrap_or_else(|| panic!("no committed fixture has {small:?}"));
            check_committed(&f.dialect, f.seed, &small);
            seen.push(flags);
        }
    }
    assert!(seen.len() >= 18, "{seen:?}");
}

/// Each kernel behaviour alone in every dialect it applies to.
#[test]
fn each_kernel_behaviour_matches_truth() {
    crate::require_shared!(python);
    for d in crate::util::COMPOSE_DIALECTS {
        for (i, flags) in behaviours(d).iter().enumerate() {
            check_all(d, 40 + i as u64, flags);
        }
    }
}

/// A trace cut inside its last record, and one cut at a byte count,
/// committed.
#[test]
fn cut_traces_keep_what_they_hold() {
    check_committed("netbsd-v2-amd64", 5, &["--hazards", "--truncate", "last"]);
    check_committed("freebsd-v0-i386", 6, &["--truncate", "150000"]);
}

/// More cut traces.
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
    let c = compose("freebsd-v1-amd64", 9, &["--drop-flag", "3"]);
    let rows = model(&c);
    let flagged: i64 = rows.c.processes.iter().map(|p| p.dropped_events).sum();
    assert_eq!(flagged, c.truth["dropped"].as_i64().unwrap());
    assert!(rows
        .c
        .issues
        .iter()
        .any(|i| i.kind == IssueKind::DroppedEvents));
}

/// (parent key, child key) of every fork edge, sorted.
fn sorted_pairs(v: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                key_of(e, "parent_key", "parent").unwrap(),
                key_of(e, "child_key", "child").unwrap(),
            )
        })
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

/// Lifetime key → (parent key, exit, exec (path, abs, comm) list, tids)
/// from the truth.
fn truth_processes(t: &Value) -> BTreeMap<String, Value> {
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
            let parent = key_of(p, "parent_key", "ppid");
            let v = json!({"parent": parent, "exit": p["exit"], "execs": execs, "tids": p["tids"], "first_comm": p["first_comm"]});
            (key_of(p, "key", "pid").unwrap(), v)
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
