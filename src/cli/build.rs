//! The build commands: `kt2sql inputs`, `outputs` and `lint` (what the
//! build read, left behind and got wrong: `queries/inputs.sql`,
//! `outputs.sql`, `lint.sql`, which `kt2sql query` runs too), `deps` (what
//! files were built from, or their make depfile) and `graph` (the build as
//! DOT). Only the clap arguments and the glue: the rules are
//! `kt2sql::build`'s, the queries and rendering `kt2sql::report`'s.

use std::process::ExitCode;

use rusqlite::Connection;

use kt2sql::build::deps::absolute;
use kt2sql::report::{self, depfile, deps, Cell, Format as Rows};

use super::anyhow_lite::Result;
use super::args::{
    check_trace, scope, Db, Format, FormatArg, Formats, RowFormats, Subtree, Trace, Under,
};
use super::notes;
use super::sql::{print, rows};

/// `kt2sql inputs`.
#[derive(Debug, clap::Args)]
pub struct InputsArgs {
    #[command(flatten)]
    pub db: Db,
    #[command(flatten)]
    pub trace: Trace,
    #[command(flatten)]
    pub subtree: Subtree,
    #[command(flatten)]
    pub under: Under,
    #[command(flatten)]
    pub format: FormatArg<RowFormats>,
}

/// `kt2sql outputs`.
#[derive(Debug, clap::Args)]
pub struct OutputsArgs {
    #[command(flatten)]
    pub db: Db,
    #[command(flatten)]
    pub trace: Trace,
    #[command(flatten)]
    pub subtree: Subtree,
    #[command(flatten)]
    pub under: Under,
    #[command(flatten)]
    pub format: FormatArg<RowFormats>,
}

/// `kt2sql lint`.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    #[command(flatten)]
    pub db: Db,
    #[command(flatten)]
    pub trace: Trace,
    #[command(flatten)]
    pub subtree: Subtree,
    /// A directory the build may read in (repeatable): every path read
    /// outside them is a `read-outside` hazard (a relative DIR is taken
    /// from the directory the trace started in, -d at import). Without it,
    /// reads are not checked.
    #[arg(long, value_name = "DIR")]
    pub allow: Vec<String>,
    /// Only hazards of this kind (repeatable); default: every kind
    /// (`read-outside` only with --allow). The manual page, kt2sql-lint(1),
    /// says what each means.
    #[arg(long, value_name = "KIND", value_parser = hazard_kinds())]
    pub kind: Vec<String>,
    /// Exit 0 even when hazards were reported (by default lint exits 1
    /// when it reports any).
    #[arg(long)]
    pub exit_zero: bool,
    #[command(flatten)]
    pub format: FormatArg<RowFormats>,
}

/// The kinds `--kind` takes: those the manual page explains.
fn hazard_kinds() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(super::manual::HAZARDS.map(|(kind, _)| kind))
}

/// Run canned query `name` with the parameters that were given.
fn run(
    db: &std::path::Path,
    name: &str,
    params: Vec<(&str, Option<Cell>)>,
    format: Rows,
) -> Result<ExitCode> {
    let q = report::query(name).ok_or_else(|| format!("queries/{name}.sql is missing"))?;
    let params: Vec<(String, Cell)> = params
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k.to_string(), v)))
        .collect();
    print(
        db,
        q.sql,
        &params,
        &format!("running queries/{}", q.file),
        format,
    )
}

/// `--under DIR` made absolute ([`notes::resolve_dirs`]), as a parameter.
fn under(conn: &Connection, a: &Db, trace: Trace, under: Under) -> Result<Option<Cell>> {
    let Some(dir) = under.dir else {
        return Ok(None);
    };
    let dir = notes::resolve_dirs(conn, &a.path, trace.id, "--under", vec![dir])?;
    Ok(dir.into_iter().next().map(|d| Cell::Text(d.into_bytes())))
}

