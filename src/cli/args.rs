//! The arguments several commands take, each declared once here with its
//! one help text, and what they mean: the database ([`Db`]), `--trace`
//! ([`Trace`]), `-p/--pid` ([`Subtree`]), the three together ([`DbScope`],
//! what most reports take), `--under` and `--exclude` ([`Under`]), `-o FILE`
//! with `--force` ([`Output`]) and `--format`
//! ([`FormatArg`]), whose names come from one vocabulary ([`Format`]) of
//! which each command takes a subset ([`Formats`]). Commands flatten these
//! groups (`#[command(flatten)]`) and never declare one of these arguments
//! again; the checks of `--trace` and `-p` against the database
//! ([`DbScope::scope`], [`check_trace`]) live here too, and what a
//! trace named `-` is ([`trace_input`]), and which format `-o FILE`
//! writes when `--format` is not given ([`FormatArg::with_output`],
//! [`output_format`]: by the file's extension).

use std::io::IsTerminal;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::parser::ValueSource;
use clap::{Arg, ArgMatches, Command};
use rusqlite::Connection;

use kt2sql::report::{self, Scope};

use super::anyhow_lite::Result;
use super::notes::quote_path;

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
    /// says how many there were (`kt2sql query DB pid_lifetimes --param
    /// pid=PID` lists them). A pid no process had is an error.
    #[arg(id = "pid", long = "pid", short = 'p', value_name = "PID")]
    pub pid: Option<i64>,
}

/// The database and the part of it a report covers: DB, `--trace` and
/// `-p`, in that order, for the reports that take all three.
#[derive(Debug, clap::Args)]
pub struct DbScope {
    #[command(flatten)]
    pub db: Db,
    #[command(flatten)]
    pub trace: Trace,
    #[command(flatten)]
    pub subtree: Subtree,
}

impl DbScope {
    /// The scope of the report: `--trace` and `-p` checked against the
    /// database, saying on stderr when the pid was reused (`-p` covers
    /// every lifetime of it).
    pub fn scope(&self, conn: &Connection) -> Result<Scope> {
        let (db, trace) = (&self.db, self.trace);
        check_trace(conn, db, trace)?;
        if let Some(pid) = self.subtree.pid {
            let lives = report::lifetimes(conn, pid, trace.id)?;
            if lives.rows.is_empty() {
                let within = trace.id.map_or(String::new(), |t| format!(" in trace {t}"));
                return Err(
                    format!("{}: no process has pid {pid}{within}", db.path.display()).into(),
                );
            }
            if lives.rows.len() > 1 {
                eprintln!(
                    "kt2sql: note: pid {pid} was {} processes; showing each and its descendants \
                     (list them: kt2sql query {} pid_lifetimes --param pid={pid})",
                    lives.rows.len(),
                    quote_path(&db.path),
                );
            }
        }
        Ok(Scope {
            trace: trace.id,
            pid: self.subtree.pid,
        })
    }

    /// The scope of a build report (`inputs`, `outputs`, `deps`, `rdeps`,
    /// `graph`, `lint`, `compile-commands`), which answers for one build
    /// at a time: [`DbScope::scope`], refused without `--trace` when the
    /// database holds several traces ([`one_build`]).
    pub fn build_scope(&self, conn: &Connection, command: &str) -> Result<Scope> {
        let scope = self.scope(conn)?;
        if scope.trace.is_none() {
            one_build(conn, &self.db.path, command)?;
        }
        Ok(scope)
    }
}

/// Refuse a build report over a database holding several traces: a
/// union of two builds is a build neither ran (a depfile listing both
/// builds' headers, each source compiled twice). The error names the
/// traces, with their ids and paths, as `diff` names them.
pub fn one_build(conn: &Connection, db: &Path, command: &str) -> Result<()> {
    let traces = report::trace_paths(conn)?;
    if traces.len() <= 1 {
        return Ok(());
    }
    Err(format!(
        "{}: it holds {} traces and {command} reports one build at a time: give --trace ID, \
         one of {}",
        db.display(),
        traces.len(),
        trace_list(&traces),
    )
    .into())
}

/// The traces of a database for a message: `1 (/w/a.ktrace), 2
/// (/w/b.ktrace)`, the first ten and a count of the rest beyond.
pub fn trace_list(traces: &[(i64, Vec<u8>)]) -> String {
    let mut list: Vec<String> = traces
        .iter()
        .take(10)
        .map(|(id, path)| format!("{id} ({})", kt2sql::text::vis(path)))
        .collect();
    if traces.len() > 10 {
        list.push(format!("and {} more", traces.len() - 10));
    }
    list.join(", ")
}

/// `--under DIR` and `--exclude DIR`: the path filters of the build
/// reports and `files`, declared here once.
#[derive(Debug, clap::Args)]
pub struct Under {
    /// Only paths in this directory tree (a relative one is taken from
    /// the directory the trace started in, -d at import).
    #[arg(id = "under", long = "under", value_name = "DIR")]
    pub dir: Option<String>,
    /// Leave out the paths in this directory tree (repeatable; a relative
    /// DIR is taken from the directory the trace started in).
    #[arg(id = "exclude", long = "exclude", value_name = "DIR")]
    pub exclude: Vec<String>,
}

