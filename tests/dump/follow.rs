//! `dump -l` on a trace written in steps by a thread: records appear as
//! their bytes arrive, and Ctrl-C (SIGINT) ends the dump cleanly with the
//! same text a dump of the finished file prints.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::dump;
use crate::util::corpus;

#[test]
fn follows_a_growing_file_until_interrupted() {
    let shared = crate::require_shared!();
    let bytes = std::fs::read(corpus(&shared, "freebsd14-amd64")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ktrace.out");
    let mut file = std::fs::File::create(&path).unwrap();
    // The first part, enough to detect the dialect.
    let steps = [4096, 20_000, 40_000, bytes.len()];
    file.write_all(&bytes[..steps[0]]).unwrap();
    file.flush().unwrap();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("kt2sql"))
        .args(["dump", "-l", "-f"])
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdout = child.stdout.take().unwrap();
    let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = got.clone();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let t0 = Instant::now();
    let lines =
        |g: &std::sync::Mutex<Vec<u8>>| g.lock().unwrap().iter().filter(|&&b| b == b'\n').count();
    // The records of the first part are printed before the rest exists.
    while lines(&got) == 0 {
        assert!(t0.elapsed() < Duration::from_secs(20), "nothing printed");
        std::thread::sleep(Duration::from_millis(50));
    }
    let early = lines(&got);
    for w in steps.windows(2) {
        file.write_all(&bytes[w[0]..w[1]]).unwrap();
        file.flush().unwrap();
        std::thread::sleep(Duration::from_millis(300));
    }
    let expected = dump(&path, &[]);
    let total = expected.lines().count();
    assert!(
        early < total,
        "{early} of {total} lines before the rest was written"
    );
    while lines(&got) < total {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "not all records printed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "dump -l ended by itself"
    );
    let killed = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "no exit after SIGINT"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    reader.join().unwrap();
    let got = String::from_utf8(got.lock().unwrap().clone()).unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{status:?}: {err}");
    assert_eq!(got, expected);
}
