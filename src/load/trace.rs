//! The `trace` table of a database: a file's row written when its import
//! begins ([`begin_trace`]) and completed when it ends ([`end_trace`], [`set_trace_end`]),
//! from the values of [`crate::sink::trace`], the SQL built from their
//! columns' names; and [`same_file`], the lookup of a file imported before.

use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};

use crate::schema::sql_err;
use crate::sink::trace::{
    end_values, start_values, trace_context, TraceContext, TraceEnd, TraceStart,
};
use crate::Error;

/// Write the `trace` row of a trace about to be imported; its context for
/// the encoder.
pub fn begin_trace(conn: &Connection, t: &TraceStart<'_>) -> Result<TraceContext, Error> {
    let values = start_values(t);
    let columns: Vec<&str> = values.iter().map(|(c, _)| *c).collect();
    let sql = format!(
        "INSERT INTO trace ({}) VALUES ({})",
        columns.join(", "),
        vec!["?"; columns.len()].join(", ")
    );
    conn.execute(&sql, params_from_iter(values.iter().map(|(_, v)| v)))
        .map_err(sql_err("writing the trace row".into()))?;
    Ok(trace_context(t, conn.last_insert_rowid()))
}

/// Complete the `trace` row with the counts.
pub fn end_trace(
    conn: &Connection,
    trace_id: i64,
    issues: i64,
    e: &TraceEnd<'_>,
) -> Result<(), Error> {
    set_trace_end(conn, trace_id, &end_values(issues, e))
}

/// Complete the `trace` row with `values` ([`end_values`], worked out
/// before: the follow's writer thread writes what its follower counted).
pub fn set_trace_end(
    conn: &Connection,
    trace_id: i64,
    values: &[(&'static str, Value)],
) -> Result<(), Error> {
    let set: Vec<String> = values.iter().map(|(c, _)| format!("{c} = ?")).collect();
    let sql = format!("UPDATE trace SET {} WHERE trace_id = ?", set.join(", "));
    let key = Value::Integer(trace_id);
    let params = values.iter().map(|(_, v)| v).chain([&key]);
    conn.execute(&sql, params_from_iter(params))
        .map_err(sql_err("completing the trace row".into()))?;
    Ok(())
}

/// The first trace already in the database with this size and
/// fingerprint: the same file imported before.
pub fn same_file(conn: &Connection, size: u64, fingerprint: &str) -> Result<Option<i64>, Error> {
    use rusqlite::OptionalExtension;
    conn.query_row(
        "SELECT trace_id FROM trace WHERE size = ?1 AND fingerprint = ?2 \
         ORDER BY trace_id LIMIT 1",
        rusqlite::params![size as i64, fingerprint],
        |r| r.get(0),
    )
    .optional()
    .map_err(sql_err("looking for the same file in table trace".into()))
}
