//! Safe output: control characters and invalid UTF-8 in paths and command
//! names are escaped in text and CSV and kept exactly (hex) in JSON; a
//! reused pid given to `-p` takes every lifetime and says so; a closed
//! pipe ends a report quietly; bad arguments fail with exit code 2.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::kt2sql;
use crate::util::records::{call, rec, ret, T0};
use crate::util::writer::TraceWriter;
use kt2sql::record::{Body, Record};

const EVIL_PATH: &[u8] = b"/tmp/caf\xe9/\x1b[2Jx.h";
const EVIL_COMM: &[u8] = b"ev\x1bil";

/// Pid 100 (named EVIL_COMM) forks pid 200 twice. The first child opens
/// EVIL_PATH and exits; the second (its records named sh) opens /b and exits.
fn reuse_trace() -> Vec<u8> {
    let abi = "freebsd-v1:le:64".parse().unwrap();
    let mut t = T0;
    let mut at = |pid: i64, tid: i64, comm: &[u8], body: Body<'static>| {
        t += 1000;
        let mut r = rec(pid, Some(tid), "x", t, body);
        r.version = 1;
        r.comm = comm.to_vec().into();
        r
    };
    let mut rs: Vec<Record<'static>> = Vec::new();
    for (tid, comm, path) in [(2001, EVIL_COMM, EVIL_PATH), (2002, b"sh", b"/b")] {
        rs.push(at(100, 1001, EVIL_COMM, call(2, &[])));
        rs.push(at(100, 1001, EVIL_COMM, ret(2, 0, 200)));
        rs.push(at(200, tid, comm, ret(2, 0, 0)));
        rs.push(at(200, tid, comm, call(5, &[0x1000, 0])));
        rs.push(at(200, tid, comm, Body::Namei(path.to_vec().into())));
        rs.push(at(200, tid, comm, ret(5, 0, 3)));
        rs.push(at(200, tid, comm, call(1, &[0])));
    }
    TraceWriter::new(abi).records(&rs).bytes()
}

fn reuse_db(dir: &Path) -> PathBuf {
    let trace = dir.join("t.out");
    std::fs::write(&trace, reuse_trace()).unwrap();
    let db = dir.join("t.db");
    let opts = kt2sql::import::ImportOptions {
        abi: Some("freebsd-v1:le:64".parse().unwrap()),
        start_cwd: Some(b"/".to_vec()),
        ..Default::default()
    };
    kt2sql::import::import(&[trace], &db, &opts, &kt2sql::import::NoProgress).unwrap();
    db
}

fn stdout(db: &Path, args: &[&str]) -> (String, String) {
    let o = kt2sql()
        .arg(args[0])
        .arg(db)
        .args(&args[1..])
        .output()
        .unwrap();
    assert!(o.status.success(), "{args:?}: {o:?}");
    let raw_controls = o
        .stdout
        .iter()
        .any(|&b| (b < 0x20 && b != b'\n') || b == 0x7f);
    assert!(!raw_controls, "{args:?} printed a raw control byte");
    (
        String::from_utf8(o.stdout).expect("valid UTF-8 output"),
        String::from_utf8(o.stderr).unwrap(),
    )
}

#[test]
fn paths_and_names_are_escaped_in_text_and_csv_and_exact_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let db = reuse_db(dir.path());
    let (text, _) = stdout(&db, &["files", "-v"]);
    assert!(text.contains("/tmp/caf\\351/\\033[2Jx.h\n"), "{text}");
    assert!(text.contains("    open(): ev\\033il [200]\n"), "{text}");
    let (tree, _) = stdout(&db, &["tree"]);
    assert!(
        tree.contains("     ev\\033il [100]\n         ev\\033il [200]\n"),
        "{tree}"
    );
    let (csv, _) = stdout(&db, &["files", "-v", "--format", "csv"]);
    assert!(
        csv.contains("/tmp/caf\\351/\\033[2Jx.h,open,ev\\033il,200\n"),
        "{csv}"
    );
    let (json, _) = stdout(&db, &["files", "-v", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let hex: String = EVIL_PATH.iter().map(|b| format!("{b:02x}")).collect();
    let evil = v
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e.get("path_hex").is_some())
        .expect("a path_hex field");
    assert_eq!(evil["path_hex"], hex.as_str());
    assert_eq!(evil["calls"][0]["by"][0]["comm"], "ev\u{1b}il");
    let (dot, _) = stdout(&db, &["tree", "--format", "dot"]);
    assert!(dot.contains("label=\"ev\\\\033il [200]\""), "{dot}");
    let (table, _) = stdout(&db, &["sql", "SELECT path FROM path ORDER BY path_id"]);
    assert!(table.contains("/tmp/caf\\351/\\033[2Jx.h"), "{table}");
}

