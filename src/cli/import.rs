//! `kt2sql import TRACE... DB` (also `kt2sql TRACE... DB`): the clap
//! arguments, the indicatif progress bar, Ctrl-C and the summary line. The
//! import itself is `kt2sql::import`.
//!
//! Ctrl-C (SIGINT; SIGTERM and SIGHUP too) during an import makes it stop at
//! its next check (after every batch of rows written, and between stages),
//! remove its temporary file (or roll back its `--append` transaction) and
//! exit with code 130; the target, or the database given with `--append`,
//! is left exactly as it was. A second
//! Ctrl-C exits at once (the next import into the same target removes the
//! temporary file left behind).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use kt2sql::decode::Abi;
use kt2sql::import::{self, ImportMode, ImportOptions, ImportSummary, Progress};
use kt2sql::schema::{self, Existing};

use super::anyhow_lite::Result;
use super::{args, hint};

/// `kt2sql import`.
#[derive(Debug, clap::Args)]
#[command(
    override_usage = "kt2sql import [OPTIONS] TRACE... DB\n       kt2sql [OPTIONS] TRACE... DB"
)]
pub struct ImportArgs {
    /// The ktrace.out files to import (each becomes one row of table
    /// `trace`; - is standard input), then the SQLite database to write,
    /// last. A new database is
    /// written to a temporary file beside it and renamed into place only
    /// when the import succeeds. Options may come anywhere, even between
    /// the traces and the database.
    #[arg(required = true, value_name = "TRACE... DB", num_args = 1..)]
    pub paths: Vec<PathBuf>,
    /// Replace DB if it is a kt2sql database (never a trace or another file).
    #[arg(long, short = 'f', conflicts_with = "append")]
    pub force: bool,
    /// Add the traces to DB, an existing kt2sql database (ids continue),
    /// in place and in one transaction: other appends wait, and if the
    /// import fails DB is left as it was.
    #[arg(long, short = 'a')]
    pub append: bool,
    /// With --append: how long to wait for another process writing DB
    /// before giving up.
    #[arg(long, value_name = "SECONDS", default_value_t = import::DEFAULT_BUSY_TIMEOUT.as_secs())]
    pub busy_timeout: u64,
    /// No progress bar and no summary line (warnings and errors still go to
    /// stderr).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Decode as this dialect instead of detecting it, e.g. freebsd-v0:le:32
    /// (LAYOUT:ORDER:BITS[:VARIANT]).
    #[arg(long, value_name = "ABI")]
    pub dialect: Option<Abi>,
    /// Working directory of the traced command when tracing began, so its
    /// relative paths can be made absolute: a directory on the traced
    /// machine, so an absolute path.
    #[arg(long = "start-dir", short = 'd', value_name = "DIR")]
    pub start_dir: Option<PathBuf>,
    /// Keep the bytes of read/write data (GIO records) in event.data; by
    /// default only their length is kept.
    #[arg(long)]
    pub keep_io_data: bool,
    /// Stop at the first damaged record and import nothing (exit code 2),
    /// instead of skipping the damage and importing the rest (exit code 1).
    #[arg(long)]
    pub strict: bool,
    /// What to write: an SQLite database, or (parquet) a Parquet dataset
    /// directory for DuckDB and Spark, given last instead of DB: created
    /// when missing, else added to, each trace published whole; a trace
    /// already there (the same file) is refused, or replaced with --force.
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = To::Sqlite)]
    pub to: To,
    /// Follow a trace that is still being written (as dump -l does): DB,
    /// written in place in WAL mode, is kept current as the file grows,
    /// committed at least every half second, and readers may query it
    /// meanwhile. Ends when every traced process has exited and the file
    /// stops growing, after --idle, or on Ctrl-C; run again on the same
    /// trace and DB to resume a follow that was killed.
    #[arg(long, short = 'l', conflicts_with_all = ["append", "force"])]
    pub follow: bool,
    /// With --follow: end after this many seconds without new bytes.
    #[arg(long, value_name = "SECONDS", requires = "follow")]
    pub idle: Option<f64>,
}

