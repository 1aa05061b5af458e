//! `import --follow` against one-shot imports: the committed composed
//! fixtures of every dialect are written into a growing file in random
//! chunks (headers and payloads split) with pauses while a follow runs;
//! each snapshot a reader takes equals a one-shot import of the bytes it
//! says were imported (but that running processes and calls in flight are
//! marked running), and the final database equals a one-shot import of the
//! whole file, every table and view. Also: kill -9 and resume (in place,
//! the committed rows kept), a truncated
//! or replaced file, SIGTERM, `--idle`, and a database that is not the
//! follow's own.

use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

use crate::util::fixtures;
use kt2sql::import::follow::{self, Ended, FollowOptions};
use kt2sql::import::{import, ImportOptions, NoProgress};

/// A small xorshift generator: the chunks and pauses of a run, from its seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// Append `bytes` to `path` in random chunks of 1 to `max` bytes, pausing up
/// to 30 ms after some; `at` is called after each chunk with the bytes
/// written so far.
pub(crate) fn write_growing(
    path: &Path,
    bytes: &[u8],
    seed: u64,
    max: u64,
    mut at: impl FnMut(usize),
) {
    let mut rng = Rng(seed | 1);
    let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
    let mut i = 0;
    while i < bytes.len() {
        let n = (1 + rng.below(max) as usize).min(bytes.len() - i);
        f.write_all(&bytes[i..i + n]).unwrap();
        f.flush().unwrap();
        i += n;
        if rng.below(4) == 0 {
            std::thread::sleep(Duration::from_millis(rng.below(30)));
        }
        at(i);
    }
}

/// A one-shot import of `trace` into a new database `db`.
pub(crate) fn one_shot(trace: &Path, db: &Path) {
    let _ = fs::remove_file(db);
    import(
        &[trace.to_owned()],
        db,
        &ImportOptions::default(),
        &NoProgress,
    )
    .unwrap();
}

/// Every table's and view's rows as sorted text lines, read in one read
/// transaction (a snapshot); the columns that say when and how the import
/// ran, or how big the file was then, are left out, and the running
/// markers read as a one-shot import writes them.
pub(crate) fn contents(db: &Path, views: bool) -> Vec<(String, Vec<String>)> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(db, flags).unwrap();
    conn.busy_timeout(Duration::from_secs(30)).unwrap();
    conn.execute_batch("BEGIN").unwrap();
    let kinds = if views { "'table', 'view'" } else { "'table'" };
    let names: Vec<String> = conn
        .prepare(&format!(
            "SELECT name FROM sqlite_master WHERE type IN ({kinds}) \
             AND name NOT LIKE 'sqlite%' ORDER BY name"
        ))
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = Vec::new();
    for name in names {
        let sql = match name.as_str() {
            "trace" => "SELECT trace_id, dialect, records, records_by_type, call_records, \
                        ret_records, namei_records, dropped_records, first_ts, last_ts, \
                        start_cwd, decoded_bytes, damage, issues, files FROM trace"
                .to_string(),
            "meta" => continue,
            _ => format!("SELECT * FROM \"{name}\""),
        };
        let mut stmt = conn.prepare(&sql).unwrap();
        let cols: Vec<String> = stmt.column_names().iter().map(|c| c.to_string()).collect();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| {
                let mut line = String::new();
                for (i, c) in cols.iter().enumerate() {
                    let v = match r.get_ref(i)? {
                        rusqlite::types::ValueRef::Text(t)
                            if t == b"running" && c == "unpaired" =>
                        {
                            format!("{:?}", rusqlite::types::ValueRef::Text(b"end of trace"))
                        }
                        v => format!("{v:?}"),
                    };
                    // Paths of the trace file differ between the two.
                    if c == "path" && name.starts_with("trace") {
                        continue;
                    }
                    line.push_str(&v);
                    line.push('|');
                }
                Ok(line)
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        rows.sort();
        out.push((name, rows));
    }
    conn.execute_batch("COMMIT").unwrap();
    out
}

/// The first table whose rows differ, and the rows on each side only.
pub(crate) fn assert_same(
    got: &[(String, Vec<String>)],
    want: &[(String, Vec<String>)],
    what: &str,
) {
    let names = |v: &[(String, Vec<String>)]| v.iter().map(|t| t.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(got), names(want), "{what}: tables and views");
    for ((name, g), (_, w)) in got.iter().zip(want) {
        if g != w {
            let gs: BTreeSet<_> = g.iter().collect();
            let ws: BTreeSet<_> = w.iter().collect();
            let only_got: Vec<_> = gs.difference(&ws).take(5).collect();
            let only_want: Vec<_> = ws.difference(&gs).take(5).collect();
            panic!(
                "{what}: {name} differs ({} rows vs {}):\n followed only: {only_got:#?}\n one-shot only: {only_want:#?}",
                g.len(),
                w.len()
            );
        }
    }
}

