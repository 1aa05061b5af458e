//! Small lookups the commands share: the traces of a database (ids, paths,
//! systems), whether a trace exists, every lifetime of a pid, the lookups
//! a scope left relative with the start directory of each trace, and the
//! heading a text report prints above each trace.

use rusqlite::Connection;

use super::result_set::{Cell, ResultSet};
use super::run::{opt_int, run, Scope};
use crate::schema::sql_err;
use crate::Error;

/// Every lifetime of `pid` within `trace` (all traces when `None`), first
/// first (`queries/pid_lifetimes.sql`). `-p PID` takes them all.
pub fn lifetimes(conn: &Connection, pid: i64, trace: Option<i64>) -> Result<ResultSet, Error> {
    run(
        conn,
        "pid_lifetimes",
        &[("pid", Cell::Int(pid)), ("trace", opt_int(trace))],
    )
}

/// Every trace of the database: (trace_id, path), in id order.
pub fn trace_paths(conn: &Connection) -> Result<Vec<(i64, Vec<u8>)>, Error> {
    let ctx = || sql_err("reading table trace".into());
    let mut st = conn
        .prepare("SELECT trace_id, CAST(path AS BLOB) FROM trace ORDER BY trace_id")
        .map_err(ctx())?;
    let rows = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(ctx())?;
    rows.collect::<Result<_, _>>().map_err(ctx())
}

/// The traces of the database, or only `trace`: (trace_id, system,
/// dialect), in id order, for messages that depend on what recorded them.
pub fn trace_systems(
    conn: &Connection,
    trace: Option<i64>,
) -> Result<Vec<(i64, String, String)>, Error> {
    let ctx = || sql_err("reading table trace".into());
    let mut st = conn
        .prepare(
            "SELECT trace_id, system, dialect FROM trace
             WHERE ?1 IS NULL OR trace_id = ?1 ORDER BY trace_id",
        )
        .map_err(ctx())?;
    let rows = st
        .query_map([trace], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .map_err(ctx())?;
    rows.collect::<Result<_, _>>().map_err(ctx())
}

/// The heading a text report prints above each trace of a database that
/// holds several: `Trace 2: /path/of/ktrace.out`, as `kt2sql stats` names
/// them.
pub fn write_trace_heading(
    out: &mut dyn std::io::Write,
    id: i64,
    path: &[u8],
) -> std::io::Result<()> {
    writeln!(out, "Trace {id}: {}", crate::text::vis(path))
}

/// Whether the database holds a trace with this `trace_id`.
pub fn has_trace(conn: &Connection, trace: i64) -> Result<bool, Error> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM trace WHERE trace_id = ?1)",
        [trace],
        |r| r.get(0),
    )
    .map_err(sql_err("reading table trace".into()))
}

/// One trace of a scope: its lookups left relative (resolution `unknown
/// base`, which no report of paths lists) and the start directory it was
/// imported with (`-d`), if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartDir {
    /// The trace.
    pub trace: i64,
    /// Its lookups left relative, within the scope's processes.
    pub relative: i64,
    /// `trace.start_cwd`: `None` when imported without `-d`.
    pub start_cwd: Option<Vec<u8>>,
}

/// Every trace of `scope` with its start directory and the lookups its
/// processes (with `-p`, the subtree's) left relative, in id order: what
/// a report of paths cannot show, and whether `-d` would have resolved it.
/// Counted from `process.unresolved_lookups`, not from the lookups.
pub fn start_dirs(conn: &Connection, scope: Scope) -> Result<Vec<StartDir>, Error> {
    let ctx = || sql_err("reading tables trace and process".into());
    let mut st = conn
        .prepare(
            "WITH RECURSIVE member (process_id) AS (
               SELECT process_id FROM process
               WHERE pid = :pid AND (:trace IS NULL OR trace_id = :trace)
               UNION
               SELECT p.process_id FROM process AS p JOIN member AS m ON p.parent_id = m.process_id
             )
             SELECT t.trace_id,
                    (SELECT COALESCE(sum(p.unresolved_lookups), 0) FROM process AS p
                     WHERE p.trace_id = t.trace_id
                       AND (:pid IS NULL OR p.process_id IN member)),
                    CAST(t.start_cwd AS BLOB)
             FROM trace AS t
             WHERE :trace IS NULL OR t.trace_id = :trace
             ORDER BY t.trace_id",
        )
        .map_err(ctx())?;
    let rows = st
        .query_map(
            rusqlite::named_params! {":trace": scope.trace, ":pid": scope.pid},
            |r| {
                Ok(StartDir {
                    trace: r.get(0)?,
                    relative: r.get(1)?,
                    start_cwd: r.get(2)?,
                })
            },
        )
        .map_err(ctx())?;
    rows.collect::<Result<_, _>>().map_err(ctx())
}