#[test]
fn a_reused_pid_takes_every_lifetime_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = reuse_db(dir.path());
    let (text, err) = stdout(&db, &["files", "-p", "200"]);
    assert_eq!(text, "Namei list:\n/b\n/tmp/caf\\351/\\033[2Jx.h\n");
    assert!(
        err.contains("note: pid 200 was 2 processes; showing each"),
        "{err}"
    );
    let (tree, err) = stdout(&db, &["tree", "-p", "200"]);
    assert_eq!(
        tree,
        "Process tree:\n <process_root> [0]\n     ev\\033il [200] (lifetime 1 of 2)\n     \
         ev\\033il [200] (lifetime 2 of 2)\n"
    );
    assert!(err.contains("pid_lifetimes --param pid=200"), "{err}");
    let (all, _) = stdout(&db, &["files"]);
    assert!(all.contains("/b\n") && all.contains("/tmp/caf"), "{all}");
}

#[test]
fn bad_arguments_fail_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = reuse_db(dir.path());
    let fails = |args: &[&str], says: &str| {
        let o = kt2sql()
            .arg(args[0])
            .arg(&db)
            .args(&args[1..])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    fails(&["files", "-p", "999"], "no process has pid 999");
    fails(&["inputs", "-p", "999"], "no process has pid 999");
    fails(&["inputs", "--trace", "7"], "no trace 7");
    fails(&["graph", "--trace", "7"], "no trace 7");
    fails(&["tree", "--trace", "7"], "no trace 7");
    fails(&["query", "nosuch"], "no query called \"nosuch\"");
    fails(
        &["query", "files", "-P", "pdi=1"],
        "(it takes :pid, :trace, :all, :under, :exclude)",
    );
    fails(
        &["sql", "DELETE FROM process"],
        "only reading is allowed here; refused DELETE from process",
    );
    let other = dir.path().join("t.out");
    let o = kt2sql().args(["stats"]).arg(&other).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a kt2sql database"));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let db = reuse_db(dir.path());
    let many = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 2000000) \
                SELECT i, 'a fairly long line of text to fill the pipe' FROM n";
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("kt2sql"))
        .arg("sql")
        .arg(&db)
        .arg(many)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 100];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut head)
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A report's connection keeps SQLite's memory flat whatever the
/// database's size: a 4 MiB page cache, temporary tables and sorts in
/// files, no memory map, a soft heap limit; and a user's SQL cannot lift
/// them.
#[test]
fn reports_open_the_database_with_memory_limits() {
    use kt2sql::report::{CACHE_SIZE, SOFT_HEAP_LIMIT};
    let dir = tempfile::tempdir().unwrap();
    let db = reuse_db(dir.path());
    let conn = kt2sql::report::open(&db).unwrap();
    let get = |p: &str| -> i64 {
        conn.query_row(&format!("PRAGMA {p}"), [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(get("cache_size"), CACHE_SIZE);
    assert_eq!(get("temp_store"), 1, "temp_store = FILE");
    assert_eq!(get("mmap_size"), 0);
    assert_eq!(get("soft_heap_limit"), SOFT_HEAP_LIMIT);
    for lift in [
        "PRAGMA cache_size = -1000000",
        "PRAGMA temp_store = MEMORY",
        "PRAGMA soft_heap_limit = 0",
    ] {
        assert!(conn.execute_batch(lift).is_err(), "{lift} refused");
    }
    assert_eq!(get("cache_size"), CACHE_SIZE);
}
