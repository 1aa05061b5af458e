//! `kt2sql inputs`, `outputs` and `lint`: what the build read, left
//! behind and got wrong, from the build views (`queries/inputs.sql`,
//! `outputs.sql`, `lint.sql`, which `kt2sql query` runs too). The clap
//! arguments and the glue to the canned queries.

use std::path::PathBuf;
use std::process::ExitCode;

use kt2sql::report::{self, Cell};

use super::anyhow_lite::Result;
use super::sql::{print, TableFormat};

/// `kt2sql inputs`.
#[derive(Debug, clap::Args)]
pub struct InputsArgs {
    /// The kt2sql database (opened read-only).
    pub db: PathBuf,
    /// Only sources read by the processes of this pid and their descendants.
    #[arg(long, short = 'p', value_name = "PID")]
    pub pid: Option<i64>,
    /// Only paths in this directory tree.
    #[arg(long, value_name = "DIR")]
    pub under: Option<String>,
    /// Only this trace (trace_id).
    #[arg(long, value_name = "ID")]
    pub trace: Option<i64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Table)]
    pub format: TableFormat,
}

/// `kt2sql outputs`.
#[derive(Debug, clap::Args)]
pub struct OutputsArgs {
    /// The kt2sql database (opened read-only).
    pub db: PathBuf,
    /// Only paths in this directory tree.
    #[arg(long, value_name = "DIR")]
    pub under: Option<String>,
    /// Only this trace (trace_id).
    #[arg(long, value_name = "ID")]
    pub trace: Option<i64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Table)]
    pub format: TableFormat,
}

/// `kt2sql lint`.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// The kt2sql database (opened read-only).
    pub db: PathBuf,
    /// Only this trace (trace_id).
    #[arg(long, value_name = "ID")]
    pub trace: Option<i64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Table)]
    pub format: TableFormat,
}

/// Run canned query `name` with the parameters that were given.
fn run(
    db: &std::path::Path,
    name: &str,
    params: Vec<(&str, Option<Cell>)>,
    format: TableFormat,
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
    let params = vec![
        ("pid", a.pid.map(Cell::Int)),
        ("under", a.under.map(|s| Cell::Text(s.into_bytes()))),
        ("trace", a.trace.map(Cell::Int)),
    ];
    run(&a.db, "inputs", params, a.format)
}

/// Run `kt2sql outputs`.
pub fn run_outputs(a: OutputsArgs) -> Result<ExitCode> {
    let params = vec![
        ("under", a.under.map(|s| Cell::Text(s.into_bytes()))),
        ("trace", a.trace.map(Cell::Int)),
    ];
    run(&a.db, "outputs", params, a.format)
}

/// Run `kt2sql lint`.
pub fn run_lint(a: LintArgs) -> Result<ExitCode> {
    run(
        &a.db,
        "lint",
        vec![("trace", a.trace.map(Cell::Int))],
        a.format,
    )
}
