//! `kt2sql serve` in a real browser (headless Chromium): the database's
//! front page, a process's row page, a file's canned query and the
//! timeline render, and their text names the build's commands. The
//! screenshots are kept in `target/tmp/serve-screenshots/` to look at.

use std::path::PathBuf;
use std::process::Command;

use kt2sql::report::datasette::QUESTIONS;
use kt2sql::schema::queries;

use super::{build, have_datasette, on_path, urlencode, Server};

/// Chromium's program, or None (the test is then skipped, visibly;
/// failing under CI=true).
fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser"]
        .iter()
        .find_map(|n| on_path(n));
    if found.is_none() {
        crate::util::skip("chromium not installed (apt-get install chromium)");
    }
    found
}

/// Chromium headless on `url` with `what` (`--dump-dom` or
/// `--screenshot=FILE`): its stdout.
fn chrome(program: &PathBuf, what: &str, url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(program)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1280,900",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(what)
        .arg(url)
        .output()
        .unwrap();
    assert!(out.status.success(), "chromium {what} {url}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The DOM of `url` once rendered, and a screenshot of it as `name`.png
/// (checked to be a 1280 x 900 PNG).
fn open(program: &PathBuf, url: &str, name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&png);
    chrome(program, &format!("--screenshot={}", png.display()), url);
    let bytes = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{name}");
    let (w, h) = (
        u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
        u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
    );
    assert_eq!((w, h), (1280, 900), "{name}");
    eprintln!("screenshot: {}", png.display());
    chrome(program, "--dump-dom", url)
}

#[test]
fn the_browser_shows_the_build() {
    if !have_datasette() {
        return;
    }
    let Some(program) = chromium() else {
        return;
    };
    let b = build();
    let s = Server::start(&b.db, &[]);
    let base = s.url.trim_end_matches("/build").to_string();
    let commands = b.truth["build"]["commands"].as_array().unwrap();

    // The front page: the README's questions and every canned query.
    let front = open(&program, &s.url, "front");
    for (q, _) in QUESTIONS {
        let q = q.replace('&', "&amp;");
        assert!(front.contains(&q), "front page lacks {q:?}");
    }
    for q in queries() {
        assert!(
            front.contains(&format!("/build/{}\"", q.name)),
            "{}",
            q.name
        );
    }

    // The first command's process: its row page names it, and the rows
    // of its calls link to it by its name.
    let make = &commands[1];
    let (pid, comm) = (
        make["pid"].as_i64().unwrap(),
        make["comm"].as_str().unwrap(),
    );
    let conn = rusqlite::Connection::open(&b.db).unwrap();
    let process_id: i64 = conn
        .query_row(
            "SELECT process_id FROM process WHERE pid = ?1",
            [pid],
            |r| r.get(0),
        )
        .unwrap();
    let row = open(
        &program,
        &format!("{}/process/{process_id}", s.url),
        "process",
    );
    assert!(row.contains(comm), "process page lacks {comm}");
    assert!(
        row.contains("Links from other tables"),
        "no links on the row page"
    );
    let calls = open(
        &program,
        &format!("{}/call?process_id={process_id}&_size=5", s.url),
        "calls",
    );
    assert!(
        calls.contains(&format!("/build/process/{process_id}\">{comm}</a>")),
        "the calls' process_id is not labelled {comm}"
    );

    // A file's canned query: what obj/f2.o was made from names the
    // command that wrote it, as `kt2sql query deps` does.
    let file = r#"["/usr/src/build/obj/f2.o"]"#;
    let deps = open(
        &program,
        &format!("{}/deps?files={}", s.url, urlencode(file)),
        "deps",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_kt2sql"))
        .args(["query", "--format", "json", "-P"])
        .arg(format!("files={file}"))
        .arg(&b.db)
        .arg("deps")
        .output()
        .unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        for v in r.as_object().unwrap().values() {
            if let Some(text) = v.as_str() {
                let text = text
                    .replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;");
                assert!(deps.contains(&text), "deps page lacks {text:?}");
            }
        }
    }

    // The timeline: one row per command, each named.
    let timeline = open(&program, &format!("{base}/timeline"), "timeline");
    assert_eq!(
        timeline.matches("<g class=\"cmd\"").count(),
        commands.len(),
        "timeline rows"
    );
    for c in commands {
        let comm = c["comm"].as_str().unwrap();
        assert!(timeline.contains(comm), "timeline lacks {comm}");
    }
    let charts = open(&program, &format!("{base}/charts"), "charts");
    assert!(charts.contains("Calls per syscall") && charts.contains("Processes running"));
    open(&program, &format!("{base}/graph"), "graph");
}
