//! Counts that mean one thing, on the committed `--faithful` fixtures of
//! every dialect against the composer's truth: a child's return from fork
//! (or a new thread's from its creating call) is a row of `call` but no
//! call made, so `syscall_top` (the histogram of `stats`), `call_made` and
//! `traces.calls` count the CALL records the kernel wrote (and the
//! tracer's own ktrace, whose CALL came before tracing began); and
//! `slow_commands`' own time is the command's span less the union of its
//! children's lifetimes, worked out here from the truth's commands alone.

use std::collections::BTreeMap;

use serde_json::Value;

use super::composed;
use super::timeline::commands;
use crate::util::COMPOSE_DIALECTS;
use kt2sql::report::{self, Cell};

fn int(c: &Cell) -> i64 {
    match c {
        Cell::Int(i) => *i,
        other => panic!("not an integer: {other:?}"),
    }
}

fn text(c: &Cell) -> String {
    match c {
        Cell::Text(t) => String::from_utf8_lossy(t).into_owned(),
        other => panic!("not text: {other:?}"),
    }
}

/// The truth's calls made per syscall: its CALL records, and the ktrace
/// RETs of the tracer (made before its CALL could be recorded).
fn calls_made(t: &Value) -> BTreeMap<String, i64> {
    let s = &t["oracle"]["syscalls"];
    let n = |k: &str, name: &str| s[k][name].as_i64().unwrap_or(0);
    let mut want: BTreeMap<String, i64> = s["calls"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_i64().unwrap()))
        .collect();
    let uncalled = n("rets", "ktrace") - n("calls", "ktrace");
    if uncalled > 0 {
        *want.entry("ktrace".into()).or_default() += uncalled;
    }
    want
}

#[test]
fn a_fork_counts_once_in_every_count_of_calls() {
    for d in COMPOSE_DIALECTS {
        let im = composed(d, 4, &["--faithful"]);
        let (t, ctx) = (&im.c.truth, format!("{d} seed 4 --faithful"));
        let want = calls_made(t);
        let conn = report::open(&im.db).unwrap();
        let top = report::run(&conn, "syscall_top", &[]).unwrap();
        let (name, calls) = (top.col("syscall"), top.col("calls"));
        let got: BTreeMap<String, i64> = top
            .rows
            .iter()
            .map(|r| (text(&r[name]), int(&r[calls])))
            .collect();
        assert_eq!(got, want, "{ctx}: syscall_top");
        let total: i64 = want.values().sum();
        let q = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(
            q("SELECT count(*) FROM call_made"),
            total,
            "{ctx}: call_made"
        );
        let traces = report::run(&conn, "traces", &[]).unwrap();
        assert_eq!(int(&traces.rows[0][traces.col("calls")]), total, "{ctx}");
        // The rows left out are the children's first RETs: one per forked
        // process whose first records the trace holds, at least.
        let children = q("SELECT count(*) FROM call WHERE unpaired = 'child return'");
        assert_eq!(
            q("SELECT count(*) FROM call") - children,
            total,
            "{ctx}: call less the children's returns"
        );
        let forked = q("SELECT count(*) FROM process WHERE fork_call_id IS NOT NULL");
        assert!(
            children > 0 && children >= forked / 2,
            "{ctx}: {children} child returns, {forked} forks"
        );
        assert_eq!(
            q("SELECT count(*) FROM call WHERE unpaired = 'child return'
               AND (ts IS NOT NULL OR retval IS NULL OR success IS NOT 1)"),
            0,
            "{ctx}: a child's return is a RET alone that succeeded"
        );
        super::summaries::check(&conn, &ctx);
    }
}

/// Length of the union of `spans`, each cut to `[lo, hi]`.
fn union(mut spans: Vec<(i64, i64)>, lo: i64, hi: i64) -> i64 {
    spans.sort();
    let (mut total, mut reach) = (0, lo);
    for (s, e) in spans {
        let (s, e) = (s.max(reach), e.min(hi));
        if e > s {
            total += e - s;
            reach = e;
        }
    }
    total
}

#[test]
fn own_time_is_the_span_less_the_childrens_lifetimes() {
    for d in COMPOSE_DIALECTS {
        let im = composed(d, 4, &["--faithful"]);
        let (t, ctx) = (&im.c.truth, format!("{d} seed 4 --faithful"));
        // Each lifetime's span and the command that forked it.
        let mut lives: BTreeMap<&str, (i64, i64, Option<&str>)> = BTreeMap::new();
        for c in commands(t) {
            let (s, e) = (
                c["start_ns"].as_i64().unwrap(),
                c["end_ns"].as_i64().unwrap(),
            );
            let l = lives
                .entry(c["key"].as_str().unwrap())
                .or_insert((s, e, c["parent"].as_str()));
            l.0 = l.0.min(s);
            l.1 = l.1.max(e);
        }
        let mut want = BTreeMap::new();
        for c in commands(t) {
            let (s, e) = (
                c["start_ns"].as_i64().unwrap(),
                c["end_ns"].as_i64().unwrap(),
            );
            let id = c["id"].as_str().unwrap();
            let kids = lives
                .values()
                .filter(|l| l.2 == Some(id))
                .map(|l| (l.0, l.1))
                .collect();
            let key = (c["pid"].as_i64().unwrap(), s);
            want.insert(key, (e - s - union(kids, s, e), e - s));
        }
        let conn = report::open(&im.db).unwrap();
        let slow = report::run(&conn, "slow_commands", &[("limit", Cell::Int(1 << 40))]).unwrap();
        let col = |n: &str| slow.col(n);
        let got: BTreeMap<(i64, i64), (i64, i64)> = slow
            .rows
            .iter()
            .map(|r| {
                let own = int(&r[col("dur")]);
                assert_eq!(
                    own + int(&r[col("children")]),
                    int(&r[col("wall")]),
                    "{ctx}"
                );
                (
                    (int(&r[col("pid")]), int(&r[col("start_ts")])),
                    (own, int(&r[col("wall")])),
                )
            })
            .collect();
        assert_eq!(got, want, "{ctx}: (own, wall) by (pid, start)");
        assert!(
            want.values().any(|(own, wall)| own < wall),
            "{ctx}: some command waited for its children"
        );
        let owns: Vec<i64> = slow.rows.iter().map(|r| int(&r[col("dur")])).collect();
        assert!(owns.windows(2).all(|w| w[0] >= w[1]), "{ctx}: by own time");
    }
}
