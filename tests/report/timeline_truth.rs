//! `kt2sql timeline` and `stats` (issue #16) against the composer's truth
//! and the database, on every dialect with `--faithful` (which makes pids
//! reuse): one Chrome track per process lifetime in process-tree order,
//! also with two traces in one database (and `--trace` keeps one); the
//! build's wall time, summed time and parallelism; the critical path's
//! slices; the slice arguments beside `files`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::timeline::{arrows, check_events, chrome, commands, lives, ns, os_pids, Lives};
use super::{composed, kt2sql};
use crate::util::{compose, Composed, COMPOSE_DIALECTS};
use kt2sql::report::{self, timeline};

/// The lifetimes of several truths, trace `i + 1` for `truths[i]`, keyed
/// `trace/key` (parents too).
fn all_lives(truths: &[&Value]) -> Lives {
    let mut m = Lives::new();
    for (i, t) in truths.iter().enumerate() {
        let tag = |k: &str| format!("{}/{k}", i + 1);
        for (k, (pid, parent, s, e)) in lives(t) {
            m.insert(tag(&k), (pid, parent.as_deref().map(tag), s, e));
        }
    }
    m
}

/// Each truth command's lifetime by (trace, pid, image, start).
fn key_by_image(truths: &[&Value]) -> BTreeMap<(i64, i64, i64, i64), String> {
    let mut m = BTreeMap::new();
    for (i, t) in truths.iter().enumerate() {
        for c in commands(t) {
            let n = |k: &str| c[k].as_i64().unwrap();
            let key = format!("{}/{}", i + 1, c["key"].as_str().unwrap());
            let at = (i as i64 + 1, n("pid"), n("image"), n("start_ns"));
            assert!(m.insert(at, key).is_none(), "two commands at {at:?}");
        }
    }
    m
}

/// Whether `k` is `above` or under it.
fn under<'a>(lv: &'a Lives, mut k: &'a str, above: &str) -> bool {
    loop {
        if k == above {
            return true;
        }
        match lv[k].1.as_deref() {
            Some(p) => k = p,
            None => return false,
        }
    }
}

