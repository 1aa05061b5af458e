//! Imports interrupted by SIGINT and SIGKILL at several moments of a 64 MiB
//! import (early, while records are loaded, and once the trace is read:
//! the index build and the commit): never a partial target, a database
//! given with `--append` stays byte-identical (after a SIGKILL, once the
//! next connection has rolled back the journal the killed append left),
//! and after SIGINT the process exits with code 130 and leaves no temporary
//! file and no journal.

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::temp_files;
use crate::require_shared;
use crate::util::compose;

/// When to send the signal.
#[derive(Debug, Clone, Copy)]
enum When {
    /// This long after the start.
    After(Duration),
    /// Once the importer has closed the trace file: every record is in,
    /// the indexes are being built or the file committed.
    Loaded,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Sig {
    Int,
    Kill,
}

/// Whether `pid` has `file` open; `None` without procfs.
fn has_open(pid: u32, file: &Path) -> Option<bool> {
    let fds = fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
    Some(
        fds.flatten()
            .any(|e| fs::read_link(e.path()).is_ok_and(|l| l == file)),
    )
}

/// Wait for `when`; `false` when the child ended first or the moment
/// cannot be observed.
fn wait_for(child: &mut Child, trace: &Path, when: When) -> bool {
    match when {
        When::After(d) => {
            std::thread::sleep(d);
            child.try_wait().unwrap().is_none()
        }
        When::Loaded => {
            let t0 = Instant::now();
            let mut seen = false;
            while t0.elapsed() < Duration::from_secs(120) {
                if child.try_wait().unwrap().is_some() {
                    return false;
                }
                match has_open(child.id(), trace) {
                    None => return false,
                    Some(true) => seen = true,
                    Some(false) if seen => return true,
                    Some(false) => {}
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            false
        }
    }
}

/// What one interrupted import came to.
#[derive(Debug)]
enum Outcome {
    /// Finished before the signal could be sent.
    Finished,
    /// Ended by the signal (or completed just before it was acted on).
    Signalled,
}

/// Import `trace` into `db` (appending when `append`), send `sig` at
/// `when`, and check what is left.
fn case(trace: &Path, db: &Path, append: bool, sig: Sig, when: When) -> Outcome {
    let dir = db.parent().unwrap();
    let before = append.then(|| fs::read(db).unwrap());
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("kt2sql"));
    cmd.arg(trace).arg(db).arg("-q");
    if append {
        cmd.arg("--append");
    }
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let what = format!(
        "{sig:?} at {when:?}{}",
        if append { " --append" } else { "" }
    );
    if !wait_for(&mut child, trace, when) {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{what}: {:?}", out);
        return Outcome::Finished;
    }
    match sig {
        Sig::Kill => child.kill().unwrap(),
        Sig::Int => {
            let st = Command::new("kill")
                .args(["-INT", &child.id().to_string()])
                .status()
                .unwrap();
            assert!(st.success());
        }
    }
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "{what}: still running 30 s after the signal"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    let stopped_in = t0.elapsed();
    let err = {
        use std::io::Read;
        let mut s = String::new();
        child.stderr.take().unwrap().read_to_string(&mut s).unwrap();
        s
    };
    let unchanged = || match &before {
        Some(b) => {
            // An append killed outright leaves SQLite's journal: the next
            // connection (here, this one) rolls it back if it is hot. (One
            // whose header was never synced is not: the database was not
            // written yet, and the next write reuses it.)
            let n: i64 = super::one(db, "SELECT count(*) FROM trace");
            assert_eq!(n, 1, "{what}: the appended trace is visible");
            fs::read(db).is_ok_and(|now| now == *b)
        }
        None => !db.exists(),
    };
    match (sig, status.code(), status.signal()) {
        // Acted on: nothing written, the temporary file gone.
        (Sig::Int, Some(130), _) => {
            assert!(err.contains("interrupted"), "{what}: {err}");
            assert!(!journal(db).exists(), "{what}: a journal is left");
            assert!(unchanged(), "{what}: the target changed");
            assert!(temp_files(dir).is_empty(), "{what}: {:?}", temp_files(dir));
            eprintln!("{what}: exit 130 after {stopped_in:?}");
        }
        // Too late to stop: the commit was under way, the result complete.
        (Sig::Int, Some(0), _) => {
            let n: i64 = super::one(db, "SELECT count(*) FROM trace");
            assert_eq!(n, if append { 2 } else { 1 }, "{what}");
            assert!(temp_files(dir).is_empty(), "{what}");
            eprintln!("{what}: the import had already finished");
        }
        (Sig::Kill, _, Some(9)) => {
            assert!(unchanged(), "{what}: the target changed");
            eprintln!("{what}: killed");
        }
        // The import ended between the last look and the kill (a SIGKILL
        // to a process that has exited but not been reaped does nothing):
        // then the result is complete, and the case counts as finished.
        (Sig::Kill, Some(0), _) => {
            let n: i64 = super::one(db, "SELECT count(*) FROM trace");
            assert_eq!(n, if append { 2 } else { 1 }, "{what}");
            assert!(temp_files(dir).is_empty(), "{what}");
            eprintln!("{what}: the import had already finished");
            return Outcome::Finished;
        }
        _ => panic!("{what}: {status}; {err}"),
    }
    Outcome::Signalled
}

/// SQLite's rollback journal of `db`.
fn journal(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push("-journal");
    PathBuf::from(s)
}

#[test]
fn interrupted_imports_leave_no_partial_database() {
    let _shared = require_shared!(python);
    let big = compose("freebsd-v1-amd64", 1, &["--target-bytes", "64M", "-q"]);
    let small = compose("netbsd-v2-amd64", 1, &["--processes", "3"]);
    let dir = tempfile::tempdir().unwrap();
    let trace: PathBuf = fs::canonicalize(&big.trace).unwrap();
    let times = [
        When::After(Duration::from_millis(50)),
        When::After(Duration::from_millis(200)),
        When::After(Duration::from_millis(500)),
        When::Loaded,
    ];
    let mut n = 0;
    let (mut signalled, mut finished) = (0, 0);
    let mut tally = |o: Outcome| match o {
        Outcome::Signalled => signalled += 1,
        Outcome::Finished => finished += 1,
    };
    for sig in [Sig::Int, Sig::Kill] {
        for when in times {
            n += 1;
            // One directory per case: a SIGKILL leaves its temporary file.
            let d = dir.path().join(format!("fresh{n}"));
            fs::create_dir(&d).unwrap();
            tally(case(&trace, &d.join("t.db"), false, sig, when));
        }
        for when in [times[1], When::Loaded] {
            n += 1;
            let d = dir.path().join(format!("append{n}"));
            fs::create_dir(&d).unwrap();
            let db = d.join("t.db");
            super::kt2sql()
                .arg(&small.trace)
                .arg(&db)
                .arg("-q")
                .assert()
                .success();
            tally(case(&trace, &db, true, sig, when));
        }
    }
    eprintln!("{signalled} imports signalled, {finished} finished first");
    assert!(
        signalled >= n - 2,
        "only {signalled} of {n} imports were still running when signalled"
    );
}

/// `Progress::cancelled` turning true at its `at`-th question.
struct CancelAt {
    at: usize,
    asked: std::cell::Cell<usize>,
}

impl kt2sql::import::Progress for CancelAt {
    fn cancelled(&self) -> bool {
        self.asked.set(self.asked.get() + 1);
        self.asked.get() >= self.at
    }
}

#[test]
fn a_cancelled_import_writes_nothing_at_every_check() {
    use kt2sql::import::{import, ImportMode, ImportOptions};
    let a = compose("openbsd-amd64", 2, &["--processes", "3"]);
    let b = compose("freebsd-v0-i386", 2, &["--processes", "3"]);
    let dir = tempfile::tempdir().unwrap();
    let traces = [a.trace.clone(), b.trace.clone()];
    // How often a clean two-trace import asks.
    let count = CancelAt {
        at: usize::MAX,
        asked: 0.into(),
    };
    let probe = dir.path().join("probe.db");
    import(&traces, &probe, &ImportOptions::default(), &count).unwrap();
    let checks = count.asked.get();
    assert!(checks >= 3, "asked only {checks} times");
    for append in [false, true] {
        for at in 1..=checks {
            let db = dir.path().join(format!("t-{append}-{at}.db"));
            if append {
                fs::copy(&probe, &db).unwrap();
            }
            let before = append.then(|| fs::read(&db).unwrap());
            let opts = ImportOptions {
                mode: if append {
                    ImportMode::Append
                } else {
                    ImportMode::Create
                },
                ..ImportOptions::default()
            };
            let p = CancelAt {
                at,
                asked: 0.into(),
            };
            match import(&traces, &db, &opts, &p) {
                Err(kt2sql::Error::Interrupted { path }) => assert_eq!(path, db),
                other => panic!("append {append}, check {at}: {other:?}"),
            }
            match before {
                Some(b) => assert_eq!(fs::read(&db).unwrap(), b, "check {at}"),
                None => assert!(!db.exists(), "check {at}"),
            }
            assert!(temp_files(dir.path()).is_empty(), "check {at}");
        }
    }
}
