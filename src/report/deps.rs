//! `kt2sql deps` and `rdeps`: whether the trace looked up a file asked
//! about, the programs that run recipes and compile (`:makes`,
//! `:compilers`), the rows of `queries/deps.sql` both ways (system files
//! left out unless asked for, and the paths `--under` and `--exclude`
//! leave out: the rules are [`crate::build::deps`]'s), the directory each
//! file's writer ran in (`queries/writer_dirs.sql`), and both as make
//! rules, which [`super::depfile`] writes.

use std::io::{self, Write};

use std::borrow::Cow;
use std::collections::HashSet;

use super::row::{typed_row, RowReader};
use super::run::each_row;
use super::{depfile, prepare, Cell, Database, ResultSet, RowSink};
use crate::build::deps::{
    gets_empty_rule, is_prerequisite, is_system, make_name, runs_recipes, starts_compiler_run, Tree,
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

/// Which paths `deps` and `rdeps` list among the sources (reverse: among
/// the paths built).
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter<'a> {
    /// Keep the system files ([`is_system`]), which are left out by
    /// default.
    pub system: bool,
    /// The directories the traces started in (what [`is_system`] keeps).
    pub starts: &'a [Vec<u8>],
    /// Only the paths in this directory tree (absolute: `--under`).
    pub under: Option<&'a str>,
    /// Not the paths in these directory trees (absolute: `--exclude`).
    pub exclude: &'a [String],
}

impl Filter<'_> {
    /// Whether a row of `kind` naming `path` stays: a source or a path
    /// built that is a system file only with `system`, and every path
    /// as `under` and `exclude` say.
    fn keeps(&self, kind: &str, path: &[u8]) -> bool {
        let starts: Vec<&[u8]> = self.starts.iter().map(Vec::as_slice).collect();
        let system = matches!(kind, "source" | "built") && is_system(path, &starts);
        let tree = Tree {
            under: self.under,
            exclude: self.exclude,
        };
        (self.system || !system) && tree.keeps(path)
    }
}

/// The rows of `queries/deps.sql` run with `params`, the sources
/// (reverse: the paths built) that `filter` leaves out removed, handed to
/// `sink` as SQLite produces them: a file built from every file of a big
/// build has a row per file, which a table, CSV or JSON need not hold.
pub fn stream(
    db: &Database,
    params: &[(&str, Cell)],
    filter: Filter,
    sink: &mut dyn RowSink,
) -> Result<(), Error> {
    let (mut stmt, context) = prepare(db, "deps", params)?;
    let reader = RowReader::<Dep<'static>>::of_statement(&stmt, DEPS_SQL)?;
    let columns: Vec<String> = stmt.column_names().iter().map(|c| c.to_string()).collect();
    let out = |source| Error::Io {
        path: "standard output".into(),
        source,
    };
    sink.start(&columns).map_err(out)?;
    each_row(&mut stmt, &context, |row| {
        let d = reader.cells(row);
        if d.kind == "command" || filter.keeps(&d.kind, d.path.unwrap_or_default()) {
            sink.row(row).map_err(out)?;
        }
        Ok(())
    })?;
    sink.end().map_err(out)
}

/// [`stream`]'s rows collected (for the make rules, which group them by
/// file).
pub fn deps(db: &Database, params: &[(&str, Cell)], filter: Filter) -> Result<ResultSet, Error> {
    let mut rows = ResultSet::default();
    stream(db, params, filter, &mut rows)?;
    Ok(rows)
}

/// The parameters of `rdeps` (what was built from the files): `params`
/// with `:reverse` = 1.
pub fn reverse<'p>(params: &[(&'p str, Cell)]) -> Vec<(&'p str, Cell)> {
    let mut params = params.to_vec();
    params.push(("reverse", Cell::Int(1)));
    params
}

