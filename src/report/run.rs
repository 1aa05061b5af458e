//! Running SQL for the reports: a registered query or `kt2sql sql`'s own
//! statements, with bound named parameters (a parameter the query takes
//! but the caller does not give is NULL, "no filter"), the scope every
//! report takes (`--trace`, `-p`), and the rows either collected
//! ([`ResultSet`]), handed over one by one, or streamed to a [`RowSink`].
//! Every statement `kt2sql sql` runs is prepared, and so checked by the
//! guard, before the first one runs.

use rusqlite::{Batch, Connection, Statement};

use super::database::Database;
use super::guard;
use super::render::RowSink;
use super::result_set::{Cell, ResultSet};
use super::row::{RowReader, TypedRow};
use crate::schema::sql_err;
use crate::schema::{query, Query};
use crate::Error;

/// Which part of the database a report covers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scope {
    /// Only this trace (`--trace`); `None` for every trace in the database.
    pub trace: Option<i64>,
    /// Only the lifetimes of this pid and their descendants (`-p`).
    pub pid: Option<i64>,
}

impl Scope {
    /// The scope as bound parameters `:trace` and `:pid`.
    pub fn params(&self) -> Vec<(&'static str, Cell)> {
        vec![("trace", opt_int(self.trace)), ("pid", opt_int(self.pid))]
    }
}

/// An optional integer as a parameter value (`None` binds NULL).
pub fn opt_int(v: Option<i64>) -> Cell {
    v.map_or(Cell::Null, Cell::Int)
}

/// Run the registered query `name` with named parameters (names without the
/// colon). Parameters the query uses but `params` lacks are bound to NULL,
/// which means "no filter"; a parameter the query does not take is an error.
pub fn run(conn: &Connection, name: &str, params: &[(&str, Cell)]) -> Result<ResultSet, Error> {
    let q = registered(name)?;
    run_sql(conn, q.sql, params, &format!("running queries/{}", q.file))
}

/// Run one SQL statement with named parameters, as [`run`] does; `context`
/// names it in errors.
pub fn run_sql(
    conn: &Connection,
    sql: &str,
    params: &[(&str, Cell)],
    context: &str,
) -> Result<ResultSet, Error> {
    let mut stmt = prepare_sql(conn, sql, params, context)?;
    let mut table = ResultSet {
        columns: stmt.column_names().iter().map(|c| c.to_string()).collect(),
        rows: Vec::new(),
    };
    each_row(&mut stmt, context, |row| {
        table.rows.push(row.to_vec());
        Ok(())
    })?;
    Ok(table)
}

/// Run the registered query `name` as [`run`] does, handing each row to
/// `f` as SQLite produces it, without collecting them: for outputs that
/// must stay flat in memory on a large database (`kt2sql timeline`).
pub fn each(
    conn: &Connection,
    name: &str,
    params: &[(&str, Cell)],
    f: impl FnMut(&[Cell]) -> Result<(), Error>,
) -> Result<(), Error> {
    let (mut stmt, context) = prepare(conn, name, params)?;
    each_row(&mut stmt, &context, f)
}

/// Run the registered query `name` as [`run`] does, handing each row to
/// `f` read as a `T` ([`super::row`]) as SQLite produces it, without
/// collecting them. Fails before the first row when the query lacks a
/// column `T` reads.
pub fn each_as<T: TypedRow>(
    conn: &Connection,
    name: &str,
    params: &[(&str, Cell)],
    mut f: impl FnMut(T::Row<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    let (mut stmt, context, reader) = prepare_as::<T>(conn, name, params)?;
    // The context is copied only for an error, never per row.
    let ctx = |e| sql_err(context.clone())(e);
    let mut rows = stmt.raw_query();
    while let Some(row) = rows.next().map_err(ctx)? {
        f(reader.row(row))?;
    }
    Ok(())
}

/// The registered query `name` prepared and bound as [`prepare`] does,
/// with where `T`'s columns are in its rows, for a caller that pulls the
/// rows itself; fails when the query lacks a column `T` reads.
pub fn prepare_as<'c, T: TypedRow>(
    conn: &'c Connection,
    name: &str,
    params: &[(&str, Cell)],
) -> Result<(Statement<'c>, String, RowReader<T>), Error> {
    let (stmt, context) = prepare(conn, name, params)?;
    let file = format!("queries/{}", registered(name)?.file);
    let reader = RowReader::of_statement(&stmt, &file)?;
    Ok((stmt, context, reader))
}

/// Every row of the registered query `name`, read as a `T` that owns its
/// values, collected (the small results: a build's time, its critical
/// path, its file flows).
pub fn collect_as<T>(
    conn: &Connection,
    name: &str,
    params: &[(&str, Cell)],
) -> Result<Vec<T>, Error>
where
    T: for<'r> TypedRow<Row<'r> = T>,
{
    let mut rows = Vec::new();
    each_as::<T>(conn, name, params, |r| {
        rows.push(r);
        Ok(())
    })?;
    Ok(rows)
}

