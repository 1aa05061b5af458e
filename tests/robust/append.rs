//! Issue #13, `--append` in place: two appends at once both land (the
//! second waits), another connection's committed writes survive an append
//! in either order, a writer that keeps the lock makes the append give up
//! after `--busy-timeout` with a clear message, a failed append leaves the
//! database byte-identical, a symlinked path updates the file it points
//! to, appending a file already imported warns, a database switched to
//! WAL is appended to while a reader keeps its snapshot, and two imports
//! creating the same database never replace each other's.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::{kt2sql, one};
use crate::require_shared;
use crate::util::compose;

/// A database holding one small trace, in `dir`.
fn small_db(dir: &Path, name: &str) -> PathBuf {
    let small = compose("netbsd-v2-amd64", 1, &["--processes", "3"]);
    let db = dir.join(name);
    kt2sql()
        .arg(&small.trace)
        .arg(&db)
        .arg("-q")
        .assert()
        .success();
    db
}

fn append(trace: &Path, db: &Path, extra: &[&str]) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin("kt2sql"))
        .arg(trace)
        .arg(db)
        .args(["-q", "--append"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn finish(child: Child) -> (Option<i32>, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The database is sound and each trace's records are all there.
fn check(db: &Path, traces: i64, records: i64) {
    let ok: String = one(db, "PRAGMA integrity_check");
    assert_eq!(ok, "ok");
    assert_eq!(one::<i64>(db, "SELECT count(*) FROM trace"), traces);
    assert_eq!(
        one::<i64>(db, "SELECT sum(records) FROM trace"),
        records,
        "records of all traces"
    );
    let orphans: i64 = one(
        db,
        "SELECT count(*) FROM call WHERE process_id NOT IN (SELECT process_id FROM process)",
    );
    assert_eq!(orphans, 0);
}

fn records(db: &Path) -> i64 {
    one(db, "SELECT sum(records) FROM trace")
}

/// Wait until the append writes: SQLite's journal beside `db` exists only
/// while a write transaction has changed a page.
fn wait_until_writing(child: &mut Child, db: &Path) {
    let mut journal = db.as_os_str().to_owned();
    journal.push("-journal");
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(60) {
        assert!(child.try_wait().unwrap().is_none(), "ended too soon");
        if Path::new(&journal).exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("the append never wrote {}", db.display());
}

#[test]
fn two_appends_at_once_both_land() {
    let _shared = require_shared!(python);
    let a = compose("freebsd-v1-amd64", 3, &["--target-bytes", "8M", "-q"]);
    let b = compose("openbsd-amd64", 4, &["--target-bytes", "8M", "-q"]);
    let dir = tempfile::tempdir().unwrap();
    let (ta, tb) = (
        fs::canonicalize(&a.trace).unwrap(),
        fs::canonicalize(&b.trace).unwrap(),
    );
    // What each trace holds on its own.
    let base = small_db(dir.path(), "base.db");
    let n0 = records(&base);
    let alone = |t: &Path, name: &str| {
        let db = dir.path().join(name);
        kt2sql().arg(t).arg(&db).arg("-q").assert().success();
        records(&db)
    };
    let (na, nb) = (alone(&ta, "a.db"), alone(&tb, "b.db"));
    for round in 0..3 {
        let db = dir.path().join(format!("r{round}.db"));
        fs::copy(&base, &db).unwrap();
        let first = append(&ta, &db, &[]);
        let second = append(&tb, &db, &[]);
        let (ra, ea) = finish(first);
        let (rb, eb) = finish(second);
        assert_eq!((ra, rb), (Some(0), Some(0)), "round {round}: {ea} {eb}");
        check(&db, 3, n0 + na + nb);
    }
}

#[test]
fn a_writer_that_keeps_the_lock_makes_the_append_give_up_cleanly() {
    let t = compose("freebsd-v0-i386", 5, &["--processes", "3"]);
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path(), "t.db");
    let before = fs::read(&db).unwrap();
    let mut conn = Connection::open(&db).unwrap();
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    tx.execute_batch("CREATE TABLE mine (x); INSERT INTO mine VALUES (42);")
        .unwrap();
    let t0 = Instant::now();
    let (code, err) = finish(append(&t.trace, &db, &["--busy-timeout", "1"]));
    assert_eq!(code, Some(2), "{err}");
    assert!(t0.elapsed() >= Duration::from_secs(1), "it did not wait");
    assert!(
        err.contains("another process kept the database locked for 1 s")
            && err.contains("nothing was appended")
            && err.contains("t.db"),
        "{err}"
    );
    tx.rollback().unwrap();
    drop(conn);
    assert_eq!(fs::read(&db).unwrap(), before, "the database changed");
}

#[test]
fn other_writers_commits_survive_an_append_either_way() {
    let _shared = require_shared!(python);
    let t = compose("freebsd-v1-amd64", 6, &["--target-bytes", "16M", "-q"]);
    let trace = fs::canonicalize(&t.trace).unwrap();
    let dir = tempfile::tempdir().unwrap();

    // A writer holds the lock when the append starts: the append waits.
    let db = small_db(dir.path(), "first.db");
    let n0 = records(&db);
    let mut conn = Connection::open(&db).unwrap();
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .unwrap();
    tx.execute_batch("CREATE TABLE mine (x); INSERT INTO mine VALUES (1);")
        .unwrap();
    let mut child = append(&trace, &db, &[]);
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the append did not wait"
    );
    tx.commit().unwrap();
    let (code, err) = finish(child);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(one::<i64>(&db, "SELECT x FROM mine"), 1);
    let added = records(&db) - n0;
    assert!(added > 0);
    check(&db, 2, n0 + added);

    // The append holds the lock when a writer starts: the writer waits,
    // and its commit comes after the append's.
    let db = small_db(dir.path(), "second.db");
    let mut child = append(&trace, &db, &[]);
    wait_until_writing(&mut child, &db);
    let conn = Connection::open(&db).unwrap();
    conn.busy_timeout(Duration::from_secs(120)).unwrap();
    conn.execute_batch(
        "BEGIN IMMEDIATE; CREATE TABLE mine (x); INSERT INTO mine VALUES (2); COMMIT;",
    )
    .unwrap();
    let (code, err) = finish(child);
    assert_eq!(code, Some(0), "{err}");
    drop(conn);
    assert_eq!(one::<i64>(&db, "SELECT x FROM mine"), 2);
    check(&db, 2, n0 + added);
}

#[test]
fn a_failed_append_leaves_the_database_as_it_was() {
    let good = compose("freebsd-v1-amd64", 7, &["--processes", "5"]);
    let dir = tempfile::tempdir().unwrap();
    // A cut last record: --strict fails there, after the first trace and
    // all but the end of the second are in the transaction.
    let mut bytes = fs::read(&good.trace).unwrap();
    bytes.truncate(bytes.len() - 5);
    let bad = super::write(dir.path(), "bad.out", &bytes);
    let db = small_db(dir.path(), "t.db");
    let before = fs::read(&db).unwrap();
    let out = kt2sql()
        .arg(&good.trace)
        .arg(&bad)
        .arg(&db)
        .args(["-q", "--append", "--strict"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(fs::read(&db).unwrap(), before, "the database changed");
    let mut journal = db.as_os_str().to_owned();
    journal.push("-journal");
    assert!(!Path::new(&journal).exists(), "a journal is left");
}

#[test]
fn a_symlinked_database_is_updated_where_it_points() {
    let t = compose("openbsd-amd64", 8, &["--processes", "3"]);
    let dir = tempfile::tempdir().unwrap();
    let real = small_db(dir.path(), "real.db");
    let link = dir.path().join("link.db");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    kt2sql()
        .arg(&t.trace)
        .arg(&link)
        .args(["-q", "--append"])
        .assert()
        .success();
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(one::<i64>(&real, "SELECT count(*) FROM trace"), 2);
}

#[test]
fn appending_a_file_already_imported_warns() {
    let t = compose("netbsd-v2-amd64", 9, &["--processes", "3"]);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    kt2sql().arg(&t.trace).arg(&db).arg("-q").assert().success();
    let copy = dir.path().join("copy.out");
    fs::copy(&t.trace, &copy).unwrap();
    let out = kt2sql()
        .arg(&copy)
        .arg(&db)
        .args(["-q", "--append"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("copy.out: the same file (size and fingerprint) is already in")
            && err.contains("as trace 1; imported again as trace 2"),
        "{err}"
    );
    let same: i64 = one(
        &db,
        "SELECT count(DISTINCT fingerprint) FROM trace WHERE fingerprint IS NOT NULL",
    );
    assert_eq!(same, 1);
    // A different file does not warn.
    let other = compose("netbsd-v2-amd64", 10, &["--processes", "3"]);
    let out = kt2sql()
        .arg(&other.trace)
        .arg(&db)
        .args(["-q", "--append"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("the same file"), "{err}");
}

#[test]
fn a_wal_database_is_appended_to_and_stays_wal() {
    let t = compose("freebsd-v0-amd64", 11, &["--processes", "3"]);
    let dir = tempfile::tempdir().unwrap();
    let db = small_db(dir.path(), "t.db");
    let mode: String = one(&db, "PRAGMA journal_mode = WAL");
    assert_eq!(mode, "wal");
    // A reader holding a snapshot does not stop the append.
    let reader = Connection::open(&db).unwrap();
    reader.execute_batch("BEGIN").unwrap();
    let seen: i64 = reader
        .query_row("SELECT count(*) FROM trace", [], |r| r.get(0))
        .unwrap();
    let (code, err) = finish(append(&t.trace, &db, &[]));
    assert_eq!(code, Some(0), "{err}");
    let still: i64 = reader
        .query_row("SELECT count(*) FROM trace", [], |r| r.get(0))
        .unwrap();
    assert_eq!((seen, still), (1, 1), "the reader's snapshot changed");
    drop(reader);
    assert_eq!(one::<i64>(&db, "SELECT count(*) FROM trace"), 2);
    assert_eq!(one::<String>(&db, "PRAGMA journal_mode"), "wal");
}

#[test]
fn two_imports_creating_one_database_never_replace_each_other() {
    let _shared = require_shared!(python);
    let a = compose("freebsd-v1-amd64", 12, &["--target-bytes", "8M", "-q"]);
    let b = compose("netbsd-v2-amd64", 13, &["--target-bytes", "8M", "-q"]);
    let dir = tempfile::tempdir().unwrap();
    for flags in [&[][..], &["--append"][..]] {
        let db = dir.path().join(format!("t{}.db", flags.len()));
        let start = |t: &Path| {
            Command::new(assert_cmd::cargo::cargo_bin("kt2sql"))
                .arg(t)
                .arg(&db)
                .arg("-q")
                .args(flags)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (first, second) = (start(&a.trace), start(&b.trace));
        let mut results = [finish(first), finish(second)];
        results.sort();
        let [(won, _), (lost, err)] = results;
        assert_eq!((won, lost), (Some(0), Some(2)), "{flags:?}: {err}");
        assert!(
            err.contains("was created by another process during this import; it was left alone"),
            "{flags:?}: {err}"
        );
        // One trace, whole; the other import said why it wrote nothing.
        assert_eq!(one::<i64>(&db, "SELECT count(*) FROM trace"), 1);
        let ok: String = one(&db, "PRAGMA integrity_check");
        assert_eq!(ok, "ok");
    }
}
