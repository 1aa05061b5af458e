//! `kt2sql timeline` and the critical path (issue #16) on composed traces of
//! every dialect (`--faithful`): the Chrome JSON is valid Trace Event
//! format whose command slices are the truth's commands to the
//! nanosecond; the SVG is well-formed XML with one row per command; the
//! critical path is what the truth's process times and fork edges imply:
//! every hand-over is a traced edge (checked from the truth's facts
//! alone), and the whole path is the truth walked by the query's rule.
//! More in `timeline_truth.rs`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{composed, kt2sql};
use crate::util::{self, COMPOSE_DIALECTS};
use kt2sql::report::{self, stats, timeline, Scope};

/// The truth's commands as the written records show them.
pub(super) fn commands(t: &Value) -> &Vec<Value> {
    let b = t.get("build_visible").unwrap_or(&t["build"]);
    b["commands"].as_array().unwrap()
}

pub(super) fn chrome(db: &std::path::Path, opts: &timeline::Options) -> Value {
    let conn = report::open(db).unwrap();
    let mut out = Vec::new();
    conn.in_temp(|c| timeline::chrome::write(c, opts, &mut out))
        .unwrap();
    serde_json::from_slice(&out).expect("the timeline is JSON")
}

/// Each command slice's `files` counts the distinct paths its image's
/// successful calls looked up: the same as `file_access` (another view,
/// through `namei.exec_id`) says, and within the process's own count.
pub(super) fn check_image_files(db: &std::path::Path, events: &[Value], ctx: &str) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut per_image = conn
        .prepare(
            "SELECT count(DISTINCT f.path) FROM file_access AS f JOIN namei AS n USING (namei_id)
             WHERE n.exec_id = ?1 AND f.success = 1",
        )
        .unwrap();
    let mut by_process: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    let mut some = 0;
    for e in events.iter().filter(|e| e["cat"] == "command") {
        let a = &e["args"];
        let (files, exec_id) = (a["files"].as_i64().unwrap(), a["exec_id"].as_i64().unwrap());
        let want: i64 = per_image.query_row([exec_id], |r| r.get(0)).unwrap();
        assert_eq!(files, want, "{ctx}: files of {}", e["name"]);
        some += files;
        let process: i64 = conn
            .query_row(
                "SELECT process_id FROM exec WHERE exec_id = ?1",
                [exec_id],
                |r| r.get(0),
            )
            .unwrap();
        by_process.entry(process).or_default().push(files);
    }
    assert!(some > 0, "{ctx}: the commands looked up files");
    for (id, images) in by_process {
        let total: i64 = conn
            .query_row(
                "SELECT files FROM process WHERE process_id = ?1",
                [id],
                |r| r.get(0),
            )
            .unwrap();
        let (max, sum) = (*images.iter().max().unwrap(), images.iter().sum::<i64>());
        assert!(
            max <= total && total <= sum,
            "{ctx}: process {id}: {images:?} vs {total}"
        );
    }
}

/// Microseconds (a JSON number with up to three decimals) as ns.
pub(super) fn ns(v: &Value) -> i64 {
    (v.as_f64().expect("a number") * 1000.0).round() as i64
}

/// Every event has the fields its `ph` requires, in the right types.
pub(super) fn check_events(events: &[Value], ctx: &str) {
    for e in events {
        let ph = e["ph"]
            .as_str()
            .unwrap_or_else(|| panic!("{ctx}: no ph: {e}"));
        assert!(e["pid"].is_i64(), "{ctx}: pid: {e}");
        assert!(e["name"].is_string(), "{ctx}: name: {e}");
        match ph {
            "X" => {
                assert!(e["tid"].is_i64() && e["cat"].is_string(), "{ctx}: {e}");
                assert!(ns(&e["ts"]) >= 0 && ns(&e["dur"]) >= 0, "{ctx}: {e}");
                assert!(e["args"].is_object(), "{ctx}: {e}");
            }
            "M" => {
                let n = e["name"].as_str().unwrap();
                assert!(
                    ["process_name", "process_sort_index", "thread_name"].contains(&n),
                    "{ctx}: {e}"
                );
                assert!(e["args"].is_object(), "{ctx}: {e}");
                if n == "thread_name" {
                    assert!(e["tid"].is_i64(), "{ctx}: {e}");
                }
            }
            "s" | "f" => {
                assert!(e["id"].is_i64() && e["tid"].is_i64(), "{ctx}: {e}");
                assert!(ns(&e["ts"]) >= 0, "{ctx}: {e}");
                if ph == "f" {
                    assert_eq!(e["bp"], "e", "{ctx}: {e}");
                }
            }
            "C" => {
                assert!(ns(&e["ts"]) >= 0, "{ctx}: {e}");
                let args = e["args"].as_object().unwrap();
                assert!(args.values().all(Value::is_i64), "{ctx}: {e}");
            }
            other => panic!("{ctx}: unexpected ph {other}: {e}"),
        }
    }
}

