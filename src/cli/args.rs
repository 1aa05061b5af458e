//! The arguments several commands take, each declared once here with its
//! one help text, and what they mean: the database ([`Db`]), `--trace`
//! ([`Trace`]), `-p/--pid` ([`Subtree`]), `--under` ([`Under`]) and
//! `--format` ([`FormatArg`]), whose names come from one vocabulary
//! ([`Format`]) of which each command takes a subset ([`Formats`]).
//! Commands flatten these groups (`#[command(flatten)]`) and never declare
//! one of these arguments again; the checks of `--trace` and `-p` against
//! the database ([`scope`], [`check_trace`]) live here too, and what a
//! trace named `-` is ([`trace_input`]).

use std::io::IsTerminal;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Arg, ArgMatches, Command};
use rusqlite::Connection;

use kt2sql::report::{self, Scope};

use super::anyhow_lite::Result;
use super::report::quote_path;

/// The database a report reads.
#[derive(Debug, clap::Args)]
pub struct Db {
    /// The kt2sql database (opened read-only).
    #[arg(id = "db", value_name = "DB")]
    pub path: PathBuf,
}

/// The help text of DB, for `kt2sql query`, whose DB is optional (not
/// needed with --list) and so cannot flatten [`Db`].
pub const DB_HELP: &str = "The kt2sql database (opened read-only)";

/// `--trace ID`.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct Trace {
    /// Only this trace (a trace_id: `kt2sql query DB traces` lists them).
    /// Default: every trace in the database.
    #[arg(id = "trace", long = "trace", value_name = "ID")]
    pub id: Option<i64>,
}

/// `-p/--pid PID`.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct Subtree {
    /// Only this process and its descendants; a reused pid takes every
    /// process that had it.
    ///
    /// Each of them is taken with its descendants, and a note on stderr
    /// says how many there were (`kt2sql query DB pid-lifetimes --param
    /// pid=PID` lists them). A pid no process had is an error.
    #[arg(id = "pid", long = "pid", short = 'p', value_name = "PID")]
    pub pid: Option<i64>,
}

/// `--under DIR`.
#[derive(Debug, clap::Args)]
pub struct Under {
    /// Only paths in this directory tree (a relative one is taken from
    /// the directory the trace started in, -d at import).
    #[arg(id = "under", long = "under", value_name = "DIR")]
    pub dir: Option<String>,
}

/// Every `--format` name of every command. `text` is the output for
/// people, which `sql` and the build commands called `table` (still
/// accepted there, not shown); the rest are the formats' own names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Text for people.
    Text,
    /// CSV.
    Csv,
    /// JSON, one document.
    Json,
    /// JSON Lines.
    Jsonl,
    /// A Graphviz digraph.
    Dot,
    /// A make depfile.
    Make,
    /// Chrome Trace Event JSON.
    Chrome,
    /// An SVG picture.
    Svg,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 8] = [
        Format::Text,
        Format::Csv,
        Format::Json,
        Format::Jsonl,
        Format::Dot,
        Format::Make,
        Format::Chrome,
        Format::Svg,
    ];

    /// The name `--format` takes.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Csv => "csv",
            Format::Json => "json",
            Format::Jsonl => "jsonl",
            Format::Dot => "dot",
            Format::Make => "make",
            Format::Chrome => "chrome",
            Format::Svg => "svg",
        }
    }

    /// Other names accepted for it, hidden from the help.
    const fn aliases(self) -> &'static [&'static str] {
        match self {
            Format::Text => &["table"],
            _ => &[],
        }
    }

    /// What it is, as `--help` says under "Possible values".
    const fn help(self) -> &'static str {
        match self {
            Format::Text => {
                "Text for people: aligned columns under a header, or the report's own layout"
            }
            Format::Csv => "CSV with a header line",
            Format::Json => "JSON: an array of objects, one per row, or the report's own document",
            Format::Jsonl => "JSON Lines: one object per row and line",
            Format::Dot => "A Graphviz digraph (`| dot -Tsvg`)",
            Format::Make => "Make rules a Makefile can include: a depfile (`FILE: prerequisite …`)",
            Format::Chrome => "Chrome Trace Event JSON, for ui.perfetto.dev or chrome://tracing",
            Format::Svg => "A static SVG picture: one row per command",
        }
    }

    /// The format called `name` (or one of its aliases).
    pub fn named(name: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == name || f.aliases().contains(&name))
    }

    /// The result-set rendering of this format, for the commands that
    /// print rows as they come (`sql`, `query`, the build commands);
    /// `None` for a format of its own (`dot`, `make`, …).
    pub fn rows(self) -> Option<report::Format> {
        match self {
            Format::Text => Some(report::Format::Table),
            Format::Csv => Some(report::Format::Csv),
            Format::Json => Some(report::Format::Json),
            Format::Jsonl => Some(report::Format::Jsonl),
            Format::Dot | Format::Make | Format::Chrome | Format::Svg => None,
        }
    }

    fn possible_value(self) -> PossibleValue {
        PossibleValue::new(self.name())
            .help(self.help())
            .aliases(self.aliases().iter().copied())
    }
}