/// The registered query `name`, or the error that there is none.
fn registered(name: &str) -> Result<Query, Error> {
    query(name).ok_or_else(|| Error::Sqlite {
        context: format!("no query called {name:?}"),
        source: rusqlite::Error::InvalidQuery,
    })
}

/// The registered query `name` prepared, its named parameters bound as
/// [`run`] binds them, for a caller that pulls the rows itself at its own
/// pace (`kt2sql tree -v` walks its calls beside the tree); with the text
/// that names the query in errors.
pub fn prepare<'c>(
    conn: &'c Connection,
    name: &str,
    params: &[(&str, Cell)],
) -> Result<(Statement<'c>, String), Error> {
    let q = registered(name)?;
    let context = format!("running queries/{}", q.file);
    let stmt = prepare_sql(conn, q.sql, params, &context)?;
    Ok((stmt, context))
}

/// One SQL statement prepared and its named parameters bound as [`run`]
/// binds them; `context` names it in errors.
fn prepare_sql<'c>(
    conn: &'c Connection,
    sql: &str,
    params: &[(&str, Cell)],
    context: &str,
) -> Result<Statement<'c>, Error> {
    let mut stmt = conn.prepare(sql).map_err(sql_err(context.to_string()))?;
    let taken = bind(&mut stmt, params, context)?;
    if let Some((k, _)) = params.iter().find(|(k, _)| !taken.iter().any(|t| t == k)) {
        return Err(unknown_param(context, k, &taken));
    }
    Ok(stmt)
}

/// Every row of one SQL statement of the code's own (a small lookup, not
/// a registered query), bound as [`run_sql`] binds it and read as a `T`
/// that owns its values, by column name as [`collect_as`] reads a
/// query's; `context` names it in errors.
pub fn collect_sql_as<T>(
    conn: &Connection,
    sql: &str,
    params: &[(&str, Cell)],
    context: &str,
) -> Result<Vec<T>, Error>
where
    T: for<'r> TypedRow<Row<'r> = T>,
{
    let mut stmt = prepare_sql(conn, sql, params, context)?;
    let reader = RowReader::<T>::of_statement(&stmt, context)?;
    let ctx = |e| sql_err(context.to_string())(e);
    let mut out = Vec::new();
    let mut rows = stmt.raw_query();
    while let Some(row) = rows.next().map_err(ctx)? {
        out.push(reader.row(row));
    }
    Ok(out)
}

/// One SQL statement of the code's own, bound as [`run_sql`] binds it,
/// handing each row to `f` read as a `T` by column name as SQLite
/// produces it, without collecting them; `context` names it in errors.
pub fn each_sql_as<T: TypedRow>(
    conn: &Connection,
    sql: &str,
    params: &[(&str, Cell)],
    context: &str,
    mut f: impl FnMut(T::Row<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut stmt = prepare_sql(conn, sql, params, context)?;
    let reader = RowReader::<T>::of_statement(&stmt, context)?;
    let ctx = |e| sql_err(context.to_string())(e);
    let mut rows = stmt.raw_query();
    while let Some(row) = rows.next().map_err(ctx)? {
        f(reader.row(row))?;
    }
    Ok(())
}

/// Run every statement of `sql` on `db` and hand each result to `sink` row
/// by row, as SQLite produces them. All statements are prepared (and so
/// checked by the guard) before the first one runs: they all run, or none
/// does. Each parameter given must be taken by some statement. `context`
/// names the SQL in errors (after the database's path). A write, `ATTACH`,
/// `VACUUM` or a PRAGMA that changes a setting is refused with
/// [`Error::Refused`] naming it.
pub fn stream(
    db: &Database,
    sql: &str,
    params: &[(&str, Cell)],
    context: &str,
    sink: &mut dyn RowSink,
) -> Result<(), Error> {
    let context = format!("{}: {context}", db.path.display());
    let mut stmts = prepare_all(db, sql, &context)?;
    if let Some(p) = stmts.iter().find_map(positional) {
        return Err(Error::Refused {
            path: db.path.clone(),
            reason: format!(
                "positional parameter {p}: not supported; name it (:name) and bind it \
                 with --param name=VALUE (nothing was run)"
            ),
        });
    }
    let mut taken = Vec::new();
    for stmt in &mut stmts {
        taken.extend(bind(stmt, params, &context)?);
    }
    if let Some((k, _)) = params.iter().find(|(k, _)| !taken.iter().any(|t| t == k)) {
        return Err(unknown_param(&context, k, &taken));
    }
    let out = |source| Error::Io {
        path: "standard output".into(),
        source,
    };
    for stmt in &mut stmts {
        let columns: Vec<String> = stmt.column_names().iter().map(|c| c.to_string()).collect();
        sink.start(&columns).map_err(out)?;
        each_row(stmt, &context, |row| sink.row(row).map_err(out))?;
        sink.end().map_err(out)?;
    }
    Ok(())
}

/// Prepare every statement of `sql`; a statement the guard refuses, or one
/// that would write, fails them all.
fn prepare_all<'c>(
    db: &'c Database,
    sql: &str,
    context: &str,
) -> Result<Vec<Statement<'c>>, Error> {
    let refused = |what: String| Error::Refused {
        path: db.path.clone(),
        reason: format!("only reading is allowed here; refused {what} (nothing was run)"),
    };
    let mut batch = Batch::new(&db.conn, sql);
    let mut stmts = Vec::new();
    loop {
        match batch.next() {
            Ok(Some(stmt)) if stmt.readonly() => stmts.push(stmt),
            // What the authorizer cannot see (VACUUM, some PRAGMAs):
            // SQLite's own flag for a statement that may write.
            Ok(Some(stmt)) => {
                let text = stmt.expanded_sql().unwrap_or_default();
                let words: Vec<&str> = text.split_whitespace().take(4).collect();
                return Err(refused(format!("`{}` (it may write)", words.join(" "))));
            }
            Ok(None) => break,
            Err(e) => {
                return Err(match guard::refused(&db.refused) {
                    Some(what) => refused(what),
                    None => Error::Sqlite {
                        context: context.to_string(),
                        source: e,
                    },
                })
            }
        }
    }
    if stmts.is_empty() {
        return Err(Error::Refused {
            path: db.path.clone(),
            reason: "no SQL statement given".into(),
        });
    }
    Ok(stmts)
}