/// Run `kt2sql inputs`.
pub fn run_inputs(a: InputsArgs) -> Result<ExitCode> {
    // As `files -p` and `files --trace`: an unknown pid or trace is an
    // error, not an empty report.
    let conn = report::open(&a.db.path)?;
    let scope = scope(&conn, &a.db, a.trace, a.subtree)?;
    let params = vec![
        ("pid", a.subtree.pid.map(Cell::Int)),
        ("under", under(&conn, &a.db, a.trace, a.under)?),
        ("trace", a.trace.id.map(Cell::Int)),
    ];
    let code = run(&a.db.path, "inputs", params, rows(a.format))?;
    notes::relative_left_out(&conn, &a.db.path, scope)?;
    Ok(code)
}

/// Run `kt2sql outputs`.
pub fn run_outputs(a: OutputsArgs) -> Result<ExitCode> {
    // -p: the paths a command of the subtree wrote (the row still names
    // the build's last writer).
    let conn = report::open(&a.db.path)?;
    let scope = scope(&conn, &a.db, a.trace, a.subtree)?;
    let params = vec![
        ("pid", a.subtree.pid.map(Cell::Int)),
        ("under", under(&conn, &a.db, a.trace, a.under)?),
        ("trace", a.trace.id.map(Cell::Int)),
    ];
    let code = run(&a.db.path, "outputs", params, rows(a.format))?;
    notes::relative_left_out(&conn, &a.db.path, scope)?;
    Ok(code)
}

/// Run `kt2sql lint`: exit 1 when it reported a hazard (unless
/// `--exit-zero`), with a summary line per kind on stderr.
pub fn run_lint(a: LintArgs) -> Result<ExitCode> {
    // -p: the hazards a command of the subtree is in, either side, and
    // what the subtree itself read outside.
    let conn = report::open(&a.db.path)?;
    let scope = scope(&conn, &a.db, a.trace, a.subtree)?;
    if a.allow.is_empty() && a.kind.iter().any(|k| k == "read-outside") {
        return Err(
            "--kind read-outside needs --allow DIR: the directories the build may \
                    read in (--allow / allows every one)"
                .into(),
        );
    }
    let allow = match a.allow.is_empty() {
        true => None,
        false => {
            let dirs = notes::resolve_dirs(&conn, &a.db.path, a.trace.id, "--allow", a.allow)?;
            Some(Cell::Text(json_array(&dirs).into_bytes()))
        }
    };
    let kinds = match a.kind.is_empty() {
        true => None,
        false => Some(Cell::Text(json_array(&a.kind).into_bytes())),
    };
    let params = vec![
        ("trace", a.trace.id.map(Cell::Int)),
        ("pid", a.subtree.pid.map(Cell::Int)),
        ("allow", allow),
        ("kinds", kinds),
    ];
    let params: Vec<(&str, Cell)> = params
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect();
    let format = rows(a.format);
    let counts = {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
        let mut render = report::Render::new(&mut out, format);
        let mut tally = report::lint::Tally::new(&mut render, format != Rows::Table);
        let q = report::query("lint").ok_or("queries/lint.sql is missing")?;
        report::stream(
            &conn,
            q.sql,
            &params,
            "running queries/lint.sql",
            &mut tally,
        )?;
        let counts = tally.counts().to_vec();
        std::io::Write::flush(&mut out)?;
        counts
    };
    notes::relative_left_out(&conn, &a.db.path, scope)?;
    for line in report::lint::summary(&counts) {
        eprintln!("kt2sql: lint: {line}");
    }
    Ok(match counts.is_empty() || a.exit_zero {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    })
}

/// `items` as a JSON array of strings.
fn json_array(items: &[String]) -> String {
    let mut out = String::from("[");
    for (i, p) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        kt2sql::text::json_str(&mut out, p.as_bytes());
    }
    out.push(']');
    out
}

/// `kt2sql deps`.
#[derive(Debug, clap::Args)]
pub struct DepsArgs {
    #[command(flatten)]
    pub db: Db,
    /// The files, as the trace names them (absolute; a relative name is
    /// taken from the current directory).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,
    #[command(flatten)]
    pub trace: Trace,
    #[command(flatten)]
    pub format: FormatArg<DepsFormats>,
}

/// `deps --format`.
#[derive(Debug)]
pub enum DepsFormats {}

