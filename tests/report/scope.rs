//! `-p PID` on `outputs`, `lint` and `graph` against a composed build:
//! the pid of the only root gives what no `-p` gives, and a leaf command
//! gives what it left behind taken as the build, the hazards it is in and
//! its own nodes. And
//! what `-p` costs: SQLite's step counter, no clock, on eight equal blocks.

use std::collections::BTreeSet;
use std::path::Path;

use rusqlite::Connection;

use super::{composed, kt2sql};

/// stdout of `kt2sql ARGS DB --format csv` (graph: DOT), which succeeds
/// (lint: exits 1 when it lists a hazard).
fn out(db: &Path, args: &[&str]) -> String {
    let mut cmd = kt2sql();
    cmd.args(args).arg(db);
    if args[0] != "graph" {
        cmd.args(["--format", "csv"]);
    }
    let o = cmd.output().unwrap();
    let text = String::from_utf8(o.stdout.clone()).unwrap();
    let code = match args[0] {
        "lint" => i32::from(text.lines().count() > 1),
        _ => 0,
    };
    assert_eq!(o.status.code(), Some(code), "kt2sql {args:?}: {o:?}");
    text
}

/// The CSV rows (after the header) as lines, as a set.
fn rows(text: &str) -> BTreeSet<String> {
    text.lines().skip(1).map(String::from).collect()
}

/// Strings the query returns, one per row.
fn strings(conn: &Connection, sql: &str, pid: i64) -> BTreeSet<String> {
    let mut st = conn.prepare(sql).unwrap();
    let rows = st.query_map([pid], |r| r.get::<_, String>(0)).unwrap();
    rows.map(Result::unwrap).collect()
}

