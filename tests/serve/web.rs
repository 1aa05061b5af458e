//! `kt2sql serve` through HTTP: every canned query's JSON page gives the
//! rows `kt2sql query DB NAME --format json` gives, with and without
//! parameters; nothing can be written; only the database and the
//! generated pages are served; nothing answers but loopback.

use std::net::{IpAddr, TcpStream, UdpSocket};
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
