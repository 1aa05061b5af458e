//! `kt2sql watch`: `--once` (and a pipe) prints one snapshot as text or
//! JSON; on a terminal (tmux here) the full-screen view shows what runs,
//! changes its order on a key and quits on `q`. Each checked against the
//! build's truth at the snapshot.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command as Std;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{each_cut, import, kt2sql, Build, Live};
use crate::util::skip;

fn once_json(db: &Path) -> Value {
    let out = kt2sql()
        .args(["watch", "--once", "--format", "json"])
        .arg(db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn pids(rows: &Value) -> BTreeSet<i64> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r["pid"].as_i64().unwrap())
        .collect()
}

/// One snapshot of a live build: the state, the processes running and
/// finished, the commands running now and the commands that failed, as
/// the truth has them at the snapshot's time.
#[test]
fn watch_once_prints_what_runs_now() {
    let dir = tempfile::tempdir().unwrap();
    each_cut(dir.path(), |ctx, _, live| {
        let j = once_json(&live.db);
        let status = &j["status"][0];
        assert_eq!(status["following"], 1, "{ctx}");
        assert_eq!(status["snapshot_ts"], live.snapshot_ts, "{ctx}");
        let running = pids(&j["running"]);
        live.alive.check_alive(&running, ctx);
        assert_eq!(status["running"], running.len(), "{ctx}");
        let finished = status["finished"].as_i64().unwrap();
        let processes = status["processes"].as_i64().unwrap();
        assert_eq!(
            finished + running.len() as i64,
            processes,
            "{ctx}: the rest ended"
        );
        let failed: BTreeSet<i64> = pids(&j["failed"])
            .difference(&live.alive.unsure)
            .copied()
            .collect();
        assert_eq!(failed, live.alive.failed, "{ctx}: the failed commands");
        // Longest running first, each with its level.
        let el: Vec<i64> = j["running"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["elapsed"].as_i64().unwrap())
            .collect();
        assert!(el.windows(2).all(|w| w[0] >= w[1]), "{ctx}: {el:?}");
        assert!(j["running"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["level"] == "ok"));

        // The text: every running pid on a line with its command.
        let out = kt2sql().arg("watch").arg(&live.db).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("    build      running, "), "{ctx}:\n{text}");
        assert!(
            text.contains(&format!("Running now ({}):", running.len())),
            "{ctx}:\n{text}"
        );
        for r in j["running"].as_array().unwrap() {
            let (pid, cmd) = (r["pid"].as_i64().unwrap(), r["command"].as_str().unwrap());
            assert!(
                text.lines()
                    .any(|l| l.contains(&format!(" {pid}  ")) && l.ends_with(cmd)),
                "{ctx}: pid {pid} `{cmd}` in\n{text}"
            );
        }
    });
}

/// Thresholds: every command not waiting for its children is marked past
/// them; one in wait4 never is.
#[test]
fn watch_highlights_long_commands_but_not_waiting_parents() {
    let dir = tempfile::tempdir().unwrap();
    let b = Build::named("openbsd-amd64-4-faithful");
    let live = Live::cut(&b, b.decoded.records.len() / 2, dir.path());
    let out = kt2sql()
        .args([
            "watch", "--once", "--format", "json", "--warn", "0", "--alert", "0",
        ])
        .arg(&live.db)
        .output()
        .unwrap();
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = j["running"].as_array().unwrap();
    let waits = rows.iter().filter(|r| r["call"] == "wait4").count();
    assert!(waits > 0 && waits < rows.len(), "both kinds at this cut");
    for r in rows {
        let want = if r["call"] == "wait4" { "ok" } else { "alert" };
        assert_eq!(r["level"], want, "{r}");
    }
}

/// A finished build: nothing runs, the head says it ended and how long
/// it took, the failed commands are every one the truth has.
#[test]
fn watch_once_on_a_finished_build_summarises_it() {
    let dir = tempfile::tempdir().unwrap();
    let b = Build::named("openbsd-amd64-4-faithful");
    let db = import(dir.path(), &b.trace, "whole");
    let j = once_json(&db);
    assert_eq!(j["status"][0]["following"], 0);
    assert_eq!(j["status"][0]["running"], 0);
    assert_eq!(j["running"], Value::Array(vec![]));
    let truth = super::Truth::at(&b.truth, i64::MAX);
    assert_eq!(pids(&j["failed"]), truth.failed);
    assert_eq!(
        j["status"][0]["processes"],
        b.truth["processes"].as_array().unwrap().len()
    );
    let out = kt2sql()
        .args(["watch", "--once"])
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("    build      ended after "), "{text}");
    assert!(text.contains("Running now: none"), "{text}");
}

