//! `dump` reads a trace from a pipe or a FIFO as from the file itself: no
//! byte is read before the decoder sees it (the database check is made on
//! the decoder's own bytes), and a database piped in is still named;
//! `--info` says the same in JSON Lines.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{dump, kt2sql};
use crate::util::manifest_dir;

#[test]
fn dump_reads_a_pipe_as_the_file() {
    let trace = manifest_dir().join("example/build.ktrace");
    let bytes = std::fs::read(&trace).unwrap();
    let expected = dump(&trace, &[]);
    assert!(expected.lines().count() > 100);
    for args in [vec!["dump", "/dev/stdin"], vec!["dump", "-f", "/dev/stdin"]] {
        let out = kt2sql()
            .args(&args)
            .write_stdin(bytes.clone())
            .assert()
            .success();
        let got = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert_eq!(got, expected, "{args:?}");
    }
    // --info counts what the pipe held.
    let out = kt2sql()
        .args(["dump", "--info", "/dev/stdin"])
        .write_stdin(bytes.clone())
        .assert()
        .success();
    let info = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        info.contains(&format!("decoded:         all {} bytes", bytes.len())),
        "{info}"
    );
    // --format jsonl says the same as one JSON object.
    let out = kt2sql()
        .args(["dump", "--info", "--format", "jsonl"])
        .arg(&trace)
        .assert()
        .success();
    let json = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert_eq!(json.lines().count(), 1, "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["decoded_bytes"], bytes.len() as u64, "{json}");
    assert_eq!(v["size"], bytes.len() as u64, "{json}");
    assert!(v["stopped"].is_null(), "{json}");
    let records = format!("records:         {}\n", v["records"]);
    assert!(info.contains(&records), "{records} not in {info}");
    for (k, n) in v["by_type"].as_object().unwrap() {
        let line = format!("  {k:<14} {n}");
        assert!(info.contains(&line), "{line} not in {info}");
    }
    assert!(info.contains(&format!(
        "dialect:         {}",
        v["dialect"].as_str().unwrap()
    )));
}

#[test]
fn dump_reads_a_fifo_as_the_file() {
    let trace = manifest_dir().join("example/build.ktrace");
    let bytes = std::fs::read(&trace).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("ktrace.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        crate::util::skip("mkfifo is not available");
        return;
    }
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("kt2sql"))
        .args(["dump", "-f"])
        .arg(&fifo)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut got = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut got).map(|_| got)
    });
    // Opening the write end waits for the reader to open the other.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&fifo)
        .unwrap()
        .write_all(&bytes)
        .unwrap();
    // A dump that opens the FIFO a second time would wait for ever.
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("dump of a FIFO did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    assert_eq!(reader.join().unwrap().unwrap(), dump(&trace, &[]));
}

/// A database piped in is refused as SQLite (what is in it cannot be
/// looked at again once read from the pipe).
#[test]
fn a_database_piped_in_is_named() {
    let trace = manifest_dir().join("example/build.ktrace");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e.db");
    kt2sql().arg(&trace).arg(&db).assert().success();
    let out = kt2sql()
        .args(["dump", "/dev/stdin"])
        .write_stdin(std::fs::read(&db).unwrap())
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(
        err.contains("/dev/stdin: an SQLite database, not a ktrace file"),
        "{err}"
    );
}