/// Checks that every lifetime of `truths` (trace i + 1 = truths[i]) has
/// its own track, in depth-first tree order (after its parent's, with
/// only its parent's descendants between), drawn under its OS pid unless
/// the pid is shared, and that fork arrows join the two lifetimes'
/// tracks. Returns how many OS pids were shared.
fn check_tracks(events: &[Value], truths: &[&Value], ctx: &str) -> usize {
    let v_origin = |e: &Value| ns(&e["ts"]);
    let lv = all_lives(truths);
    let at = key_by_image(truths);
    let meta = |name: &'static str| {
        events
            .iter()
            .filter(move |e| e["name"] == name && e["ph"] == "M" && e["pid"] != 0)
    };
    let trace_of: BTreeMap<i64, i64> = meta("process_name")
        .map(|e| {
            (
                e["pid"].as_i64().unwrap(),
                e["args"]["trace_id"].as_i64().unwrap(),
            )
        })
        .collect();
    let name_of: BTreeMap<i64, &str> = meta("process_name")
        .map(|e| {
            (
                e["pid"].as_i64().unwrap(),
                e["args"]["name"].as_str().unwrap(),
            )
        })
        .collect();
    let index: BTreeMap<i64, i64> = meta("process_sort_index")
        .map(|e| {
            (
                e["pid"].as_i64().unwrap(),
                e["args"]["sort_index"].as_i64().unwrap(),
            )
        })
        .collect();
    let origin = events
        .iter()
        .filter(|e| e["cat"] == "command")
        .map(v_origin)
        .min();
    assert_eq!(origin, Some(0), "{ctx}: slices count from the origin");
    let origin_ns = lv.values().map(|l| l.2).min().unwrap();
    let (mut track_of, mut key_of) = (BTreeMap::new(), BTreeMap::new());
    for e in events.iter().filter(|e| e["cat"] == "command") {
        let track = e["pid"].as_i64().unwrap();
        let a = &e["args"];
        let place = (
            trace_of[&track],
            a["os_pid"].as_i64().unwrap(),
            a["image"].as_i64().unwrap(),
            ns(&e["ts"]) + origin_ns,
        );
        let key = at
            .get(&place)
            .unwrap_or_else(|| panic!("{ctx}: no truth command at {place:?}"));
        let k = key_of.entry(track).or_insert_with(|| key.clone());
        assert_eq!(k, key, "{ctx}: track {track} holds two lifetimes");
        let t = track_of.entry(key.clone()).or_insert(track);
        assert_eq!(*t, track, "{ctx}: {key} on two tracks");
    }
    let keys: BTreeSet<&String> = lv.keys().collect();
    assert_eq!(
        track_of.keys().collect::<BTreeSet<_>>(),
        keys,
        "{ctx}: lifetimes"
    );
    // Tree order: each after its parent, with only the parent's
    // descendants between the two.
    let by_index: BTreeMap<i64, &String> = index.iter().map(|(t, i)| (*i, &key_of[t])).collect();
    assert_eq!(by_index.len(), lv.len(), "{ctx}: one sort index per track");
    for (k, l) in &lv {
        let Some(p) = &l.1 else { continue };
        let (ip, ik) = (index[&track_of[p]], index[&track_of[k]]);
        assert!(
            ip < ik,
            "{ctx}: {k} (track {ik}) above its parent {p} ({ip})"
        );
        for (i, between) in by_index.range(ip + 1..ik) {
            assert!(
                under(&lv, between, p),
                "{ctx}: {between} (index {i}) between {p} and its child {k}"
            );
        }
    }
    // The track's pid: the OS pid, unless lifetimes share it; then the
    // first (by trace, start) keeps it and the name says which it is.
    let mut by_pid: BTreeMap<i64, Vec<(i64, i64, &String)>> = BTreeMap::new();
    for (k, l) in &lv {
        let trace: i64 = k.split('/').next().unwrap().parse().unwrap();
        by_pid.entry(l.0).or_default().push((trace, l.2, k));
    }
    let mut shared = 0;
    for (pid, mut ls) in by_pid {
        ls.sort();
        let n = ls.len();
        shared += usize::from(n > 1);
        for (i, (_, _, k)) in ls.iter().enumerate() {
            let track = track_of[*k];
            assert_eq!(os_pids(events)[&track], pid, "{ctx}: {k}: os_pid");
            if i == 0 {
                assert_eq!(track, pid, "{ctx}: {k}: the first lifetime keeps its pid");
            }
            let tail = format!("(pid {pid}, lifetime {} of {n})", i + 1);
            assert_eq!(
                name_of[&track].ends_with(&tail),
                n > 1,
                "{ctx}: {k}: track name {:?}",
                name_of[&track]
            );
        }
    }
    // Fork arrows go from the parent's lifetime's track to the child's.
    for (s, f) in arrows(events, "fork", ctx) {
        let child = &key_of[&f["pid"].as_i64().unwrap()];
        let parent = lv[child].1.as_ref().expect("a forked child");
        assert_eq!(
            s["pid"].as_i64(),
            Some(track_of[parent]),
            "{ctx}: fork of {child}"
        );
    }
    shared
}

/// Each `--calls` slice is on the track of the lifetime that made it.
fn check_call_tracks(db: &Path, events: &[Value], ctx: &str) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let track_of: BTreeMap<i64, i64> = events
        .iter()
        .filter(|e| e["name"] == "process_name" && e["pid"] != 0)
        .map(|e| {
            (
                e["args"]["process_id"].as_i64().unwrap(),
                e["pid"].as_i64().unwrap(),
            )
        })
        .collect();
    let mut n = 0;
    for e in events
        .iter()
        .filter(|e| e["cat"].as_str().is_some_and(|c| c.starts_with("syscall")))
    {
        let process: i64 = conn
            .query_row(
                "SELECT process_id FROM call WHERE call_id = ?1",
                [e["args"]["call_id"].as_i64().unwrap()],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(e["pid"].as_i64(), Some(track_of[&process]), "{ctx}: {e}");
        n += 1;
    }
    assert!(n > 0, "{ctx}: no calls");
}

