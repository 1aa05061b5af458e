//! A build watched while it runs: databases as `import --follow` leaves
//! them mid-build (a one-shot import of a byte prefix of a composed trace,
//! cut at a record boundary, marked as followed and its calls in flight as
//! running, as the follow's snapshot rule defines them), checked against
//! the trace's truth: the view `running`, the reports on a live database,
//! `kt2sql watch --once` and the full-screen `kt2sql watch` under tmux.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use chrono::{DateTime, NaiveDateTime};
use kt2sql::names::syscall_name;
use kt2sql::record::Body;
use rusqlite::Connection;
use serde_json::Value;

use crate::util::fixtures::{self, Fixture};
use crate::util::{decode, Decoded};

// The view `running` and the reports (stats, tree, timeline) on a live database.
mod views;
// `kt2sql watch`: one snapshot as text and JSON, and the terminal view under tmux.
mod watch;

/// The kt2sql binary.
fn kt2sql() -> Command {
    Command::cargo_bin("kt2sql").unwrap()
}

/// A fixture's trace and truth, decoded.
struct Build {
    trace: Vec<u8>,
    truth: Value,
    decoded: Decoded,
}

impl Build {
    fn of(f: &Fixture) -> Build {
        let trace = f.read("ktrace");
        let truth = serde_json::from_slice(&f.read("json")).unwrap();
        let decoded = decode(&trace, None).unwrap();
        assert!(decoded.error.is_none(), "{}: decodes whole", f.name);
        Build {
            trace,
            truth,
            decoded,
        }
    }

    /// The committed fixture `name`.
    fn named(name: &str) -> Build {
        let f = fixtures::manifest()
            .into_iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("no fixture {name}"));
        Build::of(&f)
    }
}

/// A database as a follow leaves it after the trace's first `cut`
/// records: the one-shot import of their bytes, the trace marked as
/// followed, its calls left without a return marked running.
struct Live {
    db: PathBuf,
    /// The snapshot's time: trace.last_ts.
    snapshot_ts: i64,
    /// What the truth says of the processes at that time.
    alive: Truth,
    /// The CALL record each process is in at the cut, the earliest when
    /// several of its threads are in one: (pid → offset).
    pending: BTreeMap<i64, u64>,
}

/// The start directory every composed build was recorded in.
const START_DIR: &str = "/usr/src/build";

/// Import `bytes` into `db` in one shot.
fn import(dir: &Path, bytes: &[u8], name: &str) -> PathBuf {
    let trace = dir.join(format!("{name}.ktrace"));
    std::fs::write(&trace, bytes).unwrap();
    let db = dir.join(format!("{name}.db"));
    kt2sql()
        .arg("import")
        .arg(&trace)
        .arg(&db)
        .args(["-d", START_DIR])
        .assert()
        .success();
    db
}

impl Live {
    /// The live database of `b`'s first `cut` records, in `dir`.
    fn cut(b: &Build, cut: usize, dir: &Path) -> Live {
        let end = b.decoded.records[cut].offset as usize;
        let db = import(dir, &b.trace[..end], &format!("cut{cut}"));
        let conn = Connection::open(&db).unwrap();
        conn.execute_batch(
            "UPDATE trace SET following = 1;
             UPDATE call SET unpaired = 'running' WHERE unpaired = 'end of trace';",
        )
        .unwrap();
        let snapshot_ts: i64 = conn
            .query_row("SELECT last_ts FROM trace", [], |r| r.get(0))
            .unwrap();
        Live {
            db,
            snapshot_ts,
            alive: Truth::at(&b.truth, snapshot_ts),
            pending: pending(&b.decoded, cut),
        }
    }
}

/// The calls that end a thread and never return.
const THREAD_EXITS: &[&str] = &["thr_exit", "__threxit", "_lwp_exit", "bsdthread_terminate"];

