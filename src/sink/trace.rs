//! The `trace` row's values, one per imported file: those known when its
//! import begins ([`start_values`]) and those known when it ends
//! ([`end_values`]), each beside its column's name, for both sinks to
//! write (a test checks that together they name every column of the
//! schema's `trace`); and the [`TraceContext`] every other row of the
//! trace is written with.

use rusqlite::types::Value;

use super::value::bytes_value;
use crate::decode::{Abi, Endianness};
use crate::names::Numbering;
use crate::process::rows::Totals;

/// What every row of one trace shares.
#[derive(Debug, Clone, Copy)]
pub struct TraceContext {
    /// `trace.trace_id`.
    pub trace_id: i64,
    /// Register width, for signed arguments.
    pub word_bits: u32,
    /// errno names.
    pub names: Numbering,
}

/// What is known about a trace before its records are read.
#[derive(Debug, Clone)]
pub struct TraceStart<'a> {
    /// Path of the file (absolute, as bytes).
    pub path: &'a [u8],
    /// File size.
    pub size: u64,
    /// [`crate::load::fingerprint::of_file`]; `None` for a pipe.
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
pub fn end_values(issues: i64, e: &TraceEnd<'_>) -> [(&'static str, Value); 16] {
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
        // The import has ended: nothing follows the file any more.
        ("following", int(0)),
    ]
}

/// What the sinks need of a trace whose `trace_id` is `trace_id`.
pub fn trace_context(t: &TraceStart<'_>, trace_id: i64) -> TraceContext {
    TraceContext {
        trace_id,
        word_bits: t.abi.map_or(64, |a| a.width.bits()),
        names: t.abi.map_or(Numbering::FreeBsd, |a| a.name_table()),
    }
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

    use rusqlite::Connection;

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
