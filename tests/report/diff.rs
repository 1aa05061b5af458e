//! `kt2sql diff` (issue #24) against composed builds: the diff expected
//! between two composed traces is computed here from their two truths
//! (the `build` sections: commands, files with their readers and writers,
//! hazards), by this file's own rules, and compared with what `kt2sql
//! diff --format json` prints: the same seed with other `--processes`,
//! `--hazards` on and off, other seeds, in every dialect, with pid reuse
//! (`--faithful`), and a pair composed under different roots (`--map`,
//! and the start directories given with -d). A database against itself
//! is no difference (exit 0); bad input is exit 2 with a clear error.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;

use rusqlite::Connection;
use serde_json::Value;

use super::{import_into, kt2sql};
use crate::util::{compose, Composed, COMPOSE_DIALECTS};

/// A composed build imported with its start directory, and the argv of
/// each command where the trace recorded it (truth id -> argv, as stored:
/// the truth has no argv; kt2sql pairs commands of equal argv first).
struct Build {
    c: Composed,
    db: PathBuf,
    argv: HashMap<String, Vec<u8>>,
    _dir: tempfile::TempDir,
}

impl Build {
    fn new(dialect: &str, seed: u64, extra: &[&str]) -> Build {
        let c = compose(dialect, seed, extra);
        let dir = tempfile::tempdir().unwrap();
        let cwd = c.truth["start_cwd"].as_str().unwrap().to_string();
        let db = import_into(
            dir.path(),
            "t.db",
            std::slice::from_ref(&c.trace),
            Some(&cwd),
        );
        // The truth's `build_visible` takes an exec whose RET was lost as
        // unfinished, where the model infers it succeeded: diff the
        // database as the written records show it (see `as_written`).
        let db = super::build::as_written(&db, dir.path());
        let conn = Connection::open(&db).unwrap();
        let mut st = conn
            .prepare(
                "SELECT c.pid || '.' ||
                        (SELECT count(*) FROM process AS q
                         WHERE q.trace_id = c.trace_id AND q.pid = c.pid
                           AND q.process_id <= c.process_id) || '#' || c.image,
                        CAST(c.argv AS BLOB)
                 FROM command AS c WHERE c.argv IS NOT NULL",
            )
            .unwrap();
        let argv = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        drop(st);
        Build {
            c,
            db,
            argv,
            _dir: dir,
        }
    }

