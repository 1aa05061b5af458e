//! The view `running` and the reports on a live database, against the
//! truth of the build at the snapshot's time; and the same on the
//! finished build, where nothing runs and the reports keep their wording.

use std::collections::BTreeSet;

use rusqlite::Connection;
use serde_json::Value;

use super::{each_cut, import, kt2sql, Build};

/// `running` has a row for every process alive at the snapshot, with the
/// command it runs (name and program), the call it is in (the CALL record
/// left open at the cut) and times to the snapshot.
#[test]
fn running_lists_the_processes_alive_with_their_command_and_call() {
    let dir = tempfile::tempdir().unwrap();
    each_cut(dir.path(), |ctx, _, live| {
        let conn = Connection::open(&live.db).unwrap();
        let mut stmt = conn
            .prepare(
                "SELECT r.pid, CAST(r.comm AS TEXT), r.program, c.call_offset, r.call_elapsed,
                        r.elapsed, r.snapshot_ts, r.calls_in_flight, r.call
                 FROM running AS r LEFT JOIN call AS c USING (call_id)",
            )
            .unwrap();
        type Row = (
            i64,
            String,
            Option<String>,
            Option<i64>,
            Option<i64>,
            i64,
            i64,
            i64,
            Option<String>,
        );
        let rows: Vec<Row> = stmt
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                ))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(!rows.is_empty(), "{ctx}: something runs mid-build");
        let pids: BTreeSet<i64> = rows.iter().map(|r| r.0).collect();
        assert_eq!(pids.len(), rows.len(), "{ctx}: one row per process");
        live.alive.check_alive(&pids, ctx);
        for (pid, comm, program, call_offset, call_elapsed, elapsed, snap, n, call) in &rows {
            assert_eq!(*snap, live.snapshot_ts, "{ctx}: pid {pid}'s snapshot");
            assert!(*elapsed >= 0, "{ctx}: pid {pid} elapsed {elapsed}");
            if let Some((want_comm, want_program)) = live.alive.command.get(pid) {
                assert_eq!(comm, want_comm, "{ctx}: pid {pid}'s command name");
                assert_eq!(program, want_program, "{ctx}: pid {pid}'s program");
            }
            let want = live.pending.get(pid).map(|o| *o as i64);
            assert_eq!(*call_offset, want, "{ctx}: pid {pid}'s call in flight");
            assert_eq!(
                call.is_some(),
                want.is_some(),
                "{ctx}: pid {pid}'s call name"
            );
            assert_eq!(*n > 0, want.is_some(), "{ctx}: pid {pid}'s calls in flight");
            if call_offset.is_some() {
                assert!(call_elapsed.is_some_and(|e| e >= 0 && e <= *elapsed + 1));
            }
        }
    });
}

/// `stats` says the build is running and for how long so far, and how
/// many processes run now; `tree` marks each running process's current
/// image; `timeline` draws those commands open to the snapshot.
#[test]
fn reports_on_a_live_database_say_what_runs() {
    let dir = tempfile::tempdir().unwrap();
    each_cut(dir.path(), |ctx, _, live| {
        let conn = Connection::open(&live.db).unwrap();
        let running: BTreeSet<i64> = conn
            .prepare("SELECT pid FROM running")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let out = kt2sql().arg("stats").arg(&live.db).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(", running, ") && text.contains(" so far\n"),
            "{ctx}: stats says running:\n{text}"
        );
        let now = format!(", {} running now)", running.len());
        assert!(text.contains(&now), "{ctx}: stats counts {now}:\n{text}");

        let out = kt2sql()
            .args(["tree", "--format", "json"])
            .arg(&live.db)
            .output()
            .unwrap();
        let tree: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut marked = Vec::new();
        fn walk(n: &Value, marked: &mut Vec<(i64, i64)>) {
            if n["running"] == Value::Bool(true) {
                marked.push((n["pid"].as_i64().unwrap(), n["image"].as_i64().unwrap()));
            }
            for c in n["children"].as_array().unwrap() {
                walk(c, marked);
            }
        }
        for root in tree.as_array().unwrap() {
            walk(root, &mut marked);
        }
        let marked_pids: BTreeSet<i64> = marked.iter().map(|m| m.0).collect();
        assert_eq!(
            marked_pids, running,
            "{ctx}: tree marks the running processes"
        );
        assert_eq!(marked.len(), running.len(), "{ctx}: one image each");
        for (pid, image) in &marked {
            let last: i64 = conn
                .query_row(
                    "SELECT max(image) FROM exec JOIN running USING (process_id) WHERE pid = ?1",
                    [pid],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(
                *image, last,
                "{ctx}: pid {pid}: its current image is marked"
            );
        }
        let text = kt2sql().arg("tree").arg(&live.db).output().unwrap().stdout;
        let text = String::from_utf8(text).unwrap();
        assert_eq!(
            text.matches(" (running)\n").count(),
            running.len(),
            "{ctx}: tree text marks\n{text}"
        );

        let out = dir.path().join("t.json");
        kt2sql()
            .args(["timeline", "--force", "--format", "chrome", "-o"])
            .arg(&out)
            .arg(&live.db)
            .assert()
            .success();
        let chrome: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let origin = chrome["otherData"]["origin_ns"].as_i64().unwrap();
        let mut open = BTreeSet::new();
        for e in chrome["traceEvents"].as_array().unwrap() {
            if e["cat"] != "command" || e["args"]["running"] != Value::Bool(true) {
                continue;
            }
            let end_us = e["ts"].as_f64().unwrap() + e["dur"].as_f64().unwrap();
            let want_us = (live.snapshot_ts - origin) as f64 / 1000.0;
            assert!(
                (end_us - want_us).abs() < 0.01,
                "{ctx}: {e} ends at the snapshot"
            );
            open.insert(e["args"]["os_pid"].as_i64().unwrap());
        }
        assert_eq!(open, running, "{ctx}: timeline's open slices");
    });
}

/// A finished build: nothing in `running`, and the reports keep their
/// wording (a process still running where a finished trace ends is not
/// marked running).
#[test]
fn a_finished_build_has_nothing_running() {
    let dir = tempfile::tempdir().unwrap();
    let b = Build::named("openbsd-amd64-4-faithful");
    let whole = import(dir.path(), &b.trace, "whole");
    let cut = b.decoded.records.len() / 2;
    let end = b.decoded.records[cut].offset as usize;
    // A prefix imported once and not followed: its processes were still
    // running where it ends, and stay `exit_seen = 0` only.
    let prefix = import(dir.path(), &b.trace[..end], "prefix");
    for db in [&whole, &prefix] {
        let conn = Connection::open(db).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM running", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 0, "{}", db.display());
        let stats =
            String::from_utf8(kt2sql().arg("stats").arg(db).output().unwrap().stdout).unwrap();
        assert!(stats.contains(" UTC for "), "{stats}");
        assert!(!stats.contains("running now"), "{stats}");
        let tree =
            String::from_utf8(kt2sql().arg("tree").arg(db).output().unwrap().stdout).unwrap();
        assert!(!tree.contains("(running)"), "{tree}");
    }
    let conn = Connection::open(&prefix).unwrap();
    let unended: i64 = conn
        .query_row(
            "SELECT count(*) FROM process WHERE exit_seen = 0",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(unended > 0, "the prefix ends mid-build");
}