#[test]
fn pid_scopes_outputs_lint_and_graph() {
    let im = composed("openbsd-amd64", 4, &["--faithful", "--hazards"]);
    let db = &im.db;
    let conn = Connection::open(db).unwrap();
    let one = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(
        one("SELECT count(*) FROM process WHERE parent_id IS NULL"),
        1
    );
    let root = one("SELECT pid FROM process WHERE parent_id IS NULL");
    let root = root.to_string();
    for cmd in [
        &["outputs"][..],
        &["lint"],
        &["graph"],
        &["graph", "--commands"],
    ] {
        let all = out(db, cmd);
        let scoped = out(db, &[cmd, &["-p", &root]].concat());
        assert_eq!(scoped, all, "{cmd:?} -p {root} (the root)");
    }

    // A leaf (no children, one lifetime of its pid) that wrote an output.
    let leaf: i64 = conn
        .query_row(
            "SELECT p.pid FROM process AS p
             JOIN build_access AS a ON a.process_id = p.process_id AND a.effect = 'write'
             WHERE NOT EXISTS (SELECT 1 FROM process AS c WHERE c.parent_id = p.process_id)
               AND (SELECT count(*) FROM process AS q WHERE q.pid = p.pid) = 1
             GROUP BY p.pid ORDER BY count(DISTINCT a.path_id) DESC, p.pid LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let pid = leaf.to_string();
    // outputs -p: what the leaf left behind, the leaf taken as the build:
    // each path whose last write or removal by the leaf is a write, written
    // last by the leaf, counting the leaf's commands that wrote it.
    let left = strings(
        &conn,
        "SELECT pa.path || ',' || count(DISTINCT a.command_id) FILTER (WHERE a.effect = 'write')
         FROM build_access AS a JOIN path AS pa USING (path_id)
         JOIN process AS p USING (process_id)
         WHERE p.pid = ?1 AND a.effect IN ('write', 'remove')
         GROUP BY pa.path
         HAVING max(CASE WHEN a.effect = 'write' THEN a.\"offset\" END) = max(a.\"offset\")",
        leaf,
    );
    let got = out(db, &["outputs", "-p", &pid]);
    assert!(!left.is_empty(), "leaf {pid} left an output");
    let mut seen = BTreeSet::new();
    for l in rows(&got) {
        let f: Vec<&str> = l.split(',').collect();
        assert!(
            matches!(f[1], "output" | "intermediate"),
            "outputs -p {pid}: {l}"
        );
        assert_eq!(f[2], pid, "outputs -p {pid}: its own last writer: {l}");
        seen.insert(format!("{},{}", f[0], f[4]));
    }
    assert_eq!(seen, left, "outputs -p {pid}: its paths and writers");

    // lint -p: the hazards of the whole build the leaf is in, either side
    // (read-outside: what the leaf itself read outside).
    let lint = out(db, &["lint"]);
    let got = out(db, &["lint", "-p", &pid, "--allow", "/usr/src/build"]);
    let name = one(&format!("SELECT count(*) FROM process WHERE pid = {leaf}"));
    assert_eq!(name, 1);
    let who = |l: &str| {
        let f: Vec<&str> = l.split(',').collect();
        f[2] == pid || f[5] == pid
    };
    let hazards = |t: &str| -> BTreeSet<String> {
        rows(t)
            .into_iter()
            .filter(|l| !l.starts_with("read-outside,"))
            .collect()
    };
    let want: BTreeSet<String> = hazards(&lint).into_iter().filter(|l| who(l)).collect();
    assert_eq!(hazards(&got), want, "lint -p {pid}");
    for l in rows(&got).iter().filter(|l| l.starts_with("read-outside,")) {
        assert!(who(l), "lint -p {pid}: {l}");
    }

    // graph -p: only the leaf's commands (those with an edge), and the
    // paths it read or wrote (system files too, with --system).
    let dot = out(db, &["graph", "-p", &pid, "--system"]);
    let commands: BTreeSet<&str> = dot
        .lines()
        .filter(|l| l.contains("shape=box"))
        .map(|l| l.trim().split(' ').next().unwrap())
        .collect();
    let want = strings(
        &conn,
        "SELECT 'c' || e.exec_id FROM exec AS e JOIN process AS p USING (process_id)
         WHERE p.pid = ?1 AND e.success = 1",
        leaf,
    );
    let drawn: BTreeSet<String> = commands.iter().map(|c| c.to_string()).collect();
    assert!(
        !drawn.is_empty() && drawn.is_subset(&want),
        "graph -p {pid}: its commands"
    );
    // Every path it read or wrote but the directories (a path another one
    // lies under) and the temporaries (folded into command edges).
    let files = dot.lines().filter(|l| l.contains("shape=ellipse")).count();
    let touched = one(&format!(
        "SELECT count(DISTINCT a.path_id) FROM build_access AS a JOIN process AS p USING (process_id)
         WHERE p.pid = {leaf} AND a.effect IN ('read', 'write')"
    ));
    let folded = one(&format!(
        "WITH t (path_id, path) AS (
           SELECT DISTINCT a.path_id, pa.path FROM build_access AS a
           JOIN process AS p USING (process_id) JOIN path AS pa ON pa.path_id = a.path_id
           WHERE p.pid = {leaf} AND a.effect IN ('read', 'write'))
         SELECT count(*) FROM t
         WHERE EXISTS (SELECT 1 FROM t AS u WHERE substr(u.path, 1, length(t.path) + 1) = t.path || '/')
            OR path_id IN (SELECT path_id FROM _scope_changed_file
                           WHERE root_pid = {pid} AND role = 'temporary')"
    ));
    assert_eq!(files as i64, touched - folded, "graph -p {pid}: its files");
    for l in dot.lines().filter(|l| l.contains(" -> ")) {
        let ends = l.trim().trim_end_matches(';');
        let ends: Vec<&str> = ends.split(' ').collect();
        assert!(
            want.contains(ends[0]) || want.contains(ends[2]),
            "graph -p {pid}: {l}"
        );
    }

    // An unknown pid is an error, as for inputs.
    for cmd in ["outputs", "lint", "graph"] {
        let o = kt2sql()
            .args([cmd, "-p", "999999"])
            .arg(db)
            .output()
            .unwrap();
        assert!(!o.status.success(), "{cmd} -p 999999");
    }
}

/// SQLite's virtual-machine steps to run canned query `name` to its end,
/// scoped to `pid` or not: the work it did, without a clock.
fn steps(conn: &Connection, name: &str, pid: Option<i64>) -> i64 {
    use kt2sql::report::{prepare, Cell};
    use rusqlite::StatementStatus;
    let pid = pid.map_or(Cell::Null, Cell::Int);
    let (mut stmt, _) = prepare(conn, name, &[("pid", pid)]).unwrap();
    let mut rows = stmt.raw_query();
    while rows.next().unwrap().is_some() {}
    drop(rows);
    stmt.get_status(StatementStatus::VmStep).into()
}

/// The canned queries of the reports that take `-p` whose cost follows the
/// process tree (`tree`, `tree -v`, the calls, forks, rows, slices,
/// threads, tracks and lifetimes of `timeline`) or the subtree's lookups (`files`,
/// `files -v`, `inputs`, `outputs` and `graph`, through the index
/// namei_process;
/// `inputs` then seeks the writes of those paths, not their reads;
/// `outputs` and `graph` take the subtree as the build, _scope_changed;
/// the timeline's file arrows and the critical path, through namei_process
/// and the lookups of the paths the subtree wrote):
/// scoped to one block, each costs the same whatever the number of blocks
/// (one block of sixteen at most 1.25× one block of eight: nothing grows
/// with the rest of the build), and at most twice a block's share of the
/// whole: a scoped form may pay a constant more per row than the
/// whole-build form (an index probe per lookup where the whole build makes
/// one pass; sorting the scope's rows: `timeline_calls` and
/// `timeline_call_rows` read the whole build in call_id order from the
/// table, a scope's calls through call_process and then sort them).
const PROPORTIONAL: &[&str] = &[
    "tree",
    "tree_calls",
    "tree_call_rows",
    "timeline_calls",
    "timeline_call_rows",
    "timeline_threads",
    "timeline_forks",
    "timeline_rows",
    "timeline_slices",
    "timeline_tracks",
    "timeline_lifetimes",
    "timeline_flows",
    "critical_path",
    "files",
    "files_verbose",
    "inputs",
    "outputs",
    "graph_nodes",
    "graph_edges",
];

/// `lint` is not here: a hazard is a rule over every lookup of its path,
/// and in this build every block looks up every path the build changes
/// (`block_costs` checks it), so `lint -p` of one block reads the whole
/// build's lookups of them. `lint_scope.rs` bounds it on a build whose
/// subtrees look up few of the changed paths.
/// The steps of every query of PROPORTIONAL on a build of
/// `blocks` copies of one block (each a root tree of the same size), whole
/// and scoped to the middle block's root: (name, whole, scoped).
fn block_costs(blocks: u64) -> Vec<(&'static str, i64, i64)> {
    let one = composed("openbsd-amd64", 3, &["--processes", "20"]);
    let block = std::fs::metadata(&one.c.trace).unwrap().len();
    let target = (blocks * block).to_string();
    let im = composed(
        "openbsd-amd64",
        3,
        &["--processes", "20", "--target-bytes", &target],
    );
    let conn = Connection::open(&im.db).unwrap();
    let roots: Vec<i64> = {
        let mut st = conn
            .prepare(
                "SELECT p.pid FROM process AS p WHERE p.parent_id IS NULL
                   AND (SELECT count(*) FROM process AS q WHERE q.pid = p.pid) = 1
                 ORDER BY p.process_id",
            )
            .unwrap();
        let rows = st.query_map([], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    assert!(
        roots.len() as u64 >= blocks,
        "{blocks} blocks, each a root: {roots:?}"
    );
    let pid = roots[roots.len() / 2];
    // Why lint is not bounded here: the block looks up every changed path.
    let shared: (i64, i64) = conn
        .query_row(
            "SELECT (SELECT count(DISTINCT path_id) FROM _build_changed),
                    (SELECT count(DISTINCT c.path_id) FROM _build_changed AS c
                     WHERE c.process_id IN (SELECT process_id FROM _scope WHERE root_pid = ?1))",
            [pid],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(
        shared.0 > 0 && shared.1 == shared.0,
        "-p {pid} looks up {} of the {} changed paths: lint -p could be bounded here",
        shared.1,
        shared.0
    );
    let costs = PROPORTIONAL.iter().map(|&name| {
        let (all, scoped) = (steps(&conn, name, None), steps(&conn, name, Some(pid)));
        eprintln!("{name}: -p {pid} {scoped} steps, the whole build {all} ({blocks} blocks)");
        (name, all, scoped)
    });
    costs.collect()
}

#[test]
fn pid_scoped_reports_cost_in_proportion_to_the_subtree() {
    crate::require_shared!(python);
    let (eight, sixteen) = (block_costs(8), block_costs(16));
    let mut over = Vec::new();
    for (&(name, all, scoped), &(_, _, scoped16)) in eight.iter().zip(&sixteen) {
        if scoped * 8 > all * 2 {
            over.push(format!("{name}: one block of 8 {scoped} of {all}"));
        }
        if scoped16 * 4 > scoped * 5 {
            over.push(format!("{name}: one block of 16 {scoped16}, of 8 {scoped}"));
        }
    }
    assert!(
        over.is_empty(),
        "-p of one block costs more than its share, or grows with the build: {over:?}"
    );
}

/// SQLite's virtual-machine steps to run `sql` to its end.
fn sql_steps(conn: &Connection, sql: &str) -> i64 {
    use rusqlite::StatementStatus;
    let mut stmt = conn.prepare(sql).unwrap();
    let mut rows = stmt.raw_query();
    while rows.next().unwrap().is_some() {}
    drop(rows);
    stmt.get_status(StatementStatus::VmStep).into()
}

/// The views over the stored tree order (tree_node ranges) cost in
/// proportion to the rows they give: a build twice the size costs about
/// twice as much, not four times (a range join the planner turned inside
/// out scans every ancestor for every node; `lint` and `diff` read
/// process_descendant whole).
#[test]
fn tree_range_views_cost_in_proportion_to_the_build() {
    crate::require_shared!(python);
    let one = composed("openbsd-amd64", 3, &["--processes", "20"]);
    let block = std::fs::metadata(&one.c.trace).unwrap().len();
    let cost = |blocks: u64| {
        let target = (blocks * block).to_string();
        let im = composed(
            "openbsd-amd64",
            3,
            &["--processes", "20", "--target-bytes", &target],
        );
        let conn = Connection::open(&im.db).unwrap();
        [
            "SELECT * FROM process_descendant WHERE depth > 0",
            "SELECT * FROM _scope",
            "SELECT * FROM process_tree",
        ]
        .map(|sql| (sql, sql_steps(&conn, sql)))
    };
    let (small, big) = (cost(8), cost(16));
    for ((sql, s), (_, b)) in small.iter().zip(&big) {
        eprintln!("{sql}: 8 blocks {s} steps, 16 blocks {b}");
        assert!(*b * 2 < *s * 5, "{sql}: 8 blocks {s} steps, 16 blocks {b}");
    }
}