/// The trace row's `following` and `decoded_bytes`, if the database has a
/// trace row yet.
fn progress(db: &Path) -> Option<(i64, u64, Option<String>)> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(db, flags).ok()?;
    conn.busy_timeout(Duration::from_secs(30)).ok()?;
    conn.query_row(
        "SELECT following, decoded_bytes, damage FROM trace",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .ok()
}

/// Follow options for a test: idle ends it (the fixtures' processes need
/// not all exit), settle long enough that a pause never ends it early.
fn options(trace: &Path, db: &Path) -> FollowOptions {
    FollowOptions {
        idle: Some(Duration::from_millis(1500)),
        settle: Duration::from_secs(5),
        ..FollowOptions::new(trace, db)
    }
}

/// A follow of `trace` on its own thread.
fn spawn_follow(
    opts: FollowOptions,
) -> (
    Arc<AtomicBool>,
    std::thread::JoinHandle<Result<follow::FollowSummary, kt2sql::Error>>,
) {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    (stop, std::thread::spawn(move || follow::run(&opts, s)))
}

#[test]
fn follow_snapshots_are_one_shot_imports_of_the_prefix_in_every_dialect() {
    let tmp = tempfile::tempdir().unwrap();
    let mut dialects = BTreeSet::new();
    for (n, fx) in fixtures::faithful().iter().enumerate() {
        // One fixture per dialect keeps the test short.
        if !dialects.insert(fx.dialect.clone()) {
            continue;
        }
        let bytes = fx.read("ktrace");
        let dir = tmp.path().join(&fx.name);
        fs::create_dir(&dir).unwrap();
        let (trace, db) = (dir.join("growing.ktrace"), dir.join("follow.db"));
        fs::write(&trace, b"").unwrap();
        let (_stop, follower) = spawn_follow(options(&trace, &db));
        let mut snapshots = Vec::new();
        let mut next_look = bytes.len() / 5;
        write_growing(&trace, &bytes, 0x9e37_79b9 + n as u64, 700, |written| {
            if written >= next_look {
                next_look += bytes.len() / 5;
                // Let the follower catch up and commit, then look.
                std::thread::sleep(Duration::from_millis(700));
                if let Some((1, at, None)) = progress(&db) {
                    snapshots.push((at, contents(&db, false)));
                }
            }
        });
        let done = follower.join().unwrap().unwrap();
        assert_eq!(done.ended, Ended::Idle, "{}", fx.name);
        assert!(
            snapshots.len() >= 3,
            "{}: {} snapshots",
            fx.name,
            snapshots.len()
        );
        for (at, snap) in &snapshots {
            let prefix = dir.join("prefix.ktrace");
            fs::write(&prefix, &bytes[..*at as usize]).unwrap();
            let want = dir.join("prefix.db");
            one_shot(&prefix, &want);
            assert_same(
                snap,
                &contents(&want, false),
                &format!("{} at byte {at}", fx.name),
            );
        }
        let want = dir.join("whole.db");
        one_shot(&trace, &want);
        assert_eq!(progress(&db).unwrap().0, 0, "following is 0 at the end");
        assert_same(&contents(&db, true), &contents(&want, true), &fx.name);
    }
    assert!(dialects.len() >= 7, "{dialects:?}");
}