/// The arrows of category `cat`: each id has one start and one end, the
/// start not after the end; the (start, end) events.
pub(super) fn arrows<'a>(events: &'a [Value], cat: &str, ctx: &str) -> Vec<(&'a Value, &'a Value)> {
    let mut ends: BTreeMap<i64, (Option<&Value>, Option<&Value>)> = BTreeMap::new();
    for e in events.iter().filter(|e| e["cat"] == cat) {
        let slot = ends.entry(e["id"].as_i64().unwrap_or(-1));
        match e["ph"].as_str() {
            Some("s") => assert!(slot.or_default().0.replace(e).is_none(), "{ctx}: two s"),
            Some("f") => assert!(slot.or_default().1.replace(e).is_none(), "{ctx}: two f"),
            _ => {}
        }
    }
    ends.into_values()
        .map(|(s, f)| {
            let (s, f) = (s.expect("a start"), f.expect("an end"));
            assert!(
                ns(&s["ts"]) <= ns(&f["ts"]),
                "{ctx}: flow backwards {s} {f}"
            );
            (s, f)
        })
        .collect()
}

/// The fork arrows' (parent pid, child pid) pairs, as OS pids.
fn flows(events: &[Value], ctx: &str) -> BTreeSet<(i64, i64)> {
    let os = os_pids(events);
    arrows(events, "fork", ctx)
        .into_iter()
        .map(|(s, f)| {
            (
                os[&s["pid"].as_i64().unwrap()],
                os[&f["pid"].as_i64().unwrap()],
            )
        })
        .collect()
}

