//! `kt2sql diff OLD NEW`: the clap arguments and the glue. Which database
//! and trace each side names (`DB` or `DB:TRACE_ID`), checked before
//! anything is compared; the `--map` pairs (and the start directories,
//! when both were imported with `-d`); the exit status of diff(1). The
//! comparison is `kt2sql::report::diff`'s, its rules `kt2sql::build::diff`'s.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kt2sql::build::diff::PathMap;
use kt2sql::report::{self, diff};

use super::anyhow_lite::Result;
use super::args::{check_trace, trace_list, Db, Format, FormatArg, Formats, Trace};
use super::notes::quote_path;

/// `kt2sql diff`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Exit status: 0 the builds are the same, 1 they differ, 2 trouble.")]
pub struct DiffArgs {
    /// The old build: a kt2sql database, or DB:TRACE_ID for one trace of
    /// it (needed when it holds several).
    #[arg(value_name = "OLD")]
    pub old: PathBuf,
    /// The new build, the same way (it may be the same database with
    /// another trace).
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    /// Compare the old build's paths at or below the directory OLD as if
    /// they were at or below NEW (repeatable; the longest OLD wins): two
    /// checkouts in different places. Without it, when both builds were
    /// imported with -d and from different directories, those two
    /// directories are mapped.
    #[arg(long, value_name = "OLD=NEW")]
    pub map: Vec<String>,
    /// Only these sections (comma-separated or repeated): commands, files,
    /// hazards, time. Default: all.
    #[arg(long, value_name = "SECTION", value_delimiter = ',', value_enum)]
    pub only: Vec<Section>,
    /// How many commands to list that got slower, and faster, by the most
    /// (absolutely and relatively).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub top: usize,
    #[command(flatten)]
    pub format: FormatArg<DiffFormats>,
}

/// A section of the diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Section {
    /// Commands added, removed and changed (matched by program, directory
    /// and the files they left).
    Commands,
    /// Inputs and outputs added and removed, and what each command read.
    Files,
    /// Hazards new and gone, by kind and path.
    Hazards,
    /// Wall time, parallelism, the critical path, the commands that got
    /// slower and faster.
    Time,
}

/// `diff --format`.
#[derive(Debug)]
pub enum DiffFormats {}

impl Formats for DiffFormats {
    const TAKES: &'static [Format] = &[Format::Text, Format::Csv, Format::Json, Format::Jsonl];
    const HELP: &'static str =
        "Output format (csv, json and jsonl: the summary rows, then the detail rows)";
}

/// `DB` or `DB:TRACE_ID`: a file that exists is a database even with a
/// colon in its name.
fn split_side(arg: &Path) -> (PathBuf, Option<i64>) {
    if arg.exists() {
        return (arg.to_path_buf(), None);
    }
    if let Some((db, id)) = arg.to_str().and_then(|s| s.rsplit_once(':')) {
        if let Ok(id) = id.parse::<i64>() {
            return (PathBuf::from(db), Some(id));
        }
    }
    (arg.to_path_buf(), None)
}

/// One side checked: the database opens as a kt2sql database of this
/// version, the trace exists (or is the only one); with its start
/// directory.
fn side(arg: &Path) -> Result<(diff::Build, Option<Vec<u8>>)> {
    let (path, id) = split_side(arg);
    let conn = report::open(&path)?;
    let db = Db { path: path.clone() };
    check_trace(&conn, &db, Trace { id })?;
    let traces = report::trace_paths(&conn)?;
    let trace = match (id, traces.len()) {
        (Some(id), _) => id,
        (None, 1) => traces[0].0,
        (None, 0) => return Err(format!("{}: it holds no trace", path.display()).into()),
        (None, n) => {
            return Err(format!(
                "{}: it holds {n} traces: name one as {}:TRACE_ID, one of {} (kt2sql query {} \
                 traces describes them)",
                path.display(),
                path.display(),
                trace_list(&traces),
                quote_path(&path)
            )
            .into())
        }
    };
    let scope = report::Scope {
        trace: Some(trace),
        pid: None,
    };
    let start = report::start_dirs(&conn, scope)?
        .into_iter()
        .next()
        .and_then(|d| d.start_cwd);
    let build = diff::Build {
        db: path,
        trace,
        map: None,
    };
    Ok((build, start))
}

/// Run `kt2sql diff`.
pub fn run(a: DiffArgs) -> Result<ExitCode> {
    let mut map = PathMap::default();
    for m in &a.map {
        map.pairs.push(PathMap::parse_pair(m)?);
    }
    let (mut old, old_start) = side(&a.old)?;
    let (new, new_start) = side(&a.new)?;
    if map.pairs.is_empty() {
        if let (Some(o), Some(n)) = (old_start, new_start) {
            if o != n {
                let (o, n) = (String::from_utf8(o), String::from_utf8(n));
                if let (Ok(o), Ok(n)) = (o, n) {
                    eprintln!(
                        "kt2sql: note: comparing paths under {} (the old build's -d) as under {} \
                         (the new one's); --map OLD=NEW says otherwise",
                        kt2sql::text::vis(o.as_bytes()),
                        kt2sql::text::vis(n.as_bytes())
                    );
                    map.pairs.push((o, n));
                }
            }
        }
    }
    old.map = map.to_json();
    let sections = match a.only.is_empty() {
        true => diff::Sections::ALL,
        false => diff::Sections {
            commands: a.only.contains(&Section::Commands),
            files: a.only.contains(&Section::Files),
            hazards: a.only.contains(&Section::Hazards),
            time: a.only.contains(&Section::Time),
        },
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let different = diff::diff(
        &old,
        &new,
        sections,
        a.top,
        match a.format.format {
            Format::Text => None,
            f => f.rows(),
        },
        &mut out,
    )?;
    std::io::Write::flush(&mut out)?;
    Ok(ExitCode::from(u8::from(different)))
}