#[test]
fn a_running_process_has_its_row_and_calls_in_flight_are_running() {
    let fx = &fixtures::faithful()[0];
    let bytes = fx.read("ktrace");
    let tmp = tempfile::tempdir().unwrap();
    let (trace, db) = (tmp.path().join("t.ktrace"), tmp.path().join("t.db"));
    // Half the file, then a look while it is followed.
    fs::write(&trace, &bytes[..bytes.len() / 2]).unwrap();
    let (stop, follower) = spawn_follow(options(&trace, &db));
    let t0 = Instant::now();
    while progress(&db).is_none_or(|p| p.1 == 0) && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let conn = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let (running, ends): (i64, i64) = conn
        .query_row(
            "SELECT count(*), count(exit_ts) FROM process WHERE exit_seen = 0",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(
        running > 0,
        "{}: some process runs at half the trace",
        fx.name
    );
    assert_eq!(ends, 0, "a running process has no end");
    let cut: i64 = conn
        .query_row(
            "SELECT count(*) FROM process WHERE cut_by_damage = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(cut, 0);
    let in_flight: i64 = conn
        .query_row(
            "SELECT count(*) FROM call WHERE unpaired = 'running' AND retval IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let end_of_trace: i64 = conn
        .query_row(
            "SELECT count(*) FROM call WHERE unpaired = 'end of trace'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(in_flight > 0, "calls in flight are marked running");
    assert_eq!(end_of_trace, 0);
    drop(conn);
    stop.store(true, Ordering::SeqCst);
    let done = follower.join().unwrap().unwrap();
    assert_eq!(done.ended, Ended::Stopped);
    // Stopped: the database is the one-shot import of what the file holds.
    let want = tmp.path().join("want.db");
    one_shot(&trace, &want);
    assert_same(&contents(&db, true), &contents(&want, true), "stopped");
}

/// A fixture whose processes all exit: the follow ends by itself.
#[test]
fn the_follow_ends_when_every_process_has_exited() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = fixtures::faithful()
        .into_iter()
        .find(|fx| {
            let t = tmp.path().join(format!("{}.ktrace", fx.name));
            fs::write(&t, fx.read("ktrace")).unwrap();
            let d = tmp.path().join(format!("{}.db", fx.name));
            one_shot(&t, &d);
            let c = Connection::open(&d).unwrap();
            c.query_row("SELECT min(exit_seen) FROM process", [], |r| {
                r.get::<_, i64>(0)
            })
            .unwrap()
                == 1
        })
        .expect("a fixture whose processes all exit");
    let (trace, db) = (tmp.path().join("g.ktrace"), tmp.path().join("g.db"));
    fs::write(&trace, b"").unwrap();
    let opts = FollowOptions {
        settle: Duration::from_secs(2),
        ..FollowOptions::new(&trace, &db)
    };
    let (_stop, follower) = spawn_follow(opts);
    write_growing(&trace, &fx.read("ktrace"), 7, 4000, |_| {});
    let done = follower.join().unwrap().unwrap();
    assert_eq!(done.ended, Ended::Exited, "{}", fx.name);
}

fn kt2sql_bin() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_kt2sql"))
}

#[test]
fn a_follow_killed_with_sigkill_resumes_and_ends_as_a_one_shot_import() {
    let tmp = tempfile::tempdir().unwrap();
    for (n, fx) in fixtures::faithful().iter().step_by(5).take(3).enumerate() {
        let bytes = fx.read("ktrace");
        let dir = tmp.path().join(&fx.name);
        fs::create_dir(&dir).unwrap();
        let (trace, db) = (dir.join("g.ktrace"), dir.join("g.db"));
        fs::write(&trace, b"").unwrap();
        let follow = || {
            kt2sql_bin()
                .args(["import", "-q", "--follow", "--idle", "1.5"])
                .arg(&trace)
                .arg(&db)
                .spawn()
                .unwrap()
        };
        let mut child = follow();
        let mut rng = Rng(0x5eed + n as u64);
        let kill_at = bytes.len() / 4 + rng.below(bytes.len() as u64 / 2) as usize;
        let mut killed = false;
        write_growing(&trace, &bytes, 31 + n as u64, 900, |written| {
            if !killed && written >= kill_at {
                std::thread::sleep(Duration::from_millis(300 + rng.below(500)));
                child.kill().unwrap();
                child.wait().unwrap();
                killed = true;
                assert_eq!(progress(&db).map(|p| p.0), Some(1), "left following");
                // A mark in the database the killed follow left: the one
                // that resumes goes on with it rather than starting anew.
                Connection::open(&db)
                    .unwrap()
                    .execute("INSERT INTO meta (key, value) VALUES ('mark', 'kept')", [])
                    .unwrap();
                child = follow();
            }
        });
        assert!(child.wait().unwrap().success(), "{}", fx.name);
        let meta: Vec<String> = Connection::open(&db)
            .unwrap()
            .prepare("SELECT key FROM meta WHERE key NOT LIKE '%version' ORDER BY key")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            meta,
            ["mark"],
            "{}: resumed in place, no resume point left",
            fx.name
        );
        let want = dir.join("want.db");
        one_shot(&trace, &want);
        assert_same(&contents(&db, true), &contents(&want, true), &fx.name);
    }
}

#[test]
fn sigterm_ends_the_follow_with_a_complete_database() {
    let fx = &fixtures::faithful()[1];
    let bytes = fx.read("ktrace");
    let tmp = tempfile::tempdir().unwrap();
    let (trace, db) = (tmp.path().join("g.ktrace"), tmp.path().join("g.db"));
    fs::write(&trace, &bytes[..bytes.len() / 3]).unwrap();
    let mut child = kt2sql_bin()
        .args(["import", "-q", "--follow"])
        .arg(&trace)
        .arg(&db)
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while progress(&db).is_none_or(|p| p.1 == 0) && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = child.wait().unwrap().code();
    // Ended with what the file holds (its cut last record is damage, exit 1).
    assert!(matches!(code, Some(0 | 1)), "{code:?}");
    assert_eq!(progress(&db).unwrap().0, 0);
    let want = tmp.path().join("want.db");
    one_shot(&trace, &want);
    assert_same(&contents(&db, true), &contents(&want, true), "SIGTERM");
}

#[test]
fn a_truncated_or_replaced_trace_is_a_clear_error_and_nothing_is_lost() {
    let fx = &fixtures::faithful()[2];
    let bytes = fx.read("ktrace");
    let tmp = tempfile::tempdir().unwrap();
    for how in ["truncated", "replaced"] {
        let (trace, db) = (
            tmp.path().join(format!("{how}.ktrace")),
            tmp.path().join(format!("{how}.db")),
        );
        fs::write(&trace, &bytes[..bytes.len() / 2]).unwrap();
        let (_stop, follower) = spawn_follow(FollowOptions {
            idle: Some(Duration::from_secs(20)),
            ..options(&trace, &db)
        });
        let t0 = Instant::now();
        while progress(&db).is_none_or(|p| p.1 == 0) && t0.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(100));
        }
        let kept = tmp.path().join(format!("{how}-kept.ktrace"));
        fs::copy(&trace, &kept).unwrap();
        if how == "truncated" {
            fs::OpenOptions::new()
                .write(true)
                .open(&trace)
                .unwrap()
                .set_len(100)
                .unwrap();
        } else {
            let other = tmp.path().join("other");
            fs::write(&other, &bytes).unwrap();
            fs::rename(&other, &trace).unwrap();
        }
        let err = follower.join().unwrap().unwrap_err().to_string();
        assert!(err.contains(&trace.display().to_string()), "{err}");
        assert!(err.contains(how), "{err}");
        // The rows read before are all there, as a one-shot import of them.
        let want = tmp.path().join(format!("{how}-want.db"));
        one_shot(&kept, &want);
        let mut got = contents(&db, true);
        let mut w = contents(&want, true);
        // The trace row's counts agree; its fingerprint is not taken.
        for c in [&mut got, &mut w] {
            c.retain(|(n, _)| n != "trace");
        }
        assert_same(&got, &w, how);
        assert_eq!(progress(&db).unwrap().0, 0);
    }
}

