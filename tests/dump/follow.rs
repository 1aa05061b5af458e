//! `dump -l` on a trace written in steps: records appear as their bytes
//! arrive, an empty file or one holding only part of its first record is
//! waited for (as kdump -l does), and Ctrl-C (SIGINT) ends the dump
//! cleanly with the same text a dump of the finished file prints.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::dump;
use crate::util::{corpus, manifest_dir};

/// A running `kt2sql dump -l -f PATH` and what it has printed so far.
struct Following {
    child: Child,
    got: Arc<Mutex<Vec<u8>>>,
    reader: JoinHandle<()>,
    t0: Instant,
}

impl Following {
    fn start(path: &Path) -> Following {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("kt2sql"))
            .args(["dump", "-l", "-f"])
            .arg(path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let got = Arc::new(Mutex::new(Vec::new()));
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
        Following {
            child,
            got,
            reader,
            t0: Instant::now(),
        }
    }

    fn lines(&self) -> usize {
        self.got
            .lock()
            .unwrap()
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    fn wait_for_lines(&self, n: usize, what: &str) {
        while self.lines() < n {
            assert!(self.t0.elapsed() < Duration::from_secs(30), "{what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn still_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// SIGINT, then the exit status, everything printed and stderr.
    fn interrupt(mut self) -> (std::process::ExitStatus, String, String) {
        let killed = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let t = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "no exit after SIGINT"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        self.reader.join().unwrap();
        let got = String::from_utf8(self.got.lock().unwrap().clone()).unwrap();
        let mut err = String::new();
        let mut stderr = self.child.stderr.take().unwrap();
        stderr.read_to_string(&mut err).unwrap();
        (status, got, err)
    }
}

fn append(file: &mut File, bytes: &[u8]) {
    file.write_all(bytes).unwrap();
    file.flush().unwrap();
}

#[test]
fn follows_a_growing_file_until_interrupted() {
    let shared = crate::require_shared!();
    let bytes = std::fs::read(corpus(&shared, "freebsd14-amd64")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ktrace.out");
    let mut file = File::create(&path).unwrap();
    // The first part, enough to detect the dialect.
    let steps = [4096, 20_000, 40_000, bytes.len()];
    append(&mut file, &bytes[..steps[0]]);
    let mut dump_l = Following::start(&path);
    // The records of the first part are printed before the rest exists.
    dump_l.wait_for_lines(1, "nothing printed");
    let early = dump_l.lines();
    for w in steps.windows(2) {
        append(&mut file, &bytes[w[0]..w[1]]);
        std::thread::sleep(Duration::from_millis(300));
    }
    let expected = dump(&path, &[]);
    let total = expected.lines().count();
    assert!(
        early < total,
        "{early} of {total} lines before the rest was written"
    );
    dump_l.wait_for_lines(total, "not all records printed");
    assert!(dump_l.still_running(), "dump -l ended by itself");
    let (status, got, err) = dump_l.interrupt();
    assert!(status.success(), "{status:?}: {err}");
    assert_eq!(got, expected);
}

/// Started before ktrace has written anything, then with only part of the
/// first record there: `dump -l` waits (no error, no output) until the
/// dialect can be told, then follows.
#[test]
fn waits_for_an_empty_or_just_begun_file() {
    let bytes = std::fs::read(manifest_dir().join("example/build.ktrace")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ktrace.out");
    let mut file = File::create(&path).unwrap();
    let mut dump_l = Following::start(&path);
    std::thread::sleep(Duration::from_millis(400));
    assert!(dump_l.still_running(), "dump -l gave up on an empty file");
    // A partial header, then a header and part of its payload.
    for cut in [3, 40] {
        let had = std::fs::metadata(&path).unwrap().len() as usize;
        append(&mut file, &bytes[had..cut]);
        std::thread::sleep(Duration::from_millis(400));
        assert!(dump_l.still_running(), "dump -l gave up at {cut} bytes");
        assert_eq!(dump_l.lines(), 0);
    }
    append(&mut file, &bytes[40..]);
    let expected = dump(&path, &[]);
    dump_l.wait_for_lines(expected.lines().count(), "not all records printed");
    assert!(dump_l.still_running(), "dump -l ended by itself");
    let (status, got, err) = dump_l.interrupt();
    assert!(status.success(), "{status:?}: {err}");
    assert_eq!(got, expected);
}

/// Ctrl-C while still waiting for the first record: a clean exit, nothing
/// printed.
#[test]
fn an_interrupt_while_waiting_ends_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ktrace.out");
    File::create(&path).unwrap();
    let mut dump_l = Following::start(&path);
    std::thread::sleep(Duration::from_millis(400));
    assert!(dump_l.still_running(), "dump -l gave up on an empty file");
    let (status, got, err) = dump_l.interrupt();
    assert!(status.success(), "{status:?}: {err}");
    assert_eq!(got, "");
    assert_eq!(err, "");
}
