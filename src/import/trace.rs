//! Each trace into the caller's transaction: the checks every trace must
//! pass before anything is written, one trace decoded through the process
//! model into the database on two threads ([`super::pipeline`]), an empty
//! file as a trace row with no records and a warning, the end of the trace
//! row (damage summary, counts, time), then the indexes and views and the
//! tree order once all traces are in. Where the transaction comes from is
//! [`super::target`]'s job.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rusqlite::Connection;

use super::errors::{in_db, refused};
use super::pipeline::{self, Decoded, Job};
use super::{interrupted, ImportOptions, Progress, TraceSummary};
use crate::decode::{Abi, DecodeErrorKind, Decoder};
use crate::load::{
    begin_trace, end_trace, fingerprint, next_ids, same_file, Loader, PathCache, TraceEnd,
    TraceStart,
};
use crate::process::rows::Totals;
use crate::process::{Model, ModelOptions};
use crate::schema;
use crate::Error;

/// The traces imported, and the distinct paths they added.
pub(super) type TraceDone = (Vec<TraceSummary>, i64);

/// Every trace, then the indexes and views and the tree order, into `conn` (inside the
/// caller's transaction), asking between the stages whether to stop.
pub(super) fn import_traces(
    conn: &Connection,
    paths: &mut PathCache,
    traces: &[PathBuf],
    db: &Path,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<Vec<TraceSummary>, Error> {
    let ctx = |e: Error| in_db(e, db);
    let mut done = Vec::with_capacity(traces.len());
    for trace in traces {
        done.push(import_one(conn, paths, trace, opts, progress).map_err(ctx)?);
        interrupted(db, progress)?;
    }
    schema::create_indexes_and_views(conn).map_err(ctx)?;
    crate::load::tree_order::write_tree_order(conn).map_err(ctx)?;
    interrupted(db, progress)?;
    Ok(done)
}

/// Every trace must open (detection included) before anything is written,
/// and none may be the target itself.
pub(super) fn check_traces(traces: &[PathBuf], db: &Path, abi: Option<Abi>) -> Result<(), Error> {
    if traces.is_empty() {
        return Err(refused(db, "no trace files given"));
    }
    let db_abs = fs::canonicalize(db).ok();
    for t in traces {
        if db_abs.is_some() && fs::canonicalize(t).ok() == db_abs {
            return Err(refused(t, "is also the output database"));
        }
        // A pipe can be read only once: it is checked when it is imported.
        if fs::metadata(t).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            continue;
        }
        match Decoder::open(t, abi) {
            Ok(_) => {}
            // An empty regular file imports as a trace row with no records
            // (a device or pipe with no data is not a trace).
            Err(Error::Decode { source, .. })
                if source.kind == DecodeErrorKind::Empty && is_empty_file(t) => {}
            Err(e) => return Err(e),
        }
    }
    // Nothing to import at all is a failure, not an empty database: a
    // `ktrace` that recorded nothing must not pass a script as a success.
    if traces.iter().all(|t| is_empty_file(t)) {
        let why = match traces.len() {
            1 => "empty trace: no records; nothing was imported",
            _ => "empty trace: no records, nor in the other traces given; nothing was imported",
        };
        return Err(refused(&traces[0], why));
    }
    Ok(())
}