/// The first positional parameter of `stmt` (`?`, `?1`), as written:
/// only named ones (`:name`, `@name`, `$name`) can be bound by name.
/// (`?2` leaves parameter 1 without a name: it is named as written.)
fn positional(stmt: &Statement<'_>) -> Option<String> {
    let names: Vec<Option<&str>> = (1..=stmt.parameter_count())
        .map(|i| stmt.parameter_name(i))
        .collect();
    let numbered = names.iter().flatten().find(|n| n.starts_with('?'));
    match numbered {
        Some(n) => Some(n.to_string()),
        None => names.contains(&None).then(|| "?".to_string()),
    }
}

/// Bind the named parameters `stmt` takes (NULL for those not given); the
/// names it took.
fn bind(
    stmt: &mut Statement<'_>,
    params: &[(&str, Cell)],
    context: &str,
) -> Result<Vec<String>, Error> {
    let mut taken = Vec::new();
    for i in 1..=stmt.parameter_count() {
        let Some(name) = stmt
            .parameter_name(i)
            .filter(|n| !n.starts_with('?'))
            .map(|n| n[1..].to_string())
        else {
            return Err(Error::Sqlite {
                context: format!("{context}: parameter {i} is positional (?): name it (:name)"),
                source: rusqlite::Error::InvalidParameterName(format!("?{i}")),
            });
        };
        let value = params
            .iter()
            .find(|(k, _)| *k == name)
            .map_or(Cell::Null, |(_, v)| v.clone());
        stmt.raw_bind_parameter(i, value)
            .map_err(sql_err(context.to_string()))?;
        taken.push(name);
    }
    Ok(taken)
}

/// Hand every row of a bound statement to `f`.
pub(super) fn each_row(
    stmt: &mut Statement<'_>,
    context: &str,
    mut f: impl FnMut(&[Cell]) -> Result<(), Error>,
) -> Result<(), Error> {
    // The context is copied only for an error, never per row or cell.
    let ctx = |e| sql_err(context.to_string())(e);
    let n = stmt.column_count();
    let mut rows = stmt.raw_query();
    let mut cells = vec![Cell::Null; n];
    let mut spares = vec![Vec::new(); n];
    while let Some(row) = rows.next().map_err(ctx)? {
        for (i, (cell, spare)) in cells.iter_mut().zip(&mut spares).enumerate() {
            cell.set(row.get_ref(i).map_err(ctx)?, spare);
        }
        f(&cells)?;
    }
    Ok(())
}

fn unknown_param(context: &str, name: &str, taken: &[String]) -> Error {
    let list: Vec<String> = taken.iter().map(|t| format!(":{t}")).collect();
    Error::Sqlite {
        context: format!(
            "{context} (it takes {})",
            if list.is_empty() {
                "none".to_string()
            } else {
                list.join(", ")
            }
        ),
        source: rusqlite::Error::InvalidParameterName(format!(":{name}")),
    }
}
