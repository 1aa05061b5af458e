//! `kt2sql tree`, `kt2sql files` (alias `namei`) and `kt2sql stats`: the
//! clap arguments and the glue to `kt2sql::report`. The reports themselves
//! (SQL, layout, escaping) live in the library.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use rusqlite::Connection;

use kt2sql::report::{self, files, stats, tree, Scope};

use super::anyhow_lite::Result;

/// Options every report shares.
#[derive(Debug, clap::Args)]
pub struct Common {
    /// The kt2sql database.
    #[arg(value_name = "DB")]
    pub db: PathBuf,
    /// Only this trace (a trace_id of table `trace`; see `kt2sql stats`).
    /// Default: every trace in the database.
    #[arg(long, value_name = "ID")]
    pub trace: Option<i64>,
}

/// `kt2sql tree`.
#[derive(Debug, clap::Args)]
pub struct TreeArgs {
    #[command(flatten)]
    pub common: Common,
    /// Only this process and its descendants (the first process with that
    /// pid when it was reused).
    #[arg(long, short = 'p', value_name = "PID")]
    pub pid: Option<i64>,
    /// Under each process image, the system calls it made.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TreeFormat::Text)]
    pub format: TreeFormat,
}

/// `tree --format`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TreeFormat {
    /// ptrace.py's indented text.
    Text,
    /// Nested JSON objects.
    Json,
    /// One row per image in printed order, with its depth.
    Csv,
    /// A Graphviz digraph (`| dot -Tsvg`).
    Dot,
}

/// `kt2sql files`.
#[derive(Debug, clap::Args)]
pub struct FilesArgs {
    #[command(flatten)]
    pub common: Common,
    /// Only paths looked up by this process and its descendants (the first
    /// process with that pid when it was reused).
    #[arg(long, short = 'p', value_name = "PID")]
    pub pid: Option<i64>,
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
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
}

/// `kt2sql stats`.
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub common: Common,
    /// How many of the busiest processes, and of the most frequent
    /// syscalls, to list.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: i64,
    /// Output format (csv: the syscall histogram's rows).
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
}

/// `--format` of `files` and `stats`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ReportFormat {
    /// Text for people.
    Text,
    /// JSON.
    Json,
    /// CSV with a header line.
    Csv,
}

/// Run `kt2sql tree`.
pub fn run_tree(args: TreeArgs) -> Result<ExitCode> {
    let conn = report::open(&args.common.db)?;
    let scope = scope(&conn, &args.common, args.pid)?;
    if let TreeFormat::Text = args.format {
        return per_trace(&conn, scope, |scope, out| {
            let t = tree::tree(&conn, scope, args.verbose)?;
            let shown = scope.pid.is_none() || !t.nodes.is_empty();
            if shown {
                t.write_text(out)?;
            }
            Ok(shown)
        });
    }
    let t = tree::tree(&conn, scope, args.verbose)?;
    emit(|out| match args.format {
        TreeFormat::Text => t.write_text(out),
        TreeFormat::Json => t.write_json(out),
        TreeFormat::Csv => t.write_csv(out),
        TreeFormat::Dot => t.write_dot(out),
    })
}