/// `import --to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum To {
    /// An SQLite database.
    Sqlite,
    /// A Parquet dataset directory.
    Parquet,
}

/// Exit code of an interrupted import (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Set by the signal handler; the import polls it through [`Progress::cancelled`].
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Turn Ctrl-C into a cancellation request; a second one exits at once.
fn catch_interrupts() {
    // Fails only when a handler is already set (then it is ours).
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(EXIT_INTERRUPTED.into());
        }
    });
}

/// The traces and the database, split and checked: the database is the
/// last path and there is at least one trace before it; `-d` is absolute.
/// A trace `-` is standard input, read once: given once at most, and the
/// database is never `-`.
fn check(args: &ImportArgs) -> Result<(Vec<PathBuf>, &Path)> {
    let Some((db, traces)) = args.paths.split_last().filter(|(_, t)| !t.is_empty()) else {
        let only = kt2sql::text::path(&args.paths[0]);
        // `kt2sql e.db`: a database given where the traces go.
        if let Ok(Existing::Current | Existing::OtherVersion(_)) = schema::inspect(&args.paths[0]) {
            return Err(format!(
                "{}; to add traces to it: kt2sql --append TRACE... {only}",
                hint::database_not_trace(&args.paths[0])
            )
            .into());
        }
        return Err(format!(
            "the database is missing: give it after the traces (kt2sql TRACE... DB); \
             only {only} was given"
        )
        .into());
    };
    if let Some(dir) = &args.start_dir {
        if !dir.as_os_str().as_encoded_bytes().starts_with(b"/") {
            return Err(format!(
                "-d {}: not an absolute path; -d names the directory the traced command \
                 started in, on the traced machine, so it must begin with /",
                kt2sql::text::path(dir)
            )
            .into());
        }
    }
    if db.as_os_str() == "-" {
        return Err("the database cannot be standard output (-): name a file".into());
    }
    if traces.iter().filter(|t| t.as_os_str() == "-").count() > 1 {
        return Err("- (standard input) given twice: it can be read once".into());
    }
    let traces = traces
        .iter()
        .map(|t| args::trace_input(t))
        .collect::<Result<_>>()?;
    Ok((traces, db))
}

