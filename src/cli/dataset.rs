//! `kt2sql export DB DIR`: a database's traces into a Parquet dataset
//! (`kt2sql::dataset`), and the summary line.

use std::path::PathBuf;
use std::process::ExitCode;

use kt2sql::dataset::{export, OnDuplicate};

use super::anyhow_lite::Result;
use super::{args, hint};

/// `kt2sql export`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "DIR holds dataset.json and one directory per table, with one \
trace_key=KEY directory per trace: read it with DuckDB, Spark or any Parquet reader \
(docs/datasets.md). Traces of many databases, from many machines, can be exported into \
one DIR; a trace already there (the same file) is refused unless --force."
)]
pub struct ExportArgs {
    #[command(flatten)]
    pub db: args::Db,
    /// The dataset directory: created when missing, added to when it is
    /// a kt2sql dataset of the same schema version.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Replace a trace the dataset already holds (the same file) instead
    /// of refusing to export (--replace is taken too).
    #[arg(long, short = 'f', alias = "replace")]
    pub force: bool,
    /// No summary line.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Run `kt2sql export`.
pub fn run(args: ExportArgs) -> Result<ExitCode> {
    let t0 = std::time::Instant::now();
    let on_dup = if args.force {
        OnDuplicate::Replace
    } else {
        OnDuplicate::Refuse
    };
    let done = export::export(&args.db.path, &args.dir, on_dup).map_err(hint::explain)?;
    if !args.quiet {
        let rows: u64 = done.iter().flat_map(|e| &e.rows).sum();
        eprintln!(
            "kt2sql: {}: {} {}, {rows} rows in {:.2}s",
            kt2sql::text::path(&args.dir),
            done.len(),
            if done.len() == 1 { "trace" } else { "traces" },
            t0.elapsed().as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}