impl Formats for DepsFormats {
    const TAKES: &'static [Format] = &[
        Format::Text,
        Format::Csv,
        Format::Json,
        Format::Jsonl,
        Format::Make,
    ];
}

/// Run `kt2sql deps`.
pub fn run_deps(a: DepsArgs) -> Result<ExitCode> {
    // The current directory is asked for only when a name is relative.
    let cwd = match a.files.iter().all(|f| f.starts_with('/')) {
        true => String::from("/"),
        false => std::env::current_dir()?
            .to_str()
            .ok_or("the current directory is not UTF-8: give FILE as an absolute path")?
            .to_string(),
    };
    let paths: Vec<String> = a.files.iter().map(|f| absolute(f, &cwd)).collect();
    let db = report::open(&a.db.path)?;
    check_trace(&db, &a.db, a.trace)?;
    for (file, path) in a.files.iter().zip(&paths) {
        if !deps::looked_up(&db, path)? {
            return Err(format!(
                "{}: {file}: the trace never looked up {path}",
                a.db.path.display()
            )
            .into());
        }
    }
    let files = Cell::Text(json_array(&paths).into_bytes());
    let mut params = vec![("files", files)];
    if let Some(t) = a.trace.id {
        params.push(("trace", Cell::Int(t)));
    }
    let Some(format) = a.format.format.rows() else {
        let prerequisites = deps::depfile_prerequisites(&db, &paths, &params)?;
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        for (target, deps) in a.files.iter().zip(&prerequisites) {
            let deps: Vec<&[u8]> = deps.iter().map(Vec::as_slice).collect();
            depfile::write_rule(&mut out, target.as_bytes(), &deps)?;
        }
        std::io::Write::flush(&mut out)?;
        return Ok(ExitCode::SUCCESS);
    };
    let params: Vec<(String, Cell)> = params
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    print(
        &a.db.path,
        report::query("deps").unwrap().sql,
        &params,
        "running queries/deps.sql",
        format,
    )
}

/// `kt2sql graph`.
#[derive(Debug, clap::Args)]
pub struct GraphArgs {
    #[command(flatten)]
    pub db: Db,
    #[command(flatten)]
    pub trace: Trace,
    #[command(flatten)]
    pub subtree: Subtree,
    /// Only commands: one edge per producer -> consumer pair (build_dep),
    /// labelled with the number of paths.
    #[arg(long)]
    pub commands: bool,
    #[command(flatten)]
    pub under: Under,
    /// Leave out the paths in this directory tree (repeatable; a relative
    /// DIR is taken from the directory the trace started in).
    #[arg(long, value_name = "DIR")]
    pub exclude: Vec<String>,
    /// Draw the system files too (the compiler, libraries, system headers,
    /// /etc, /dev: paths in the system's directories, outside the directory
    /// the trace started in), which are left out by default.
    #[arg(long)]
    pub system: bool,
    #[command(flatten)]
    pub format: FormatArg<GraphFormats>,
}

/// `graph --format`.
#[derive(Debug)]
pub enum GraphFormats {}

impl Formats for GraphFormats {
    const TAKES: &'static [Format] = &[Format::Dot];
}

/// Run `kt2sql graph`.
pub fn run_graph(a: GraphArgs) -> Result<ExitCode> {
    let db = report::open(&a.db.path)?;
    // As `files --trace` and `-p`: an unknown trace or pid is an error,
    // not an empty graph.
    let scope = scope(&db, &a.db, a.trace, a.subtree)?;
    let exclude = match a.exclude.is_empty() {
        true => Vec::new(),
        false => notes::resolve_dirs(&db, &a.db.path, a.trace.id, "--exclude", a.exclude)?,
    };
    let filters = report::graph::Filters {
        under: under(&db, &a.db, a.trace, a.under)?.map(|c| c.display().into_owned()),
        exclude,
        system: a.system,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    report::graph::write_dot(&db, scope, a.commands, &filters, &mut out)?;
    std::io::Write::flush(&mut out)?;
    Ok(ExitCode::SUCCESS)
}