/// The working directory of the last writer of each of `files`
/// (`queries/writer_dirs.sql`), in the order of `files`: where the
/// compiler that wrote each ran, which a depfile names its paths from;
/// `None` for a file nothing wrote, or a writer whose directory is
/// unknown.
pub fn writer_dirs(
    db: &Database,
    files: &[String],
    trace: Option<i64>,
) -> Result<Vec<Option<Vec<u8>>>, Error> {
    let params = [
        ("files", Cell::Text(json_str_list_text(files).into_bytes())),
        ("trace", super::run::opt_int(trace)),
    ];
    let mut dirs = vec![None; files.len()];
    super::each_as::<WriterDir>(db, "writer_dirs", &params, |r| {
        if let Some(i) = files.iter().position(|f| f.as_bytes() == &*r.file) {
            dirs[i] = r.cwd.map(<[u8]>::to_vec);
        }
        Ok(())
    })?;
    Ok(dirs)
}

typed_row! {
    /// A row of `queries/writer_dirs.sql`.
    struct WriterDir<'r> from "writer_dirs" {
        file: Cow<'r, [u8]>,
        cwd: Option<&'r [u8]>,
    }
}

/// `deps --format make`: for each of `files` (absolute, in the order
/// asked) the rule `FILE: prerequisite …` from `rows` (of [`deps`]), then
/// an empty rule for each source prerequisite ([`gets_empty_rule`]) that
/// is no target here; the names of each rule as [`make_name`] writes them
/// from the file's entry of `bases` (the directory its writer ran in, or
/// the one asked for), within `tree` (the directory the trace started
/// in).
pub fn write_depfile(
    out: &mut dyn Write,
    rows: &ResultSet,
    files: &[String],
    bases: &[Option<Vec<u8>>],
    tree: Option<&[u8]>,
) -> io::Result<()> {
    let reader = dep_rows(rows)?;
    let mut empty: Vec<Vec<u8>> = Vec::new();
    for (file, base) in files.iter().zip(bases) {
        let base = base.as_deref();
        let mut deps: Vec<Vec<u8>> = Vec::new();
        let mut named: HashSet<Vec<u8>> = HashSet::new();
        for r in reader.all(rows).filter(|r| *r.file == *file.as_bytes()) {
            let kind = r.kind;
            let Some(path) = r.path.filter(|_| is_prerequisite(&kind)) else {
                continue;
            };
            let name = make_name(path, base, tree).into_owned();
            if gets_empty_rule(&kind) && !files.iter().any(|t| t.as_bytes() == path) {
                empty.push(name.clone());
            }
            if named.insert(name.clone()) {
                deps.push(name);
            }
        }
        let deps: Vec<&[u8]> = deps.iter().map(Vec::as_slice).collect();
        let target = make_name(file.as_bytes(), base, tree);
        depfile::write_rule(out, &[&target], &deps)?;
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
/// in `rows` (of [`deps`] with [`reverse`]), so that make rebuilds them when it changes;
/// none for a file nothing was built from. Names as [`make_name`] writes
/// them from `base` (the directory the trace started in, or the one asked
/// for), within `tree` (the directory the trace started in), as
/// [`write_depfile`] names them.
pub fn write_reverse_depfile(
    out: &mut dyn Write,
    rows: &ResultSet,
    files: &[String],
    base: Option<&[u8]>,
    tree: Option<&[u8]>,
) -> io::Result<()> {
    let reader = dep_rows(rows)?;
    for file in files {
        let built: Vec<Cow<[u8]>> = reader
            .all(rows)
            .filter(|r| *r.file == *file.as_bytes() && r.kind == "built")
            .filter_map(|r| r.path)
            .map(|b| make_name(b, base, tree))
            .collect();
        let built: Vec<&[u8]> = built.iter().map(|b| &**b).collect();
        if !built.is_empty() {
            let file = make_name(file.as_bytes(), base, tree);
            depfile::write_rule(out, &built, &[&file])?;
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
        check::<super::WriterDir<'static>>();
    }
}
