//! Small lookups the commands share: the traces of a database (ids, paths,
//! systems), whether a trace exists, every lifetime of a pid, and the
//! heading a text report prints above each trace.

use rusqlite::Connection;

use super::result_set::{Cell, ResultSet};
use super::run::{opt_int, run};
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