/// Decode one trace through the process model into the database (inside
/// the caller's transaction).
fn import_one(
    conn: &Connection,
    paths: &mut PathCache,
    trace: &Path,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<TraceSummary, Error> {
    let t0 = Instant::now();
    let size = fs::metadata(trace)
        .map_err(|source| Error::Io {
            path: trace.to_owned(),
            source,
        })?
        .len();
    if is_empty_file(trace) {
        return import_empty(conn, paths, trace, opts);
    }
    let dec = Decoder::open(trace, opts.abi)?;
    let abs = std::path::absolute(trace).unwrap_or_else(|_| trace.to_owned());
    let abi = dec.abi();
    let ids = next_ids(conn)?;
    let fingerprint = fingerprint::of_file(trace, size)?;
    let same_as = match &fingerprint {
        Some(f) => same_file(conn, size, f)?,
        None => None,
    };
    let start = TraceStart {
        path: abs.as_os_str().as_encoded_bytes(),
        size,
        fingerprint: fingerprint.as_deref(),
        abi: Some(abi),
        start_cwd: opts.start_cwd.as_deref(),
        keep_io_data: opts.keep_io_data,
        imported_at: now(),
    };
    let ctx = begin_trace(conn, &start)?;
    let model = Model::new(
        abi,
        ModelOptions {
            start_cwd: opts.start_cwd.clone(),
            keep_io_data: opts.keep_io_data,
            ids,
            live_in_memory: None,
        },
    );
    let job = Job {
        dec,
        model,
        size,
        strict: opts.strict,
        paths,
        ctx,
    };
    progress.start(trace, size);
    let loaded = pipeline::decode_and_write(conn, job, progress);
    progress.finish();
    let Concluded {
        totals,
        damage,
        read,
        issues,
        size,
        decoded_bytes,
        summary,
    } = conclude(trace, abi, size, loaded?, opts.strict)?;
    let end = TraceEnd {
        totals: &totals,
        decoded_bytes,
        size,
        damage: summary,
        seconds: t0.elapsed().as_secs_f64(),
        following: false,
    };
    end_trace(conn, ctx.trace_id, issues, &end)?;
    Ok(TraceSummary {
        path: trace.to_owned(),
        trace_id: ctx.trace_id,
        dialect: abi.to_string(),
        size,
        decoded_bytes: read,
        totals,
        issues,
        damage,
        same_as,
    })
}

/// What a decoded trace comes to.
pub(super) struct Concluded {
    /// The model's counts.
    pub totals: Totals,
    /// Stretches that could not be imported.
    pub damage: Vec<super::Damage>,
    /// Bytes read.
    pub read: u64,
    /// Import issues written.
    pub issues: i64,
    /// Its size (a pipe's: what it held).
    pub size: u64,
    /// Bytes decoded into records.
    pub decoded_bytes: u64,
    /// The damage in one line, if any.
    pub summary: Option<String>,
}

/// A decoded trace's end: refused when nothing of it was readable, or
/// when it is damaged under `--strict`; else its sizes and the damage in
/// one line.
pub(super) fn conclude(
    trace: &Path,
    abi: Abi,
    size: u64,
    loaded: Decoded,
    strict: bool,
) -> Result<Concluded, Error> {
    let Decoded {
        totals,
        damage,
        read,
        issues,
    } = loaded;
    // Unreadable from its first byte on: nothing of it is a trace.
    if let Some(d) = damage
        .first()
        .filter(|d| d.offset == 0 && d.resumed_at.is_none())
    {
        return Err(Error::Decode {
            path: trace.to_owned(),
            source: crate::decode::DecodeError {
                offset: 0,
                record: 0,
                kind: DecodeErrorKind::Unrecognized(format!(
                    "read as {abi}, its first record is already damaged ({}) and \
                     nothing after it is believable",
                    d.why
                )),
            },
        });
    }
    // A pipe's size is what it held.
    let size = if fs::metadata(trace).is_ok_and(|m| m.is_file()) {
        size
    } else {
        read
    };
    if strict {
        if let Some(d) = damage.first() {
            return Err(refused(trace, &format!("{d} (--strict: nothing imported)")));
        }
    }
    let skipped: u64 = damage
        .iter()
        .map(|d| d.resumed_at.unwrap_or(size).saturating_sub(d.offset))
        .sum();
    let summary = damage_summary(&damage);
    Ok(Concluded {
        totals,
        decoded_bytes: size.saturating_sub(skipped).min(read),
        damage,
        read,
        issues,
        size,
        summary,
    })
}

/// The damage of a trace in one line (the `trace.damage` column).
pub(super) fn damage_summary(damage: &[super::Damage]) -> Option<String> {
    match damage {
        [] => None,
        [one] => Some(one.to_string()),
        [first, rest @ ..] => Some(format!(
            "{first}; and {} more damaged stretches",
            rest.len()
        )),
    }
}

/// An empty file: its trace row, no records, and a warning issue.
fn import_empty(
    conn: &Connection,
    paths: &mut PathCache,
    trace: &Path,
    opts: &ImportOptions,
) -> Result<TraceSummary, Error> {
    let abs = std::path::absolute(trace).unwrap_or_else(|_| trace.to_owned());
    let start = TraceStart {
        path: abs.as_os_str().as_encoded_bytes(),
        size: 0,
        // Every empty file is the same: nothing worth a warning.
        fingerprint: None,
        abi: opts.abi,
        start_cwd: opts.start_cwd.as_deref(),
        keep_io_data: opts.keep_io_data,
        imported_at: now(),
    };
    let mut loader = Loader::begin(conn, paths, &start)?;
    use crate::process::{IssueRow, Severity, Sink};
    loader.issue(&IssueRow {
        offset: None,
        severity: Severity::Warning,
        kind: crate::process::IssueKind::Empty,
        message: "the trace file is empty: no records".into(),
        process_id: None,
    })?;
    let totals = Totals::default();
    let (trace_id, issues) = (loader.trace_id(), loader.issues());
    loader.end(&TraceEnd {
        totals: &totals,
        decoded_bytes: 0,
        size: 0,
        damage: None,
        seconds: 0.0,
        following: false,
    })?;
    Ok(TraceSummary {
        path: trace.to_owned(),
        trace_id,
        dialect: opts.abi.map_or("unknown".into(), |a| a.to_string()),
        size: 0,
        decoded_bytes: 0,
        totals,
        issues,
        damage: Vec::new(),
        same_as: None,
    })
}

fn is_empty_file(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0)
}

pub(super) fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}
