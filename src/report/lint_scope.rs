//! `kt2sql lint -p`: the hazard rules run over the paths a subtree looked
//! up, not over the whole build, so that `lint -p` costs in proportion to
//! the question.
//!
//! A hazard is a rule over every lookup of its path (the first writer and
//! the last to join, the next write after a read, every pair of
//! overlapping lifetimes), and every hazard a command of the subtree is in
//! is on a path the subtree looked up. So the whole build's hazards of
//! those paths are the rules of `build_hazard` over the lookups of those
//! paths only. The rules are stated once, in the views as the database
//! stores them: [`scope_hazards`] puts a copy of `build_hazard` and of
//! `process_descendant` (which lifetime is below which) in the
//! connection's temporary schema, where the names they read resolve to
//! temporary objects first, each a part of what it stands for:
//! `_build_changed` (the rules' input: every lookup of a changed path)
//! becomes the lookups of the changed paths the subtree looked up, each
//! path's lookups found through the index namei_resolved, and `tree_node`
//! the nodes of the processes of those lookups (the rules ask only
//! whether one of them is below another). `queries/lint.sql` then reads
//! the copy in place of the view and filters its hazards by the subtree
//! as before. The rows are the same with or without it (`kt2sql query
//! lint` and the `sqlite3` shell read the view itself); only the work
//! differs: the subtree's own lookups, then the lookups of the changed
//! paths among them, instead of every lookup of every changed path. In a
//! build whose every part writes the same paths (a block repeated) the
//! second is the whole build's again: the question is then that big.
//!
//! It writes nothing to the database: the temporary schema lives and dies
//! with the connection, and [`unscope_hazards`] drops what this made.
//!
//! How `-p` reaches every report: the subtree is always the view `_scope`
//! (a pid's lifetimes and their descendants, by `root_pid`), which every
//! query selects with the one block `queries/blocks/scope.sql`; the build
//! views keyed by `root_pid` (`_scope_changed` and those over it) carry
//! the same rows through their windows, and the flows of a timeline's
//! subtree are the one block `queries/blocks/scoped_flow.sql`. `lint -p`
//! starts from the same `_scope` rows (`PATHS` below); only the hazard
//! rules are then read differently, through this temporary schema, since
//! a hazard of the subtree needs the whole build's lookups of its paths
//! (not the subtree's own, as `_scope_changed` would give) and the rules
//! are stated once, in the stored `build_hazard`, whose CTEs (MATERIALIZED
//! or recursive) take no `root_pid` filter from outside: a `root_pid`-keyed
//! copy of them would be a second statement of the rules and a schema
//! change (`bench/NOTES.md`, session 14, has the figures).

use rusqlite::{Connection, StatementStatus};

use crate::schema::sql_err;
use crate::Error;

/// The temporary objects, in the order they are made. `_hazard_path`:
/// the changed paths (some lookup wrote or removed them, as
/// `_build_changed` has it) that a process of the subtree of `$pid` looked
/// up, per trace: the subtree's lookups through the index namei_process
/// (`_scope`), then each distinct path's changes seeked through
/// namei_resolved.
const PATHS: &str = "
CREATE TEMP TABLE _hazard_path AS
SELECT trace_id, path_id
FROM (SELECT DISTINCT a.trace_id, a.path_id
      FROM (SELECT DISTINCT process_id FROM main._scope
            WHERE root_pid = $pid AND ($trace IS NULL OR trace_id = $trace)) AS s
      CROSS JOIN main.build_access AS a
      WHERE a.process_id = s.process_id) AS l
WHERE EXISTS (SELECT 1 FROM main.namei AS w
              WHERE w.resolved_id = l.path_id
                AND w.access IN (SELECT access FROM main._access_class
                                 WHERE effect IN ('write', 'remove')))";

/// `_build_changed`'s rows of those paths: every lookup of each, by any
/// process of the build (the path first, then its lookups through the
/// index namei_resolved).
const LOOKUPS: &str = "
CREATE TEMP VIEW _build_changed AS
SELECT a.namei_id, a.trace_id, a.path_id, a.command_id, a.process_id, a.access, a.syscall,
       a.success, a.effect, a.\"offset\", a.ts
