//! Trace files → a Parquet dataset, without SQLite (`kt2sql import
//! --to parquet`): each trace decoded through the process model as for a
//! database, its rows built into Arrow columns by the dataset's
//! [`RowColumns`] and written to its files (on two threads,
//! `pipeline.rs`), its `trace` row from the same values as a database's,
//! then published as a whole. Each trace gets the ids it would
//! have in a database of its own (`trace_id` 1, every other id from 1).
//! A trace already in the dataset is refused before anything is written
//! (or replaced, with `--force`).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::errors::refused;
use super::pipeline::{self, Job};
use super::trace::{check_traces, conclude, now, Concluded};
use super::{interrupted, ImportMode, ImportOptions, ImportSummary, Progress, TraceSummary};
use crate::dataset::rows::{finish_trace, RowColumns, TRACE_ID};
use crate::dataset::{trace_key, Dataset, OnDuplicate, TraceFiles};
use crate::decode::Decoder;
use crate::load::fingerprint;
use crate::process::rows::{IdBase, Totals};
use crate::process::{IssueKind, IssueRow, Model, ModelOptions, Severity, Sink};
use crate::sink::table;
use crate::sink::trace::{trace_context, TraceEnd, TraceStart};
use crate::sink::tree::InMemory;
use crate::sink::{PathCache, TraceContext};
use crate::Error;

/// Import `traces` into the dataset `dir`, each published as it is done.
/// On error the trace being imported leaves nothing visible; those before
/// it stay.
pub fn import_to_dataset(
    traces: &[PathBuf],
    dir: &Path,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<ImportSummary, Error> {
    let started = Instant::now();
    check_traces(traces, dir, opts.abi)?;
    let on_dup = match opts.mode {
        ImportMode::Replace => OnDuplicate::Replace,
        ImportMode::Create | ImportMode::Append => OnDuplicate::Refuse,
    };
    let dataset = Dataset::open(dir)?;
    // Every file already there is refused before anything is written.
    let mut keys = Vec::new();
    for t in traces {
        let size = fs::metadata(t).map(|m| m.len()).unwrap_or(0);
        if let Some(f) = fingerprint::of_file(t, size)?.filter(|_| size > 0) {
            let key = trace_key(Some(&f), size, b"", "");
            if on_dup == OnDuplicate::Refuse && dataset.contains(&key) {
                return Err(refused(
                    t,
                    &format!(
                        "already in {} as trace {key} (the same file); --force replaces it",
                        dir.display()
                    ),
                ));
            }
            if keys.contains(&key) {
                return Err(refused(t, "given twice (the same file)"));
            }
            keys.push(key);
        }
    }
    let mut done = Vec::with_capacity(traces.len());
    for trace in traces {
        done.push(import_one(&dataset, trace, opts, on_dup, progress)?);
        interrupted(dir, progress)?;
    }
    Ok(ImportSummary {
        db: dir.to_owned(),
        traces: done,
        paths_added: 0,
        elapsed: started.elapsed(),
    })
}

/// The ids of a trace in a database of its own: 1 for every table.
fn fresh_ids() -> IdBase {
    table::id_base(|_| Ok::<_, ()>(1)).expect("no error")
}

fn import_one(
    dataset: &Dataset,
    trace: &Path,
    opts: &ImportOptions,
    on_dup: OnDuplicate,
    progress: &dyn Progress,
) -> Result<TraceSummary, Error> {
    let t0 = Instant::now();
    let io = |source| Error::Io {
        path: trace.to_owned(),
        source,
    };
    let meta = fs::metadata(trace).map_err(io)?;
    let size = meta.len();
    let abs = std::path::absolute(trace).unwrap_or_else(|_| trace.to_owned());
    let empty = meta.is_file() && size == 0;
    let dec = if empty {
        None
    } else {
        Some(Decoder::open(trace, opts.abi)?)
    };
    let abi = dec.as_ref().map(|d| d.abi()).or(opts.abi);
    // Every empty file is the same: it is keyed by its path and time.
    let fingerprint = match empty {
        true => None,
        false => fingerprint::of_file(trace, size)?,
    };
    let start = TraceStart {
        path: abs.as_os_str().as_encoded_bytes(),
        size,
        fingerprint: fingerprint.as_deref(),
        abi,
        start_cwd: opts.start_cwd.as_deref(),
        keep_io_data: opts.keep_io_data,
        imported_at: now(),
    };
    let key = trace_key(start.fingerprint, size, start.path, &start.imported_at);
    let mut files = dataset.begin(&key, on_dup)?;
    let ctx: TraceContext = trace_context(&start, TRACE_ID);
    let mut paths = PathCache::default();
    let Some(dec) = dec else {
        return import_empty(dataset, files, paths, ctx, trace, &start);
    };
    let abi = dec.abi();
    let model = Model::new(
        abi,
        ModelOptions {
            start_cwd: opts.start_cwd.clone(),
            keep_io_data: opts.keep_io_data,
            ids: fresh_ids(),
            live_in_memory: None,
        },
    );
    let job = Job {
        dec,
        model,
        size,
        strict: opts.strict,
        paths: &mut paths,
        ctx,
    };
    progress.start(trace, size);
    let loaded = pipeline::decode_to_dataset(&mut files, dataset.tables(), job, progress);
    progress.finish();
    let loaded = loaded.map_err(|e| match e {
        Error::Interrupted { .. } => Error::Interrupted {
            path: dataset.dir().to_owned(),
        },
        e => e,
    })?;
    let Concluded {
        totals,
        damage,
        read,
        issues,
        size,
        decoded_bytes,
        summary,
    } = conclude(trace, abi, size, loaded, opts.strict)?;
    let end = TraceEnd {
        totals: &totals,
        decoded_bytes,
        size,
        damage: summary,
        seconds: t0.elapsed().as_secs_f64(),
        following: false,
    };
    finish_trace(files, &TraceStart { size, ..start }, issues, &end)?;
    Ok(TraceSummary {
        path: trace.to_owned(),
        trace_id: TRACE_ID,
        dialect: abi.to_string(),
        size,
        decoded_bytes: read,
        totals,
        issues,
        damage,
        same_as: None,
    })
}

/// An empty file: its trace row, no records, and a warning issue.
fn import_empty(
    dataset: &Dataset,
    mut files: TraceFiles<'_>,
    mut paths: PathCache,
    ctx: TraceContext,
    trace: &Path,
    start: &TraceStart<'_>,
) -> Result<TraceSummary, Error> {
    let mut enc = RowColumns::new(
        dataset.tables(),
        &mut paths,
        ctx,
        &mut files,
        Box::<InMemory>::default(),
    );
    enc.issue(&IssueRow {
        offset: None,
        severity: Severity::Warning,
        kind: IssueKind::Empty,
        message: "the trace file is empty: no records".into(),
        process_id: None,
    })?;
    enc.flush()?;
    let issues = enc.issues();
    drop(enc);
    let totals = Totals::default();
    finish_trace(
        files,
        start,
        issues,
        &TraceEnd {
            totals: &totals,
            decoded_bytes: 0,
            size: 0,
            damage: None,
            seconds: 0.0,
            following: false,
        },
    )?;
    Ok(TraceSummary {
        path: trace.to_owned(),
        trace_id: TRACE_ID,
        dialect: start.abi.map_or("unknown".into(), |a| a.to_string()),
        size: 0,
        decoded_bytes: 0,
        totals,
        issues,
        damage: Vec::new(),
        same_as: None,
    })
}