/// The formats one command takes: a marker type per command.
pub trait Formats {
    /// The formats it takes, its default first.
    const TAKES: &'static [Format];
    /// The help text of its `--format`.
    const HELP: &'static str = "Output format";
}

/// The formats of commands that print result sets as they come: `sql`,
/// `query`, `inputs`, `outputs`, `lint`.
#[derive(Debug)]
pub enum RowFormats {}

impl Formats for RowFormats {
    const TAKES: &'static [Format] = &[Format::Text, Format::Csv, Format::Json, Format::Jsonl];
}

/// `--format`, taking the formats of `F`; the parser refuses any other
/// with clap's error naming those it takes.
pub struct FormatArg<F> {
    /// The format chosen, or `F`'s default.
    pub format: Format,
    taken: PhantomData<fn() -> F>,
}

impl<F> std::fmt::Debug for FormatArg<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FormatArg")
            .field("format", &self.format)
            .finish()
    }
}

impl<F: Formats> clap::Args for FormatArg<F> {
    fn augment_args(cmd: Command) -> Command {
        let values = F::TAKES.iter().map(|f| f.possible_value());
        let parser = PossibleValuesParser::new(values)
            .map(|s| Format::named(&s).expect("a possible value names a format"));
        cmd.arg(
            Arg::new("format")
                .long("format")
                .value_name("FORMAT")
                .help(F::HELP)
                .default_value(F::TAKES[0].name())
                .value_parser(parser),
        )
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl<F: Formats> clap::FromArgMatches for FormatArg<F> {
    fn from_arg_matches(m: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        Ok(FormatArg {
            format: m
                .get_one::<Format>("format")
                .copied()
                .unwrap_or(F::TAKES[0]),
            taken: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> std::result::Result<(), clap::Error> {
        if let Some(f) = m.get_one::<Format>("format") {
            self.format = *f;
        }
        Ok(())
    }
}

/// The scope of a report: `--trace` and `-p` checked against the
/// database, saying on stderr when the pid was reused (`-p` covers every
/// lifetime of it).
pub fn scope(conn: &Connection, db: &Db, trace: Trace, subtree: Subtree) -> Result<Scope> {
    check_trace(conn, db, trace)?;
    if let Some(pid) = subtree.pid {
        let lives = report::lifetimes(conn, pid, trace.id)?;
        if lives.rows.is_empty() {
            let within = trace.id.map_or(String::new(), |t| format!(" in trace {t}"));
            return Err(format!("{}: no process has pid {pid}{within}", db.path.display()).into());
        }
        if lives.rows.len() > 1 {
            eprintln!(
                "kt2sql: note: pid {pid} was {} processes; showing each and its descendants \
                 (list them: kt2sql query {} pid-lifetimes --param pid={pid})",
                lives.rows.len(),
                quote_path(&db.path),
            );
        }
    }
    Ok(Scope {
        trace: trace.id,
        pid: subtree.pid,
    })
}

/// Refuse a `--trace` that names no trace, saying which there are; every
/// command that takes `--trace` calls this (or [`scope`]) first.
pub fn check_trace(conn: &Connection, db: &Db, trace: Trace) -> Result<()> {
    let Some(id) = trace.id else {
        return Ok(());
    };
    if !report::has_trace(conn, id)? {
        let ids: Vec<String> = report::trace_paths(conn)?
            .into_iter()
            .map(|(id, _)| id.to_string())
            .collect();
        let holds = match ids.len() {
            0 => "it holds no trace".to_string(),
            1 => format!("it holds trace {}", ids[0]),
            n if n <= 10 => format!("its traces are {}", ids.join(", ")),
            n => format!("it holds {n} traces, {} to {}", ids[0], ids[n - 1]),
        };
        return Err(format!(
            "{}: no trace {id}: {holds} (kt2sql query {} traces describes them)",
            db.path.display(),
            quote_path(&db.path),
        )
        .into());
    }
    Ok(())
}

/// A trace to read (`import`, `dump`): `-` is standard input, read
/// through `/dev/stdin` (FreeBSD's kdump takes `-f -` too), refused when
/// it is a terminal, where no trace will come from.
pub fn trace_input(path: &Path) -> Result<PathBuf> {
    if path.as_os_str() != "-" {
        return Ok(path.to_path_buf());
    }
    if std::io::stdin().is_terminal() {
        return Err("-: standard input is a terminal; pipe or redirect a trace into it".into());
    }
    Ok(PathBuf::from("/dev/stdin"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_found_by_its_name_and_aliases() {
        for f in Format::ALL {
            assert_eq!(Format::named(f.name()), Some(f));
            for a in f.aliases() {
                assert_eq!(Format::named(a), Some(f));
            }
        }
        assert_eq!(Format::named("table"), Some(Format::Text));
        assert_eq!(Format::named("xml"), None);
    }
}
