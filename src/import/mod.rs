//! The import: trace files → one database, atomically. This file owns what
//! callers see (the options, [`Progress`], the summaries) and [`import`],
//! which checks the inputs, then has the target written; the work is split
//! by job:
//!
//! - `target.rs`: what happens to the database file: refusing or replacing
//!   an existing one, a new one written in a temporary file (`atomic.rs`)
//!   flushed to disk as it is written (`write_back.rs`) and renamed over
//!   the target at the end, or `--append` in place under SQLite's write
//!   lock, all in one transaction;
//! - `trace.rs`: each trace into that transaction: the checks before
//!   anything is written, decoder → process model → encoder → writer on
//!   two threads (`pipeline.rs`), an empty file as a trace row with no
//!   records (through a one-thread [`Loader`](crate::load::Loader)), the
//!   trace row's end, then the indexes and views;
//! - [`follow`]: `import --follow`, a trace still being written into a
//!   database kept current as it grows ([`follow::run`]; its database in
//!   `follow/db.rs`, the follower and its snapshots in `follow/follower.rs`,
//!   the thread that writes the database in `follow/writer.rs`);
//! - `dataset.rs`: the same decoding into a Parquet dataset instead
//!   ([`import_to_dataset`]), each trace published as a whole;
//! - [`check_output`] and [`TempTarget`]: the same care for a report's
//!   output file (`-o FILE`): never a trace or a database written over,
//!   any other file only with `--force`, the file written beside and
//!   renamed into place;
//! - `errors.rs`: the messages an import fails with: SQLite and I/O
//!   failures reworded to name the target and say what would help.
//!
//! Knows nothing of the command line or of progress bars: it reports
//! through [`Progress`].

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod atomic;
mod dataset;
mod errors;
pub mod follow;
mod pipeline;
mod target;
mod trace;
mod write_back;

pub use dataset::import_to_dataset;
pub use target::{check_output, TempTarget};

use crate::decode::Abi;
use crate::process::rows::Totals;
use crate::Error;

/// What to do with an existing target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImportMode {
    /// Refuse an existing target.
    #[default]
    Create,
    /// Replace whatever is there (`--force`).
    Replace,
    /// Add the traces to an existing kt2sql database of the same schema
    /// version (`--append`); create it when missing.
    Append,
}

/// How long `--append` waits by default for another writer of the database.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(600);

/// How to import.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Existing target handling.
    pub mode: ImportMode,
    /// Decode as this ABI instead of detecting it.
    pub abi: Option<Abi>,
    /// Working directory of processes whose cwd is unknown (`--start-dir`).
    pub start_cwd: Option<Vec<u8>>,
    /// Keep GIO data bytes.
    pub keep_io_data: bool,
    /// Stop at the first damage instead of skipping it (`--strict`).
    pub strict: bool,
    /// How long `--append` waits for another writer to finish.
    pub busy_timeout: Duration,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            mode: ImportMode::default(),
            abi: None,
            start_cwd: None,
            keep_io_data: false,
            strict: false,
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
        }
    }
}

/// One stretch of a trace that could not be imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// Offset of the first byte not imported.
    pub offset: u64,
    /// Where records resumed; `None` when nothing after it could be read.
    pub resumed_at: Option<u64>,
    /// What was wrong there.
    pub why: String,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.resumed_at {
            Some(to) => write!(f, "bytes {}..{to} skipped: {}", self.offset, self.why),
            None => write!(f, "stopped at byte offset {}: {}", self.offset, self.why),
        }
    }
}

/// Told how far the import is; the CLI draws a progress bar with it.
pub trait Progress {
    /// A trace of `total_bytes` starts.
    fn start(&self, _path: &Path, _total_bytes: u64) {}
    /// `bytes_done` bytes and `records_done` records of the current trace
    /// are decoded (called once per batch written, every
    /// [`BATCH_ROWS`](crate::load::encode::BATCH_ROWS) rows, not per record).
    fn advance(&self, _bytes_done: u64, _records_done: u64) {}
    /// The current trace is done (or failed).
    fn finish(&self) {}
    /// Whether to stop (Ctrl-C): asked after every batch written and
    /// between the stages of an import, which then fails with
    /// [`Error::Interrupted`] and writes nothing.
    fn cancelled(&self) -> bool {
        false
    }
}

/// A [`Progress`] that shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;
impl Progress for NoProgress {}

/// One imported trace.
#[derive(Debug, Clone)]
pub struct TraceSummary {
    /// The file.
    pub path: PathBuf,
    /// Its `trace.trace_id`.
    pub trace_id: i64,
    /// Its dialect string.
    pub dialect: String,
    /// File size.
    pub size: u64,
    /// Bytes decoded into records.
    pub decoded_bytes: u64,
    /// The model's counts.
    pub totals: Totals,
    /// Issues written.
    pub issues: i64,
    /// Stretches that could not be imported (the records around them are in).
    pub damage: Vec<Damage>,
    /// The `trace_id` of a trace already in the database with the same
    /// size and fingerprint: most likely this file, imported again.
    pub same_as: Option<i64>,
}

/// What an import did.
#[derive(Debug, Clone)]
pub struct ImportSummary {
    /// The database written.
    pub db: PathBuf,
    /// Per trace, in order.
    pub traces: Vec<TraceSummary>,
    /// Distinct paths added to the `path` table.
    pub paths_added: i64,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl ImportSummary {
    /// Some trace ended in damage: imported, with data loss.
    pub fn data_loss(&self) -> bool {
        self.traces.iter().any(|t| !t.damage.is_empty())
    }

    /// Some trace gave nothing: an empty file among others (a single
    /// empty trace, or only empty ones, is refused before anything is
    /// written). Like data loss, the import is not all that was asked for.
    pub fn empty_trace(&self) -> bool {
        self.traces
            .iter()
            .any(|t| t.size == 0 && t.totals.records == 0)
    }
}

/// Import `traces` into the database `db`. On error nothing changes: an
/// existing `db` is as it was and no temporary file stays behind.
///
/// A new database (or `--force`) is written to a temporary file renamed
/// over `db` at the end; `--append` to an existing one writes in place,
/// inside one SQLite transaction that holds the database's write lock from
/// start to commit (`target.rs`).
pub fn import(
    traces: &[PathBuf],
    db: &Path,
    opts: &ImportOptions,
    progress: &dyn Progress,
) -> Result<ImportSummary, Error> {
    let started = Instant::now();
    trace::check_traces(traces, db, opts.abi)?;
    let (done, paths_added) = if target::check_target(db, opts.mode)? {
        target::append_in_place(traces, db, opts, progress)?
    } else {
        target::create(traces, db, opts, progress)
            .map_err(|e| errors::appeared(e, db, opts.mode))?
    };
    Ok(ImportSummary {
        db: db.to_owned(),
        traces: done,
        paths_added,
        elapsed: started.elapsed(),
    })
}

/// [`Error::Interrupted`] once the user asked to stop.
fn interrupted(db: &Path, progress: &dyn Progress) -> Result<(), Error> {
    match progress.cancelled() {
        true => Err(Error::Interrupted {
            path: db.to_owned(),
        }),
        false => Ok(()),
    }
}
