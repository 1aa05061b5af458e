//! The command line: clap types and one function per subcommand that turns
//! them into library calls. The only module that knows clap, indicatif or
//! the terminal (ratatui, crossterm: `watch.rs`);
//! library functions never take clap types.

mod args;
pub mod argv;
mod build;
mod compile;
mod dataset;
mod diff;
mod dump;
mod hint;
mod import;
mod manual;
mod notes;
mod output;
mod report;
mod serve;
mod shell;
mod sql;
mod timeline;
mod watch;
mod watch_follow;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Turn BSD ktrace.out files into SQLite databases.
#[derive(Debug, Parser)]
#[command(name = "kt2sql", version, about, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the records of a trace as kdump(1) does (kdump's options), or
    /// as JSON Lines.
    Dump(dump::DumpArgs),
    /// Import ktrace.out files into an SQLite database (the default:
    /// `kt2sql TRACE... DB` means `kt2sql import TRACE... DB`).
    Import(import::ImportArgs),
    /// Print the process tree as ptrace.py -t did: an exec is a sibling,
    /// a fork a child.
    Tree(report::TreeArgs),
    /// List the absolute paths successful calls looked up (ptrace.py -n).
    #[command(visible_alias = "namei")]
    Files(report::FilesArgs),
    /// Summarise a database: traces, counts, import issues, the busiest
    /// processes and a syscall histogram.
    Stats(report::StatsArgs),
    /// Run SQL on a database, reading only, for people without sqlite3.
    Sql(sql::SqlArgs),
    /// Run a canned query from queries/*.sql (--list shows them).
    Query(sql::QueryArgs),
    /// Print the documented schema (tables, indexes, views), or one object.
    Schema(sql::SchemaArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(shell::CompletionsArgs),
    /// Print the manual page kt2sql(1) in roff, or write every page into a
    /// directory.
    Man(shell::ManArgs),
    /// List the build's sources: paths it read and never wrote or removed.
    Inputs(build::InputsArgs),
    /// List what the build left behind, with the command that wrote each.
    Outputs(build::PathsArgs),
    /// List build hazards: double writes, races, paths used then changed,
    /// failed lookups of paths the build created later, reads outside the
    /// allowed directories.
    Lint(build::LintArgs),
    /// List what files were made from: the commands and their prerequisites
    /// (--sources: the leaf sources); `--format make` writes a depfile.
    Deps(build::DepsArgs),
    /// List what was built from files, directly and transitively: the
    /// commands that would rerun and the paths they would rebuild.
    Rdeps(build::RdepsArgs),
    /// Draw the build as a Graphviz digraph: commands and the files they
    /// read and wrote, or (--commands) command -> command edges.
    Graph(build::GraphArgs),
    /// Write compile_commands.json (for clangd, clang-tidy) from the
    /// compiler executions whose argv the trace recorded (OpenBSD
    /// `ktrace -t x`, NetBSD `ktrace -t a`, FreeBSD kernels from 2025 on;
    /// Darwin records none); never a rebuilt command line.
    CompileCommands(compile::CompileCommandsArgs),
    /// Write the build's timeline: Chrome Trace Event JSON for the Perfetto
    /// UI, or an SVG picture, with the critical path highlighted.
    Timeline(timeline::TimelineArgs),
    /// Compare two builds: commands added, removed and changed, inputs and
    /// outputs, hazards, time and the critical path (exit 1 when they
    /// differ, as diff(1)).
    Diff(diff::DiffArgs),
    /// Write a database's traces as a Parquet dataset for DuckDB and Spark:
    /// one directory per table, one partition per trace.
    Export(dataset::ExportArgs),
    /// Look at a database in the browser: Datasette, read-only, on
    /// 127.0.0.1, with every table described, the canned queries, the
    /// timeline, the build graph and charts (--write-config DIR writes the
    /// configuration instead).
    Serve(serve::ServeArgs),
    /// Watch a build while `import --follow` keeps its database current:
    /// what runs now and for how long, what failed, how far the import is.
    Watch(watch::WatchArgs),
}

/// Run the parsed command line.
pub fn run(cli: Cli) -> anyhow_lite::Result<ExitCode> {
    match cli.command {
        Command::Dump(args) => dump::run(args),
        Command::Import(args) => import::run(args),
        Command::Tree(args) => report::run_tree(args),
        Command::Files(args) => report::run_files(args),
        Command::Stats(args) => report::run_stats(args),
        Command::Sql(args) => sql::run_sql(args),
        Command::Query(args) => sql::run_query(args),
        Command::Schema(args) => sql::run_schema(args),
        Command::Completions(args) => shell::run_completions(args),
        Command::Man(args) => shell::run_man(args),
        Command::Inputs(args) => build::run_paths("inputs", args.paths, args.system),
        Command::Outputs(args) => build::run_paths("outputs", args, false),
        Command::Lint(args) => build::run_lint(args),
        Command::Deps(args) => build::run_deps(args),
        Command::Rdeps(args) => build::run_rdeps(args),
        Command::Graph(args) => build::run_graph(args),
        Command::CompileCommands(args) => compile::run(args),
        Command::Timeline(args) => timeline::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Export(args) => dataset::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Watch(args) => watch::run(args),
    }
}

/// Minimal error plumbing for the binary: any error with a cause chain.
pub mod anyhow_lite {
    /// A boxed error.
    pub type Error = Box<dyn std::error::Error + Send + Sync + 'static>;
    /// Result with a boxed error.
    pub type Result<T> = std::result::Result<T, Error>;
}