FROM temp._hazard_path AS h
CROSS JOIN main.build_access AS a
WHERE a.path_id = h.path_id AND a.trace_id = h.trace_id";

/// `tree_node`'s rows of the processes of those lookups, each process's
/// through the index tree_node_process, with an index on `pos` (a
/// subtree is a range of it): `process_descendant` over them gives the
/// pairs among those processes, in proportion to the pairs.
const NODES: &str = "
CREATE TEMP TABLE tree_node AS
SELECT * FROM main.tree_node
WHERE process_id IN (SELECT process_id FROM temp._build_changed)";
const NODES_POS: &str = "CREATE INDEX temp._hazard_node_pos ON tree_node (pos)";

/// The views copied, in the order they are made: each reads the
/// temporary objects above in place of the database's.
const VIEWS: [&str; 2] = ["process_descendant", "build_hazard"];

/// Put the hazard rules over the paths the subtree of `pid` (in `trace`,
/// or every trace) looked up in `conn`'s temporary schema, under the
/// view's own name, so that `queries/lint.sql` run on this connection
/// reads them. Returns SQLite's virtual-machine steps it took, so a
/// caller can count its cost with the query's. Refuses a database whose
/// stored view does not begin as this kt2sql writes it.
pub fn scope_hazards(conn: &Connection, pid: i64, trace: Option<i64>) -> Result<u64, Error> {
    let ctx = |what: &str| sql_err(format!("lint -p: {what}"));
    let mut copies = Vec::new();
    for view in VIEWS {
        copies.push((view, copy(conn, view)?));
    }
    let mut steps = 0u64;
    let made = [
        ("the subtree's changed paths", PATHS),
        ("their lookups", LOOKUPS),
        ("their processes' tree nodes", NODES),
        ("their processes' tree nodes", NODES_POS),
    ];
    let copied = copies.iter().map(|(v, sql)| (*v, sql.as_str()));
    for (what, sql) in made.into_iter().chain(copied) {
        let mut st = conn.prepare(sql).map_err(ctx(what))?;
        for (name, value) in [("$pid", Some(pid)), ("$trace", trace)] {
            if let Some(i) = st.parameter_index(name).map_err(ctx(what))? {
                st.raw_bind_parameter(i, value).map_err(ctx(what))?;
            }
        }
        st.raw_execute().map_err(ctx(what))?;
        steps += st.get_status(StatementStatus::VmStep) as u64;
    }
    Ok(steps)
}

/// The statement that makes a temporary copy of the stored view `view`:
/// its own text, but for `CREATE TEMP VIEW`. Refuses a database whose
/// stored view does not begin as this kt2sql writes it.
fn copy(conn: &Connection, view: &str) -> Result<String, Error> {
    let stored: String = conn
        .query_row(
            "SELECT sql FROM main.sqlite_schema WHERE type = 'view' AND name = ?1",
            [view],
            |r| r.get(0),
        )
        .map_err(sql_err(format!("lint -p: reading the view {view}")))?;
    let head = format!("CREATE VIEW {view} ");
    let body = stored.strip_prefix(&head).ok_or_else(|| Error::Sqlite {
        context: format!("lint -p: the stored view {view} does not begin with {head:?}"),
        source: rusqlite::Error::InvalidQuery,
    })?;
    Ok(format!("CREATE TEMP VIEW {view} {body}"))
}

/// Drop what [`scope_hazards`] made: the connection reads the database's
/// views again.
pub fn unscope_hazards(conn: &Connection) -> Result<(), Error> {
    conn.execute_batch(
        "DROP VIEW IF EXISTS temp.build_hazard;
         DROP VIEW IF EXISTS temp.process_descendant;
         DROP TABLE IF EXISTS temp.tree_node;
         DROP VIEW IF EXISTS temp._build_changed;
         DROP TABLE IF EXISTS temp._hazard_path;",
    )
    .map_err(sql_err(
        "lint -p: dropping the subtree's hazard rules".into(),
    ))
}