/// Every lifetime of one composed trace has its track, in tree order;
/// returns how many pids its tracks share (reused pids).
fn check_lifetimes(d: &str, seed: u64, extra: &[&str]) -> usize {
    let im = composed(d, seed, extra);
    let ctx = format!("{d} seed {seed} {extra:?}");
    let opts = timeline::Options {
        calls: true,
        ..timeline::Options::default()
    };
    let v = chrome(&im.db, &opts);
    let events = v["traceEvents"].as_array().unwrap();
    check_events(events, &ctx);
    let shared = check_tracks(events, &[&im.c.truth], &ctx);
    check_call_tracks(&im.db, events, &ctx);
    let want = im.c.truth["pid_reuse"]["reused_pids"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(shared, want, "{ctx}: reused pids");
    shared
}

/// On the committed `--faithful` fixture of every dialect, which needs no
/// `../shared`.
#[test]
fn every_lifetime_has_a_track_on_the_committed_fixtures() {
    let reused: usize = COMPOSE_DIALECTS
        .iter()
        .map(|d| check_lifetimes(d, 4, &["--faithful"]))
        .sum();
    assert!(reused > 0, "no pid was reused");
}

#[test]
fn every_lifetime_has_a_track_in_tree_order_even_with_reused_pids() {
    crate::require_shared!(python);
    let reused: usize = COMPOSE_DIALECTS
        .iter()
        .map(|d| check_lifetimes(d, 9, &["--faithful", "--jobs", "6"]))
        .sum();
    assert!(reused > 0, "no pid was reused");
}

/// Two composed traces of dialect `d` imported into one database, the
/// second with `--append`.
struct Two {
    db: PathBuf,
    traces: [Composed; 2],
    _dir: tempfile::TempDir,
}

fn two_traces(d: &str) -> Two {
    let traces = [
        compose(d, 4, &["--faithful"]),
        compose(d, 4, &["--faithful", "--hazards"]),
    ];
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("two.db");
    for (c, append) in traces.iter().zip([false, true]) {
        let mut cmd = kt2sql();
        cmd.args(["import", "-q", "-d"])
            .arg(c.truth["start_cwd"].as_str().unwrap())
            .arg(&c.trace)
            .arg(&db);
        if append {
            cmd.arg("--append");
        }
        let o = cmd.output().unwrap();
        assert!(o.status.code().is_some_and(|c| c <= 1), "{d}: {o:?}");
    }
    Two {
        db,
        traces,
        _dir: dir,
    }
}

/// The command slices as (os pid, image, comm, start, end) in ns.
fn command_slices(v: &Value) -> BTreeSet<(i64, i64, String, i64, i64)> {
    let origin = v["otherData"]["origin_ns"].as_i64().unwrap();
    v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "command")
        .map(|e| {
            let ts = ns(&e["ts"]) + origin;
            let a = &e["args"];
            (
                a["os_pid"].as_i64().unwrap(),
                a["image"].as_i64().unwrap(),
                e["name"].as_str().unwrap().to_string(),
                ts,
                ts + ns(&e["dur"]),
            )
        })
        .collect()
}

fn truth_slices(t: &Value) -> BTreeSet<(i64, i64, String, i64, i64)> {
    commands(t)
        .iter()
        .map(|c| {
            let n = |k: &str| c[k].as_i64().unwrap();
            let comm = c["comm"].as_str().unwrap().to_string();
            (n("pid"), n("image"), comm, n("start_ns"), n("end_ns"))
        })
        .collect()
}

