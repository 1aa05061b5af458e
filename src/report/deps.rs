//! `kt2sql deps` and `rdeps`: whether the trace looked up a file asked
//! about, the programs that run recipes and compile (`:makes`,
//! `:compilers`), the rows of `queries/deps.sql` both ways (system files
//! left out unless asked for: the rules are [`crate::build::deps`]'s),
//! and both as make rules, which [`super::depfile`] writes.

use std::io::{self, Write};

use std::borrow::Cow;

use super::row::{typed_row, RowReader};
use super::{depfile, run, Cell, Database, ResultSet};
use crate::build::deps::{
    gets_empty_rule, is_prerequisite, is_system, make_name, runs_recipes, starts_compiler_run,
};
use crate::json::json_str_list_text;
use crate::schema::sql_err;
use crate::Error;

/// Whether the trace looked up `path` (a row of table `path` names it).
pub fn looked_up(db: &Database, path: &str) -> Result<bool, Error> {
    db.query_row(
        "SELECT EXISTS (SELECT 1 FROM path WHERE path = ?1)",
        [path],
        |r| r.get(0),
    )
    .map_err(sql_err("reading table path".into()))
}

/// The programs the traces ran that run recipes ([`runs_recipes`]) and
/// those that start a compiler run ([`starts_compiler_run`]), as the JSON
/// arrays `:makes` and `:compilers` take. Only the distinct programs are
/// read, not every exec.
pub fn programs(db: &Database) -> Result<(Cell, Cell), Error> {
    let ctx = || sql_err("reading tables exec and path".into());
    let mut st = db
        .prepare(
            "SELECT pa.path FROM path AS pa
             WHERE pa.path_id IN (SELECT resolved_id FROM exec WHERE success = 1)",
        )
        .map_err(ctx())?;
    let mut rows = st.query([]).map_err(ctx())?;
    let (mut makes, mut compilers) = (Vec::new(), Vec::new());
    while let Some(r) = rows.next().map_err(ctx())? {
        // A path that is not UTF-8 (a BLOB) is no name a JSON text can
        // match: it is left out.
        let Ok(path) = r.get::<_, String>(0) else {
            continue;
        };
        if runs_recipes(path.as_bytes()) {
            makes.push(path);
        } else if starts_compiler_run(path.as_bytes()) {
            compilers.push(path);
        }
    }
    let json = |paths: Vec<String>| Cell::Text(json_str_list_text(paths).into_bytes());
    Ok((json(makes), json(compilers)))
}

typed_row! {
    /// A row of `queries/deps.sql`: one file of what a file was built
    /// from (or, reversed, built from it).
    struct Dep<'r> from "deps" {
        file: Cow<'r, [u8]>,
        kind: String,
        path: Option<&'r [u8]>,
    }
}

/// Names deps.sql in errors.
const DEPS_SQL: &str = "queries/deps.sql";

/// Where [`Dep`]'s columns are in `rows` (of [`deps`]), for a writer.
fn dep_rows(rows: &ResultSet) -> io::Result<RowReader<Dep<'static>>> {
    RowReader::of_set(rows, DEPS_SQL).map_err(io::Error::other)
}

/// The rows of `queries/deps.sql` run with `params`, the system files
/// ([`is_system`], `starts` being the directories the traces started in)
/// among the sources (reverse: among the paths built) left out unless
/// `system`.
pub fn deps(
    db: &Database,
    params: &[(&str, Cell)],
    system: bool,
    starts: &[Vec<u8>],
) -> Result<ResultSet, Error> {
    let mut rows = run(db, "deps", params)?;
    if !system {
        let reader = RowReader::<Dep<'static>>::of_set(&rows, DEPS_SQL)?;
        let starts: Vec<&[u8]> = starts.iter().map(Vec::as_slice).collect();
        rows.rows.retain(|r| {
            let d = reader.cells(r);
            !matches!(&*d.kind, "source" | "built")
                || !is_system(d.path.unwrap_or_default(), &starts)
        });
    }
    Ok(rows)
}

/// [`deps`] with `:reverse` = 1: what was built from the files.
pub fn rdeps(
    db: &Database,
    params: &[(&str, Cell)],
    system: bool,
    starts: &[Vec<u8>],
) -> Result<ResultSet, Error> {
    let mut params = params.to_vec();
    params.push(("reverse", Cell::Int(1)));
    deps(db, &params, system, starts)
}

/// `deps --format make`: for each of `files` (absolute, in the order
/// asked) the rule `FILE: prerequisite …` from `rows` (of [`deps`]), then
/// an empty rule for each source prerequisite ([`gets_empty_rule`]) that
/// is no target here; every name as [`make_name`] writes it from `start`.
pub fn write_depfile(
    out: &mut dyn Write,
    rows: &ResultSet,
    files: &[String],
    start: Option<&[u8]>,
) -> io::Result<()> {
    let reader = dep_rows(rows)?;
    let mut empty: Vec<Vec<u8>> = Vec::new();
    for file in files {
        let mut deps: Vec<Vec<u8>> = Vec::new();
        for r in reader.all(rows).filter(|r| *r.file == *file.as_bytes()) {
            let kind = r.kind;
            let Some(path) = r.path.filter(|_| is_prerequisite(&kind)) else {
                continue;
            };
            let name = make_name(path, start).to_vec();
            if gets_empty_rule(&kind) && !files.iter().any(|t| t.as_bytes() == path) {
                empty.push(name.clone());
            }
            if !deps.contains(&name) {
                deps.push(name);
            }
        }
        let deps: Vec<&[u8]> = deps.iter().map(Vec::as_slice).collect();
        let target = make_name(file.as_bytes(), start);
        depfile::write_rule(out, &[target], &deps)?;
    }
    empty.sort();
    empty.dedup();
    for name in &empty {
        depfile::write_rule(out, &[name], &[])?;
    }
    Ok(())
}

/// `rdeps --format make`: for each of `files` (absolute, in the order
/// asked) the rule `BUILT BUILT …: FILE` naming every path built from it
/// in `rows` (of [`rdeps`]), so that make rebuilds them when it changes;
/// none for a file nothing was built from. Names as [`make_name`] writes
/// them from `start`.
pub fn write_reverse_depfile(
    out: &mut dyn Write,
    rows: &ResultSet,
    files: &[String],
    start: Option<&[u8]>,
) -> io::Result<()> {
    let reader = dep_rows(rows)?;
    for file in files {
        let built: Vec<&[u8]> = reader
            .all(rows)
            .filter(|r| *r.file == *file.as_bytes() && r.kind == "built")
            .filter_map(|r| r.path)
            .map(|b| make_name(b, start))
            .collect();
        if !built.is_empty() {
            depfile::write_rule(out, &built, &[make_name(file.as_bytes(), start)])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::Dep<'static>>();
    }
}