/// tmux on a private socket, so the test touches no one else's sessions.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self) -> Std {
        let mut c = Std::new("tmux");
        c.args(["-L", &self.socket, "-f", "/dev/null"]);
        c
    }

    fn screen(&self) -> String {
        let out = self
            .cmd()
            .args(["capture-pane", "-p", "-t", "w"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen once it shows `what` and is drawn whole: two captures
    /// 100 ms apart are the same (a capture can land while the view is
    /// redrawing, its title new and its rows half old).
    fn wait_for(&self, what: &str) -> String {
        let until = Instant::now() + Duration::from_secs(20);
        let mut last = String::new();
        loop {
            let s = self.screen();
            if (s.contains(what) && s == last) || Instant::now() > until {
                assert!(s.contains(what), "no {what:?} on the screen:\n{s}");
                return s;
            }
            last = s;
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn alive(&self) -> bool {
        self.cmd()
            .args(["has-session", "-t", "w"])
            .output()
            .is_ok_and(|o| o.status.success())
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").output();
    }
}

/// The pids of the running table's rows, top to bottom: the lines after
/// its header that start with a duration.
fn table_pids(screen: &str) -> Vec<i64> {
    let mut rows = Vec::new();
    let mut inside = false;
    for l in screen.lines() {
        let l = l.trim_start_matches('│').trim();
        if l.starts_with("elapsed") {
            inside = true;
            continue;
        }
        if inside {
            let w: Vec<&str> = l.split_whitespace().collect();
            // `3.188 ms  102  wait4 …`: a number, its unit, the pid.
            match w.get(2).and_then(|p| p.parse().ok()) {
                Some(pid) if w[0].parse::<f64>().is_ok() => rows.push(pid),
                _ => break,
            }
        }
    }
    rows
}

/// The view as a person uses it: it shows the build's running commands
/// (those the truth has alive), `p` orders them by pid, `q` quits.
#[test]
fn watch_in_a_terminal_shows_sorts_and_quits() {
    if Std::new("tmux").arg("-V").output().is_err() {
        skip("tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let b = Build::named("openbsd-amd64-4-faithful");
    let live = Live::cut(&b, b.decoded.records.len() / 2, dir.path());
    let t = Tmux {
        socket: format!("kt2sql-test-{}", std::process::id()),
    };
    let bin = assert_cmd::cargo::cargo_bin("kt2sql");
    let cmd = format!("{} watch {}", bin.display(), live.db.display());
    let ok = t
        .cmd()
        .args([
            "new-session",
            "-d",
            "-s",
            "w",
            "-x",
            "160",
            "-y",
            "45",
            &cmd,
        ])
        .status()
        .unwrap();
    assert!(ok.success());
    let screen = t.wait_for("(by elapsed)");
    let n = live.alive.alive.len() + live.alive.unsure.len();
    let shown = table_pids(&screen);
    let got: BTreeSet<i64> = shown.iter().copied().collect();
    live.alive.check_alive(&got, "watch screen");
    assert!(shown.len() <= n, "{screen}");
    assert!(screen.contains("running, "), "{screen}");
    assert!(
        screen.contains(&format!("running now: {}", shown.len())),
        "{screen}"
    );

    t.cmd()
        .args(["send-keys", "-t", "w", "p"])
        .status()
        .unwrap();
    let screen = t.wait_for("(by pid)");
    let by_pid = table_pids(&screen);
    let mut sorted = by_pid.clone();
    sorted.sort_unstable();
    assert_eq!(by_pid, sorted, "ordered by pid:\n{screen}");
    assert_eq!(by_pid.len(), shown.len());

    t.cmd()
        .args(["send-keys", "-t", "w", "q"])
        .status()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while t.alive() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!t.alive(), "q ends the view");
}

/// The trace row's `following` and `decoded_bytes`, once there is one.
fn progress(db: &Path) -> Option<(i64, i64, i64)> {
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
    let conn = rusqlite::Connection::open_with_flags(db, flags).ok()?;
    conn.busy_timeout(Duration::from_secs(10)).ok()?;
    conn.query_row(
        "SELECT following, decoded_bytes, last_ts FROM trace",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .ok()
}

/// Wait (up to 60 s) until `f` holds.
fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(60);
    while !f() {
        assert!(Instant::now() < until, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `kt2sql watch TRACE DB` in a terminal while this process writes the
/// trace, in chunks with pauses: the view waits for the first records,
/// shows the commands the truth has running once half the build is
/// written, shows them finished (and the follow ended by itself) once all
/// of it is, and `q` leaves a database equal to a one-shot import of the
/// trace.
#[test]
fn watch_follows_a_growing_trace_and_shows_it() {
    if Std::new("tmux").arg("-V").output().is_err() {
        skip("tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let b = Build::named("openbsd-amd64-4-faithful");
    let (trace, db) = (dir.path().join("build.ktrace"), dir.path().join("build.db"));
    std::fs::write(&trace, b"").unwrap();
    let rc = dir.path().join("rc");
    let t = Tmux {
        socket: format!("kt2sql-test-follow-{}", std::process::id()),
    };
    let bin = assert_cmd::cargo::cargo_bin("kt2sql");
    let cmd = format!(
        "{} watch -d {} {} {} 2>{}; echo $? >{}",
        bin.display(),
        super::START_DIR,
        trace.display(),
        db.display(),
        dir.path().join("stderr").display(),
        rc.display()
    );
    let ok = t
        .cmd()
        .args([
            "new-session",
            "-d",
            "-s",
            "w",
            "-x",
            "160",
            "-y",
            "45",
            &cmd,
        ])
        .status()
        .unwrap();
    assert!(ok.success());
    t.wait_for(&format!("following {}", trace.display()));

    // Half the build, in four chunks (headers and payloads split).
    let cut = b.decoded.records.len() / 2;
    let half = b.decoded.records[cut].offset as usize;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&trace)
        .unwrap();
    let write = |f: &mut std::fs::File, bytes: &[u8], parts: usize| {
        use std::io::Write;
        for part in bytes.chunks(bytes.len().div_ceil(parts)) {
            f.write_all(part).unwrap();
            f.flush().unwrap();
            std::thread::sleep(Duration::from_millis(300));
        }
    };
    write(&mut f, &b.trace[..half], 4);
    // The follow takes the last record once the next one begins (or the
    // follow ends): all but that one.
    let near = b.decoded.records[cut - 1].offset as i64;
    wait_until("the follow to read half the trace", || {
        progress(&db).is_some_and(|p| p.1 >= near)
    });
    let (_, _, snapshot_ts) = progress(&db).unwrap();
    let truth = super::Truth::at(&b.truth, snapshot_ts);
    // The view reads again within a second.
    std::thread::sleep(Duration::from_millis(1500));
    let screen = t.wait_for("running, ");
    let shown: BTreeSet<i64> = table_pids(&screen).into_iter().collect();
    assert!(!shown.is_empty(), "something runs mid-build:\n{screen}");
    truth.check_alive(&shown, &format!("the screen at half the build:\n{screen}"));

    // The rest: every process exits, the follow ends by itself.
    write(&mut f, &b.trace[half..], 4);
    let screen = t.wait_for("until every traced process exited");
    let screen = if screen.contains("running now: 0") {
        screen
    } else {
        t.wait_for("running now: 0")
    };
    assert!(screen.contains("ended after "), "{screen}");
    assert!(table_pids(&screen).is_empty(), "{screen}");

    t.cmd()
        .args(["send-keys", "-t", "w", "q"])
        .status()
        .unwrap();
    wait_until("the view to end", || rc.exists() && !t.alive());
    let code = std::fs::read_to_string(&rc).unwrap();
    let err = std::fs::read_to_string(dir.path().join("stderr")).unwrap();
    assert_eq!(code.trim(), "0", "{err}");
    assert!(err.contains("until every traced process exited"), "{err}");
    assert_eq!(progress(&db).unwrap().0, 0, "following is 0");
    let want = import(dir.path(), &b.trace, "one-shot");
    crate::load::follow::assert_same(
        &crate::load::follow::contents(&db, true),
        &crate::load::follow::contents(&want, true),
        "watch TRACE DB",
    );
}

/// `q` while the trace is still being written ends the follow too: the
/// database is left complete (following 0), as a one-shot import of the
/// bytes written.
#[test]
fn quitting_the_watch_ends_its_follow_with_a_complete_database() {
    let Some(w) = WatchMidBuild::start("quit") else {
        return;
    };
    w.t.cmd()
        .args(["send-keys", "-t", "w", "q"])
        .status()
        .unwrap();
    wait_until("the view to end", || w.rc.exists() && !w.running());
    assert_eq!(std::fs::read_to_string(&w.rc).unwrap().trim(), "0");
    w.check_complete("q mid-build");
}

/// The terminal of `kt2sql watch TRACE DB` closes (the window, the ssh
/// session, `tmux kill-server`): the process still ends, the follow having
/// finished the database, instead of reading the closed terminal forever.
#[test]
fn closing_the_terminal_ends_the_watch_with_a_complete_database() {
    let Some(w) = WatchMidBuild::start("hangup") else {
        return;
    };
    w.t.cmd().arg("kill-server").status().unwrap();
    wait_until("the process to end", || !w.running());
    w.check_complete("terminal closed mid-build");
}

/// `kt2sql watch TRACE DB` in tmux on the first third of a build (a build
/// still running: the follow does not end by itself), once it shows it.
struct WatchMidBuild {
    t: Tmux,
    dir: tempfile::TempDir,
    db: std::path::PathBuf,
    /// The watch's exit code, once it ended by itself.
    rc: std::path::PathBuf,
    pid: u32,
    third: Vec<u8>,
}

/// A failed test leaves no watch behind (one reading a closed terminal
/// would spin for ever).
impl Drop for WatchMidBuild {
    fn drop(&mut self) {
        let _ = Std::new("kill")
            .args(["-9", &self.pid.to_string()])
            .status();
    }
}

impl WatchMidBuild {
    fn start(name: &str) -> Option<Self> {
        if Std::new("tmux").arg("-V").output().is_err() {
            skip("tmux is not installed");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let b = Build::named("freebsd-v1-amd64-4-faithful");
        let (trace, db) = (dir.path().join("build.ktrace"), dir.path().join("build.db"));
        let cut = b.decoded.records.len() / 3;
        let third = b.decoded.records[cut].offset as usize;
        let near = b.decoded.records[cut - 1].offset as i64;
        std::fs::write(&trace, &b.trace[..third]).unwrap();
        let (rc, pid) = (dir.path().join("rc"), dir.path().join("pid"));
        let t = Tmux {
            socket: format!("kt2sql-test-{name}-{}", std::process::id()),
        };
        let bin = assert_cmd::cargo::cargo_bin("kt2sql");
        // The shell runs the watch as a child, so its pid is known and its
        // exit code kept when it ends by itself.
        let cmd = format!(
            "{} watch -d {} {} {} </dev/tty 2>/dev/null & echo $! >{pid}; wait $!; echo $? >{}",
            bin.display(),
            super::START_DIR,
            trace.display(),
            db.display(),
            rc.display(),
            pid = pid.display(),
        );
        let args = [
            "new-session",
            "-d",
            "-s",
            "w",
            "-x",
            "100",
            "-y",
            "40",
            &cmd,
        ];
        assert!(t.cmd().args(args).status().unwrap().success());
        wait_until("the follow to read the third", || {
            progress(&db).is_some_and(|p| p.1 >= near)
        });
        t.wait_for("running, ");
        let pid = std::fs::read_to_string(&pid)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        Some(WatchMidBuild {
            t,
            dir,
            db,
            rc,
            pid,
            third: b.trace[..third].to_vec(),
        })
    }

    /// Whether the watch process is still there.
    fn running(&self) -> bool {
        Std::new("kill")
            .args(["-0", &self.pid.to_string()])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// The database is finished (`following` 0) with the rows of a one-shot
    /// import of the bytes the watch read.
    fn check_complete(&self, ctx: &str) {
        assert_eq!(progress(&self.db).unwrap().0, 0, "{ctx}: following is 0");
        let want = import(self.dir.path(), &self.third, "third");
        crate::load::follow::assert_same(
            &crate::load::follow::contents(&self.db, true),
            &crate::load::follow::contents(&want, true),
            ctx,
        );
    }
}

/// `kt2sql watch --once TRACE DB`: the snapshot once the follow has read
/// what the file holds (the build still running, its commands those the
/// truth has alive), then the follow ends with the database complete.
#[test]
fn watch_once_with_a_trace_follows_it_to_its_end_for_now() {
    let dir = tempfile::tempdir().unwrap();
    let b = Build::named("openbsd-amd64-4-faithful");
    let (trace, db) = (dir.path().join("build.ktrace"), dir.path().join("build.db"));
    let cut = b.decoded.records.len() / 2;
    let half = b.decoded.records[cut].offset as usize;
    std::fs::write(&trace, &b.trace[..half]).unwrap();
    let out = kt2sql()
        .args([
            "watch",
            "--once",
            "--format",
            "json",
            "-d",
            super::START_DIR,
        ])
        .arg(&trace)
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let status = &j["status"][0];
    assert_eq!(status["following"], 1, "{j}");
    // All but the last record, which the follow takes once the next one
    // begins, or when it ends (then it is in the database).
    let read = status["decoded_bytes"].as_u64().unwrap();
    let near = b.decoded.records[cut - 1].offset;
    assert!((near..=half as u64).contains(&read), "{j}");
    let truth = super::Truth::at(&b.truth, status["snapshot_ts"].as_i64().unwrap());
    let running = pids(&j["running"]);
    assert!(!running.is_empty());
    truth.check_alive(&running, "watch --once TRACE DB");
    assert_eq!(progress(&db).unwrap().0, 0, "the follow ended");
    let want = import(dir.path(), &b.trace[..half], "half");
    crate::load::follow::assert_same(
        &crate::load::follow::contents(&db, true),
        &crate::load::follow::contents(&want, true),
        "watch --once TRACE DB",
    );
    // DB alone with a follow's options is refused.
    let out = kt2sql()
        .args(["watch", "--once", "--idle", "3"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--idle goes with a TRACE"), "{err}");
}
