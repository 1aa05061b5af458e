//! The command line: clap types and one function per subcommand that turns
//! them into library calls. The only module that knows clap or indicatif;
//! library functions never take clap types.

mod dump;
mod import;
mod report;
mod sql;
mod timeline;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use kt2sql::decode::Abi;

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
    /// Print the records of a trace as text (kdump -H -T columns) or JSON Lines.
    Dump(DumpArgs),
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
    /// Write the build's timeline: Chrome Trace Event JSON for the Perfetto
    /// UI, or an SVG picture, with the critical path highlighted.
    Timeline(timeline::TimelineArgs),
}

/// `kt2sql dump`.
#[derive(Debug, clap::Args)]
pub struct DumpArgs {
    /// The ktrace.out file.
    pub trace: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DumpFormat::Text)]
    pub format: DumpFormat,
    /// Only records whose pid or tid is N (repeatable, or comma-separated).
    #[arg(long, short = 'p', value_name = "N", value_delimiter = ',')]
    pub pid: Vec<i64>,
    /// Only these record types, e.g. CALL,RET,NAMI.
    #[arg(
        long = "type",
        short = 't',
        value_name = "TYPES",
        value_delimiter = ','
    )]
    pub types: Vec<String>,
    /// Summarise the file instead: dialect, header version, word size,
    /// byte order, records by type, time span.
    #[arg(long)]
    pub info: bool,
    /// Decode as this dialect instead of detecting it, e.g. freebsd-v0:le:32
    /// (LAYOUT:ORDER:BITS[:VARIANT]).
    #[arg(long, value_name = "ABI")]
    pub dialect: Option<Abi>,
}

/// `dump --format`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DumpFormat {
    /// kdump-style columns.
    Text,
    /// One JSON object per line.
    Jsonl,
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
        Command::Timeline(args) => timeline::run(args),
    }
}

/// Minimal error plumbing for the binary: any error with a cause chain.
pub mod anyhow_lite {
    /// A boxed error.
    pub type Error = Box<dyn std::error::Error + Send + Sync + 'static>;
    /// Result with a boxed error.
    pub type Result<T> = std::result::Result<T, Error>;
}
