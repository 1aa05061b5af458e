//! `kt2sql serve` through HTTP: every canned query's JSON page gives the
//! rows `kt2sql query DB NAME --format json` gives, with and without
//! parameters; nothing can be written; only the database and the
//! generated pages are served; nothing answers but loopback.

use std::net::{IpAddr, TcpListener, TcpStream, UdpSocket};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use kt2sql::schema::queries;

use super::{build, get, have_datasette, request, urlencode, Server};

/// `kt2sql query DB NAME -P k=v… --format json`, parsed.
fn query_rows(db: &std::path::Path, name: &str, params: &[(&str, String)]) -> Vec<Value> {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kt2sql"));
    c.arg("query").arg(db).arg(name).args(["--format", "json"]);
    for (k, v) in params {
        c.arg("-P").arg(format!("{k}={v}"));
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{name}: {out:?}");
    match serde_json::from_slice(&out.stdout).unwrap() {
        Value::Array(rows) => rows,
        v => panic!("{name}: not an array of rows: {v}"),
    }
}

/// Rows in the order of their JSON text.
fn sorted(rows: &[Value]) -> Vec<String> {
    let mut v: Vec<String> = rows.iter().map(Value::to_string).collect();
    v.sort();
    v
}

/// The values each test run gives a parameter (those not listed are left
/// empty, which is the default).
fn value(b: &super::Build, name: &str) -> Option<String> {
    let root = b.truth["build"]["commands"][0]["pid"].as_i64().unwrap();
    Some(match name {
        "trace" => "1".into(),
        "pid" => root.to_string(),
        "limit" => "5".into(),
        "files" => r#"["/usr/src/build/obj/f2.o"]"#.into(),
        "under" => "/usr/src/build".into(),
        _ => return None,
    })
}

/// Every canned query answers through Datasette with the rows of
/// `kt2sql query`: with no parameter (each its default) and with the
/// trace, the pid, a limit, a file and a directory given.
#[test]
fn every_canned_query_gives_the_rows_of_kt2sql_query() {
    if !have_datasette() {
        return;
    }
    let b = build();
    let s = Server::start(&b.db, &[]);
    let mut compared = 0;
    for q in queries() {
        let all: Vec<(&str, String)> = q
            .params
            .iter()
            .filter_map(|(k, _)| value(&b, k).map(|v| (k.as_str(), v)))
            .collect();
        let required: Vec<(&str, String)> = all
            .iter()
            .filter(|(k, _)| q.required().any(|(r, _)| r == k))
            .cloned()
            .collect();
        for params in [required, all] {
            let want = query_rows(&b.db, q.name, &params);
            let mut path = format!("/build/{}.json?_shape=objects", q.name);
            for (k, v) in &params {
                path.push_str(&format!("&{k}={}", urlencode(v)));
            }
            let (status, body) = get(s.port, &path);
            assert_eq!(status, 200, "{path}: {body}\n{}", s.log());
            let got: Value = serde_json::from_str(&body).unwrap();
            let rows = got["rows"].as_array().unwrap();
            if got["truncated"] == Value::Bool(true) {
                // Datasette shows at most 1000 rows of a canned query.
                assert!(want.len() > rows.len(), "{path}");
                assert_eq!(rows[..], want[..rows.len()], "{path}");
            } else {
                // The same rows; ties of a query's ORDER BY may come in
                // another order from Datasette's SQLite (Python's).
                assert_eq!(sorted(rows), sorted(&want), "{path}");
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 2 * queries().len());
}

/// A query that runs too long is stopped: SQL typed into the form after
/// `--time-limit` (even when the request asks for more), a canned query
/// after `--query-time-limit`. The same SQL as lint's canned query, typed
/// into the form, is stopped at 1 ms, while the canned query finishes
/// with the rows of `kt2sql query`.
#[test]
fn a_slow_query_is_stopped_but_the_canned_queries_finish() {
    if !have_datasette() {
        return;
    }
    let b = build();
    let s = Server::start(
        &b.db,
        &["--time-limit", "1", "--query-time-limit", "120000"],
    );
    let slow = urlencode(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000000) \
         SELECT count(*) FROM n",
    );
    for extra in ["", "&_timelimit=600000"] {
        let path = format!("/build.json?sql={slow}{extra}");
        let (status, body) = get(s.port, &path);
        assert_eq!(status, 400, "{path}: {body}");
        assert!(body.contains("SQL query took too long"), "{body}");
    }
    // Quick SQL typed into the form runs.
    let (status, body) = get(s.port, "/build.json?sql=select+1+as+one&_shape=array");
    assert_eq!((status, body.trim()), (200, r#"[{"one": 1}]"#));
    let lint = kt2sql::schema::query("lint").unwrap();
    let sql = urlencode(&kt2sql::report::datasette::canned_sql(&lint));
    let typed = format!("/build.json?sql={sql}");
    let (status, body) = get(s.port, &typed);
    assert_eq!(status, 400, "lint's SQL typed in ran within 1 ms: {body}");
    assert!(body.contains("SQL query took too long"), "{body}");
    // A canned query is not stopped at 1 ms, nor at a shorter limit than
    // its own that the request asks for.
    let want = query_rows(&b.db, "lint", &[]);
    assert!(!want.is_empty());
    for path in [
        "/build/lint.json?_shape=array",
        "/build/lint.json?_shape=array&_timelimit=100000",
    ] {
        let (status, body) = get(s.port, path);
        assert_eq!(status, 200, "{path}: {body}\n{}", s.log());
        let got: Vec<Value> = serde_json::from_str(&body).unwrap();
        assert_eq!(sorted(&got), sorted(&want), "{path}");
    }
    // A request may ask a canned query for a shorter limit.
    let (status, body) = get(s.port, "/build/lint.json?_timelimit=1");
    assert_eq!(status, 400, "{body}");
}

/// No write goes through: an INSERT in the SQL form, a POST to the
/// database and to a canned query; the file is unchanged. Only the
/// database and the generated pictures are served, and the server
/// answers on loopback only.
#[test]
fn nothing_can_be_written_and_only_loopback_answers() {
    if !have_datasette() {
        return;
    }
    let b = build();
    let before = std::fs::read(&b.db).unwrap();
    let s = Server::start(&b.db, &[]);
    let insert = urlencode("INSERT INTO meta (key, value) VALUES ('x', 'y')");
    let (status, body) = get(s.port, &format!("/build.json?sql={insert}"));
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("Statement must be a SELECT"), "{body}");
    // Datasette refuses a POST to the database (405) and fails one to a
    // canned query that does not write (500); neither writes.
    for path in ["/build", "/build/syscall_top", "/build/meta"] {
        let (status, _) = request(s.port, "POST", path, &format!("sql={insert}"));
        assert!(!(200..400).contains(&status), "POST {path}: {status}");
    }
    let (_, rows) = get(
        s.port,
        "/build.json?sql=select+count(*)+as+n+from+meta+where+key='x'&_shape=array",
    );
    assert_eq!(rows.trim(), r#"[{"n": 0}]"#);
    // The pictures, and nothing beside them.
    assert_eq!(get(s.port, "/kt2sql-pictures/timeline.svg").0, 200);
    for path in [
        "/kt2sql-pictures/../metadata.json",
        "/kt2sql-pictures/%2e%2e/metadata.json",
        "/kt2sql-pictures/..%2fmetadata.json",
    ] {
        let (status, body) = get(s.port, path);
        assert!(!body.contains("\"databases\""), "{path}: {status}");
    }
    assert_eq!(get(s.port, "/timeline").0, 200);
    // Another address of this machine gets no answer.
    if let Some(ip) = outside_address() {
        let reached = TcpStream::connect_timeout(&(ip, s.port).into(), Duration::from_secs(2));
        assert!(reached.is_err(), "{ip}:{} answered", s.port);
    } else {
        crate::util::skip("no non-loopback address to try");
    }
    drop(s);
    assert!(
        std::fs::read(&b.db).unwrap() == before,
        "the database changed"
    );
}

/// An address of this machine that is not loopback (the one it would
/// send from; a UDP connect sends nothing).
fn outside_address() -> Option<IpAddr> {
    let u = UdpSocket::bind("0.0.0.0:0").ok()?;
    u.connect("192.0.2.1:9").ok()?;
    let ip = u.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// `--write-config DIR` used as a user would: the configuration written,
/// Datasette started with the command the docs show (`sh DIR/serve.sh`),
/// and its pages answer: the front page with the questions, a canned
/// query with the rows of `kt2sql query`, the pictures, and the time
/// limits of the options given.
#[test]
fn write_config_then_run_datasette_yourself() {
    if !have_datasette() {
        return;
    }
    let b = build();
    let dir = b.dir.path().join("site");
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = Command::new(env!("CARGO_BIN_EXE_kt2sql"))
        .arg("serve")
        .arg(&b.db)
        .arg("--write-config")
        .arg(&dir)
        .args(["--port", &port.to_string(), "--time-limit", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    let run = format!("sh {}/serve.sh", dir.display());
    assert!(said.contains(&run), "{said}");
    let log = b.dir.path().join("site.log");
    let child = Command::new("sh")
        .arg(dir.join("serve.sh"))
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let _stop = Stop(child);
    let start = std::time::Instant::now();
    while get(port, "/-/versions.json").0 != 200 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "datasette did not answer: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    let (status, front) = get(port, "/build");
    assert_eq!(status, 200);
    for (q, _) in kt2sql::report::datasette::QUESTIONS {
        assert!(front.contains(&kt2sql::report::datasette::escape(q)), "{q}");
    }
    let (status, body) = get(port, "/build/syscall_top.json?_shape=array");
    assert_eq!(status, 200, "{body}");
    let got: Vec<Value> = serde_json::from_str(&body).unwrap();
    assert_eq!(sorted(&got), sorted(&query_rows(&b.db, "syscall_top", &[])));
    let commands = b.truth["build"]["commands"].as_array().unwrap().len();
    let (status, timeline) = get(port, "/timeline");
    assert_eq!(status, 200);
    assert_eq!(timeline.matches("<g class=\"cmd\"").count(), commands);
    assert_eq!(get(port, "/charts").0, 200);
    assert_eq!(get(port, "/kt2sql-pictures/syscalls.svg").0, 200);
    // The plugin of the configuration holds SQL typed in to --time-limit.
    let (status, _) = get(port, &format!("/build.json?sql={}", urlencode(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000000) SELECT count(*) FROM n",
    )));
    assert_eq!(status, 400);
}

/// A child process killed when dropped.
struct Stop(std::process::Child);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
