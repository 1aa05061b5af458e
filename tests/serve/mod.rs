//! `kt2sql serve` (issue 37): the Datasette configuration generated from
//! the schema's comments and the queries' headers, every canned query
//! answering through the web with the rows of `kt2sql query`, the pages
//! in a real browser (headless Chromium, screenshots kept under
//! `target/tmp/serve-screenshots/`), nothing written through the web, and
//! loopback only. Without datasette or chromium the tests that need them
//! skip visibly (and fail under CI=true); `.ci/run` installs both.

mod browser;
mod config;
mod follow;
mod web;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::fixtures;

/// The composed build every test serves: openbsd-amd64, seed 4, faithful,
/// with hazards (a make -j4 of 47 commands, argv recorded).
pub struct Build {
    pub db: PathBuf,
    pub truth: Value,
    pub dir: tempfile::TempDir,
}

/// The committed fixture imported into a fresh database.
pub fn build() -> Build {
    let f = fixtures::committed("openbsd-amd64", 4, &["--faithful", "--hazards"]);
    let dir = tempfile::tempdir().unwrap();
    let (trace, truth) = (dir.path().join("b.ktrace"), dir.path().join("b.json"));
    f.unpack(&trace, &truth);
    let truth: Value = serde_json::from_slice(&std::fs::read(&truth).unwrap()).unwrap();
    let cwd = truth["start_cwd"].as_str().unwrap().to_string();
    let db = crate::report::import_into(dir.path(), "build.db", &[trace], Some(&cwd));
    Build { db, truth, dir }
}

/// The program `name` on PATH.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Whether datasette is installed; if not, the test is skipped (visibly;
/// failing under CI=true).
pub fn have_datasette() -> bool {
    let ok = on_path("datasette").is_some();
    if !ok {
        crate::util::skip("datasette not installed (python3 -m pip install 'datasette>=0.65,<1')");
    }
    ok
}

/// A running `kt2sql serve`, stopped (SIGTERM: kt2sql stops datasette)
/// when dropped.
pub struct Server {
    child: Child,
    /// The URL kt2sql printed: `http://127.0.0.1:PORT/build`.
    pub url: String,
    pub port: u16,
    log: PathBuf,
}

impl Server {
    /// `kt2sql serve DB` with `extra` arguments, once it answers.
    pub fn start(db: &Path, extra: &[&str]) -> Server {
        let log = db.with_extension("serve.log");
        let mut child = Command::new(env!("CARGO_BIN_EXE_kt2sql"))
            .arg("serve")
            .arg(db)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut url = String::new();
        out.read_line(&mut url).unwrap();
        // Datasette's own output goes to the same pipe: keep draining it.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        let url = url.trim().to_string();
        assert!(url.starts_with("http://127.0.0.1:"), "printed {url:?}");
        let port: u16 = url["http://127.0.0.1:".len()..]
            .split('/')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let s = Server {
            child,
            url,
            port,
            log,
        };
        let start = Instant::now();
        while get(s.port, "/-/versions.json").0 != 200 {
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "datasette did not answer in 2 minutes: {}",
                s.log()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        s
    }

    /// What kt2sql and datasette said on stderr.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
    }
}

/// `GET path` on 127.0.0.1:`port`: (status, body); status 0 when nothing
/// answers.
pub fn get(port: u16, path: &str) -> (u16, String) {
    request(port, "GET", path, "")
}

/// One HTTP/1.0 request (the connection closes after the answer, so the
/// body is all that follows the head).
pub fn request(port: u16, method: &str, path: &str, form: &str) -> (u16, String) {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return (0, String::new());
    };
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let body = if method == "POST" {
        format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
            form.len()
        )
    } else {
        "\r\n".to_string()
    };
    let head = format!("{method} {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n{body}");
    if s.write_all(head.as_bytes()).is_err() {
        return (0, String::new());
    }
    let mut text = String::new();
    if s.read_to_string(&mut text).is_err() {
        return (0, String::new());
    }
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body.to_string())
}

/// `s` for a URL's query string.
pub fn urlencode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