#[test]
fn follow_never_writes_over_a_database_that_is_not_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let fx = &fixtures::faithful()[0];
    let trace = tmp.path().join("t.ktrace");
    fs::write(&trace, fx.read("ktrace")).unwrap();
    // A finished import of the same trace, and a file that is no database.
    let done = tmp.path().join("done.db");
    one_shot(&trace, &done);
    let other = tmp.path().join("notes.txt");
    fs::write(&other, "mine").unwrap();
    for db in [&done, &other] {
        let before = fs::read(db).unwrap();
        let out = kt2sql_bin()
            .args(["import", "--follow", "--idle", "1"])
            .arg(&trace)
            .arg(db)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", db.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("already exists"), "{err}");
        assert_eq!(fs::read(db).unwrap(), before);
    }
}

/// The WAL's bound: `import --follow` checkpoints so that the WAL stays
/// under this even while a reader queries the database.
const WAL_LIMIT: u64 = 64 << 20;

/// What one poll of the reader saw, in one read transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    records: i64,
    decoded_bytes: i64,
    processes: i64,
    calls: i64,
    /// trace.namei_records, sum(process.lookups), count(*) FROM namei.
    lookups: (i64, i64, i64),
}

/// One snapshot's counts, read in one read transaction.
fn seen(conn: &Connection) -> Option<Seen> {
    conn.execute_batch("BEGIN").ok()?;
    let s = conn
        .query_row(
            "SELECT t.records, t.decoded_bytes, t.namei_records,
                    (SELECT count(*) FROM process),
                    (SELECT count(*) FROM call),
                    (SELECT COALESCE(sum(lookups), 0) FROM process),
                    (SELECT count(*) FROM namei)
             FROM trace AS t",
            [],
            |r| {
                Ok(Seen {
                    records: r.get(0)?,
                    decoded_bytes: r.get(1)?,
                    processes: r.get(3)?,
                    calls: r.get(4)?,
                    lookups: (r.get(2)?, r.get(5)?, r.get(6)?),
                })
            },
        )
        .ok();
    conn.execute_batch("COMMIT").ok()?;
    s
}