/// Run `kt2sql import`.
pub fn run(args: ImportArgs) -> Result<ExitCode> {
    let (traces, db) = check(&args)?;
    catch_interrupts();
    let opts = ImportOptions {
        mode: match (args.force, args.append) {
            (true, _) => ImportMode::Replace,
            (_, true) => ImportMode::Append,
            _ => ImportMode::Create,
        },
        abi: args.dialect,
        start_cwd: args
            .start_dir
            .as_ref()
            .map(|d| d.as_os_str().as_encoded_bytes().to_vec()),
        keep_io_data: args.keep_io_data,
        strict: args.strict,
        busy_timeout: std::time::Duration::from_secs(args.busy_timeout),
    };
    let bar = Bar::new(!args.quiet && std::io::stderr().is_terminal());
    let result = match (args.follow, args.to) {
        (true, _) => follow(&args, &traces, db, opts),
        (false, To::Sqlite) => import::import(&traces, db, &opts, &bar),
        (false, To::Parquet) => import::import_to_dataset(&traces, db, &opts, &bar),
    };
    let summary = match result {
        Err(e @ kt2sql::Error::Interrupted { .. }) => {
            eprintln!("kt2sql: {}", kt2sql::text::vis(e.to_string().as_bytes()));
            return Ok(ExitCode::from(EXIT_INTERRUPTED));
        }
        other => other.map_err(hint::explain)?,
    };
    for t in &summary.traces {
        if let Some(id) = t.same_as {
            eprintln!(
                "kt2sql: warning: {}: the same file (size and fingerprint) is already in {} \
                 as trace {id}; imported again as trace {}",
                kt2sql::text::path(&t.path),
                kt2sql::text::path(&summary.db),
                t.trace_id
            );
        }
        if t.size == 0 {
            eprintln!(
                "kt2sql: warning: {}: empty trace: no records",
                kt2sql::text::path(&t.path)
            );
        }
        for d in t.damage.iter().take(5) {
            eprintln!("kt2sql: warning: {}: {d}", kt2sql::text::path(&t.path));
        }
        if t.damage.len() > 5 {
            eprintln!(
                "kt2sql: warning: {}: {} more damaged stretches (see table import_issue)",
                kt2sql::text::path(&t.path),
                t.damage.len() - 5
            );
        }
        if t.totals.dropped > 0 {
            eprintln!(
                "kt2sql: warning: {}: the kernel dropped events before {} {} \
                 (see import_issue kind dropped-events)",
                kt2sql::text::path(&t.path),
                t.totals.dropped,
                if t.totals.dropped == 1 {
                    "record"
                } else {
                    "records"
                }
            );
        }
        if t.totals.unresolved > 0 {
            eprintln!(
                "kt2sql: warning: {}: {} of {} lookups stayed relative (base directory \
                 unknown){}; kt2sql files --unresolved lists them",
                kt2sql::text::path(&t.path),
                t.totals.unresolved,
                t.totals.namei,
                if args.start_dir.is_none() {
                    "; -d DIR, the directory the traced command started in, resolves them"
                } else {
                    ""
                }
            );
        }
        if !t.damage.is_empty() {
            eprintln!(
                "kt2sql: warning: {}: imported {} records with data loss",
                kt2sql::text::path(&t.path),
                t.totals.records
            );
        }
    }
    if !args.quiet {
        eprintln!("{}", summary_line(&summary));
    }
    Ok(if summary.data_loss() || summary.empty_trace() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `import --follow`: one trace into a new database (or the one an
/// unfinished follow of it left), until it ends; Ctrl-C and SIGTERM end it
/// with the database complete.
fn follow(
    args: &ImportArgs,
    traces: &[PathBuf],
    db: &Path,
    opts: ImportOptions,
) -> std::result::Result<ImportSummary, kt2sql::Error> {
    use kt2sql::import::follow::{self, Ended, FollowOptions};
    let [trace] = traces else {
        return Err(kt2sql::Error::Refused {
            path: db.to_owned(),
            reason: "--follow follows one trace: give one TRACE and the DB".into(),
        });
    };
    if args.to != To::Sqlite {
        return Err(kt2sql::Error::Refused {
            path: db.to_owned(),
            reason: "--follow writes an SQLite database, not a Parquet dataset".into(),
        });
    }
    let idle = match args.idle {
        Some(s) if !(s.is_finite() && s > 0.0) => {
            return Err(kt2sql::Error::Refused {
                path: db.to_owned(),
                reason: format!("--idle {s}: give a number of seconds above 0"),
            })
        }
        s => s.map(std::time::Duration::from_secs_f64),
    };
    // The first Ctrl-C (or SIGTERM) ends the follow with the database
    // complete; a second one exits at once (catch_interrupts).
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let on_signal = stop.clone();
    std::thread::spawn(move || loop {
        if INTERRUPTED.load(Ordering::SeqCst) {
            on_signal.store(true, Ordering::SeqCst);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    });
    let fo = FollowOptions {
        idle,
        import: opts,
        ..FollowOptions::new(trace, db)
    };
    let t0 = std::time::Instant::now();
    let done = follow::run(&fo, stop)?;
    if !args.quiet {
        let why = match done.ended {
            Ended::Exited => "every traced process exited",
            Ended::Idle => "no new bytes for the --idle time",
            Ended::Stopped => "stopped",
        };
        let again = if done.resumed {
            " (resumed: the trace was read again from its start)"
        } else {
            ""
        };
        eprintln!(
            "kt2sql: followed {} until {why}{again}",
            kt2sql::text::path(trace)
        );
    }
    Ok(ImportSummary {
        db: db.to_owned(),
        traces: vec![done.trace],
        paths_added: 0,
        elapsed: t0.elapsed(),
    })
}

/// `kt2sql: trace.db: 609 records, 1 process, 230 calls, 192 lookups (101 unresolved), 1 issue in 0.04s`
fn summary_line(s: &ImportSummary) -> String {
    let sum = |f: fn(&import::TraceSummary) -> i64| s.traces.iter().map(f).sum::<i64>();
    let n = |count: i64, one: &str, many: &str| {
        format!("{count} {}", if count == 1 { one } else { many })
    };
    let traces = if s.traces.len() > 1 {
        format!("{} traces, ", s.traces.len())
    } else {
        String::new()
    };
    format!(
        "kt2sql: {}: {traces}{}, {}, {}, {} ({} unresolved), {} in {:.2}s",
        kt2sql::text::path(&s.db),
        n(sum(|t| t.totals.records), "record", "records"),
        n(sum(|t| t.totals.processes), "process", "processes"),
        n(sum(|t| t.totals.calls), "call", "calls"),
        n(sum(|t| t.totals.namei), "lookup", "lookups"),
        sum(|t| t.totals.unresolved),
        n(sum(|t| t.issues), "issue", "issues"),
        s.elapsed.as_secs_f64()
    )
}

/// The progress bar: bytes of the current trace, records/s and ETA.
/// Hidden when stderr is not a terminal or with `--quiet`. It is drawn only
/// once the first trace's size is known: a bar of length 0 is drawn full
/// (`[=====] 0 B/0 B`).
struct Bar {
    bar: ProgressBar,
    shown: bool,
}

impl Bar {
    fn new(shown: bool) -> Bar {
        let style = ProgressStyle::with_template(
            "{prefix:.bold} [{wide_bar}] {bytes}/{total_bytes} {msg} ETA {eta}",
        )
        .expect("valid template")
        .progress_chars("=> ");
        Bar {
            bar: ProgressBar::hidden().with_style(style),
            shown,
        }
    }
}

impl Progress for Bar {
    fn start(&self, path: &Path, total_bytes: u64) {
        self.bar.set_length(total_bytes);
        self.bar.reset();
        let name = path
            .file_name()
            .unwrap_or(path.as_os_str())
            .to_string_lossy();
        let short: String = name.chars().take(24).collect();
        self.bar.set_prefix(short);
        if self.shown && total_bytes > 0 && self.bar.is_hidden() {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    fn advance(&self, bytes_done: u64, records_done: u64) {
        let secs = self.bar.elapsed().as_secs_f64().max(1e-3);
        let rate = records_done as f64 / secs;
        self.bar.set_message(if rate >= 1e4 {
            format!("{:.0}k records/s", rate / 1e3)
        } else {
            format!("{rate:.0} records/s")
        });
        self.bar.set_position(bytes_done);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn cancelled(&self) -> bool {
        INTERRUPTED.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        super::super::Cli::command().debug_assert();
    }

    #[test]
    fn the_bar_is_not_drawn_before_a_trace_of_known_size_starts() {
        use kt2sql::import::Progress;
        let bar = super::Bar::new(true);
        assert!(bar.bar.is_hidden(), "drawn before the size is known");
        bar.start(std::path::Path::new("empty.ktrace"), 0);
        assert!(
            bar.bar.is_hidden(),
            "an empty trace would draw a full bar at 0 B/0 B"
        );
        bar.start(std::path::Path::new("build.ktrace"), 18521);
        assert_eq!(bar.bar.length(), Some(18521));
        assert_eq!(bar.bar.position(), 0);
    }
}
