//! The critical path's two statements give the same rows, cell for cell:
//! the Rust walk the binary runs (`timeline`, `stats`:
//! `timeline::critical::path_rows`) and `queries/critical_path.sql` (`query
//! critical_path`, the `sqlite3` shell), for every trace of the example,
//! the corpus and composed builds with file flows, whole and per pid.

use std::collections::BTreeSet;
use std::path::Path;

use kt2sql::report::timeline::{self, critical};
use kt2sql::report::{self, opt_int, Cell, Scope};

use super::{composed, import_into};
use crate::util::{corpus, manifest_dir, COMPOSE_DIALECTS, CORPUS};

/// Check every trace of `db`, without a pid and with pids that have a
/// child (at most 12, spread over them); returns how many steps were
/// compared.
fn check(db: &Path, ctx: &str) -> usize {
    let conn = report::open(db).unwrap();
    let mut st = conn
        .prepare(
            "SELECT DISTINCT p.pid FROM process AS p \
             WHERE EXISTS (SELECT 1 FROM process AS c WHERE c.parent_id = p.process_id) \
             ORDER BY 1",
        )
        .unwrap();
    let parents: Vec<i64> = st
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let every = parents.len().div_ceil(12).max(1);
    let picked = parents.into_iter().step_by(every).map(Some);
    let scopes = std::iter::once(None).chain(picked);
    let mut compared = 0;
    for pid in scopes {
        let scope = Scope { trace: None, pid };
        let opts = timeline::Options {
            scope,
            ..Default::default()
        };
        let flows = timeline::flows::load(&conn, &opts).unwrap();
        let traces = critical::traces(&conn, scope).unwrap();
        // The scope's traces and origin as the probes find them, against
        // those of its lifetimes (timeline_lifetimes.sql).
        let params = [("trace", Cell::Null), ("pid", opt_int(pid))];
        let lives = report::run(&conn, "timeline_lifetimes", &params).unwrap();
        let cell = |row: &[Cell], name: &str| {
            let i = lives.columns.iter().position(|c| c == name).unwrap();
            match row[i] {
                Cell::Int(v) => v,
                ref c => panic!("{ctx}: {name} {c:?}"),
            }
        };
        let of_lives: BTreeSet<i64> = lives.rows.iter().map(|r| cell(r, "trace_id")).collect();
        assert_eq!(
            traces,
            of_lives.into_iter().collect::<Vec<_>>(),
            "{ctx}: traces"
        );
        let first = lives.rows.iter().map(|r| cell(r, "first_ts")).min();
        let origin = critical::origin(&conn, scope).unwrap();
        assert_eq!(origin, first.unwrap_or(0), "{ctx}: origin, pid {pid:?}");
        for trace in traces {
            let deps = critical::Deps::of(&flows);
            let walked = critical::critical_path(&conn, scope, &[trace], &deps).unwrap();
            let rust = critical::path_rows(&walked);
            let params = [("trace", Cell::Int(trace)), ("pid", opt_int(pid))];
            let sql = report::run(&conn, "critical_path", &params).unwrap();
            assert_eq!(rust, sql, "{ctx}: trace {trace} pid {pid:?}");
            compared += sql.rows.len();
            let ctx = format!("{ctx}: trace {trace} pid {pid:?}");
            conn.in_temp(|c| {
                check_path(c, scope, &[trace], &deps, &walked, &ctx);
                Ok(())
            })
            .unwrap();
        }
        // Every trace at once, as the timeline walks them.
        let deps = critical::Deps::of(&flows);
        let all = critical::critical_path(&conn, scope, &traces_of(&conn, scope), &deps).unwrap();
        conn.in_temp(|c| {
            check_path(c, scope, &traces_of(c, scope), &deps, &all, ctx);
            Ok(())
        })
        .unwrap();
    }
    compared
}

fn traces_of(conn: &rusqlite::Connection, scope: Scope) -> Vec<i64> {
    critical::traces(conn, scope).unwrap()
}

/// The path kept in its temporary table (`timeline::path::Path`) reads
/// back as the walk's steps `walked`: in order and numbered, summed, the
/// longest as `stats` picks them, and by command.
fn check_path(
    conn: &rusqlite::Connection,
    scope: Scope,
    traces: &[i64],
    deps: &critical::Deps,
    walked: &[timeline::Step],
    ctx: &str,
) {
    let path = timeline::path::Path::walk(conn, scope, traces, deps).unwrap();
    assert_eq!(path.len(), walked.len() as i64, "{ctx}: len");
    let mut read = Vec::new();
    path.each(|n, s| {
        read.push((n, s));
        Ok(())
    })
    .unwrap();
    let numbered: Vec<(i64, timeline::Step)> = (1..).zip(walked.iter().cloned()).collect();
    assert_eq!(read, numbered, "{ctx}: steps");
    let own = |s: &timeline::Step| s.end_ts - s.start_ts;
    let totals = (
        walked.iter().map(own).sum::<i64>(),
        walked.iter().map(|s| s.wait).sum::<i64>(),
    );
    assert_eq!(path.totals().unwrap(), totals, "{ctx}: totals");
    for keep in [0, 1, 3] {
        // The keep longest by own time, the earlier first on a tie, and
        // the first and the last, in path order.
        let mut order: Vec<usize> = (0..walked.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(own(&walked[i])), i));
        let mut shown: Vec<usize> = order.into_iter().take(keep).collect();
        if !walked.is_empty() {
            shown.extend([0, walked.len() - 1]);
        }
        shown.sort_unstable();
        shown.dedup();
        let want: Vec<_> = shown.iter().map(|&i| numbered[i].clone()).collect();
        assert_eq!(path.longest(keep).unwrap(), want, "{ctx}: longest {keep}");
    }
    let mut commands = path.commands().unwrap();
    for s in walked {
        let want: i64 = walked
            .iter()
            .filter(|w| w.exec_id == s.exec_id)
            .map(own)
            .sum();
        assert_eq!(commands.own(s.exec_id).unwrap(), Some(want), "{ctx}: own");
    }
    assert_eq!(commands.own(-1).unwrap(), None, "{ctx}: off the path");
}

/// On the example and on the committed `--faithful` builds with hazards
/// of every dialect.
#[test]
fn the_walk_gives_critical_path_sql_rows() {
    let dir = tempfile::tempdir().unwrap();
    let example = manifest_dir().join("example/build.ktrace");
    let db = import_into(dir.path(), "ex.db", &[example], Some("/usr/src/proj"));
    assert!(check(&db, "example") > 0, "example: no steps");
    let mut files = 0;
    for d in COMPOSE_DIALECTS {
        let faithful = ["--faithful", "--hazards"];
        crate::util::fixtures::committed(d, 4, &faithful);
        let im = composed(d, 4, &faithful);
        let ctx = format!("{d} seed 4");
        assert!(check(&im.db, &ctx) > 0, "{ctx}: no steps");
        let conn = report::open(&im.db).unwrap();
        files += conn
            .query_row("SELECT count(*) FROM build_flow", [], |r| {
                r.get::<_, i64>(0)
            })
            .unwrap();
    }
    assert!(files > 0, "no composed build had a file flow");
}

/// On the real traces of the development corpus.
#[test]
fn the_walk_gives_critical_path_sql_rows_on_the_corpus() {
    let shared = crate::require_shared!();
    let dir = tempfile::tempdir().unwrap();
    for (name, _, _) in CORPUS {
        let db = import_into(
            dir.path(),
            &format!("{name}.db"),
            &[corpus(&shared, name)],
            None,
        );
        check(&db, name);
    }
}
