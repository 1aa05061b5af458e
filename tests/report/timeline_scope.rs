//! `-p PID` on the timeline's file arrows: a subtree's arrows are the
//! whole build's arrows whose two commands are both in the subtree, even
//! when the latest write before a read of the subtree was another
//! process's (then that read has no arrow in scope).

use std::collections::BTreeSet;

use rusqlite::types::Value;
use rusqlite::Connection;

use super::composed;
use crate::util::COMPOSE_DIALECTS;
use kt2sql::report::{prepare, Cell};

/// The rows of canned query `timeline_flows`, scoped to `pid` or not,
/// without their id (a number in the order of the scope's arrows).
fn flows(conn: &Connection, pid: Option<i64>) -> BTreeSet<Vec<String>> {
    let pid = pid.map_or(Cell::Null, Cell::Int);
    let (mut stmt, _) = prepare(conn, "timeline_flows", &[("pid", pid)]).unwrap();
    let n = stmt.column_count();
    let mut rows = stmt.raw_query();
    let mut out = BTreeSet::new();
    while let Some(r) = rows.next().unwrap() {
        let row = (1..n).map(|i| format!("{:?}", r.get::<_, Value>(i).unwrap()));
        out.insert(row.collect());
    }
    out
}

/// `-p` flows of one composed trace, under every pid with a child, are
/// the whole build's flows inside the subtree; returns the flows listed
/// and those cut off (read inside, written outside).
fn check_scoped_flows(d: &str, seed: u64, extra: &[&str]) -> (usize, usize) {
    let (mut scoped, mut cut) = (0, 0);
    let im = composed(d, seed, extra);
    let ctx = format!("{d} seed {seed} {extra:?}");
    let conn = Connection::open(&im.db).unwrap();
    let all = flows(&conn, None);
    assert!(!all.is_empty(), "{ctx}: the build has flows");
    // Every pid with a child: the roots and each subtree below them.
    let pids: Vec<i64> = {
        let mut st = conn
            .prepare(
                "SELECT DISTINCT p.pid FROM process AS p
                 WHERE EXISTS (SELECT 1 FROM process AS c WHERE c.parent_id = p.process_id)
                 ORDER BY p.pid",
            )
            .unwrap();
        let rows = st.query_map([], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    for pid in pids {
        let member: BTreeSet<String> = {
            let mut st = conn
                .prepare("SELECT DISTINCT process_id FROM _scope WHERE root_pid = ?1")
                .unwrap();
            let rows = st
                .query_map([pid], |r| r.get::<_, Value>(0).map(|v| format!("{v:?}")))
                .unwrap();
            rows.map(Result::unwrap).collect()
        };
        // producer_process and consumer_process, the last two columns.
        let inside = |r: &Vec<String>| member.contains(&r[r.len() - 2]);
        let consumed = |r: &Vec<String>| member.contains(&r[r.len() - 1]);
        let want: BTreeSet<Vec<String>> = all
            .iter()
            .filter(|r| inside(r) && consumed(r))
            .cloned()
            .collect();
        cut += all.iter().filter(|r| consumed(r) && !inside(r)).count();
        let got = flows(&conn, Some(pid));
        assert_eq!(got, want, "{ctx} -p {pid}: flows");
        scoped += got.len();
    }
    (scoped, cut)
}

/// On the committed `--faithful --hazards` fixture of every dialect, which
/// needs no `../shared`.
#[test]
fn pid_scoped_flows_are_the_whole_builds_inside_the_subtree_on_the_committed_fixtures() {
    let (mut scoped, mut cut) = (0, 0);
    for d in COMPOSE_DIALECTS {
        let (s, c) = check_scoped_flows(d, 4, &["--faithful", "--hazards"]);
        (scoped, cut) = (scoped + s, cut + c);
    }
    assert!(scoped > 0, "no subtree had a flow");
    assert!(cut > 0, "no subtree read what a process outside it wrote");
}

#[test]
fn pid_scoped_flows_are_the_whole_builds_inside_the_subtree() {
    crate::require_shared!(python);
    let (mut scoped, mut cut) = (0, 0);
    for d in COMPOSE_DIALECTS {
        let (s, c) = check_scoped_flows(d, 11, &["--jobs", "6"]);
        (scoped, cut) = (scoped + s, cut + c);
    }
    assert!(scoped > 0, "no subtree had a flow");
    assert!(cut > 0, "no subtree read what a process outside it wrote");
}
