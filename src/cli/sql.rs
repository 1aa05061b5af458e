//! `kt2sql sql` (any statement), `kt2sql query` (a canned query from
//! `queries/`) and `kt2sql schema` (the documented DDL): the clap
//! arguments and the glue to `kt2sql::report`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;

use kt2sql::report::{self, Cell, ResultSet};

use super::anyhow_lite::Result;
use super::report::emit;

/// `--format` of `sql` and `query`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TableFormat {
    /// Aligned columns with a header.
    #[value(alias = "text")]
    Table,
    /// CSV with a header line.
    Csv,
    /// An array of objects, one per row.
    Json,
}

/// `kt2sql sql`.
#[derive(Debug, clap::Args)]
pub struct SqlArgs {
    /// The kt2sql database (opened read-only).
    #[arg(value_name = "DB")]
    pub db: PathBuf,
    /// One SQL statement, or `-` to read it from stdin. Use named
    /// parameters (`:pid`) and bind them with --param.
    #[arg(value_name = "SQL")]
    pub sql: String,
    /// Bind a named parameter: NAME=VALUE (repeatable). VALUE is an
    /// integer or real when it reads as one, else text; 'quoted' is text.
    #[arg(long = "param", short = 'P', value_name = "NAME=VALUE", value_parser = param)]
    pub params: Vec<(String, Cell)>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Table)]
    pub format: TableFormat,
}

/// `kt2sql query`.
#[derive(Debug, clap::Args)]
pub struct QueryArgs {
    /// The kt2sql database (opened read-only).
    #[arg(value_name = "DB", required_unless_present = "list")]
    pub db: Option<PathBuf>,
    /// The query: a file stem of queries/*.sql, e.g. slow-calls.
    #[arg(value_name = "NAME", required_unless_present = "list")]
    pub name: Option<String>,
    /// Bind a named parameter: NAME=VALUE (repeatable); the query's header
    /// says which it takes (--list).
    #[arg(long = "param", short = 'P', value_name = "NAME=VALUE", value_parser = param)]
    pub params: Vec<(String, Cell)>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Table)]
    pub format: TableFormat,
    /// List the queries with their parameters and columns instead.
    #[arg(long, conflicts_with_all = ["db", "name"])]
    pub list: bool,
}

/// `kt2sql schema`.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// Only the table, view or index of this name.
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
}

fn param(s: &str) -> std::result::Result<(String, Cell), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, got {s:?}"))?;
    let k = k.trim().trim_start_matches([':', '@', '$']);
    if k.is_empty() {
        return Err(format!("expected NAME=VALUE, got {s:?}"));
    }
    Ok((k.to_string(), Cell::parse_param(v)))
}

fn bound(params: &[(String, Cell)]) -> Vec<(&str, Cell)> {
    params
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect()
}

fn show(t: &ResultSet, format: TableFormat) -> Result<ExitCode> {
    emit(|out| match format {
        TableFormat::Table => t.write_table(out),
        TableFormat::Csv => t.write_csv(out),
        TableFormat::Json => t.write_json(out),
    })
}

/// Run `kt2sql sql`.
pub fn run_sql(args: SqlArgs) -> Result<ExitCode> {
    let sql = if args.sql == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        s
    } else {
        args.sql
    };
    let conn = report::open(&args.db)?;
    let t = report::run_sql(&conn, &sql, &bound(&args.params), "running the statement")?;
    show(&t, args.format)
}

/// Run `kt2sql query`.
pub fn run_query(args: QueryArgs) -> Result<ExitCode> {
    if args.list {
        return emit(list);
    }
    let (Some(db), Some(name)) = (args.db, args.name) else {
        return Err("give DB and NAME, or --list".into());
    };
    if report::query(&name).is_none() {
        let names: Vec<String> = report::queries()
            .iter()
            .map(|q| q.name.replace('_', "-"))
            .collect();
        return Err(format!("no query called {name:?}; there are {}", names.join(", ")).into());
    }
    let conn = report::open(&db)?;
    let t = report::run(&conn, &name, &bound(&args.params))?;
    show(&t, args.format)
}

/// `query --list`: name, description, parameters and columns of each.
fn list(out: &mut dyn Write) -> std::io::Result<()> {
    for q in report::queries() {
        writeln!(out, "{}  (queries/{})", q.name.replace('_', "-"), q.file)?;
        for para in q.description.split("\n\n") {
            writeln!(out, "    {para}")?;
        }
        for (k, v) in &q.params {
            writeln!(out, "    --param {k}=…  {v}")?;
        }
        let cols: Vec<&str> = q.columns.iter().map(|(k, _)| k.as_str()).collect();
        writeln!(out, "    columns: {}", cols.join(", "))?;
        writeln!(out)?;
    }
    Ok(())
}

/// Run `kt2sql schema`.
pub fn run_schema(args: SchemaArgs) -> Result<ExitCode> {
    let text = report::schema_text(args.name.as_deref()).ok_or_else(|| {
        format!(
            "no table, view or index called {:?} in the schema",
            args.name.unwrap_or_default()
        )
    })?;
    emit(|out| out.write_all(text.as_bytes()))
}