/// The CALL each process is in after the first `cut` records, read from
/// the records themselves: per thread, a CALL not yet followed by a RET.
fn pending(d: &Decoded, cut: usize) -> BTreeMap<i64, u64> {
    let mut open: BTreeMap<(i64, Option<i64>), u64> = BTreeMap::new();
    for r in &d.records[..cut] {
        match &r.body {
            // A call that never returns ends its thread, or its process
            // (whose pid may be another process's later).
            Body::Call(c) => match syscall_name(d.abi.name_table(), c.code.into()) {
                Some("exit" | "_exit") => open.retain(|(pid, _), _| *pid != r.pid),
                Some(n) if THREAD_EXITS.contains(&n) => {
                    open.remove(&(r.pid, r.tid));
                }
                _ => {
                    open.insert((r.pid, r.tid), r.offset);
                }
            },
            Body::Ret(_) => {
                open.remove(&(r.pid, r.tid));
            }
            _ => {}
        }
    }
    let mut first: BTreeMap<i64, u64> = BTreeMap::new();
    for ((pid, _), off) in open {
        let e = first.entry(pid).or_insert(off);
        *e = (*e).min(off);
    }
    first
}

/// What the truth says of a build at one time. The truth's times are
/// microseconds: a process whose start or end falls in the snapshot's
/// microsecond is neither surely alive nor surely not.
#[derive(Debug, Default)]
struct Truth {
    /// Pids surely alive: started before the snapshot, ended after it.
    alive: BTreeSet<i64>,
    /// Pids it cannot tell.
    unsure: BTreeSet<i64>,
    /// Each surely alive pid's command name and program at that time (the
    /// program of a forked copy of its parent is None; a posix_spawn
    /// child's first image is the program spawned).
    command: BTreeMap<i64, (String, Option<String>)>,
    /// Pids surely ended before it with a non-zero exit or a signal.
    failed: BTreeSet<i64>,
}

/// ns since the epoch of a truth time (`2023-05-24T18:20:01.441350Z`).
fn ns(s: &str) -> i64 {
    let t = NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.fZ").unwrap();
    DateTime::<chrono::Utc>::from_naive_utc_and_offset(t, chrono::Utc)
        .timestamp_nanos_opt()
        .unwrap()
}

impl Truth {
    fn at(truth: &Value, t: i64) -> Truth {
        let us = |ns: i64| ns.div_euclid(1000);
        let mut out = Truth::default();
        for p in truth["processes"].as_array().unwrap() {
            let pid = p["pid"].as_i64().unwrap();
            let (a, z) = (
                ns(p["first_time"].as_str().unwrap()),
                ns(p["last_time"].as_str().unwrap()),
            );
            if us(a) == us(t) || us(z) == us(t) {
                out.unsure.insert(pid);
                continue;
            }
            if a < t && z > t {
                out.alive.insert(pid);
                // A posix_spawn child (NetBSD) runs the program spawned
                // from its first record: its first image has a program.
                let spawned = p["fork"]["image"]["abs"].as_str().map(String::from);
                let mut now = (p["first_comm"].as_str().unwrap().to_string(), spawned);
                for e in p["execs"].as_array().unwrap() {
                    if e["time_ns"].as_i64().unwrap() <= t {
                        now = (
                            e["comm"].as_str().unwrap().to_string(),
                            e["abs"].as_str().map(String::from),
                        );
                    }
                }
                out.command.insert(pid, now);
            } else if z < t {
                let status = p["exit"]["status"].as_i64();
                if p["end"] == "signal" || status.is_some_and(|s| s != 0) {
                    out.failed.insert(pid);
                }
            }
        }
        out
    }

    /// Whether `got` is the set of pids alive: every surely alive one,
    /// and none surely not.
    fn check_alive(&self, got: &BTreeSet<i64>, ctx: &str) {
        let sure: BTreeSet<i64> = got.difference(&self.unsure).copied().collect();
        assert_eq!(sure, self.alive, "{ctx}: the processes alive");
    }
}

/// The fixtures the tests cut, one per system family that records argv
/// or not, and the fractions of their records they cut at.
const CUTS: &[(&str, &[f64])] = &[
    ("openbsd-amd64-4-faithful", &[0.3, 0.5, 0.8]),
    ("freebsd-v1-amd64-4-faithful", &[0.4, 0.7]),
    // posix_spawn children, whose first image is the program spawned.
    ("netbsd-v2-amd64-4-faithful", &[0.3, 0.5, 0.8]),
];

/// Every live database of [`CUTS`], each with its build, in `dir`.
fn each_cut(dir: &Path, mut f: impl FnMut(&str, &Build, &Live)) {
    for (name, fractions) in CUTS {
        let b = Build::named(name);
        for fr in *fractions {
            let cut = (b.decoded.records.len() as f64 * fr) as usize;
            let live = Live::cut(&b, cut, dir);
            f(&format!("{name} cut at record {cut}"), &b, &live);
        }
    }
}