#[test]
fn two_traces_sharing_pids_get_their_own_tracks_and_trace_keeps_one() {
    for d in COMPOSE_DIALECTS {
        let two = two_traces(d);
        let truths = [&two.traces[0].truth, &two.traces[1].truth];
        let ctx = format!("{d}: two traces");
        let v = chrome(&two.db, &timeline::Options::default());
        let events = v["traceEvents"].as_array().unwrap();
        check_events(events, &ctx);
        let shared = check_tracks(events, &truths, &ctx);
        assert!(shared > 0, "{ctx}: the traces share no pid");
        let both: BTreeSet<_> = truth_slices(truths[0])
            .union(&truth_slices(truths[1]))
            .cloned()
            .collect();
        assert_eq!(command_slices(&v), both, "{ctx}: slices");
        // --trace ID: that trace's slices only, its lifetimes in tree order.
        for (i, t) in truths.iter().enumerate() {
            let id = (i + 1).to_string();
            let o = kt2sql()
                .arg("timeline")
                .arg(&two.db)
                .args(["--trace", &id])
                .output()
                .unwrap();
            assert!(o.status.success(), "{ctx} --trace {id}: {o:?}");
            let v: Value = serde_json::from_slice(&o.stdout).unwrap();
            let ctx = format!("{ctx} --trace {id}");
            let events = v["traceEvents"].as_array().unwrap();
            check_events(events, &ctx);
            assert_eq!(command_slices(&v), truth_slices(t), "{ctx}: slices");
            // check_tracks numbers traces from 1: give it this one as 1.
            let renumbered: Vec<Value> = events
                .iter()
                .cloned()
                .map(|mut e| {
                    if e["name"] == "process_name" && e["pid"] != 0 {
                        assert_eq!(e["args"]["trace_id"], i + 1, "{ctx}: {e}");
                        e["args"]["trace_id"] = 1.into();
                    }
                    e
                })
                .collect();
            let shared = check_tracks(&renumbered, &[t], &ctx);
            let want = t["pid_reuse"]["reused_pids"].as_array().map_or(0, Vec::len);
            assert_eq!(shared, want, "{ctx}: only this trace's reuse counts");
            let steps = events.iter().filter(|e| e["cat"] == "critical");
            assert!(steps.clone().count() > 0, "{ctx}: a critical path");
            for s in steps {
                assert_eq!(s["args"]["trace_id"], i + 1, "{ctx}: {s}");
            }
        }
    }
}

/// Each call slice of `--calls` is a row of `query timeline_calls`, the
/// query a user runs: the same calls in the same order, on the track of
/// the call's own lifetime (a reused pid's too), with its OS tid (the pid
/// where the dialect records none), times and call_id. The timeline reads
/// the rows with their ids (`timeline_call_rows`) and maps those itself.
#[test]
fn call_slices_are_the_timeline_calls_rows() {
    for d in COMPOSE_DIALECTS {
        let two = two_traces(d);
        let conn = report::open(&two.db).unwrap();
        let one = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        let reused =
            one("SELECT pid FROM process GROUP BY pid HAVING count(*) > 1 ORDER BY pid LIMIT 1");
        let mut process_of = BTreeMap::new();
        let mut st = conn
            .prepare("SELECT call_id, process_id FROM call")
            .unwrap();
        let mut rows = st.raw_query();
        while let Some(r) = rows.next().unwrap() {
            process_of.insert(r.get::<_, i64>(0).unwrap(), r.get::<_, i64>(1).unwrap());
        }
        let scopes = [
            (None, None, None),
            (Some(2), None, None),
            (None, None, Some(20_000)),
            (None, Some(reused), None),
            (Some(1), Some(reused), Some(1_000)),
        ];
        for (trace, pid, min_dur) in scopes {
            let ctx = format!("{d}: --trace {trace:?} -p {pid:?} --min-dur {min_dur:?}");
            let scope = report::Scope { trace, pid };
            let opts = timeline::Options {
                scope,
                calls: true,
                min_dur,
                ..Default::default()
            };
            let v = chrome(&two.db, &opts);
            let origin = v["otherData"]["origin_ns"].as_i64().unwrap();
            let events = v["traceEvents"].as_array().unwrap();
            // Each track's lifetime and OS pid, from its name.
            let track: BTreeMap<i64, (i64, i64)> = events
                .iter()
                .filter(|e| e["name"] == "process_name" && e["pid"] != 0)
                .map(|e| {
                    let a = &e["args"];
                    let n = |k: &str| a[k].as_i64().unwrap();
                    (e["pid"].as_i64().unwrap(), (n("process_id"), n("os_pid")))
                })
                .collect();
            let got: Vec<_> = events
                .iter()
                .filter(|e| e["cat"].as_str().is_some_and(|c| c.starts_with("syscall")))
                .map(|e| {
                    let call = e["args"]["call_id"].as_i64().unwrap();
                    let (process, pid) = track[&e["pid"].as_i64().unwrap()];
                    assert_eq!(process, process_of[&call], "{ctx}: the track of {e}");
                    let name = e["name"].as_str().unwrap().to_string();
                    let tid = e["tid"].as_i64().unwrap();
                    (pid, tid, name, ns(&e["ts"]) + origin, ns(&e["dur"]), call)
                })
                .collect();
            let mut params = scope.params();
            params.push(("min_dur", report::opt_int(min_dur)));
            let t = report::run(&conn, "timeline_calls", &params).unwrap();
            let want: Vec<_> = t
                .rows
                .iter()
                .map(|r| {
                    let n = |i: usize| r[i].int().unwrap();
                    (n(0), n(1), r[2].display().into_owned(), n(3), n(4), n(10))
                })
                .collect();
            assert!(!want.is_empty(), "{ctx}: no calls");
            assert_eq!(got, want, "{ctx}");
        }
    }
}