/// While a follow runs on a growing trace (a database of ~38 MB), a
/// reader queries the database every 100 ms: the WAL stays under 64 MB
/// and is checkpointed even so (it never holds the whole database), and
/// every read sees one consistent snapshot (the counts never go back; the
/// lookups the trace row and the process rows count are the rows of
/// namei). The follow ends as a one-shot import of the whole file.
#[test]
fn the_wal_stays_bounded_and_reads_are_snapshots_while_a_reader_polls() {
    let _shared = crate::require_shared!(python);
    // A 315 MB-class build's blocks, 48 MB of them: a database of ~38 MB
    // written through commits that rewrite the running rows each time.
    let c = crate::util::ktcompose(
        "openbsd-amd64",
        3,
        &[
            "--faithful",
            "--processes",
            "80",
            "--jobs",
            "6",
            "--trpoints",
            "cnx",
            "--target-bytes",
            "48M",
        ],
    );
    let bytes = fs::read(&c.trace).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (trace, db) = (tmp.path().join("g.ktrace"), tmp.path().join("g.db"));
    let wal = tmp.path().join("g.db-wal");
    fs::write(&trace, b"").unwrap();
    let t0 = Instant::now();
    let (_stop, follower) = spawn_follow(FollowOptions {
        idle: Some(Duration::from_secs(2)),
        ..options(&trace, &db)
    });
    let done = Arc::new(AtomicBool::new(false));
    let reader = {
        let (db, wal, done) = (db.clone(), wal.clone(), done.clone());
        std::thread::spawn(move || {
            let mut polls = Vec::new();
            let mut wal_peak = 0u64;
            let mut conn = None;
            while !done.load(Ordering::SeqCst) {
                let size = fs::metadata(&wal).map_or(0, |m| m.len());
                wal_peak = wal_peak.max(size);
                if conn.is_none() && db.exists() {
                    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
                    conn = Connection::open_with_flags(&db, flags).ok();
                    if let Some(c) = &conn {
                        c.busy_timeout(Duration::from_secs(5)).unwrap();
                    }
                }
                if let Some(s) = conn.as_ref().and_then(seen) {
                    polls.push(s);
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            // Once more, after the follow's last commit.
            polls.extend(conn.as_ref().and_then(seen));
            (polls, wal_peak)
        })
    };
    // Paced over about ten seconds (a chunk of up to 1 MiB every 100 ms),
    // as a build writes its trace: the follow commits some twenty times,
    // so the WAL has checkpoints to keep it small. Written at once, a fast
    // machine reads it all in three commits, each a third of the database.
    write_growing(&trace, &bytes, 0xa11, 1 << 20, |_| {
        std::thread::sleep(Duration::from_millis(100))
    });
    let summary = follower.join().unwrap().unwrap();
    done.store(true, Ordering::SeqCst);
    let (polls, wal_peak) = reader.join().unwrap();
    eprintln!(
        "WAL test: {} bytes followed in {:.1} s, {} commits, {} reads, WAL peak {} bytes",
        bytes.len(),
        t0.elapsed().as_secs_f64(),
        summary.commits,
        polls.len(),
        wal_peak
    );
    assert!(wal_peak < WAL_LIMIT, "WAL peak {wal_peak} bytes");
    assert!(summary.commits >= 10, "{} commits", summary.commits);
    // Without checkpoints the WAL would hold every page written, at least
    // the whole database: it never held it all.
    let db_size = fs::metadata(&db).unwrap().len();
    assert!(
        wal_peak < db_size,
        "the WAL was checkpointed while the reader polled: peak {wal_peak} bytes, \
         database {db_size}"
    );
    assert!(polls.len() >= 20, "{} reads", polls.len());
    for s in &polls {
        let (n, by_process, rows) = s.lookups;
        assert!(
            n == by_process && by_process == rows,
            "one snapshot's lookups agree: {s:?}"
        );
    }
    for w in polls.windows(2) {
        let (a, b) = (w[0], w[1]);
        assert!(
            b.records >= a.records
                && b.decoded_bytes >= a.decoded_bytes
                && b.processes >= a.processes
                && b.calls >= a.calls
                && b.lookups.2 >= a.lookups.2,
            "never back: {a:?} then {b:?}"
        );
    }
    let last = polls.last().unwrap();
    assert_eq!(last.decoded_bytes as usize, bytes.len(), "read to the end");
    let whole = tmp.path().join("whole.db");
    one_shot(&trace, &whole);
    assert_same(&contents(&db, true), &contents(&whole, true), "WAL test");
}
