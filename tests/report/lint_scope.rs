//! `lint -p` through the hazard rules over the subtree's paths
//! (`report::lint_scope`): the same rows as `queries/lint.sql` over the
//! view itself for every pid in every dialect, and a cost in proportion
//! to the lookups of the paths the subtree looked up (SQLite's step
//! counter, no clock) on a build whose subtrees look up few of them.

use rusqlite::{Connection, StatementStatus};

use super::composed;
use kt2sql::report::{self, lint_scope, Cell};

/// `queries/lint.sql` run to its end on `conn` with `pid` (and --allow
/// /usr/src/build when `allow`): its rows and SQLite's steps.
fn lint(conn: &Connection, pid: Option<i64>, allow: bool) -> (Vec<Vec<Cell>>, u64) {
    let mut params = vec![("pid", pid.map_or(Cell::Null, Cell::Int))];
    if allow {
        params.push(("allow", Cell::Text(br#"["/usr/src/build"]"#.to_vec())));
    }
    let (mut stmt, _) = report::prepare(conn, "lint", &params).unwrap();
    let n = stmt.column_count();
    let mut rows = stmt.raw_query();
    let mut out = Vec::new();
    while let Some(r) = rows.next().unwrap() {
        let row = (0..n).map(|i| Cell::from(r.get_ref(i).unwrap()));
        out.push(row.collect());
    }
    drop(rows);
    (out, stmt.get_status(StatementStatus::VmStep) as u64)
}

/// `lint -p pid` as the command runs it: the rules over the subtree's
/// paths, then the query; its rows and the steps of both.
fn scoped(conn: &Connection, pid: i64, allow: bool) -> (Vec<Vec<Cell>>, u64) {
    let setup = lint_scope::scope_hazards(conn, pid, None).unwrap();
    let (rows, steps) = lint(conn, Some(pid), allow);
    lint_scope::unscope_hazards(conn).unwrap();
    (rows, setup + steps)
}

/// The pids of `conn`'s processes.
fn pids(conn: &Connection, sql: &str) -> Vec<i64> {
    let mut st = conn.prepare(sql).unwrap();
    let rows = st.query_map([], |r| r.get(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

#[test]
fn lint_p_gives_the_rows_of_the_view_for_every_pid_in_every_dialect() {
    for d in crate::util::COMPOSE_DIALECTS {
        let im = composed(d, 4, &["--faithful", "--hazards"]);
        let conn = Connection::open(&im.db).unwrap();
        let mut hazards = 0;
        for pid in pids(&conn, "SELECT DISTINCT pid FROM process ORDER BY pid") {
            // The view itself (no scoping), then through the subtree's paths.
            let (want, _) = lint(&conn, Some(pid), true);
            let (got, _) = scoped(&conn, pid, true);
            assert_eq!(got, want, "{d}: lint -p {pid}");
            hazards += want.len();
        }
        assert!(hazards > 0, "{d}: some pid is in a hazard");
        // Dropped again: the connection reads the view.
        let n: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_temp_schema", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 0, "{d}: temporary objects left behind");
    }
}

/// On one build of 200 processes (no repeated block: each job writes
/// paths of its own), `lint -p` of each subtree costs at most twice
/// what a subtree that looks up no changed path costs (the statements
/// themselves) plus its share of the whole `lint`, its share being the
/// lookups of the changed paths it looked up among the lookups of every
/// changed path; a subtree looking up a small part of them costs a small
/// part of the whole (before, every `lint -p` read the whole build's
/// hazards), and the root about what `lint` costs.
#[test]
fn lint_p_costs_in_proportion_to_the_lookups_of_the_subtrees_paths() {
    crate::require_shared!(python);
    let im = composed(
        "openbsd-amd64",
        3,
        &["--processes", "200", "--faithful", "--hazards"],
    );
    let conn = Connection::open(&im.db).unwrap();
    let (all_rows, whole) = lint(&conn, None, false);
    let changed: i64 = conn
        .query_row("SELECT count(*) FROM _build_changed", [], |r| r.get(0))
        .unwrap();
    // Every pid with one lifetime, each with the lookups of the changed
    // paths its subtree looked up.
    let subtrees = pids(
        &conn,
        "SELECT p.pid FROM process AS p
         WHERE (SELECT count(*) FROM process AS q WHERE q.pid = p.pid) = 1
         ORDER BY p.pid",
    );
    let share = |pid: i64| -> i64 {
        conn.query_row(
            "SELECT count(*) FROM _build_changed
             WHERE path_id IN (SELECT path_id FROM _build_changed WHERE process_id IN
                               (SELECT process_id FROM _scope WHERE root_pid = ?1))",
            [pid],
            |r| r.get(0),
        )
        .unwrap()
    };
    let costs: Vec<(i64, i64, u64, Vec<Vec<Cell>>)> = subtrees
        .iter()
        .map(|&pid| {
            let (rows, steps) = scoped(&conn, pid, false);
            eprintln!(
                "lint -p {pid}: {steps} steps, {} of the {changed} lookups of changed paths; \
                 the whole build {whole} steps",
                share(pid)
            );
            (pid, share(pid), steps, rows)
        })
        .collect();
    let base = costs
        .iter()
        .filter(|c| c.1 == 0)
        .map(|c| c.2)
        .max()
        .expect("a subtree looks up no changed path");
    let mut over = Vec::new();
    for (pid, lookups, steps, _) in &costs {
        let bound = 2 * (base + whole * *lookups as u64 / changed as u64);
        if *steps > bound {
            over.push(format!(
                "-p {pid}: {steps} steps > {bound} ({lookups} of {changed} lookups)"
            ));
        }
    }
    assert!(
        over.is_empty(),
        "lint -p costs more than its share: {over:?}"
    );
    let small = costs.iter().filter(|c| c.1 > 0 && c.1 * 4 <= changed);
    let small: Vec<_> = small.collect();
    assert!(!small.is_empty(), "a subtree looks up few changed paths");
    for (pid, _, steps, rows) in small {
        assert!(steps * 2 < whole, "-p {pid}: {steps} of {whole} steps");
        // Its hazards are some of the whole build's.
        assert!(rows.iter().all(|r| all_rows.contains(r)), "-p {pid}");
    }
    assert!(
        costs.iter().any(|c| !c.3.is_empty()),
        "some subtree is in a hazard"
    );
    // The root: the whole build's lookups, at about the whole's cost.
    let root = pids(&conn, "SELECT pid FROM process WHERE parent_id IS NULL");
    let (rows, steps) = scoped(&conn, root[0], false);
    assert_eq!(rows, all_rows, "-p {} (the root)", root[0]);
    assert!(steps * 4 < whole * 5, "-p {}: {steps} of {whole}", root[0]);
}
