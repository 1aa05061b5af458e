//! The build views (issue #15) against the truth's `build` section
//! (`build_visible` where records were lost): the commands, in every
//! dialect, with and without `--faithful --hazards`.

use std::collections::{BTreeMap, BTreeSet};

use rusqlite::Connection;
use serde_json::Value;

use super::composed;
use kt2sql::report;

/// command_id -> the truth's `"<pid>.<n>#<image>"`: n counts the lifetimes
/// of the pid in the trace (process ids are assigned in lifetime order).
fn command_ids(conn: &Connection) -> BTreeMap<i64, String> {
    let mut st = conn
        .prepare(
            "SELECT c.command_id, c.pid || '.' ||
                    (SELECT count(*) FROM process AS q
                     WHERE q.trace_id = c.trace_id AND q.pid = c.pid
                       AND q.process_id <= c.process_id) || '#' || c.image
             FROM command AS c",
        )
        .unwrap();
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

/// Rows of `sql` as strings, one line each, sorted.
fn lines(conn: &Connection, sql: &str, ids: &BTreeMap<i64, String>) -> BTreeSet<String> {
    let mut st = conn.prepare(sql).unwrap();
    let names: Vec<String> = st.column_names().iter().map(|s| s.to_string()).collect();
    let rows = st
        .query_map([], |r| {
            let mut out = Vec::new();
            for (i, name) in names.iter().enumerate() {
                let v: rusqlite::types::Value = r.get(i)?;
                let text = match v {
                    rusqlite::types::Value::Null => "null".to_string(),
                    rusqlite::types::Value::Integer(x) if name.ends_with("_id") => {
                        ids.get(&x).cloned().unwrap_or_else(|| format!("?{x}"))
                    }
                    rusqlite::types::Value::Integer(x) => x.to_string(),
                    rusqlite::types::Value::Text(s) => s,
                    other => format!("{other:?}"),
                };
                out.push(text);
            }
            Ok(out.join(" "))
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

fn s(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn truth_lines(list: &Value, f: impl Fn(&Value) -> String) -> BTreeSet<String> {
    list.as_array().unwrap().iter().map(f).collect()
}

/// The lines that differ, for a readable failure.
fn assert_same(got: &BTreeSet<String>, want: &BTreeSet<String>, what: &str) {
    if got != want {
        let extra: Vec<_> = got.difference(want).take(10).collect();
        let missing: Vec<_> = want.difference(got).take(10).collect();
        panic!("{what}: extra {extra:#?}\nmissing {missing:#?}");
    }
}

fn check_build(dialect: &str, seed: u64, extra: &[&str]) {
    let im = composed(dialect, seed, extra);
    let ctx = format!("{dialect} seed {seed} {extra:?}");
    let t = &im.c.truth;
    let b = t.get("build_visible").unwrap_or(&t["build"]);
    let conn = report::open(&im.db).unwrap();
    let ids = command_ids(&conn);

    let got = lines(
        &conn,
        "SELECT command_id, comm, COALESCE(path, 'null'), start_ts, end_ts, cwd, parent_id
         FROM command",
        &ids,
    );
    let want = truth_lines(&b["commands"], |c| {
        let f = ["id", "comm", "path", "start_ns", "end_ns", "cwd", "parent"];
        f.iter().map(|k| s(&c[k])).collect::<Vec<_>>().join(" ")
    });
    assert_same(&got, &want, &format!("{ctx}: commands"));
}

#[test]
fn build_views_match_truth_in_every_dialect() {
    crate::require_shared!(python);
    for d in crate::util::COMPOSE_DIALECTS {
        check_build(d, 2, &[]);
        check_build(d, 7, &["--faithful", "--hazards"]);
    }
}
