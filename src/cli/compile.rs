//! `kt2sql compile-commands`: the clap arguments, the output file (put in
//! place only once there is something to write), and the messages: the error
//! naming which recordings hold argv when this one holds none, and the
//! notes on compiler executions left out. The JSON itself is written by
//! `kt2sql::report::compile_commands`.

use std::process::ExitCode;

use kt2sql::build::compile_db::Summary;
use kt2sql::build::deps::Tree;
use kt2sql::report::{self, compile_commands, Database, Scope};

use super::anyhow_lite::Result;
use super::args::{output_format, DbScope, Format, Output, Under};
use super::build::path_filters;

/// `kt2sql compile-commands`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "-o FILE (e.g. compile_commands.json) is not created, nor an existing \
one touched, when the trace holds no argv. --under and --exclude choose entries by the path \
of their source file."
)]
pub struct CompileCommandsArgs {
    #[command(flatten)]
    pub target: DbScope,
    #[command(flatten)]
    pub output: Output,
    /// Keep the entries whose source file the build removed (configure's
    /// conftest.c, a probe in /tmp), which are left out by default: as Bear
    /// does, only sources that exist after the build are entries.
    #[arg(long)]
    pub keep_removed: bool,
    // --under, --exclude: on the path of each entry's source file.
    #[command(flatten)]
    pub under: Under,
}

/// Run `kt2sql compile-commands`.
pub fn run(args: CompileCommandsArgs) -> Result<ExitCode> {
    // Its one format: `-o x.csv` is refused, as every command refuses an
    // extension it cannot write.
    output_format(&[Format::Json], args.output.path.as_deref())?;
    let db = report::open(&args.target.db.path)?;
    let scope = args.target.build_scope(&db, "compile-commands")?;
    let (under, exclude) = path_filters(&db, &args.target, args.under)?;
    let tree = Tree {
        under: under.as_deref(),
        exclude: &exclude,
    };
    let mut out = args.output.open()?;
    let sum = compile_commands::write(&db, scope, args.keep_removed, tree, &mut out)
        .map_err(|e| out.error(e))?;
    if sum.with_argv == 0 {
        // Dropping `out` removes its temporary file: FILE is not made.
        return Err(no_argv(&db, scope)?.into());
    }
    out.commit()?;
    notes(&sum);
    Ok(ExitCode::SUCCESS)
}

/// The error for a scope without argv: which recordings hold it, and what
/// the traces in scope are.
fn no_argv(db: &Database, scope: Scope) -> Result<String> {
    let within = match scope.pid {
        Some(pid) => format!("no command of pid {pid} or its descendants"),
        None => "no command".to_string(),
    };
    let traces: Vec<String> = report::trace_systems(db, scope.trace)?
        .into_iter()
        .map(|(id, system, dialect)| {
            let why = match system.as_str() {
                "openbsd" => "recorded without `ktrace -t x`",
                "netbsd" => "recorded without `ktrace -t a`",
                "freebsd" => "no ARGS records",
                _ => "its ktrace records no argv",
            };
            format!("trace {id} ({dialect}: {why})")
        })
        .collect();
    Ok(format!(
        "{}: {within} has its argv recorded, and kt2sql never rebuilds a command line \
         from other records. argv is recorded by OpenBSD `ktrace -t x` (ARGS records), \
         NetBSD `ktrace -t a` (ARG records) and FreeBSD kernels from 2025 on (ARGS \
         records); Darwin records none. Here: {}",
        db.path.display(),
        traces.join(", ")
    ))
}

/// Say on stderr what was left out, and why the array is empty.
fn notes(sum: &Summary) {
    let note = |s: String| eprintln!("kt2sql: note: {s}");
    if sum.entries == 0 && sum.outside > 0 {
        note(format!(
            "{} {} whose source is outside --under or in an --exclude directory: left out",
            sum.outside,
            if sum.outside == 1 { "entry" } else { "entries" }
        ));
    }
    if sum.entries == 0 && sum.removed == 0 && sum.outside == 0 {
        note(format!(
            "no compiler execution with a source file among the commands whose argv \
             the trace recorded ({}): wrote an empty array",
            sum.with_argv
        ));
    }
    if sum.removed > 0 {
        note(format!(
            "{} {} whose source the build removed (a configure probe, a temporary): \
             left out (--keep-removed keeps them)",
            sum.removed,
            if sum.removed == 1 { "entry" } else { "entries" }
        ));
    }
    if sum.without_argv > 0 {
        note(format!(
            "{} of a compiler program without argv recorded: left out",
            executions(sum.without_argv, "execution")
        ));
    }
    if sum.without_cwd > 0 {
        note(format!(
            "{} without a known working directory: left out (import with -d DIR, \
             the directory the traced command started in)",
            executions(sum.without_cwd, "compiler execution")
        ));
    }
    if sum.not_utf8 > 0 {
        note(format!(
            "{} with an argv or directory that is not UTF-8, which JSON cannot hold \
             exactly: left out",
            executions(sum.not_utf8, "compiler execution")
        ));
    }
}

/// `1 compiler execution`, `2 compiler executions`.
fn executions(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}