    /// The truth's build section as the written records show it.
    fn truth(&self) -> &Value {
        let t = &self.c.truth;
        t.get("build_visible").unwrap_or(&t["build"])
    }
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// A path rewritten by `map` (old prefix, new prefix): the longest wins.
fn moved(map: &[(&str, &str)], p: &str) -> String {
    let hit = map
        .iter()
        .filter(|(o, _)| p == *o || p.starts_with(&format!("{o}/")))
        .max_by_key(|(o, _)| o.len());
    match hit {
        Some((o, n)) => format!("{n}{}", &p[o.len()..]),
        None => p.to_string(),
    }
}

/// One command of a truth, its paths rewritten.
#[derive(Clone, Debug)]
struct Cmd {
    program: String,
    cwd: String,
    writes: String,
    reads: Vec<String>,
    argv: Option<Vec<u8>>,
    start: i64,
    dur: i64,
}

impl Cmd {
    fn ident(&self) -> String {
        format!("{}\t{}\t{}", self.program, self.cwd, self.writes)
    }
}

/// Which command each truth command counts as: an exec'd image is its
/// own; a forked copy (image 0) is its process's first exec'd image when
/// it has one, else (a fork that never exec'd) the command its parent was
/// running at the fork, else (a root) its own. A command is what ran.
fn owners(t: &Value) -> HashMap<String, String> {
    let cmds = t["commands"].as_array().unwrap();
    let mut first: HashMap<String, (i64, String)> = HashMap::new();
    for c in cmds.iter().filter(|c| c["image"].as_i64().unwrap() > 0) {
        let e = first
            .entry(s(&c["key"]))
            .or_insert((i64::MAX, String::new()));
        if c["image"].as_i64().unwrap() < e.0 {
            *e = (c["image"].as_i64().unwrap(), s(&c["id"]));
        }
    }
    let by_id: HashMap<String, &Value> = cmds.iter().map(|c| (s(&c["id"]), c)).collect();
    let mut out = HashMap::new();
    for c in cmds {
        let mut cur = c;
        let owner = loop {
            if cur["image"].as_i64().unwrap() > 0 {
                break s(&cur["id"]);
            }
            if let Some((_, e)) = first.get(&s(&cur["key"])) {
                break e.clone();
            }
            match cur["parent"].as_str().and_then(|p| by_id.get(p)) {
                Some(p) => cur = p,
                None => break s(&cur["id"]),
            }
        };
        out.insert(s(&c["id"]), owner);
    }
    out
}

/// The truth's commands by identity (program, cwd, the files they wrote
/// that are not temporary), each group in start order; the files of a
/// fork's image before its exec, or of a fork that never exec'd, are the
/// command's it counts as ([`owners`]).
fn commands(b: &Build, map: &[(&str, &str)]) -> BTreeMap<String, Vec<Cmd>> {
    let t = b.truth();
    let owner = owners(t);
    let (mut writes, mut reads): (HashMap<String, Vec<String>>, HashMap<String, Vec<String>>) =
        Default::default();
    for f in t["files"].as_array().unwrap() {
        let path = moved(map, &s(&f["path"]));
        if f["role"] != "temporary" {
            for w in f["writers"].as_array().unwrap() {
                writes
                    .entry(owner[&s(w)].clone())
                    .or_default()
                    .push(path.clone());
            }
        }
        for r in f["readers"].as_array().unwrap() {
            reads
                .entry(owner[&s(r)].clone())
                .or_default()
                .push(path.clone());
        }
    }
    let mut groups: BTreeMap<String, Vec<Cmd>> = BTreeMap::new();
    for c in t["commands"].as_array().unwrap() {
        let id = s(&c["id"]);
        if owner[&id] != id {
            continue;
        }
        let mut w = writes.remove(&id).unwrap_or_default();
        let mut r = reads.remove(&id).unwrap_or_default();
        w.sort();
        w.dedup();
        r.sort();
        r.dedup();
        let path = |k: &str| c[k].as_str().map_or(String::new(), |p| moved(map, p));
        let start = c["start_ns"].as_i64().unwrap();
        let cmd = Cmd {
            program: path("path"),
            cwd: path("cwd"),
            writes: w.join("\n"),
            reads: r,
            argv: b.argv.get(&id).cloned(),
            start,
            dur: c["end_ns"].as_i64().unwrap() - start,
        };
        groups.entry(cmd.ident()).or_default().push(cmd);
    }
    for g in groups.values_mut() {
        g.sort_by(|a, b| {
            (a.start, a.dur, a.reads.join("\n")).cmp(&(b.start, b.dur, b.reads.join("\n")))
        });
    }
    groups
}

/// What the diff of `old` and `new` must say, as sorted lines.
#[derive(Debug, Default, PartialEq)]
struct Expected {
    /// `added|removed|changed IDENT`, `same N`.
    commands: Vec<String>,
    /// `added|removed input|output PATH`, `read added|removed PATH CWD WRITES`.
    files: Vec<String>,
    /// `new|gone|changed KIND PATH OLD NEW`.
    hazards: Vec<String>,
    /// wall, process_time, peak_parallel old new; the deltas of the
    /// slower and faster commands.
    time: Vec<String>,
}

fn expected(old: &Build, new: &Build, map: &[(&str, &str)], top: usize) -> Expected {
    let (a, b) = (commands(old, map), commands(new, &[]));
    let mut e = Expected::default();
    let (mut same, mut deltas) = (0, Vec::new());
    let empty = Vec::new();
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for k in keys {
        let (ga, gb) = (a.get(k).unwrap_or(&empty), b.get(k).unwrap_or(&empty));
        // Equal argv first, the k-th with the k-th; then the rest in order.
        let mut partner: Vec<Option<usize>> = vec![None; ga.len()];
        let mut taken = vec![false; gb.len()];
        let mut by_argv: HashMap<&[u8], VecDeque<usize>> = HashMap::new();
        for (j, c) in gb.iter().enumerate() {
            if let Some(v) = &c.argv {
                by_argv.entry(v).or_default().push_back(j);
            }
        }
        for (i, c) in ga.iter().enumerate() {
            let hit = c
                .argv
                .as_deref()
                .and_then(|v| by_argv.get_mut(v)?.pop_front());
            if let Some(j) = hit {
                partner[i] = Some(j);
                taken[j] = true;
            }
        }
        let mut free = (0..gb.len()).filter(|j| !taken[*j]);
        for p in partner.iter_mut().filter(|p| p.is_none()) {
            *p = free.next();
        }
        for _ in free {
            e.commands.push(format!("added {k}"));
        }
        for (i, p) in partner.iter().enumerate() {
            let Some(j) = p else {
                e.commands.push(format!("removed {k}"));
                continue;
            };
            let (x, y) = (&ga[i], &gb[*j]);
            let argv = x.argv.is_some() && y.argv.is_some() && x.argv != y.argv;
            let gone: Vec<&String> = x.reads.iter().filter(|r| !y.reads.contains(r)).collect();
            let came: Vec<&String> = y.reads.iter().filter(|r| !x.reads.contains(r)).collect();
            if argv || !gone.is_empty() || !came.is_empty() {
                e.commands.push(format!("changed {k}"));
            } else {
                same += 1;
            }
            for (change, list) in [("removed", gone), ("added", came)] {
                for r in list {
                    e.files
                        .push(format!("read {change} {r} {}\t{}", y.cwd, y.writes));
                }
            }
            deltas.push(y.dur - x.dur);
        }
    }
    e.commands.push(format!("same {same}"));

    let role = |b: &Build, m: &[(&str, &str)], roles: &[&str]| -> Vec<String> {
        let files = b.truth()["files"].as_array().unwrap().iter();
        let files = files.filter(|f| roles.contains(&f["role"].as_str().unwrap()));
        let mut v: Vec<String> = files.map(|f| moved(m, &s(&f["path"]))).collect();
        v.sort();
        v.dedup();
        v
    };
    for (kind, roles) in [
        ("input", &["source"][..]),
        ("output", &["output", "intermediate"]),
    ] {
        let (x, y) = (role(old, map, roles), role(new, &[], roles));
        for p in x.iter().filter(|p| !y.contains(p)) {
            e.files.push(format!("removed {kind} {p}"));
        }
        for p in y.iter().filter(|p| !x.contains(p)) {
            e.files.push(format!("added {kind} {p}"));
        }
    }

    let hazards = |b: &Build, m: &[(&str, &str)]| -> BTreeMap<(String, String), i64> {
        let mut n = BTreeMap::new();
        for h in b.truth()["hazards"].as_array().unwrap() {
            *n.entry((s(&h["kind"]), moved(m, &s(&h["path"]))))
                .or_insert(0) += 1;
        }
        n
    };
    let (x, y) = (hazards(old, map), hazards(new, &[]));
    for (k, n) in &x {
        match y.get(k) {
            None => e.hazards.push(format!("gone {} {} {n} -", k.0, k.1)),
            Some(m) if m != n => e.hazards.push(format!("changed {} {} {n} {m}", k.0, k.1)),
            _ => {}
        }
    }
    for (k, m) in &y {
        if !x.contains_key(k) {
            e.hazards.push(format!("new {} {} - {m}", k.0, k.1));
        }
    }

    let times = |b: &Build| -> [i64; 3] {
        // Each process runs from its first image's start to its last one's end.
        let mut span: BTreeMap<String, (i64, i64)> = BTreeMap::new();
        for c in b.truth()["commands"].as_array().unwrap() {
            let (st, en) = (
                c["start_ns"].as_i64().unwrap(),
                c["end_ns"].as_i64().unwrap(),
            );
            let e = span.entry(s(&c["key"])).or_insert((st, en));
            *e = (e.0.min(st), e.1.max(en));
        }
        let wall =
            span.values().map(|v| v.1).max().unwrap() - span.values().map(|v| v.0).min().unwrap();
        let total = span.values().map(|v| v.1 - v.0).sum();
        let mut ev: Vec<(i64, i64)> = span.values().flat_map(|v| [(v.0, 1), (v.1, -1)]).collect();
        ev.sort_by_key(|e| (e.0, e.1));
        let (mut run, mut peak) = (0, 0);
        for (_, d) in ev {
            run += d;
            peak = peak.max(run);
        }
        [wall, total, peak]
    };
    let (x, y) = (times(old), times(new));
    for (i, kind) in ["wall", "process_time", "peak_parallel"].iter().enumerate() {
        e.time.push(format!("{kind} {} {}", x[i], y[i]));
    }
    let mut slower: Vec<i64> = deltas.iter().copied().filter(|d| *d > 0).collect();
    slower.sort_by(|a, b| b.cmp(a));
    slower.truncate(top);
    let mut faster: Vec<i64> = deltas.iter().copied().filter(|d| *d < 0).collect();
    faster.sort();
    faster.truncate(top);
    e.time.push(format!("slower {slower:?}"));
    e.time.push(format!("faster {faster:?}"));
    for v in [&mut e.commands, &mut e.files, &mut e.hazards] {
        v.sort();
    }
    e
}

/// `kt2sql diff OLD NEW ARGS --format json`: the rows and the exit status.
fn run_diff(old: &str, new: &str, args: &[&str]) -> (Vec<Value>, i32) {
    let out = kt2sql()
        .args(["diff", old, new, "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let code = out.status.code().unwrap();
    assert!(
        code < 2,
        "kt2sql diff {old} {new}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    (rows.as_array().unwrap().clone(), code)
}

/// The same lines from `kt2sql diff`'s rows.
fn got(rows: &[Value]) -> Expected {
    let mut g = Expected::default();
    let f = |r: &Value, k: &str| match &r[k] {
        Value::Null => "-".to_string(),
        Value::String(x) => x.clone(),
        other => other.to_string(),
    };
    let ident = |r: &Value| format!("{}\t{}\t{}", s(&r["path"]), s(&r["cwd"]), s(&r["writes"]));
    let (mut slower, mut faster) = (Vec::new(), Vec::new());
    for r in rows {
        let (part, section, change, kind) = (
            s(&r["part"]),
            s(&r["section"]),
            s(&r["change"]),
            s(&r["kind"]),
        );
        match (part.as_str(), section.as_str(), kind.as_str()) {
            ("summary", "commands", _) if change == "same" => {
                g.commands.push(format!("same {}", r["new"]))
            }
            ("summary", "time", "wall" | "process_time" | "peak_parallel") => {
                g.time.push(format!("{kind} {} {}", r["old"], r["new"]))
            }
            ("detail", "commands", "command") => g.commands.push(format!("{change} {}", ident(r))),
            ("detail", "files", "read") => g.files.push(format!(
                "read {change} {} {}\t{}",
                s(&r["path"]),
                s(&r["cwd"]),
                s(&r["writes"])
            )),
            ("detail", "files", _) => g.files.push(format!("{change} {kind} {}", s(&r["path"]))),
            ("detail", "hazards", _) => g.hazards.push(format!(
                "{change} {kind} {} {} {}",
                s(&r["path"]),
                f(r, "old"),
                f(r, "new")
            )),
            ("detail", "time", "absolute") => {
                let d = r["new"].as_i64().unwrap() - r["old"].as_i64().unwrap();
                match change.as_str() {
                    "slower" => slower.push(d),
                    _ => faster.push(d),
                }
            }
            _ => {}
        }
    }
    g.time.push(format!("slower {slower:?}"));
    g.time.push(format!("faster {faster:?}"));
    for v in [&mut g.commands, &mut g.files, &mut g.hazards] {
        v.sort();
    }
    g
}

/// Compare `kt2sql diff` with the truths' diff; return that.
fn check_pair(
    old: &Build,
    new: &Build,
    map: &[(&str, &str)],
    args: &[&str],
    ctx: &str,
) -> Expected {
    let want = expected(old, new, map, 5);
    let (rows, code) = run_diff(old.db.to_str().unwrap(), new.db.to_str().unwrap(), args);
    let got = got(&rows);
    for (what, g, w) in [
        ("commands", &got.commands, &want.commands),
        ("files", &got.files, &want.files),
        ("hazards", &got.hazards, &want.hazards),
        ("time", &got.time, &want.time),
    ] {
        if g != w {
            let extra: Vec<_> = g.iter().filter(|x| !w.contains(x)).take(8).collect();
            let missing: Vec<_> = w.iter().filter(|x| !g.contains(x)).take(8).collect();
            panic!("{ctx}: {what}: extra {extra:#?}\nmissing {missing:#?}");
        }
    }
    // A process forked but not yet exec'd is no command of its own (it is
    // part of the command it became): no command row without a program,
    // as every composed process runs one.
    for r in rows
        .iter()
        .filter(|r| r["section"] == "commands" && r["kind"] == "command")
    {
        assert!(
            r["part"] == "summary" || r["path"].is_string(),
            "{ctx}: a forked copy listed as a command: {r}"
        );
    }
    let details = rows.iter().any(|r| r["part"] == "detail");
    let time_changed = rows
        .iter()
        .any(|r| r["section"] == "time" && r["change"] == "changed");
    assert_eq!(
        code,
        i32::from(details || time_changed),
        "{ctx}: exit status"
    );
    want
}

/// How many lines of `lines` begin with `word`.
fn count(lines: &[String], word: &str) -> usize {
    lines.iter().filter(|l| l.starts_with(word)).count()
}

/// Committed builds of every dialect, 20 and 30 processes.
#[test]
fn diffs_of_composed_builds_match_their_truths_in_every_dialect() {
    for d in COMPOSE_DIALECTS {
        crate::util::fixtures::committed(d, 2, &[]);
        crate::util::fixtures::committed(d, 2, &["--processes", "30"]);
        let old = Build::new(d, 2, &[]);
        let new = Build::new(d, 2, &["--processes", "30"]);
        let e = check_pair(&old, &new, &[], &[], &format!("{d} --processes 20 -> 30"));
        assert!(count(&e.commands, "added") > 5, "{d}: {e:#?}");
        assert!(count(&e.commands, "changed") > 0, "{d}: {e:#?}");
        assert!(count(&e.files, "read") > 0, "{d}: {e:#?}");
        let e = check_pair(&new, &old, &[], &[], &format!("{d} --processes 30 -> 20"));
        assert!(count(&e.commands, "removed") > 5, "{d}: {e:#?}");
    }
}

/// On committed builds: OpenBSD's seed 2 with and without hazards and
/// seed 8, and the `--faithful` builds with and without hazards.
#[test]
fn hazards_on_and_off_other_seeds_and_pid_reuse() {
    let build = |d: &str, seed: u64, extra: &[&str]| {
        crate::util::fixtures::committed(d, seed, extra);
        Build::new(d, seed, extra)
    };
    let faithful = ["freebsd-v1-amd64", "netbsd-v2-amd64", "darwin-ppc"].map(|d| {
        let old = build(d, 4, &["--faithful"]);
        (d, old, build(d, 4, &["--faithful", "--hazards"]))
    });
    check_hazards_on_and_off(
        build("openbsd-amd64", 2, &[]),
        build("openbsd-amd64", 2, &["--hazards"]),
        build("openbsd-amd64", 8, &["--processes", "3"]),
        faithful,
    );
}

/// The same on other seeds and bigger `--faithful` builds.
#[test]
fn hazards_on_and_off_other_seeds_and_pid_reuse_more_builds() {
    crate::require_shared!(python);
    let faithful = ["freebsd-v1-amd64", "netbsd-v2-amd64", "darwin-ppc"].map(|d| {
        let old = Build::new(d, 7, &["--faithful"]);
        let new = Build::new(d, 7, &["--faithful", "--hazards", "--processes", "26"]);
        (d, old, new)
    });
    check_hazards_on_and_off(
        Build::new("openbsd-amd64", 5, &[]),
        Build::new("openbsd-amd64", 5, &["--hazards"]),
        Build::new("openbsd-amd64", 6, &[]),
        faithful,
    );
}

/// `plain` and `planted` (the same build with `--hazards`): `--only`
/// gives each section's rows, the planted hazards are new; `plain` and
/// `other` (another seed) differ in files; each `--faithful` pair
/// (without, with hazards) is its truths' difference and reuses pids.
fn check_hazards_on_and_off(
    plain: Build,
    planted: Build,
    other: Build,
    faithful: [(&str, Build, Build); 3],
) {
    // --only gives that section's rows of the whole diff, no other.
    let (old, new) = (plain.db.to_str().unwrap(), planted.db.to_str().unwrap());
    let (all, _) = run_diff(old, new, &[]);
    for section in ["commands", "files", "hazards", "time"] {
        let (rows, code) = run_diff(old, new, &["--only", section]);
        let want: Vec<&Value> = all.iter().filter(|r| r["section"] == section).collect();
        assert_eq!(rows.iter().collect::<Vec<_>>(), want, "--only {section}");
        assert_eq!(code, 1, "--only {section}");
    }
    let e = check_pair(&plain, &planted, &[], &[], "openbsd --hazards off -> on");
    assert!(count(&e.hazards, "new") >= 4, "{e:#?}");
    check_pair(&planted, &plain, &[], &[], "openbsd --hazards on -> off");
    let e = check_pair(&plain, &other, &[], &[], "openbsd other seed");
    assert!(
        count(&e.files, "added") + count(&e.files, "removed") > 0,
        "{e:#?}"
    );
    for (d, old, new) in faithful {
        check_pair(&old, &new, &[], &[], &format!("{d} --faithful"));
        let reused = old.c.truth["counts"]["reused_lifetimes"]
            .as_i64()
            .unwrap_or(0);
        assert!(reused > 0, "{d}: --faithful reuses pids");
    }
}

#[test]
fn builds_under_different_roots_compare_through_the_map() {
    let a = Build::new("netbsd-v2-amd64", 3, &["--start-cwd", "/home/a/src/build"]);
    let b = Build::new("netbsd-v2-amd64", 3, &["--start-cwd", "/home/b/src/build"]);
    let map = [("/home/a/src", "/home/b/src")];
    check_pair(&a, &b, &map, &["--map", "/home/a/src=/home/b/src"], "--map");
    let (rows, code) = run_diff(
        a.db.to_str().unwrap(),
        b.db.to_str().unwrap(),
        &["--map", "/home/a/src/=/home/b/src"],
    );
    assert_eq!(code, 0, "the same build in two places: {rows:#?}");
    // Without --map, the start directories given with -d are mapped (the
    // composed build stays below its start directory).
    let dirs = [("/home/a/src/build", "/home/b/src/build")];
    let e = check_pair(&a, &b, &dirs, &[], "the start directories");
    assert_eq!(e.files.len() + e.hazards.len(), 0, "{e:#?}");
    // A --map replaces that default: here one that maps nothing, and every
    // path of the build differs.
    let none = [("/nowhere", "/elsewhere")];
    let e = check_pair(&a, &b, &none, &["--map", "/nowhere=/elsewhere"], "no map");
    assert!(
        count(&e.files, "added input /home/b/src/build/") > 0,
        "{e:#?}"
    );
    assert!(
        count(&e.files, "removed output /home/a/src/build/") > 0,
        "{e:#?}"
    );
    let out = kt2sql()
        .args([
            "diff",
            a.db.to_str().unwrap(),
            b.db.to_str().unwrap(),
            "--only",
            "hazards",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/home/a/src/build") && err.contains("--map"),
        "{err}"
    );
}

#[test]
fn a_build_against_itself_is_no_difference() {
    let a = Build::new("freebsd-v1-amd64", 4, &["--faithful", "--hazards"]);
    let db = a.db.to_str().unwrap();
    let (rows, code) = run_diff(db, db, &[]);
    assert_eq!(code, 0);
    assert!(rows.iter().all(|r| r["part"] == "summary"), "{rows:#?}");
    for r in &rows {
        match s(&r["section"]).as_str() {
            "time" => assert_eq!(r["change"], "same", "{r}"),
            _ if r["change"] == "recorded" => assert_eq!(r["old"], r["new"], "{r}"),
            _ if r["change"] != "same" => assert_eq!(r["new"], 0, "{r}"),
            _ => {}
        }
    }
    // Text: the summary lines, then the time measures.
    let out = kt2sql()
        .args(["diff", db, &format!("{db}:1")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("commands: 0 added, 0 removed, 0 changed, "),
        "{text}"
    );
    assert!(
        lines[1].starts_with("files: inputs 0 added, 0 removed; outputs 0 added"),
        "{text}"
    );
    assert!(lines[2].starts_with("hazards: 0 new, 0 gone"), "{text}");
    assert!(lines[3].contains("the same commands"), "{text}");
    // --only and CSV: the same rows as JSON, for the sections asked.
    let out = kt2sql()
        .args([
            "diff",
            db,
            db,
            "--only",
            "commands,hazards",
            "--format",
            "csv",
        ])
        .output()
        .unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("part,section,change,kind,path,cwd,command,writes,old,new")
    );
    let sections: Vec<&str> = lines.map(|l| l.split(',').nth(1).unwrap()).collect();
    // commands: added, removed, changed, same, argv recorded; hazards: 3.
    assert_eq!(sections.len(), 8, "{csv}");
    assert!(
        sections.iter().all(|s| ["commands", "hazards"].contains(s)),
        "{csv}"
    );
}

#[test]
fn bad_input_is_a_clear_error_with_exit_status_2() {
    let a = Build::new("darwin-ppc", 4, &["--faithful"]);
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.db");
    std::fs::write(&text, "not a database\n").unwrap();
    let newer = dir.path().join("newer.db");
    std::fs::copy(&a.db, &newer).unwrap();
    Connection::open(&newer)
        .unwrap()
        .execute_batch(
            "UPDATE meta SET value = '99' WHERE key = 'schema_version'; PRAGMA user_version = 99;",
        )
        .unwrap();
    let good = a.db.to_str().unwrap();
    let cases = [
        (text.to_str().unwrap().to_string(), "not a kt2sql database"),
        (newer.to_str().unwrap().to_string(), "schema version 99"),
        (format!("{good}:7"), "no trace 7"),
        (a.c.trace.to_str().unwrap().to_string(), "import it first"),
    ];
    for (bad, says) in cases {
        for args in [[good, bad.as_str()], [bad.as_str(), good]] {
            let out = kt2sql().arg("diff").args(args).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.starts_with("kt2sql: error: "), "{err}");
            assert!(err.contains(says), "{args:?}: {err}");
            let file = bad
                .rsplit_once(':')
                .filter(|_| bad.ends_with(":7"))
                .map_or(bad.as_str(), |b| b.0);
            assert!(err.contains(file), "{err} names {file}");
            assert!(out.stdout.is_empty());
        }
    }
    let out = kt2sql()
        .args(["diff", good, good, "--map", "a=b"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The text reads as an answer: each distinct entry once, with `(×N)`
/// when a build repeats it, every detail row counted (the text and the
/// CSV tell the same story); a build whose trace recorded no argv gets
/// one note; the time measures are named in `kt2sql stats`' words.
#[test]
fn the_text_groups_identical_entries_and_says_when_argv_is_missing() {
    let old = Build::new("freebsd-v1-amd64", 4, &["--faithful", "--hazards"]);
    let new = Build::new("openbsd-amd64", 4, &["--faithful", "--hazards"]);
    let (o, n) = (old.db.to_str().unwrap(), new.db.to_str().unwrap());
    let run = |args: &[&str]| {
        let out = kt2sql().arg("diff").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8(out.stdout).unwrap()
    };
    let (rows, _) = run_diff(o, n, &[]);
    let recorded = rows
        .iter()
        .find(|r| r["change"] == "recorded" && r["kind"] == "argv")
        .expect("the argv summary row");
    assert_eq!(recorded["old"], 0, "{recorded}");
    assert!(recorded["new"].as_i64().unwrap() > 0, "{recorded}");
    let text = run(&[o, n]);
    // Each section's entries, with their counts.
    let mut sections: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
    let mut at = String::new();
    for line in text.lines() {
        if let Some(name) = line.strip_suffix(':').filter(|l| !l.starts_with(' ')) {
            at = name.to_string();
        } else if let Some(entry) = line.strip_prefix("  ").filter(|l| !l.starts_with(' ')) {
            let (entry, n) = match entry.rsplit_once("  (×") {
                Some((e, n)) => (e, n.trim_end_matches(')').parse().unwrap()),
                None => (entry, 1),
            };
            sections
                .entry(at.clone())
                .or_default()
                .push((entry.to_string(), n));
        }
    }
    let notes: Vec<&(String, u64)> = sections["commands"]
        .iter()
        .filter(|(e, _)| e.starts_with('('))
        .collect();
    assert_eq!(notes.len(), 1, "{text}");
    assert!(
        notes[0]
            .0
            .starts_with("(the old build's trace recorded no argv: "),
        "{text}"
    );
    let mut grouped = false;
    for (section, rows_of) in [
        ("commands", ("commands", &["command"][..])),
        ("files", ("files", &["input", "output"][..])),
        ("what each command read", ("files", &["read"][..])),
        ("hazards", ("hazards", &[][..])),
    ] {
        let entries: Vec<&(String, u64)> = sections
            .get(section)
            .map(|v| v.iter().filter(|(e, _)| !e.starts_with('(')).collect())
            .unwrap_or_default();
        let distinct: std::collections::HashSet<&String> = entries.iter().map(|(e, _)| e).collect();
        assert_eq!(
            distinct.len(),
            entries.len(),
            "{section}: an entry twice\n{text}"
        );
        let counted: u64 = entries.iter().map(|(_, n)| n).sum();
        let want = rows
            .iter()
            .filter(|r| r["part"] == "detail" && r["section"] == rows_of.0)
            .filter(|r| rows_of.1.is_empty() || rows_of.1.contains(&s(&r["kind"]).as_str()))
            .count() as u64;
        assert_eq!(counted, want, "{section}\n{text}");
        grouped |= entries.iter().any(|(_, n)| *n > 1);
    }
    assert!(grouped, "no entry repeated: the test shows nothing\n{text}");
    let time = sections["time"]
        .iter()
        .map(|(e, _)| e.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    for words in [
        "wall ",
        "summed over processes ",
        "parallelism, average ",
        "parallelism, peak ",
        "critical path ",
        "critical path steps ",
    ] {
        assert!(time.contains(words), "{words:?}\n{time}");
    }
    for raw in [
        "process_time",
        "avg_parallel",
        "peak_parallel",
        "critical_path",
    ] {
        assert!(!text.contains(raw), "{raw}\n{text}");
    }
    // The other way round, the new build is the one without argv; a build
    // against one of its own kind needs no note.
    assert!(run(&[n, o]).contains("(the new build's trace recorded no argv: "));
    let same_kind = Build::new("openbsd-amd64", 4, &["--faithful"]);
    let text = run(&[same_kind.db.to_str().unwrap(), n]);
    assert!(!text.contains("recorded no argv"), "{text}");
}
