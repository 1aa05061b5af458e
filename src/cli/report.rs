//! `kt2sql tree`, `kt2sql files` (alias `namei`) and `kt2sql stats`: the
//! clap arguments and the glue to `kt2sql::report`. The reports themselves
//! (SQL, layout, escaping) live in the library.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use rusqlite::Connection;

use kt2sql::report::{self, files, stats, tree, Scope};

use super::anyhow_lite::Result;
use super::args::{check_trace, Db, DbScope, Format, FormatArg, Formats, Output, Trace, Under};
use super::notes;

/// `kt2sql tree`.
#[derive(Debug, clap::Args)]
pub struct TreeArgs {
    #[command(flatten)]
    pub target: DbScope,
    /// Under each process image, the system calls it made.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Beside each process image, how long it ran, how it ended (exit
    /// status, signal, or `exec`) and its argv (where the trace records
    /// it, else its name); columns argv, start_ts, dur, exit_status and
    /// exit_signal in csv and json.
    #[arg(long, short = 'l')]
    pub long: bool,
    #[command(flatten)]
    pub format: FormatArg<TreeFormats>,
    #[command(flatten)]
    pub output: Output,
}

/// `tree --format`.
#[derive(Debug)]
pub enum TreeFormats {}

impl Formats for TreeFormats {
    const TAKES: &'static [Format] = &[
        Format::Text,
        Format::Csv,
        Format::Json,
        Format::Jsonl,
        Format::Dot,
    ];
    const HELP: &'static str =
        "Output format (csv and jsonl: one row per image in printed order, with its depth; with \
         -v each image's calls after it, a first column `section` saying which)";
}

/// `kt2sql files`.
#[derive(Debug, clap::Args)]
pub struct FilesArgs {
    #[command(flatten)]
    pub target: DbScope,
    /// Paths of failed calls too (and of calls that never returned).
    #[arg(long, short = 'a')]
    pub all: bool,
    /// Under each path, one line per system call naming who made it.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// List instead the lookups left relative, their base directory
    /// unknown (import with -d DIR to resolve those of processes with no parent in the trace).
    #[arg(long)]
    pub unresolved: bool,
    #[command(flatten)]
    pub under: Under,
    #[command(flatten)]
    pub format: FormatArg<FilesFormats>,
}

/// `files --format`.
#[derive(Debug)]
pub enum FilesFormats {}

impl Formats for FilesFormats {
    const TAKES: &'static [Format] = &[Format::Text, Format::Csv, Format::Json, Format::Jsonl];
}

/// `kt2sql stats`.
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub db: Db,
    #[command(flatten)]
    pub trace: Trace,
    /// How many of the busiest processes, and of the most frequent
    /// syscalls, to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: i64,
    #[command(flatten)]
    pub format: FormatArg<StatsFormats>,
}

/// `stats --format`.
#[derive(Debug)]
pub enum StatsFormats {}

impl Formats for StatsFormats {
    const TAKES: &'static [Format] = &[Format::Text, Format::Csv, Format::Json, Format::Jsonl];
    const HELP: &'static str =
        "Output format (csv: every section in one table, a first column `section` naming each \
         row's; jsonl: the same rows, one object per line, each with its section's columns)";
}