/// Each process track's OS pid (from its `process_name` arguments).
pub(super) fn os_pids(events: &[Value]) -> BTreeMap<i64, i64> {
    events
        .iter()
        .filter(|e| e["name"] == "process_name" && e["pid"] != 0)
        .map(|e| {
            (
                e["pid"].as_i64().unwrap(),
                e["args"]["os_pid"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// A process lifetime of the truth: (pid, parent key, first, last).
pub(super) type Life = (i64, Option<String>, i64, i64);

/// The process lifetimes of the truth by key.
pub(super) type Lives = BTreeMap<String, Life>;

pub(super) fn lives(t: &Value) -> Lives {
    let mut m = Lives::new();
    let key_of = |id: &str| id.split('#').next().unwrap().to_string();
    for c in commands(t) {
        let key = c["key"].as_str().unwrap().to_string();
        let parent = c["parent"].as_str().map(key_of);
        let (s, e) = (
            c["start_ns"].as_i64().unwrap(),
            c["end_ns"].as_i64().unwrap(),
        );
        let pid = c["pid"].as_i64().unwrap();
        let l = m.entry(key).or_insert((pid, parent, s, e));
        l.2 = l.2.min(s);
        l.3 = l.3.max(e);
    }
    m
}

#[test]
fn chrome_json_is_trace_event_format_and_its_slices_are_the_commands() {
    for d in COMPOSE_DIALECTS {
        let im = composed(d, 4, &["--faithful"]);
        let (t, ctx) = (&im.c.truth, format!("{d} seed 4 --faithful"));
        let v = chrome(&im.db, &timeline::Options::default());
        let origin = v["otherData"]["origin_ns"].as_i64().unwrap();
        let events = v["traceEvents"].as_array().unwrap();
        check_events(events, &ctx);
        // Command slices = the truth's commands, to the nanosecond.
        let got: BTreeSet<(i64, i64, String, i64, i64)> = events
            .iter()
            .filter(|e| e["cat"] == "command")
            .map(|e| {
                let ts = ns(&e["ts"]) + origin;
                let image = e["args"]["image"].as_i64().unwrap();
                let name = e["name"].as_str().unwrap().to_string();
                (
                    e["args"]["os_pid"].as_i64().unwrap(),
                    image,
                    name,
                    ts,
                    ts + ns(&e["dur"]),
                )
            })
            .collect();
        let want: BTreeSet<(i64, i64, String, i64, i64)> = commands(t)
            .iter()
            .map(|c| {
                let n = |k: &str| c[k].as_i64().unwrap();
                let comm = c["comm"].as_str().unwrap().to_string();
                (n("pid"), n("image"), comm, n("start_ns"), n("end_ns"))
            })
            .collect();
        assert_eq!(got, want, "{ctx}: command slices");
        check_image_files(&im.db, events, &ctx);
        assert_eq!(
            origin,
            want.iter().map(|w| w.3).min().unwrap(),
            "{ctx}: origin"
        );
        // Fork arrows: the truth's fork edges.
        let lv = lives(t);
        let edges: BTreeSet<(i64, i64)> = lv
            .values()
            .filter_map(|(pid, parent, _, _)| parent.as_ref().map(|p| (lv[p].0, *pid)))
            .collect();
        assert_eq!(flows(events, &ctx), edges, "{ctx}: fork arrows");
        // The counter's peak: most lifetimes running at once (half-open).
        let mut change: BTreeMap<i64, i64> = BTreeMap::new();
        for (_, _, s, e) in lv.values() {
            *change.entry(*s).or_default() += 1;
            *change.entry(*e).or_default() -= 1;
        }
        let peak = change
            .values()
            .scan(0, |n, d| {
                *n += d;
                Some(*n)
            })
            .max();
        let counted = events
            .iter()
            .filter(|e| e["ph"] == "C")
            .map(|e| e["args"]["running"].as_i64().unwrap())
            .max();
        assert_eq!(counted, peak, "{ctx}: peak parallelism");
        // Tracks are named and ordered by the tree: the root's first.
        let sort: Vec<i64> = events
            .iter()
            .filter(|e| e["name"] == "process_sort_index")
            .map(|e| e["pid"].as_i64().unwrap())
            .collect();
        let first = commands(t).iter().find(|c| c["parent"].is_null()).unwrap();
        assert_eq!(
            os_pids(events)[&sort[1]],
            first["pid"].as_i64().unwrap(),
            "{ctx}: first track"
        );
    }
}

#[test]
fn file_flow_arrows_are_the_truths_flows_inside_their_slices() {
    for d in COMPOSE_DIALECTS {
        let im = composed(d, 4, &["--faithful", "--hazards"]);
        let (t, ctx) = (&im.c.truth, format!("{d} seed 4 --faithful --hazards"));
        let v = chrome(&im.db, &timeline::Options::default());
        let events = v["traceEvents"].as_array().unwrap();
        check_events(events, &ctx);
        let pid_of: BTreeMap<&str, i64> = commands(t)
            .iter()
            .map(|c| (c["id"].as_str().unwrap(), c["pid"].as_i64().unwrap()))
            .collect();
        let b = t.get("build_visible").unwrap_or(&t["build"]);
        let want: Vec<(String, i64, i64, i64, i64)> = b["flows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                let pid = |k: &str| pid_of[f[k].as_str().unwrap()];
                let n = |k: &str| f[k].as_i64().unwrap();
                let path = f["path"].as_str().unwrap().to_string();
                (
                    path,
                    pid("producer"),
                    n("write_ns"),
                    pid("consumer"),
                    n("read_ns"),
                )
            })
            .collect();
        assert!(!want.is_empty(), "{ctx}: the truth has flows");
        let origin = v["otherData"]["origin_ns"].as_i64().unwrap();
        let slices: Vec<&Value> = events.iter().filter(|e| e["cat"] == "command").collect();
        // The slice on (pid, tid) that holds `e`'s time: its binding point.
        let holder = |e: &Value| {
            let ts = ns(&e["ts"]);
            slices.iter().any(|s| {
                s["pid"] == e["pid"]
                    && s["tid"] == e["tid"]
                    && ns(&s["ts"]) <= ts
                    && ts <= ns(&s["ts"]) + ns(&s["dur"])
            })
        };
        let fork_ids: BTreeSet<i64> = arrows(events, "fork", &ctx)
            .iter()
            .map(|(s, _)| s["id"].as_i64().unwrap())
            .collect();
        let os = os_pids(events);
        let mut got = Vec::new();
        for (s, f) in arrows(events, "file", &ctx) {
            assert_eq!(s["name"], f["name"], "{ctx}: one path per arrow");
            assert!(holder(s) && holder(f), "{ctx}: binding points {s} {f}");
            assert!(
                !fork_ids.contains(&s["id"].as_i64().unwrap()),
                "{ctx}: id shared with a fork arrow: {s}"
            );
            got.push((
                s["name"].as_str().unwrap().to_string(),
                os[&s["pid"].as_i64().unwrap()],
                ns(&s["ts"]) + origin,
                os[&f["pid"].as_i64().unwrap()],
                ns(&f["ts"]) + origin,
            ));
        }
        let (mut got, mut want) = (got, want);
        got.sort();
        want.sort();
        assert_eq!(got, want, "{ctx}: one arrow per flow");
        // The SVG draws the same flows as thin lines (or, between rows far
        // apart, a dot on the reader's row).
        let conn = report::open(&im.db).unwrap();
        let mut out = Vec::new();
        conn.in_temp(|c| timeline::svg::write(c, &timeline::Options::default(), &mut out))
            .unwrap();
        let s = String::from_utf8(out).unwrap();
        xml_elements(&s);
        let lines = s
            .lines()
            .filter(|l| {
                l.starts_with("<line class=\"file\"") || l.starts_with("<circle class=\"file\"")
            })
            .count();
        assert_eq!(lines, want.len(), "{ctx}: SVG file lines");
    }
}

/// The steps the truth implies: (pid, image, start, end, wait, via).
pub(super) type Steps = Vec<(i64, i64, i64, i64, i64, String)>;

/// A file dependency of the truth: (consumer key, producer key, write, read).
type Dep = (String, String, i64, i64);

/// The truth's flows between two processes of `member`.
fn deps(t: &Value, member: &BTreeSet<String>) -> BTreeSet<Dep> {
    let key_of: BTreeMap<&str, &str> = commands(t)
        .iter()
        .map(|c| (c["id"].as_str().unwrap(), c["key"].as_str().unwrap()))
        .collect();
    let b = t.get("build_visible").unwrap_or(&t["build"]);
    let key = |f: &Value, k: &str| key_of[f[k].as_str().unwrap()].to_string();
    b["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let n = |k: &str| f[k].as_i64().unwrap();
            (
                key(f, "consumer"),
                key(f, "producer"),
                n("write_ns"),
                n("read_ns"),
            )
        })
        .filter(|d| d.0 != d.1 && member.contains(&d.0) && member.contains(&d.1))
        .collect()
}

/// The critical path from the truth's lifetimes, fork edges and file
/// flows, by the rule queries/critical_path.sql states, restated over the
/// truth; with `pid`, over every lifetime of that pid and its descendants.
fn truth_path(t: &Value, pid: Option<i64>) -> Steps {
    let all = lives(t);
    let top = |l: &Life| pid.map_or(l.1.is_none(), |p| l.0 == p);
    let mut member: BTreeSet<String> = BTreeSet::new();
    for (k, l) in &all {
        // A member is a top, or has one above it.
        let mut at = Some((k, l));
        while let Some((_, life)) = at {
            if top(life) {
                member.insert(k.clone());
                break;
            }
            at = life.1.as_ref().and_then(|p| all.get_key_value(p));
        }
    }
    let lv: Lives = all
        .into_iter()
        .filter(|(k, _)| member.contains(k))
        .collect();
    let dep = deps(t, &member);
    // The parent's fork return, unless the composer lost that record.
    let lost: BTreeSet<String> = t["dropped_records"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["child_key"].as_str().map(String::from))
        .collect();
    let fork: BTreeMap<String, i64> = t["forks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| {
            let k = util::truth::key_of(f, "child_key", "child")?;
            (!lost.contains(&k)).then(|| (k, f["time_ns"].as_i64().unwrap()))
        })
        .collect();
    let last_first = |a: &Life| (a.3, -a.2);
    let pick = |cands: Vec<(&String, &Life)>| {
        cands
            .into_iter()
            .max_by_key(|(_, l)| (last_first(l), l.0))
            .map(|(k, _)| k.clone())
    };
    let start = lv
        .iter()
        .max_by_key(|(_, l)| (l.3, -l.2, -l.0))
        .map(|(k, _)| k.clone());
    // (process, time, how it was reached from the previous state).
    let mut walk: Vec<(String, i64, &str)> = Vec::new();
    let mut state = start.map(|k| (k.clone(), lv[&k].3, ""));
    while let Some((k, at, how)) = state.take() {
        walk.push((k.clone(), at, how));
        let me = &lv[&k];
        let kids = lv
            .iter()
            .filter(|(_, l)| l.1.as_ref() == Some(&k) && l.3 <= at)
            .filter(|(_, l)| !(how == "fork" && l.3 == at))
            .collect();
        let other = if let Some(c) = pick(kids) {
            let t = lv[&c].3;
            Some((c, t, "wait"))
        } else if let Some(p) = me.1.as_ref().filter(|_| !top(me)) {
            let t = fork.get(&k).copied().unwrap_or(me.2).min(me.2);
            Some((p.clone(), t, "fork"))
        } else {
            let roots = lv
                .iter()
                .filter(|(o, l)| top(l) && l.3 <= me.2 && **o != k)
                .collect();
            pick(roots).map(|r| {
                let t = lv[&r].3;
                (r, t, "after")
            })
        };
        // The latest write this process read before `at`.
        let file = dep
            .iter()
            .filter(|d| d.0 == k && d.3 <= at)
            .max_by_key(|d| (d.2, d.3, lv[&d.1].2, lv[&d.1].0));
        state = match (file, other) {
            (Some(d), o) if o.as_ref().is_none_or(|o| d.2 > o.1) => {
                Some((d.1.clone(), d.2, "file"))
            }
            (_, o) => o,
        };
        assert!(walk.len() <= 3 * lv.len() + 1, "the truth walk goes round");
    }
    let mut steps = Steps::new();
    for i in (0..walk.len()).rev() {
        let (k, end, _) = &walk[i];
        let me = &lv[k];
        let next = walk.get(i + 1);
        let via = next.map_or("start", |n| n.2);
        let start = match next {
            Some((_, t, "wait" | "file")) => *t,
            _ => me.2,
        };
        // Cut at the process's images.
        let mut first = true;
        for c in commands(t).iter().filter(|c| c["key"] == k.as_str()) {
            let (a, b) = (
                c["start_ns"].as_i64().unwrap(),
                c["end_ns"].as_i64().unwrap(),
            );
            let last = !commands(t)
                .iter()
                .any(|o| o["key"] == k.as_str() && o["image"].as_i64() > c["image"].as_i64());
            let b_open = if last { None } else { Some(b) };
            if b_open.is_some_and(|b| b <= start) || !(a < *end || a <= start) {
                continue;
            }
            let (s, e) = (start.max(a), b_open.map_or(*end, |b| b.min(*end)));
            let wait = next.map_or(0, |n| s - n.1);
            let (w, v) = if first { (wait, via) } else { (0, "exec") };
            first = false;
            steps.push((me.0, c["image"].as_i64().unwrap(), s, e, w, v.to_string()));
        }
    }
    steps
}

/// Checks a critical path by the truth's facts alone, not by the walk's
/// choices: it starts at a root's start, ends when the last process ended,
/// its steps tile the time (each step's start is the previous end plus
/// its wait), each step lies within its command, and each hand-over is a
/// traced edge: `exec` the same lifetime's next image, `fork` a child of
/// the previous lifetime starting after its parent's piece, `wait` the
/// parent of a child that ended there, `file` the reader of a flow the
/// previous lifetime wrote there, `after` two roots, the first ended.
fn check_path_edges(steps: &Steps, t: &Value, ctx: &str) {
    let lv = lives(t);
    // Each step's lifetime: the one of its pid whose life holds it.
    let life_of = |s: &(i64, i64, i64, i64, i64, String)| -> &String {
        let mut hold = lv
            .iter()
            .filter(|(_, l)| l.0 == s.0 && l.2 <= s.2 && s.3 <= l.3)
            .map(|(k, _)| k);
        let k = hold
            .next()
            .unwrap_or_else(|| panic!("{ctx}: no lifetime holds {s:?}"));
        assert!(hold.next().is_none(), "{ctx}: two lifetimes hold {s:?}");
        k
    };
    let cmd = |k: &str, image: i64| {
        commands(t)
            .iter()
            .find(|c| c["key"] == k && c["image"] == image)
            .map(|c| {
                (
                    c["start_ns"].as_i64().unwrap(),
                    c["end_ns"].as_i64().unwrap(),
                )
            })
            .unwrap_or_else(|| panic!("{ctx}: no command {k} image {image}"))
    };
    let flows: BTreeSet<Dep> = deps(t, &lv.keys().cloned().collect());
    let first = &steps[0];
    let k0 = life_of(first);
    assert_eq!(
        (first.4, first.5.as_str()),
        (0, "start"),
        "{ctx}: {first:?}"
    );
    assert!(
        lv[k0].1.is_none() && first.2 == lv[k0].2,
        "{ctx}: starts at a root's start"
    );
    let last_end = lv.values().map(|l| l.3).max().unwrap();
    assert_eq!(
        steps.last().unwrap().3,
        last_end,
        "{ctx}: ends at the build's end"
    );
    for s in steps {
        let (a, b) = cmd(life_of(s), s.1);
        assert!(
            a <= s.2 && s.2 <= s.3 && s.3 <= b,
            "{ctx}: {s:?} outside its command"
        );
    }
    for w in steps.windows(2) {
        let (p, s) = (&w[0], &w[1]);
        let (kp, ks) = (life_of(p), life_of(s));
        assert!(
            s.4 >= 0 && s.2 == p.3 + s.4,
            "{ctx}: {p:?} then {s:?}: not tiled"
        );
        let ok = match s.5.as_str() {
            "exec" => kp == ks && s.1 > p.1 && s.4 == 0 && s.2 == cmd(ks, s.1).0,
            "fork" => lv[ks].1.as_ref() == Some(kp) && s.2 == lv[ks].2,
            "wait" => lv[kp].1.as_ref() == Some(ks) && p.3 == lv[kp].3 && s.4 == 0,
            "file" => {
                s.4 == 0
                    && flows
                        .iter()
                        .any(|f| &f.0 == ks && &f.1 == kp && f.2 == p.3 && f.3 >= s.2)
            }
            "after" => {
                lv[kp].1.is_none() && lv[ks].1.is_none() && p.3 == lv[kp].3 && s.2 == lv[ks].2
            }
            _ => false,
        };
        assert!(ok, "{ctx}: {p:?} ({kp}) then {s:?} ({ks}): no such edge");
    }
}

/// The critical path of trace 1 as `queries/critical_path.sql` gives it,
/// after checking that the timeline's own walk (over the lifetimes and the
/// flows it reads) gives the same steps, field by field.
fn same_path(conn: &rusqlite::Connection, scope: Scope, ctx: &str) -> Vec<timeline::Step> {
    let sql = timeline::critical_path(conn, scope, &[1]).unwrap();
    let opts = timeline::Options {
        scope,
        ..Default::default()
    };
    let flows = timeline::flows::load(conn, &opts).unwrap();
    let traces = timeline::critical::traces(conn, scope).unwrap();
    assert_eq!(traces, [1], "{ctx}: traces");
    assert_eq!(
        timeline::critical::critical_path(conn, scope, &[1], &timeline::critical::Deps::of(&flows))
            .unwrap(),
        sql,
        "{ctx}: the timeline's walk"
    );
    sql
}

/// The critical path of one composed trace, whole and under each `-p`
/// the truth implies, is the truth's; returns how many steps followed a
/// file.
fn check_critical_path(d: &str, seed: u64, extra: &[&str]) -> usize {
    let mut by_file = 0;
    let im = composed(d, seed, extra);
    let ctx = format!("{d} seed {seed} {extra:?}");
    let conn = report::open(&im.db).unwrap();
    let got: Steps = same_path(&conn, Scope::default(), &ctx)
        .into_iter()
        .map(|s| (s.pid, s.image, s.start_ts, s.end_ts, s.wait, s.via))
        .collect();
    check_path_edges(&got, &im.c.truth, &ctx);
    let want = truth_path(&im.c.truth, None);
    assert_eq!(got, want, "{ctx}: critical path");
    let roots = lives(&im.c.truth)
        .values()
        .filter(|l| l.1.is_none())
        .count();
    let after = got.iter().filter(|s| s.5 == "after").count();
    assert!(after + 1 >= roots.min(2), "{ctx}: {after} root changes");
    // It spans the wall time: own times and waits add up.
    let lv = lives(&im.c.truth);
    let wall = lv.values().map(|l| l.3).max().unwrap() - lv.values().map(|l| l.2).min().unwrap();
    let sum: i64 = got.iter().map(|s| s.3 - s.2 + s.4).sum();
    assert_eq!(sum, wall, "{ctx}: path length");
    by_file += got.iter().filter(|s| s.5 == "file").count();
    // -p: the walk over every subtree the truth names, and under
    // each parent of two processes with a file between them (the
    // --hazards job's shell, whose sed writes what its cc reads).
    let lv = lives(&im.c.truth);
    let everyone: BTreeSet<String> = lv.keys().cloned().collect();
    let mut pids: BTreeSet<i64> = im.c.truth["subtrees"]
        .as_object()
        .unwrap()
        .keys()
        .map(|p| p.parse().unwrap())
        .collect();
    for (c, p, _, _) in deps(&im.c.truth, &everyone) {
        if let Some(parent) = lv[&c].1.as_ref().filter(|k| lv[&p].1.as_ref() == Some(*k)) {
            pids.insert(lv[parent].0);
        }
    }
    for pid in pids {
        let scope = Scope {
            trace: Some(1),
            pid: Some(pid),
        };
        let got: Steps = same_path(&conn, scope, &format!("{ctx} -p {pid}"))
            .into_iter()
            .map(|s| (s.pid, s.image, s.start_ts, s.end_ts, s.wait, s.via))
            .collect();
        let want = truth_path(&im.c.truth, Some(pid));
        assert!(!want.is_empty(), "{ctx} -p {pid}");
        assert_eq!(got, want, "{ctx} -p {pid}: critical path");
        by_file += got.iter().filter(|s| s.5 == "file").count();
    }
    by_file
}

/// On the committed fixtures, which need no `../shared`: a `--faithful`
/// trace of every dialect, with and without `--hazards`.
#[test]
fn critical_path_is_what_the_truth_implies_on_the_committed_fixtures() {
    let mut by_file = 0;
    for d in COMPOSE_DIALECTS {
        for extra in [&["--faithful"][..], &["--faithful", "--hazards"]] {
            by_file += check_critical_path(d, 4, extra);
        }
    }
    assert!(by_file > 0, "no step followed a file");
}

/// Other shapes: busier builds, and repeated blocks, separate process
/// trees one after another: the path goes from each root to the one that
/// ended before it began.
#[test]
fn critical_path_is_what_the_truth_implies_in_every_dialect() {
    crate::require_shared!(python);
    let blocks = ["--target-bytes", "1500K", "--truth-detail", "full"];
    for d in COMPOSE_DIALECTS {
        for (seed, extra) in [(11, &["--jobs", "6"][..]), (6, &blocks[..])] {
            check_critical_path(d, seed, extra);
        }
    }
}

/// A small XML well-formedness check: tags nest and close, attributes are
/// quoted, `&` starts a known entity. Returns the element names opened.
pub(super) fn xml_elements(s: &str) -> Vec<String> {
    let (mut stack, mut seen) = (Vec::<String>::new(), Vec::new());
    let mut rest = s.strip_prefix("<?xml").expect("an XML declaration");
    rest = &rest[rest.find("?>").expect("declaration ends") + 2..];
    while let Some(lt) = rest.find('<') {
        check_text(&rest[..lt]);
        let gt = rest[lt..].find('>').expect("tag ends") + lt;
        let tag = &rest[lt + 1..gt];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "close tag {name}");
        } else {
            let selfclose = tag.ends_with('/');
            let body = tag.trim_end_matches('/');
            let name = body
                .split_whitespace()
                .next()
                .expect("a tag name")
                .to_string();
            check_attributes(&body[name.len()..]);
            seen.push(name.clone());
            if !selfclose {
                stack.push(name);
            }
        }
        rest = &rest[gt + 1..];
    }
    check_text(rest);
    assert!(stack.is_empty(), "unclosed {stack:?}");
    seen
}

