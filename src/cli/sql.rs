//! `kt2sql sql` (any statement), `kt2sql query` (a canned query from
//! `queries/`) and `kt2sql schema` (the documented DDL): the clap
//! arguments and the glue to `kt2sql::report`.

use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kt2sql::report::{self, Cell, Format, Render};

use super::anyhow_lite::Result;
use super::args::{Db, FormatArg, RowFormats, DB_HELP};
use super::argv::closest;
use super::report::emit;

/// `kt2sql sql`.
#[derive(Debug, clap::Args)]
pub struct SqlArgs {
    #[command(flatten)]
    pub db: Db,
    /// SQL statements (separated by `;`, each result printed in turn), or
    /// `-` to read them from stdin. Only reading is allowed. Use named
    /// parameters (`:pid`) and bind them with --param.
    #[arg(value_name = "SQL")]
    pub sql: String,
    /// Bind a named parameter: NAME=VALUE (repeatable). VALUE is an
    /// integer or real when it reads as one, else text; 'quoted' is text.
    #[arg(long = "param", short = 'P', value_name = "NAME=VALUE", value_parser = param)]
    pub params: Vec<(String, Cell)>,
    #[command(flatten)]
    pub format: FormatArg<RowFormats>,
}

/// `kt2sql query`.
#[derive(Debug, clap::Args)]
pub struct QueryArgs {
    #[arg(value_name = "DB", required_unless_present_any = ["list", "show"], help = DB_HELP)]
    pub db: Option<PathBuf>,
    /// The query: its name, the file stem of queries/*.sql, e.g. slow_calls
    /// (slow-calls is taken too).
    #[arg(value_name = "NAME", required_unless_present_any = ["list", "show"])]
    pub name: Option<String>,
    /// Bind a named parameter: NAME=VALUE (repeatable); the query's header
    /// says which it takes (--list).
    #[arg(long = "param", short = 'P', value_name = "NAME=VALUE", value_parser = param)]
    pub params: Vec<(String, Cell)>,
    #[command(flatten)]
    pub format: FormatArg<RowFormats>,
    /// List the queries with their parameters and columns instead (DB,
    /// if given, is not read).
    #[arg(long, conflicts_with = "name")]
    pub list: bool,
    /// Print the SQL of the query NAME instead (no DB is read).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["name", "list", "db"])]
    pub show: Option<String>,
}

/// `kt2sql schema`.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// Only the table, view or index of this name.
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// List the tables and views instead, one a line with its kind.
    #[arg(long, conflicts_with = "name")]
    pub list: bool,
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

/// The rendering of a `--format` of [`RowFormats`].
pub(super) fn rows(f: FormatArg<RowFormats>) -> Format {
    let f = f.format;
    f.rows()
        .unwrap_or_else(|| unreachable!("no result-set format called {}", f.name()))
}

/// The `--param`s given, as the library binds them.
fn bound(params: &[(String, Cell)]) -> Vec<(&str, Cell)> {
    params
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect()
}

/// Run `sql` on `db` and print each result as it comes, through a buffer
/// to stdout; a closed pipe surfaces as an `io::Error` that `main` turns
/// into a quiet exit.
pub(super) fn print(
    db: &Path,
    sql: &str,
    params: &[(&str, Cell)],
    context: &str,
    format: Format,
) -> Result<ExitCode> {
    let db = report::open(db)?;
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut render = Render::new(&mut out, format);
    report::stream(&db, sql, params, context, &mut render)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Refuse a parameter given twice (`-P n=1 -P n=2`): which one was meant
/// is not for kt2sql to guess.
fn once(params: &[(String, Cell)]) -> Result<()> {
    for (i, (k, v)) in params.iter().enumerate() {
        if let Some((_, w)) = params[..i].iter().find(|(j, _)| j == k) {
            return Err(format!(
                "--param {k} given twice ({k}={} and {k}={}): give each parameter once",
                w.display(),
                v.display()
            )
            .into());
        }
    }
    Ok(())
}

/// Run `kt2sql sql`.
pub fn run_sql(args: SqlArgs) -> Result<ExitCode> {
    once(&args.params)?;
    let sql = if args.sql == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s)?;
        s
    } else {
        args.sql
    };
    print(
        &args.db.path,
        &sql,
        &bound(&args.params),
        "running the SQL",
        rows(args.format),
    )
}

/// Run `kt2sql query`.
pub fn run_query(args: QueryArgs) -> Result<ExitCode> {
    if args.list {
        return emit(list);
    }
    if let Some(name) = args.show {
        let q = query(&name)?;
        return emit(|out| out.write_all(q.sql.as_bytes()));
    }
    let (Some(db), Some(name)) = (args.db, args.name) else {
        return Err("give DB and NAME, or --list, or --show NAME".into());
    };
    let q = query(&name)?;
    once(&args.params)?;
    // A required parameter left out would bind NULL and match nothing.
    if let Some((k, text)) = q
        .required()
        .find(|(k, _)| !args.params.iter().any(|(p, _)| p == k))
    {
        return Err(format!(
            "query {name} needs --param {k}=…: {}",
            text.replace(" (required)", "")
        )
        .into());
    }
    let context = format!("running queries/{}", q.file);
    print(
        &db,
        q.sql,
        &bound(&args.params),
        &context,
        rows(args.format),
    )
}

/// The canned query called `name`, or an error naming the nearest.
fn query(name: &str) -> Result<report::Query> {
    report::query(name).ok_or_else(|| {
        let names: Vec<String> = report::queries()
            .iter()
            .map(|q| q.name.to_string())
            .collect();
        let near = closest(&name.replace('-', "_"), &names)
            .map(|n| format!("did you mean {n}? "))
            .unwrap_or_default();
        format!(
            "no query called {name:?}; {near}there are {}",
            names.join(", ")
        )
        .into()
    })
}

/// `query --list`: name, description, parameters and columns of each.
fn list(out: &mut dyn Write) -> std::io::Result<()> {
    for q in report::queries() {
        writeln!(out, "{}  (queries/{})", q.name, q.file)?;
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
    if args.list {
        return emit(|out| {
            for (kind, name) in report::schema_objects() {
                writeln!(out, "{name}\t{kind}")?;
            }
            Ok(())
        });
    }
    let text = report::schema_text(args.name.as_deref()).ok_or_else(|| {
        let name = args.name.unwrap_or_default();
        let names: Vec<String> = report::schema_objects()
            .into_iter()
            .map(|(_, n)| n.to_string())
            .collect();
        let near = closest(&name, &names)
            .map(|n| format!("; did you mean {n}?"))
            .unwrap_or_default();
        format!("no table, view or index called {name:?} in the schema{near} (schema --list lists the tables and views)")
    })?;
    emit(|out| out.write_all(text.as_bytes()))
}