/// Run `kt2sql tree`.
pub fn run_tree(args: TreeArgs) -> Result<ExitCode> {
    let conn = report::open(&args.target.db.path)?;
    let scope = args.target.scope(&conn)?;
    let format = args.format.with_output(args.output.path.as_deref())?;
    let mut out = args.output.open()?;
    if let Format::Text = format {
        per_trace(
            &conn,
            scope,
            &mut out,
            |scope| {
                let t = tree::report(&conn, scope, args.verbose, args.long)?;
                Ok((scope.pid.is_none() || !t.is_empty()?).then_some(t))
            },
            |t, out| Ok(t.write_text(out)?),
        )?;
    } else {
        let t = tree::report(&conn, scope, args.verbose, args.long)?;
        match format {
            Format::Csv => t.write_csv(&mut out),
            Format::Json => t.write_json(&mut out),
            Format::Jsonl => t.write_jsonl(&mut out),
            Format::Dot => t.write_dot(&mut out),
            f => unreachable!("tree takes no --format {}", f.name()),
        }
        .map_err(|e| out.error(e))?;
    }
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// Run `kt2sql files`.
pub fn run_files(args: FilesArgs) -> Result<ExitCode> {
    let conn = report::open(&args.target.db.path)?;
    if args.unresolved && (args.under.dir.is_some() || !args.under.exclude.is_empty()) {
        return Err(
            "--under and --exclude name absolute paths: --unresolved lists the \
                    lookups left relative, which neither can select"
                .into(),
        );
    }
    let (under, exclude) = super::build::path_filters(&conn, &args.target, args.under)?;
    let opts = files::FilesOptions {
        scope: args.target.scope(&conn)?,
        all: args.all,
        callers: args.verbose,
        unresolved: args.unresolved,
        under: under.as_deref(),
        exclude: &exclude,
    };
    let code = if let Format::Text = args.format.format {
        let stdout = io::stdout();
        let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
        per_trace(
            &conn,
            opts.scope,
            &mut out,
            |scope| {
                let opts = files::FilesOptions { scope, ..opts };
                Ok((opts.scope.pid.is_none() || !files::is_empty(&conn, opts)?).then_some(opts))
            },
            |opts, out| Ok(files::write_text(&conn, opts, out)?),
        )?
    } else {
        let stdout = io::stdout();
        let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
        match args.format.format {
            Format::Csv => files::write_csv(&conn, opts, &mut out)?,
            Format::Json => files::write_json(&conn, opts, &mut out)?,
            Format::Jsonl => files::write_jsonl(&conn, opts, &mut out)?,
            f => unreachable!("files takes no --format {}", f.name()),
        }
        out.flush()?;
        ExitCode::SUCCESS
    };
    if !args.unresolved {
        let n = files::count(
            &conn,
            files::FilesOptions {
                unresolved: true,
                callers: false,
                ..opts
            },
        )?;
        if n > 0 {
            let (paths, their, them) = if n == 1 {
                ("path is", "its", "it")
            } else {
                ("paths are", "their", "them")
            };
            // The command that lists them, in the same scope.
            let mut list = notes::list_command(&args.target.db.path, opts.scope);
            if args.all {
                list.push_str(" -a");
            }
            // -d advised only where a trace was imported without it.
            let why = notes::why_relative(&report::start_dirs(&conn, opts.scope)?, them, their);
            eprintln!(
                "kt2sql: note: {n} relative {paths} not listed: {their} base directory is \
                 unknown ({list} lists {them}; {why})"
            );
        }
    }
    Ok(code)
}

/// A text report of a database holding several traces, `--trace` not
/// given: one part per trace, each under its heading and separated by a
/// blank line. `part` gathers the report of one scope, `None` when it
/// shows nothing (with `-p`, a trace without that pid is left out);
/// `write` writes it, straight to `out` (a part may be too big to
/// hold: `tree -v` streams its calls).
fn per_trace<T>(
    conn: &Connection,
    scope: Scope,
    out: &mut dyn Write,
    part: impl Fn(Scope) -> Result<Option<T>>,
    write: impl Fn(T, &mut dyn Write) -> Result<()>,
) -> Result<ExitCode> {
    let traces = if scope.trace.is_none() {
        report::trace_paths(conn)?
    } else {
        Vec::new()
    };
    if traces.len() <= 1 {
        if let Some(p) = part(scope)? {
            write(p, out)?;
        }
    } else {
        let mut first = true;
        for (id, path) in traces {
            let scope = Scope {
                trace: Some(id),
                ..scope
            };
            let Some(p) = part(scope)? else {
                continue;
            };
            if !first {
                writeln!(out)?;
            }
            first = false;
            report::write_trace_heading(out, id, &path)?;
            write(p, out)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Run `kt2sql stats`.
pub fn run_stats(args: StatsArgs) -> Result<ExitCode> {
    let conn = report::open(&args.db.path)?;
    check_trace(&conn, &args.db, args.trace)?;
    // The critical path is walked into a temporary table (stats' own SQL).
    let s = conn.in_temp(|c| stats::stats(c, args.trace.id, args.top))?;
    emit(|out| match args.format.format {
        Format::Text => s.write_text(out),
        Format::Csv => s.write_csv(out),
        Format::Json => s.write_json(out),
        Format::Jsonl => s.write_jsonl(out),
        f => unreachable!("stats takes no --format {}", f.name()),
    })
}

/// Write through a buffer to stdout; a closed pipe surfaces as an
/// `io::Error` that `main` turns into a quiet exit.
pub fn emit(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<ExitCode> {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    f(&mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