fn check_text(t: &str) {
    assert!(!t.contains('>'), "bare > in {t:?}");
    for (i, _) in t.match_indices('&') {
        let ent = &t[i..t[i..].find(';').expect("entity ends") + i + 1];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&ent),
            "entity {ent}"
        );
    }
}

fn check_attributes(mut a: &str) {
    loop {
        a = a.trim_start();
        if a.is_empty() {
            return;
        }
        let eq = a.find('=').expect("name=value");
        assert!(!a[..eq].contains(char::is_whitespace), "attribute {a}");
        let v = a[eq + 1..].strip_prefix('"').expect("quoted value");
        let end = v.find('"').expect("value ends");
        check_text(&v[..end]);
        a = &v[end + 1..];
    }
}

#[test]
fn svg_is_xml_with_one_row_per_command() {
    for d in COMPOSE_DIALECTS {
        let im = composed(d, 4, &["--faithful"]);
        let ctx = format!("{d} seed 4 --faithful");
        let conn = report::open(&im.db).unwrap();
        let mut out = Vec::new();
        conn.in_temp(|c| timeline::svg::write(c, &timeline::Options::default(), &mut out))
            .unwrap();
        let s = String::from_utf8(out).unwrap();
        let elements = xml_elements(&s);
        assert_eq!(elements[0], "svg", "{ctx}");
        let rows: Vec<&str> = s
            .lines()
            .filter(|l| l.starts_with("<g class=\"cmd\">"))
            .collect();
        let want: Vec<String> = commands(&im.c.truth)
            .iter()
            .map(|c| format!("{} {}", c["pid"], c["comm"].as_str().unwrap()))
            .collect();
        assert_eq!(rows.len(), want.len(), "{ctx}: one row per command");
        // Each row's tooltip names its pid and comm; its label starts
        // with the comm and names paths relative to the start directory.
        let start = im.c.truth["start_cwd"].as_str().unwrap();
        let (mut titles, mut labels) = (BTreeSet::new(), BTreeSet::new());
        for r in &rows {
            let t = &r[r.find("<title>").unwrap() + 7..];
            let t = &t[..t.find(" (").unwrap()];
            titles.insert(t.strip_prefix("pid ").unwrap().to_string());
            let l = &r[r.find("</title><text").unwrap()..];
            let l = &l[l.find('>').unwrap() + 1..];
            let l = &l[l.find('>').unwrap() + 1..l.find("</text>").unwrap()];
            let comm = t.split(' ').nth(2).unwrap();
            assert!(l.starts_with(comm), "{ctx}: label {l:?} of {t}");
            assert!(!l.contains(start), "{ctx}: label {l:?} names {start}");
            labels.insert(l.to_string());
        }
        assert_eq!(titles, want.into_iter().collect(), "{ctx}: row tooltips");
        // Where argv was recorded, the compiles and the link are named by
        // what they made.
        let with_argv: i64 = conn
            .query_row(
                "SELECT count(*) FROM exec WHERE argv IS NOT NULL",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(
            with_argv == 0 || labels.iter().any(|l| l.contains(" → ")),
            "{ctx}: no label names an output: {labels:?}"
        );
        // The critical path: a lane of its own with one bar per step, and
        // each step's piece outlined in its command's row; no line joins
        // the steps across the picture.
        let steps = timeline::critical_path(&conn, Scope::default(), &[1]).unwrap();
        let lane = &s[s.find("<g class=\"lane\">").expect("the critical lane")..];
        let lane = &lane[..lane.find("</g>").unwrap()];
        assert_eq!(
            lane.matches("<rect class=\"step\"").count(),
            steps.len(),
            "{ctx}"
        );
        assert_eq!(s.matches("<g class=\"lane\">").count(), 1, "{ctx}");
        let outlined = s.matches("stroke=\"#d00\" stroke-width=\"1.5\"").count();
        assert_eq!(outlined, steps.len(), "{ctx}: critical steps outlined");
        assert!(
            !s.contains("class=\"critical\""),
            "{ctx}: a line along the path"
        );
        let on_path: BTreeSet<i64> = steps.iter().map(|st| st.exec_id).collect();
        assert_eq!(
            s.matches("class=\"on-path\"").count(),
            on_path.len(),
            "{ctx}: the rows on the path have red labels"
        );
    }
}

#[test]
fn the_binary_writes_calls_subtrees_and_files() {
    let im = composed("openbsd-amd64", 4, &["--faithful"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.json");
    let o = kt2sql()
        .args(["timeline"])
        .arg(&im.db)
        .args(["--calls", "--min-dur", "20us", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success() && o.stdout.is_empty(), "{o:?}");
    let v: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    check_events(events, "--calls");
    let calls: Vec<&Value> = events
        .iter()
        .filter(|e| e["cat"].as_str().is_some_and(|c| c.starts_with("syscall")))
        .collect();
    let conn = rusqlite::Connection::open(&im.db).unwrap();
    let (n, failed): (usize, usize) = conn
        .query_row(
            "SELECT count(*), count(CASE WHEN success = 0 THEN 1 END) FROM call
             WHERE ts IS NOT NULL AND dur >= 20000",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(n > 0 && calls.len() == n, "{} calls, want {n}", calls.len());
    assert!(calls.iter().all(|c| ns(&c["dur"]) >= 20_000));
    let marked: Vec<&&Value> = calls
        .iter()
        .filter(|c| c["cat"] == "syscall,failed")
        .collect();
    assert_eq!(marked.len(), failed);
    assert!(marked.iter().all(|c| c["args"]["errno"].is_string()));
    // -p: the subtree's commands only, and the SVG as well.
    let (pid, sub) = im.c.truth["subtrees"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .unwrap();
    let want: BTreeSet<i64> = sub["pids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_i64().unwrap())
        .collect();
    let o = kt2sql()
        .arg("timeline")
        .arg(&im.db)
        .args(["-p", pid, "--trace", "1"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let pids: BTreeSet<i64> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "command")
        .map(|e| e["args"]["os_pid"].as_i64().unwrap())
        .collect();
    assert_eq!(pids, want, "-p {pid}");
    let o = kt2sql()
        .arg("timeline")
        .arg(&im.db)
        .args(["-p", pid, "--format", "svg"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    xml_elements(std::str::from_utf8(&o.stdout).unwrap());
    // Refusals: --calls on the SVG, --min-dur without --calls, no such trace.
    for args in [
        &["--calls", "--format", "svg"][..],
        &["--min-dur", "1ms"][..],
        &["--calls", "--min-dur", "3 weeks"][..],
        &["--trace", "9"][..],
    ] {
        let o = kt2sql()
            .arg("timeline")
            .arg(&im.db)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("error"),
            "{args:?}"
        );
    }
}

#[test]
fn stats_summarises_the_critical_path_within_top() {
    let im = composed("netbsd-v2-amd64", 4, &["--faithful"]);
    let conn = report::open(&im.db).unwrap();
    let steps = timeline::critical_path(&conn, Scope::default(), &[1]).unwrap();
    let full = report::run(&conn, "critical_path", &[("trace", report::Cell::Int(1))]).unwrap();
    assert_eq!(full.rows.len(), steps.len());
    assert!(steps.len() > 4, "a path longer than --top 2 and its ends");
    let own: i64 = full
        .rows
        .iter()
        .map(|r| r[full.col("dur")].int().unwrap())
        .sum();
    let wait: i64 = full
        .rows
        .iter()
        .map(|r| r[full.col("wait")].int().unwrap())
        .sum();
    let o = kt2sql()
        .arg("stats")
        .arg(&im.db)
        .args(["--top", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("    build      "), "{text}");
    let head = format!("Critical path of trace 1: {} ", stats::duration(own + wait));
    assert!(text.contains(&head), "{text}");
    assert!(
        text.contains(&format!(", {} steps:", steps.len())),
        "{text}"
    );
    assert!(
        text.contains("kt2sql query DB critical_path --param trace=1"),
        "{text}"
    );
    let section: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Critical path"))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .collect();
    let shown = section
        .iter()
        .filter(|l| !l.trim_start().starts_with(['…', '(']))
        .count();
    assert!(
        shown <= 4,
        "--top 2 longest, the first and the last: {text}"
    );
    let o = kt2sql()
        .arg("stats")
        .arg(&im.db)
        .args(["--top", "2", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let c = &v["critical_path"][0];
    assert_eq!(c["steps"].as_i64().unwrap(), steps.len() as i64);
    assert_eq!(c["own"].as_i64().unwrap(), own);
    assert_eq!(c["wait"].as_i64().unwrap(), wait);
    let b = &v["build"][0];
    assert_eq!(
        c["total"].as_i64().unwrap(),
        b["wall"].as_i64().unwrap(),
        "the path spans the wall time"
    );
    assert!(b["peak_parallel"].as_i64().unwrap() >= 1);
    let got: Vec<i64> = v["critical_path_steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"].as_i64().unwrap())
        .collect();
    // The first, the two longest by own time (earlier first on a tie), the last.
    let mut by_own: Vec<(i64, i64)> = full
        .rows
        .iter()
        .map(|r| {
            (
                -r[full.col("dur")].int().unwrap(),
                r[full.col("step")].int().unwrap(),
            )
        })
        .collect();
    by_own.sort();
    let mut want: Vec<i64> = by_own.iter().take(2).map(|x| x.1).collect();
    want.extend([1, steps.len() as i64]);
    want.sort();
    want.dedup();
    assert_eq!(got, want);
    assert_eq!(shown, want.len());
}