/// The arguments that name where a command writes, which `--force`
/// needs: `-o FILE`, and `man --dir DIR` (each page a FILE).
pub const DESTINATION: &str = "destination";

/// `-o FILE` and `--force`: where a command that writes a file writes it
/// (standard output without `-o`); written by [`super::output`].
#[derive(Debug, clap::Args)]
pub struct Output {
    /// Write to FILE instead of standard output, whole or not at all (a
    /// temporary file beside it is renamed into place at the end); without
    /// --format, its extension chooses the format. An existing FILE is
    /// replaced only with --force, and never a trace or a kt2sql database.
    #[arg(
        id = "output",
        long = "output",
        short = 'o',
        value_name = "FILE",
        group = DESTINATION
    )]
    pub path: Option<PathBuf>,
    /// With -o: replace FILE if it exists (a trace or a kt2sql database is
    /// refused whatever the flags).
    #[arg(long, short = 'f', requires = DESTINATION)]
    pub force: bool,
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

    /// The file extensions that name it for `-o FILE` (`.json` names
    /// JSON first, then Chrome's JSON for a command that writes no other).
    const fn extensions(self) -> &'static [&'static str] {
        match self {
            Format::Text => &["txt", "text"],
            Format::Csv => &["csv"],
            Format::Json => &["json"],
            Format::Jsonl => &["jsonl", "ndjson"],
            Format::Dot => &["dot", "gv"],
            Format::Make => &["d"],
            Format::Chrome => &["json"],
            Format::Svg => &["svg"],
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
    /// Whether `--format` was given (not `F`'s default).
    pub given: bool,
    taken: PhantomData<fn() -> F>,
}

impl<F: Formats> FormatArg<F> {
    /// The format to write to `output`: `--format` when given, else the
    /// one its extension names ([`output_format`]).
    pub fn with_output(&self, output: Option<&Path>) -> Result<Format> {
        if self.given {
            return Ok(self.format);
        }
        output_format(F::TAKES, output)
    }
}

/// The format a command taking `takes` (its default first) writes to
/// `output` when `--format` is not given: the one its extension names
/// (`.json`, `.jsonl`, `.csv`, `.svg`, `.dot`, `.txt`, `.d`, …, any
/// case), the default when it has none or one no format has. An
/// extension naming only formats the command cannot write is an error.
pub fn output_format(takes: &[Format], output: Option<&Path>) -> Result<Format> {
    let Some(ext) = output
        .and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
    else {
        return Ok(takes[0]);
    };
    let named: Vec<Format> = Format::ALL
        .into_iter()
        .filter(|f| f.extensions().contains(&ext.as_str()))
        .collect();
    if named.is_empty() {
        return Ok(takes[0]);
    }
    if let Some(f) = named.iter().find(|f| takes.contains(f)) {
        return Ok(*f);
    }
    let names: Vec<&str> = takes.iter().map(|f| f.name()).collect();
    Err(format!(
        "{}: this command cannot write .{ext} files (it writes {}); give --format, or another name",
        output.map(|p| p.display().to_string()).unwrap_or_default(),
        names.join(", ")
    )
    .into())
}

impl<F> std::fmt::Debug for FormatArg<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FormatArg")
            .field("format", &self.format)
            .field("given", &self.given)
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
            given: m.value_source("format") == Some(ValueSource::CommandLine),
            taken: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> std::result::Result<(), clap::Error> {
        if let Some(f) = m.get_one::<Format>("format") {
            self.format = *f;
            self.given = m.value_source("format") == Some(ValueSource::CommandLine);
        }
        Ok(())
    }
}

/// Refuse a `--trace` that names no trace, saying which there are; every
/// command that takes `--trace` calls this (or [`DbScope::scope`]) first.
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

    #[test]
    fn an_output_extension_names_the_format() {
        let timeline = [Format::Chrome, Format::Svg];
        let rows = [Format::Text, Format::Csv, Format::Json, Format::Jsonl];
        let at = |takes: &[Format], p: &str| output_format(takes, Some(Path::new(p)));
        assert_eq!(at(&timeline, "x.svg").unwrap(), Format::Svg);
        assert_eq!(at(&timeline, "x.SVG").unwrap(), Format::Svg);
        assert_eq!(at(&timeline, "x.json").unwrap(), Format::Chrome);
        assert_eq!(at(&timeline, "x").unwrap(), Format::Chrome);
        assert_eq!(at(&timeline, "x.trace").unwrap(), Format::Chrome);
        assert_eq!(output_format(&timeline, None).unwrap(), Format::Chrome);
        let refused = at(&timeline, "x.csv").unwrap_err().to_string();
        assert!(
            refused.contains("x.csv") && refused.contains("chrome, svg"),
            "{refused}"
        );
        assert_eq!(at(&rows, "x.json").unwrap(), Format::Json);
        assert_eq!(at(&rows, "x.ndjson").unwrap(), Format::Jsonl);
        assert_eq!(at(&rows, "x.txt").unwrap(), Format::Text);
        assert!(at(&rows, "x.dot").is_err());
        assert_eq!(
            at(&[Format::Text, Format::Dot], "x.gv").unwrap(),
            Format::Dot
        );
        assert_eq!(
            at(&[Format::Text, Format::Make], "x.d").unwrap(),
            Format::Make
        );
    }
}