/// Run `kt2sql files`.
pub fn run_files(args: FilesArgs) -> Result<ExitCode> {
    let conn = report::open(&args.common.db)?;
    let opts = files::FilesOptions {
        scope: scope(&conn, &args.common, args.pid)?,
        all: args.all,
        callers: args.verbose,
        unresolved: args.unresolved,
    };
    let code = if let ReportFormat::Text = args.format {
        per_trace(&conn, opts.scope, |scope, out| {
            let f = files::files(&conn, files::FilesOptions { scope, ..opts })?;
            let shown = opts.scope.pid.is_none() || !f.entries.is_empty();
            if shown {
                f.write_text(out)?;
            }
            Ok(shown)
        })?
    } else {
        let f = files::files(&conn, opts)?;
        emit(|out| match args.format {
            ReportFormat::Text => f.write_text(out),
            ReportFormat::Json => f.write_json(out),
            ReportFormat::Csv => f.write_csv(out),
        })?
    };
    if !args.unresolved {
        let left = files::files(
            &conn,
            files::FilesOptions {
                unresolved: true,
                callers: false,
                ..opts
            },
        )?;
        let n = left.entries.len();
        if n > 0 {
            let (paths, their, them) = if n == 1 {
                ("path is", "its", "it")
            } else {
                ("paths are", "their", "them")
            };
            // The command that lists them, in the same scope.
            let mut list = format!("kt2sql files --unresolved {}", quote_path(&args.common.db));
            if let Some(pid) = args.pid {
                list.push_str(&format!(" -p {pid}"));
            }
            if let Some(t) = args.common.trace {
                list.push_str(&format!(" --trace {t}"));
            }
            if args.all {
                list.push_str(" -a");
            }
            eprintln!(
                "kt2sql: note: {n} relative {paths} not listed: {their} base directory is \
                 unknown ({list} lists {them}; importing with -d DIR, \
                 the directory the traced command started in, resolves {them})"
            );
        }
    }
    Ok(code)
}

/// A text report of a database holding several traces, `--trace` not
/// given: one part per trace, each under its heading and separated by a
/// blank line. `part` writes the report of one scope and says whether it
/// wrote anything (with `-p`, a trace without that pid is left out).
fn per_trace(
    conn: &Connection,
    scope: Scope,
    part: impl Fn(Scope, &mut dyn Write) -> Result<bool>,
) -> Result<ExitCode> {
    let traces = if scope.trace.is_none() {
        report::trace_paths(conn)?
    } else {
        Vec::new()
    };
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    if traces.len() <= 1 {
        part(scope, &mut out)?;
    } else {
        let mut first = true;
        for (id, path) in traces {
            let mut buf = Vec::new();
            if part(
                Scope {
                    trace: Some(id),
                    ..scope
                },
                &mut buf,
            )? {
                if !first {
                    writeln!(out)?;
                }
                first = false;
                report::write_trace_heading(&mut out, id, &path)?;
                out.write_all(&buf)?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Run `kt2sql stats`.
pub fn run_stats(args: StatsArgs) -> Result<ExitCode> {
    let conn = report::open(&args.common.db)?;
    check_trace(&conn, &args.common)?;
    let s = stats::stats(&conn, args.common.trace, args.top)?;
    emit(|out| match args.format {
        ReportFormat::Text => s.write_text(out),
        ReportFormat::Json => s.write_json(out),
        ReportFormat::Csv => s.write_csv(out),
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

/// The scope of a report: check `--trace` and `-p`, saying on stderr when
/// the pid was reused (`-p` covers every lifetime of it).
pub fn scope(conn: &Connection, c: &Common, pid: Option<i64>) -> Result<Scope> {
    check_trace(conn, c)?;
    if let Some(pid) = pid {
        let lives = report::lifetimes(conn, pid, c.trace)?;
        if lives.rows.is_empty() {
            let within = c.trace.map_or(String::new(), |t| format!(" in trace {t}"));
            return Err(format!("{}: no process has pid {pid}{within}", c.db.display()).into());
        }
        if lives.rows.len() > 1 {
            eprintln!(
                "kt2sql: note: pid {pid} was {} processes; showing each and its descendants \
                 (list them: kt2sql query {} pid-lifetimes --param pid={pid})",
                lives.rows.len(),
                quote_path(&c.db),
            );
        }
    }
    Ok(Scope {
        trace: c.trace,
        pid,
    })
}

/// Refuse a `--trace` that names no trace.
pub fn check_trace(conn: &Connection, c: &Common) -> Result<()> {
    let Some(id) = c.trace else {
        return Ok(());
    };
    if !report::has_trace(conn, id)? {
        return Err(format!(
            "{}: no trace {id} (see the trace_id column of `kt2sql stats`)",
            c.db.display()
        )
        .into());
    }
    Ok(())
}

/// A path as the user would type it again in a shell hint.
fn quote_path(p: &Path) -> String {
    let s = kt2sql::text::path(p);
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
