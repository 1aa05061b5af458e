//! `kt2sql inputs`, `outputs` and `lint`: what the build read, left
//! behind and got wrong, from the build views (`queries/inputs.sql`,
//! `outputs.sql`, `lint.sql`, which `kt2sql query` runs too). The clap
//! arguments and the glue to the canned queries.

use std::process::ExitCode;

use kt2sql::report::{self, Cell, Format as Rows};

use super::anyhow_lite::Result;
use super::args::{
    check_trace, scope, Db, Format, FormatArg, Formats, RowFormats, Subtree, Trace, Under,
};
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
    /// A directory the build may read in (repeatable): every path read
    /// outside them is a `read-outside` hazard. Without it, only the top
    /// directories read outside the directory the trace started in.
    #[arg(long, value_name = "DIR")]
    pub allow: Vec<String>,
    #[command(flatten)]
    pub format: FormatArg<RowFormats>,
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

/// Run `kt2sql inputs`.
pub fn run_inputs(a: InputsArgs) -> Result<ExitCode> {
    // As `files -p` and `files --trace`: an unknown pid or trace is an
    // error, not an empty report.
    if a.subtree.pid.is_some() || a.trace.id.is_some() {
        let conn = report::open(&a.db.path)?;
        scope(&conn, &a.db, a.trace, a.subtree)?;
    }
    let params = vec![
        ("pid", a.subtree.pid.map(Cell::Int)),
        ("under", a.under.dir.map(|s| Cell::Text(s.into_bytes()))),
        ("trace", a.trace.id.map(Cell::Int)),
    ];
    run(&a.db.path, "inputs", params, rows(a.format))
}

/// Run `kt2sql outputs`.
pub fn run_outputs(a: OutputsArgs) -> Result<ExitCode> {
    let params = vec![
        ("under", a.under.dir.map(|s| Cell::Text(s.into_bytes()))),
        ("trace", a.trace.id.map(Cell::Int)),
    ];
    run(&a.db.path, "outputs", params, rows(a.format))
}

/// Run `kt2sql lint`.
pub fn run_lint(a: LintArgs) -> Result<ExitCode> {
    let allow = (!a.allow.is_empty()).then(|| Cell::Text(json_array(&a.allow).into_bytes()));
    let params = vec![("trace", a.trace.id.map(Cell::Int)), ("allow", allow)];
    run(&a.db.path, "lint", params, rows(a.format))
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

/// `file` made absolute against the current directory, lexically (`.`
/// and `..` folded), as the trace would name it.
fn absolute(file: &str) -> Result<String> {
    if file.starts_with('/') {
        return Ok(file.to_string());
    }
    let cwd = std::env::current_dir()?;
    let cwd = cwd
        .to_str()
        .ok_or("the current directory is not UTF-8: give FILE as an absolute path")?;
    let mut parts: Vec<&str> = cwd.split('/').filter(|p| !p.is_empty()).collect();
    for p in file.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    Ok(format!("/{}", parts.join("/")))
}

/// Run `kt2sql deps`.
pub fn run_deps(a: DepsArgs) -> Result<ExitCode> {
    let paths: Vec<String> = a.files.iter().map(|f| absolute(f)).collect::<Result<_>>()?;
    let db = report::open(&a.db.path)?;
    for (file, path) in a.files.iter().zip(&paths) {
        let known: i64 =
            db.query_row("SELECT count(*) FROM path WHERE path = ?1", [path], |r| {
                r.get(0)
            })?;
        if known == 0 {
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
    let format = match a.format.format.rows() {
        Some(format) => format,
        None => {
            let rows = report::run(&db, "deps", &params)?;
            let (f, k, p) = (rows.col("file"), rows.col("kind"), rows.col("path"));
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            for (target, path) in a.files.iter().zip(&paths) {
                let deps: Vec<&[u8]> = rows
                    .rows
                    .iter()
                    .filter(|r| r[f].to_bytes() == path.as_bytes())
                    .filter(|r| r[k].display() == "source")
                    .filter_map(|r| r[p].bytes())
                    .collect();
                report::depfile::write_rule(&mut out, target.as_bytes(), &deps)?;
            }
            std::io::Write::flush(&mut out)?;
            return Ok(ExitCode::SUCCESS);
        }
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
    /// Only commands: one edge per producer -> consumer pair (build_dep),
    /// labelled with the number of paths.
    #[arg(long)]
    pub commands: bool,
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
    // As `files --trace`: an unknown trace is an error, not an empty graph.
    check_trace(&db, &a.db, a.trace)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    report::graph::write_dot(&db, a.trace.id, a.commands, &mut out)?;
    std::io::Write::flush(&mut out)?;
    Ok(ExitCode::SUCCESS)
}
