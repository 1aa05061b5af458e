//! The `trace` table: one row per imported file, written when its import
//! begins ([`begin_trace`]) and completed when it ends ([`end_trace`]). Its
//! columns are written each beside its value ([`start_values`],
//! [`end_values`]), and the SQL is built from those names; a test checks
//! that together they write every column of the schema's `trace`.

use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};

use super::encode::{bytes_value, TraceContext};
use crate::decode::{Abi, Endianness};
use crate::names::Numbering;
use crate::process::rows::Totals;
use crate::schema::sql_err;
use crate::Error;

/// What is known about a trace before its records are read.
#[derive(Debug, Clone)]
pub struct TraceStart<'a> {
    /// Path of the file (absolute, as bytes).
    pub path: &'a [u8],
    /// File size.
    pub size: u64,
    /// [`fingerprint::of_file`]; `None` for a pipe.
    pub fingerprint: Option<&'a str>,
    /// Its ABI; `None` for an empty file, which has none.
    pub abi: Option<Abi>,
    /// `--start-dir`.
    pub start_cwd: Option<&'a [u8]>,
    /// `--keep-io-data`.
    pub keep_io_data: bool,
    /// ISO 8601 UTC.
    pub imported_at: String,
}

/// What is known once the model has finished.
#[derive(Debug, Clone)]
pub struct TraceEnd<'a> {
    /// The model's counts.
    pub totals: &'a Totals,
    /// Bytes decoded into records.
    pub decoded_bytes: u64,
    /// Bytes the input held (a pipe's size is known only now).
    pub size: u64,
    /// Why decoding stopped early, if it did.
    pub damage: Option<String>,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// The columns a trace's row gets when its import begins, each beside its
/// value.
pub fn start_values(t: &TraceStart<'_>) -> [(&'static str, Value); 11] {
    let order = match t.abi.map(|a| a.endianness) {
        Some(Endianness::Little) => "little",
        Some(Endianness::Big) => "big",
        None => "unknown",
    };
    let text = |s: &str| Value::Text(s.to_owned());
    let int = |i: i64| Value::Integer(i);
    [
        ("path", bytes_value(t.path).into()),
        ("size", int(t.size as i64)),
        (
            "dialect",
            Value::Text(t.abi.map_or("unknown".into(), |a| a.to_string())),
        ),
        ("system", text(t.abi.map_or("unknown", |a| a.system_name()))),
        ("header_version", int(t.abi.map_or(0, |a| a.version.into()))),
        ("word_bits", int(t.abi.map_or(0, |a| a.width.bits().into()))),
        ("byte_order", text(order)),
        (
            "start_cwd",
            t.start_cwd.map_or(Value::Null, |c| bytes_value(c).into()),
        ),
        ("keep_io_data", int(t.keep_io_data.into())),
        ("imported_at", text(&t.imported_at)),
        ("fingerprint", t.fingerprint.map_or(Value::Null, text)),
    ]
}

/// The columns a trace's row gets when its import ends, each beside its
/// value.
pub fn end_values(issues: i64, e: &TraceEnd<'_>) -> [(&'static str, Value); 15] {
    let t = e.totals;
    let by = |k: &str| Value::Integer(t.by_type.get(k).copied().unwrap_or(0));
    let int = |i: i64| Value::Integer(i);
    let opt = |i: Option<i64>| i.map_or(Value::Null, Value::Integer);
    let complete = e.damage.is_none() && e.decoded_bytes == e.size;
    [
        ("records", int(t.records)),
        ("records_by_type", Value::Text(by_type_json(t))),
        ("call_records", by("CALL")),
        ("ret_records", by("RET")),
        ("namei_records", by("NAMI")),
        ("dropped_records", int(t.dropped)),
        ("first_ts", opt(t.first_ts)),
        ("last_ts", opt(t.last_ts)),
        ("import_seconds", Value::Real(e.seconds)),
        ("decoded_bytes", int(e.decoded_bytes as i64)),
        ("complete", int(complete.into())),
        ("damage", e.damage.clone().map_or(Value::Null, Value::Text)),
        ("issues", int(issues)),
        ("size", int(e.size as i64)),
        ("files", int(t.files)),
    ]
}

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

/// What the encoder needs of a trace whose `trace_id` is `trace_id`.
pub fn trace_context(t: &TraceStart<'_>, trace_id: i64) -> TraceContext {
    TraceContext {
        trace_id,
        word_bits: t.abi.map_or(64, |a| a.width.bits()),
        names: t.abi.map_or(Numbering::FreeBsd, |a| a.name_table()),
    }
}

/// Complete the `trace` row with the counts.
pub fn end_trace(
    conn: &Connection,
    trace_id: i64,
    issues: i64,
    e: &TraceEnd<'_>,
) -> Result<(), Error> {
    let values = end_values(issues, e);
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

/// `{"CALL":12,"RET":12}` (labels are plain ASCII, so no escaping).
fn by_type_json(t: &Totals) -> String {
    let items: Vec<String> = t
        .by_type
        .iter()
        .map(|(k, v)| format!("\"{k}\":{v}"))
        .collect();
    format!("{{{}}}", items.join(","))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The row's two writes together name every column of `trace` but its
    /// key, each once (`size`, unknown for a pipe until the end, twice).
    #[test]
    fn begin_and_end_write_every_column() {
        let conn = Connection::open_in_memory().unwrap();
        crate::schema::create_tables(&conn).unwrap();
        let schema: BTreeSet<String> = conn
            .prepare("SELECT name FROM pragma_table_info('trace') WHERE name != 'trace_id'")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let start = TraceStart {
            path: b"/t",
            size: 0,
            fingerprint: None,
            abi: None,
            start_cwd: None,
            keep_io_data: false,
            imported_at: String::new(),
        };
        let end = TraceEnd {
            totals: &Totals::default(),
            decoded_bytes: 0,
            size: 0,
            damage: None,
            seconds: 0.0,
        };
        let mut written: Vec<&str> = start_values(&start).iter().map(|(c, _)| *c).collect();
        written.extend(end_values(0, &end).iter().map(|(c, _)| *c));
        written.sort_unstable();
        let mut once = written.clone();
        once.dedup();
        assert_eq!(
            written.len(),
            once.len() + 1,
            "only size twice: {written:?}"
        );
        assert_eq!(
            once.into_iter().map(String::from).collect::<BTreeSet<_>>(),
            schema
        );
    }
}
