//! `kt2sql serve` on a database that `kt2sql import --follow` is still
//! writing: the committed fixture is written into a growing file in
//! pieces while the follow runs and Datasette serves the database; every
//! page answers (no lock errors), the rows grow, and the last page shows
//! what a one-shot import of the whole trace holds.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::{get, have_datasette, Server};
use crate::util::fixtures;

/// `SELECT count(*) FROM TABLE` through Datasette, its status and body
/// checked.
fn count(s: &Server, table: &str) -> i64 {
    let path = format!("/build.json?sql=select+count(*)+as+n+from+{table}&_shape=array");
    let (status, body) = get(s.port, &path);
    assert_eq!(status, 200, "{path}: {body}\n{}", s.log());
    assert!(!body.contains("locked"), "{body}");
    let rows: Vec<Value> = serde_json::from_str(&body).unwrap();
    rows[0]["n"].as_i64().unwrap()
}

/// Whether the follow has written its first trace row yet.
fn started(db: &std::path::Path) -> bool {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    Connection::open_with_flags(db, flags)
        .and_then(|c| c.query_row("SELECT count(*) FROM trace", [], |r| r.get::<_, i64>(0)))
        .is_ok_and(|n| n > 0)
}

#[test]
fn serving_a_build_that_is_still_being_imported_shows_it_grow() {
    if !have_datasette() {
        return;
    }
    let f = fixtures::committed("openbsd-amd64", 4, &["--faithful", "--hazards"]);
    let tmp = tempfile::tempdir().unwrap();
    let (whole, truth) = (tmp.path().join("whole.ktrace"), tmp.path().join("t.json"));
    f.unpack(&whole, &truth);
    let truth: Value = serde_json::from_slice(&std::fs::read(&truth).unwrap()).unwrap();
    let cwd = truth["start_cwd"].as_str().unwrap();
    let bytes = std::fs::read(&whole).unwrap();
    let want = crate::report::import_into(
        tmp.path(),
        "want.db",
        std::slice::from_ref(&whole),
        Some(cwd),
    );
    let want: i64 = Connection::open(&want)
        .unwrap()
        .query_row("SELECT count(*) FROM call", [], |r| r.get(0))
        .unwrap();

    let (trace, db) = (tmp.path().join("g.ktrace"), tmp.path().join("build.db"));
    let mut file = std::fs::File::create(&trace).unwrap();
    let first = bytes.len() / 5;
    file.write_all(&bytes[..first]).unwrap();
    let mut follow = Command::new(env!("CARGO_BIN_EXE_kt2sql"))
        .args(["import", "-q", "--follow", "--idle", "20", "-d", cwd])
        .arg(&trace)
        .arg(&db)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !started(&db) {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the follow wrote nothing"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let s = Server::start(&db, &[]);
    assert!(s.log().contains("still growing"), "{}", s.log());
    let mut seen = vec![count(&s, "call")];
    // The rest in ten pieces, the pages read between them.
    let step = (bytes.len() - first).div_ceil(10);
    for piece in bytes[first..].chunks(step) {
        file.write_all(piece).unwrap();
        file.flush().unwrap();
        std::thread::sleep(Duration::from_millis(700));
        seen.push(count(&s, "call"));
        let (status, body) = get(s.port, "/build/running_commands.json?_shape=array");
        assert_eq!(status, 200, "{body}");
        assert_eq!(get(s.port, "/build/process?_size=5").0, 200);
    }
    // The follow ends once every process has exited; the page then shows
    // the whole build.
    let t0 = Instant::now();
    while count(&s, "call") != want {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "served {} calls, a one-shot import has {want}",
            count(&s, "call")
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    seen.push(want);
    assert!(seen.windows(2).all(|w| w[0] <= w[1]), "{seen:?}");
    assert!(seen[0] < want, "{seen:?}");
    let distinct: std::collections::BTreeSet<_> = seen.iter().collect();
    assert!(
        distinct.len() >= 3,
        "the rows did not grow as served: {seen:?}"
    );
    let _ = Command::new("kill")
        .args(["-TERM", &follow.id().to_string()])
        .status();
    let _ = follow.wait();
    assert!(!s.log().to_lowercase().contains("locked"), "{}", s.log());
}
