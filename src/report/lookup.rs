//! Small lookups the commands share: the traces of a database (ids, paths,
//! systems), whether a trace exists, every lifetime of a pid, the lookups
//! a scope left relative with the start directory of each trace, and the
//! heading a text report prints above each trace.

use rusqlite::Connection;

use super::result_set::{Cell, ResultSet};
use super::row::typed_row;
use super::run::{collect_sql_as, opt_int, run, Scope};
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

typed_row! {
    /// A trace's id and path (`trace_paths`).
    struct TracePath {
        trace_id: i64,
        path: Vec<u8>,
    }
}

/// Every trace of the database: (trace_id, path), in id order.
pub fn trace_paths(conn: &Connection) -> Result<Vec<(i64, Vec<u8>)>, Error> {
    let rows: Vec<TracePath> = collect_sql_as(
        conn,
        "SELECT trace_id, CAST(path AS BLOB) AS path FROM trace ORDER BY trace_id",
        &[],
        "reading table trace",
    )?;
    Ok(rows.into_iter().map(|r| (r.trace_id, r.path)).collect())
}

typed_row! {
    /// A trace's id and what recorded it (`trace_systems`).
    struct TraceSystem {
        trace_id: i64,
        system: String,
        dialect: String,
    }
}

/// The traces of the database, or only `trace`: (trace_id, system,
/// dialect), in id order, for messages that depend on what recorded them.
pub fn trace_systems(
    conn: &Connection,
    trace: Option<i64>,
) -> Result<Vec<(i64, String, String)>, Error> {
    let rows: Vec<TraceSystem> = collect_sql_as(
        conn,
        "SELECT trace_id, system, dialect FROM trace
         WHERE :trace IS NULL OR trace_id = :trace ORDER BY trace_id",
        &[("trace", opt_int(trace))],
        "reading table trace",
    )?;
    Ok(rows
        .into_iter()
        .map(|r| (r.trace_id, r.system, r.dialect))
        .collect())
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

typed_row! {
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
}

/// Every trace of `scope` with its start directory and the lookups its
/// processes (with `-p`, the subtree's: the `_scope` view, as every
/// report's) left relative, in id order: what a report of paths cannot
/// show, and whether `-d` would have resolved it. Counted from
/// `process.unresolved_lookups`, not from the lookups.
pub fn start_dirs(conn: &Connection, scope: Scope) -> Result<Vec<StartDir>, Error> {
    collect_sql_as(
        conn,
        "SELECT t.trace_id AS trace,
                (SELECT COALESCE(sum(p.unresolved_lookups), 0) FROM process AS p
                 WHERE p.trace_id = t.trace_id
                   AND (:pid IS NULL
                        OR p.process_id IN (SELECT process_id FROM _scope
                                            WHERE root_pid = :pid AND trace_id = t.trace_id)))
                  AS relative,
                CAST(t.start_cwd AS BLOB) AS start_cwd
         FROM trace AS t
         WHERE :trace IS NULL OR t.trace_id = :trace
         ORDER BY t.trace_id",
        &scope.params(),
        "reading tables trace and process",
    )
}