/// The truth's build figures: (processes, wall, process time, peak).
fn truth_build(lv: &Lives) -> (i64, i64, i64, i64) {
    let wall = lv.values().map(|l| l.3).max().unwrap() - lv.values().map(|l| l.2).min().unwrap();
    let summed = lv.values().map(|l| l.3 - l.2).sum();
    // Most lifetimes running at once, half-open: ends before starts.
    let mut at: Vec<(i64, i64)> = lv.values().flat_map(|l| [(l.2, 1), (l.3, -1)]).collect();
    at.sort_by_key(|&(t, d)| (t, d));
    let (mut n, mut peak) = (0, 0);
    for (_, d) in at {
        n += d;
        peak = peak.max(n);
    }
    (lv.len() as i64, wall, summed, peak)
}

#[test]
fn stats_and_the_critical_slices_are_what_the_truth_implies() {
    for d in COMPOSE_DIALECTS {
        let im = composed(d, 4, &["--faithful"]);
        let ctx = format!("{d} seed 4 --faithful");
        let o = kt2sql()
            .arg("stats")
            .arg(&im.db)
            .args(["--format", "json"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{ctx}: {o:?}");
        let st: Value = serde_json::from_slice(&o.stdout).unwrap();
        let b = &st["build"][0];
        let (processes, wall, summed, peak) = truth_build(&lives(&im.c.truth));
        let n = |k: &str| b[k].as_i64().unwrap();
        assert_eq!(n("processes"), processes, "{ctx}: processes");
        assert_eq!(n("wall"), wall, "{ctx}: wall time");
        assert_eq!(n("process_time"), summed, "{ctx}: summed process time");
        assert_eq!(n("peak_parallel"), peak, "{ctx}: peak parallelism");
        let avg = (summed as f64 / wall as f64 * 100.0).round() / 100.0;
        assert_eq!(b["avg_parallel"].as_f64(), Some(avg), "{ctx}: average");
        assert_eq!(n("commands") as usize, commands(&im.c.truth).len(), "{ctx}");
        // The text says the same.
        let o = kt2sql().arg("stats").arg(&im.db).output().unwrap();
        let text = String::from_utf8(o.stdout).unwrap();
        let line = format!("processes; parallelism {avg} average, {peak} peak",);
        assert!(text.contains(&line), "{ctx}: {line} in {text}");
        // The JSON's critical slices are the full path of `query
        // critical_path`, step by step, and span the wall time; stats
        // summarises that path.
        let o = kt2sql()
            .args(["query"])
            .arg(&im.db)
            .args(["critical_path", "--format", "json"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{ctx}: {o:?}");
        let path: Value = serde_json::from_slice(&o.stdout).unwrap();
        let c = &st["critical_path"][0];
        assert_eq!(
            c["steps"].as_u64(),
            Some(path.as_array().unwrap().len() as u64),
            "{ctx}: path length"
        );
        assert_eq!(c["total"].as_i64(), Some(wall), "{ctx}: path time");
        let v = chrome(&im.db, &timeline::Options::default());
        let origin = v["otherData"]["origin_ns"].as_i64().unwrap();
        let events = v["traceEvents"].as_array().unwrap();
        let got: Vec<(i64, i64, i64, i64, i64, String)> = events
            .iter()
            .filter(|e| e["cat"] == "critical")
            .map(|e| {
                let a = &e["args"];
                let ts = ns(&e["ts"]) + origin;
                assert_eq!(a["own_ns"].as_i64(), Some(ns(&e["dur"])), "{ctx}: {e}");
                (
                    a["pid"].as_i64().unwrap(),
                    a["image"].as_i64().unwrap(),
                    ts,
                    ts + ns(&e["dur"]),
                    a["wait_ns"].as_i64().unwrap(),
                    a["via"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let want: Vec<(i64, i64, i64, i64, i64, String)> = path
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let n = |k: &str| s[k].as_i64().unwrap();
                let via = s["via"].as_str().unwrap().to_string();
                (
                    n("pid"),
                    n("image"),
                    n("start_ts"),
                    n("end_ts"),
                    n("wait"),
                    via,
                )
            })
            .collect();
        assert!(!want.is_empty(), "{ctx}: a path");
        assert_eq!(got, want, "{ctx}: critical slices");
        let sum: i64 = got.iter().map(|s| s.3 - s.2 + s.4).sum();
        assert_eq!(sum, wall, "{ctx}: the slices span the wall time");
        // critical_ns: each command's own time on the path.
        let mut own: BTreeMap<i64, i64> = BTreeMap::new();
        for s in path.as_array().unwrap() {
            *own.entry(s["exec_id"].as_i64().unwrap()).or_default() += s["dur"].as_i64().unwrap();
        }
        let marked: BTreeMap<i64, i64> = events
            .iter()
            .filter(|e| e["cat"] == "command" && !e["args"]["critical_ns"].is_null())
            .map(|e| {
                let a = &e["args"];
                (
                    a["exec_id"].as_i64().unwrap(),
                    a["critical_ns"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(marked, own, "{ctx}: critical_ns");
        let total: i64 = marked.values().sum::<i64>() + got.iter().map(|s| s.4).sum::<i64>();
        assert_eq!(total, wall, "{ctx}: critical_ns and waits");
    }
}

/// A JSON value of a database cell read as text: a JSON array stays one,
/// other text is a string.
fn argv_value(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.into()))
}

/// Checks every command slice's arguments beside `files` against the
/// database's `command` and `process` rows; returns how many had argv.
fn check_slice_args(db: &Path, events: &[Value], ctx: &str) -> usize {
    let conn = rusqlite::Connection::open(db).unwrap();
    type Row = (
        i64,
        i64,
        i64,
        Option<String>,
        Option<String>,
        Option<String>,
        i64,
        i64,
    );
    let mut cmd = conn
        .prepare(
            "SELECT c.process_id, c.pid, c.image, c.path, c.cwd, c.argv, c.start_ts, c.end_ts
             FROM command AS c WHERE c.command_id = ?1",
        )
        .unwrap();
    // The calls made strictly inside (?2, ?3), and those in [?2, ?3].
    let mut calls_in = conn
        .prepare(
            "SELECT count(CASE WHEN t > ?2 AND t < ?3 THEN 1 END),
                    count(CASE WHEN t >= ?2 AND t <= ?3 THEN 1 END)
             FROM (SELECT COALESCE(ts, ret_ts) AS t FROM call_made WHERE process_id = ?1)",
        )
        .unwrap();
    let mut argv = 0;
    let mut by_process: BTreeMap<i64, i64> = BTreeMap::new();
    for e in events.iter().filter(|e| e["cat"] == "command") {
        let a = &e["args"];
        let exec_id = a["exec_id"].as_i64().unwrap();
        let r: Row = cmd
            .query_row([exec_id], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                ))
            })
            .unwrap();
        let (process, pid, image, path, cwd, av, start, end) = r;
        let c = format!("{ctx}: {e}");
        assert_eq!(a["process_id"].as_i64(), Some(process), "{c}");
        assert_eq!(a["os_pid"].as_i64(), Some(pid), "{c}");
        assert_eq!(a["image"].as_i64(), Some(image), "{c}");
        assert_eq!(a["path"].as_str(), path.as_deref(), "{c}: path");
        assert_eq!(a["cwd"].as_str(), cwd.as_deref(), "{c}: cwd");
        assert_eq!(
            a.get("argv").cloned(),
            av.as_deref().map(argv_value),
            "{c}: argv"
        );
        argv += usize::from(av.is_some());
        let (last, status, signal): (i64, Option<i64>, Option<i64>) = conn
            .query_row(
                "SELECT max(image), p.exit_status, p.exit_signal FROM exec AS e
                 JOIN process AS p USING (process_id)
                 WHERE e.process_id = ?1 AND e.image IS NOT NULL",
                [process],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        let on_last = |v: Option<i64>| v.filter(|_| image == last);
        assert_eq!(
            a["exit_status"].as_i64(),
            on_last(status),
            "{c}: exit status"
        );
        assert_eq!(
            a["exit_signal"].as_i64(),
            on_last(signal),
            "{c}: exit signal"
        );
        let calls = a["calls"].as_i64().unwrap();
        // By time, the image's calls are those from its start to the next
        // one's (an exec's own call ends the image it replaced); calls at
        // the very boundary may go either way (µs clocks tie).
        let (inside, within): (i64, i64) = calls_in
            .query_row([process, start, end], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert!(
            inside <= calls && calls <= within,
            "{c}: calls, {inside}..={within}"
        );
        *by_process.entry(process).or_default() += calls;
    }
    for (process, calls) in by_process {
        let want: i64 = conn
            .query_row(
                "SELECT count(*) FROM call_made WHERE process_id = ?1",
                [process],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(calls, want, "{ctx}: calls of process {process}");
    }
    argv
}

#[test]
fn slice_arguments_are_the_databases_command_and_process_rows() {
    let mut argv = 0;
    for d in COMPOSE_DIALECTS {
        let im = composed(d, 4, &["--faithful"]);
        let ctx = format!("{d} seed 4 --faithful");
        let v = chrome(&im.db, &timeline::Options::default());
        let events = v["traceEvents"].as_array().unwrap();
        check_events(events, &ctx);
        argv += check_slice_args(&im.db, events, &ctx);
    }
    assert!(argv > 0, "no dialect recorded argv");
}

/// `stats`' slowest commands are the truth's longest commands (own time:
/// start to end of the image), in order, with their pid, name and start,
/// in every dialect with `--faithful`; `--top` caps them.
#[test]
fn stats_slowest_commands_are_the_truths_longest() {
    for d in COMPOSE_DIALECTS {
        let im = composed(d, 4, &["--faithful"]);
        let ctx = format!("{d} seed 4 --faithful");
        let o = kt2sql()
            .arg("stats")
            .arg(&im.db)
            .args(["--top", "5", "--format", "json"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{ctx}: {o:?}");
        let st: Value = serde_json::from_slice(&o.stdout).unwrap();
        let got = st["slow_commands"].as_array().unwrap();
        let want: Vec<(i64, i64, String)> = commands(&im.c.truth)
            .iter()
            .map(|c| {
                let n = |k: &str| c[k].as_i64().unwrap();
                let comm = c["comm"].as_str().unwrap().to_string();
                (n("end_ns") - n("start_ns"), n("pid"), comm)
            })
            .collect();
        assert_eq!(got.len(), want.len().min(5), "{ctx}");
        // Ranked by own time (the span less the children's lifetimes:
        // counts.rs checks its value); each a truth command by its span.
        let durs: Vec<i64> = got.iter().map(|r| r["dur"].as_i64().unwrap()).collect();
        assert!(durs.windows(2).all(|w| w[0] >= w[1]), "{ctx}: {durs:?}");
        for r in got {
            assert!(r["dur"].as_i64() <= r["wall"].as_i64(), "{ctx}: {r}");
            let row = (
                r["wall"].as_i64().unwrap(),
                r["pid"].as_i64().unwrap(),
                r["comm"].as_str().unwrap().to_string(),
            );
            assert!(want.contains(&row), "{ctx}: {row:?} is a truth command");
        }
    }
}
