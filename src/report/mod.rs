//! report: SQL → rows → text. Owns the canned queries (`queries/*.sql`,
//! embedded with an explicit `include_str!` list), their header metadata,
//! running them (and `kt2sql sql`'s SQL) for reading only ([`guard`]) with
//! bound named parameters, rows streamed to a writer ([`render`]), and the reports
//! built from their rows: [`tree`], [`files`] and [`stats`], each with its
//! text, JSON and CSV (and DOT) renderers, [`timeline`] (Chrome Trace
//! Event JSON and SVG, streamed), [`graph`] (the build as DOT, streamed)
//! and [`depfile`] (make rules for `deps`). It never decodes a trace and
//! never writes a database; every filter is a bound parameter.
//!
//! The `kt2sql` commands run exactly these files, so `.param set :pid 1383`
//! then `.read queries/files.sql` in the `sqlite3` shell gives the rows of
//! `kt2sql files DB -p 1383 --format csv`.

pub mod compile_commands;
pub mod compiler;
pub mod depfile;
pub mod files;
pub mod graph;
mod guard;
mod json;
pub mod meta;
pub mod render;
pub mod result_set;
pub mod stats;
pub mod timeline;
pub mod tree;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Batch, Connection, OpenFlags, Statement};

use crate::schema::{self, sql_err, Existing};
use crate::Error;
pub use meta::Query;
pub use render::{Format, Render, RowSink};
pub use result_set::{Cell, ResultSet};

/// Every query file, by file name. Listed by hand (not by scanning the
/// directory) so Cargo tracks each one; a test checks that every file in
/// `queries/` is listed.
pub const QUERIES: &[(&str, &str)] = &[
    (
        "build_time.sql",
        include_str!("../../queries/build_time.sql"),
    ),
    ("commands.sql", include_str!("../../queries/commands.sql")),
    (
        "critical_path.sql",
        include_str!("../../queries/critical_path.sql"),
    ),
    ("deps.sql", include_str!("../../queries/deps.sql")),
    (
        "failed_lookups.sql",
        include_str!("../../queries/failed_lookups.sql"),
    ),
    ("files.sql", include_str!("../../queries/files.sql")),
    (
        "files_verbose.sql",
        include_str!("../../queries/files_verbose.sql"),
    ),
    (
        "graph_edges.sql",
        include_str!("../../queries/graph_edges.sql"),
    ),
    (
        "graph_nodes.sql",
        include_str!("../../queries/graph_nodes.sql"),
    ),
    ("inputs.sql", include_str!("../../queries/inputs.sql")),
    ("issues.sql", include_str!("../../queries/issues.sql")),
    ("lint.sql", include_str!("../../queries/lint.sql")),
    ("outputs.sql", include_str!("../../queries/outputs.sql")),
    (
        "parallelism.sql",
        include_str!("../../queries/parallelism.sql"),
    ),
    (
        "pid_lifetimes.sql",
        include_str!("../../queries/pid_lifetimes.sql"),
    ),
    (
        "process_top.sql",
        include_str!("../../queries/process_top.sql"),
    ),
    (
        "slow_calls.sql",
        include_str!("../../queries/slow_calls.sql"),
    ),
    (
        "syscall_top.sql",
        include_str!("../../queries/syscall_top.sql"),
    ),
    (
        "timeline_calls.sql",
        include_str!("../../queries/timeline_calls.sql"),
    ),
    (
        "timeline_flows.sql",
        include_str!("../../queries/timeline_flows.sql"),
    ),
    (
        "timeline_forks.sql",
        include_str!("../../queries/timeline_forks.sql"),
    ),
    (
        "timeline_slices.sql",
        include_str!("../../queries/timeline_slices.sql"),
    ),
    (
        "timeline_tracks.sql",
        include_str!("../../queries/timeline_tracks.sql"),
    ),
    ("traces.sql", include_str!("../../queries/traces.sql")),
    ("tree.sql", include_str!("../../queries/tree.sql")),
    (
        "tree_calls.sql",
        include_str!("../../queries/tree_calls.sql"),
    ),
    (
        "unresolved.sql",
        include_str!("../../queries/unresolved.sql"),
    ),
];

/// Every query with its parsed header, in file-name order.
pub fn queries() -> Vec<Query> {
    QUERIES
        .iter()
        .map(|(file, sql)| Query::parse(file, sql))
        .collect()
}

/// The query called `name`: its file stem (`slow_calls`), the same with
/// hyphens (`slow-calls`, as the CLI spells it) or its file name.
pub fn query(name: &str) -> Option<Query> {
    let stem = name.strip_suffix(".sql").unwrap_or(name).replace('-', "_");
    QUERIES
        .iter()
        .find(|(file, _)| file.strip_suffix(".sql") == Some(stem.as_str()))
        .map(|(file, sql)| Query::parse(file, sql))
}

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

/// How long a report waits for a writer of the database to commit.
pub const READ_BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// A kt2sql database opened for reading: the connection (which it derefs
/// to), the path it was opened by, and what its guard refused last.
#[derive(Debug)]
pub struct Database {
    conn: Connection,
    /// The path as the user gave it, for messages.
    pub path: PathBuf,
    refused: Arc<Mutex<Option<String>>>,
}

impl std::ops::Deref for Database {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.conn
    }
}

/// Open a kt2sql database read-only, for reading only: SQLite's authorizer
/// refuses anything else while a statement is prepared ([`guard`]).
/// Refuses files that are not kt2sql databases of this schema version, and
/// databases without the report views (imported before they existed:
/// re-import to get them).
pub fn open(db: &Path) -> Result<Database, Error> {
    let refuse = |reason: String| Error::Refused {
        path: db.to_owned(),
        reason,
    };
    match schema::inspect(db)? {
        Existing::Current => {}
        Existing::OtherVersion(v) => {
            return Err(refuse(format!(
                "a kt2sql database of schema version {v}; this kt2sql reads version {}",
                schema::SCHEMA_VERSION
            )))
        }
        // A trace given where the database goes: say what to do with it.
        Existing::Foreign(_) if crate::decode::Decoder::open(db, None).is_ok() => {
            return Err(refuse(
                "this is a ktrace file: import it first with `kt2sql TRACE DB`".into(),
            ))
        }
        Existing::Foreign(why) => return Err(refuse(format!("not a kt2sql database: {why}"))),
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(db, flags)
        .map_err(sql_err(format!("{}: opening", db.display())))?;
    // An `--append` writing this database (rollback journal) keeps readers
    // out from its first spilled page to its commit: wait for it a while.
    conn.busy_timeout(READ_BUSY_TIMEOUT)
        .map_err(sql_err(format!(
            "{}: setting the busy timeout",
            db.display()
        )))?;
    let views: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'view' AND name = 'process_tree'",
            [],
            |r| r.get(0),
        )
        .map_err(sql_err(format!("{}: reading the schema", db.display())))?;
    if views == 0 {
        return Err(refuse(
            "has no report views (imported by an older kt2sql); import the trace again".into(),
        ));
    }
    let refused = guard::install(&conn);
    Ok(Database {
        conn,
        path: db.to_owned(),
        refused,
    })
}

/// Run the registered query `name` with named parameters (names without the
/// colon). Parameters the query uses but `params` lacks are bound to NULL,
/// which means "no filter"; a parameter the query does not take is an error.
pub fn run(conn: &Connection, name: &str, params: &[(&str, Cell)]) -> Result<ResultSet, Error> {
    let q = query(name).ok_or_else(|| Error::Sqlite {
        context: format!("no query called {name:?}"),
        source: rusqlite::Error::InvalidQuery,
    })?;
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
    let ctx = || sql_err(context.to_string());
    let mut stmt = conn.prepare(sql).map_err(ctx())?;
    let taken = bind(&mut stmt, params, context)?;
    if let Some((k, _)) = params.iter().find(|(k, _)| !taken.iter().any(|t| t == k)) {
        return Err(unknown_param(context, k, &taken));
    }
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
    let q = query(name).ok_or_else(|| Error::Sqlite {
        context: format!("no query called {name:?}"),
        source: rusqlite::Error::InvalidQuery,
    })?;
    let context = format!("running queries/{}", q.file);
    let mut stmt = conn.prepare(q.sql).map_err(sql_err(context.clone()))?;
    let taken = bind(&mut stmt, params, &context)?;
    if let Some((k, _)) = params.iter().find(|(k, _)| !taken.iter().any(|t| t == k)) {
        return Err(unknown_param(&context, k, &taken));
    }
    each_row(&mut stmt, &context, f)
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

/// Bind the named parameters `stmt` takes (NULL for those not given); the
/// names it took.
fn bind(
    stmt: &mut Statement<'_>,
    params: &[(&str, Cell)],
    context: &str,
) -> Result<Vec<String>, Error> {
    let mut taken = Vec::new();
    for i in 1..=stmt.parameter_count() {
        let Some(name) = stmt.parameter_name(i).map(|n| n[1..].to_string()) else {
            return Err(Error::Sqlite {
                context: format!("{context}: parameter ?{i}: use named parameters (:name)"),
                source: rusqlite::Error::InvalidQuery,
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
fn each_row(
    stmt: &mut Statement<'_>,
    context: &str,
    mut f: impl FnMut(&[Cell]) -> Result<(), Error>,
) -> Result<(), Error> {
    let ctx = || sql_err(context.to_string());
    let n = stmt.column_count();
    let mut rows = stmt.raw_query();
    let mut cells = Vec::with_capacity(n);
    while let Some(row) = rows.next().map_err(ctx())? {
        cells.clear();
        for i in 0..n {
            cells.push(Cell::from(row.get_ref(i).map_err(ctx())?));
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

/// Every lifetime of `pid` within `trace` (all traces when `None`), first
/// first (`queries/pid_lifetimes.sql`). `-p PID` takes them all.
pub fn lifetimes(conn: &Connection, pid: i64, trace: Option<i64>) -> Result<ResultSet, Error> {
    run(
        conn,
        "pid_lifetimes",
        &[("pid", Cell::Int(pid)), ("trace", opt_int(trace))],
    )
}

/// The documented schema: every `schema/*.sql` file in order under a
/// `-- schema/NAME` line, or with `name`, the comment block and statement
/// that create that table, view or index (`None` when there is none).
pub fn schema_text(name: Option<&str>) -> Option<String> {
    let Some(name) = name else {
        let files: Vec<String> = schema::SCHEMA
            .iter()
            .map(|(file, sql)| format!("-- schema/{file}\n\n{}", sql.trim_end()))
            .collect();
        return Some(files.join("\n\n") + "\n");
    };
    let defines = |line: &str| {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = match words.as_slice() {
            ["CREATE", "TABLE" | "VIEW", ..] => 2,
            ["CREATE", "UNIQUE", "INDEX", ..] => 3,
            ["CREATE", "INDEX", ..] => 2,
            _ => return false,
        };
        let rest = &words[at..];
        let rest = match rest {
            ["IF", "NOT", "EXISTS", tail @ ..] => tail,
            tail => tail,
        };
        rest.first()
            .is_some_and(|w| w.trim_end_matches('(').eq_ignore_ascii_case(name))
    };
    schema::SCHEMA.iter().find_map(|(_, sql)| {
        sql.split("\n\n")
            .find(|block| block.lines().any(defines))
            .map(|block| format!("{}\n", block.trim()))
    })
}

/// Every trace of the database: (trace_id, path), in id order.
pub fn trace_paths(conn: &Connection) -> Result<Vec<(i64, Vec<u8>)>, Error> {
    let ctx = || sql_err("reading table trace".into());
    let mut st = conn
        .prepare("SELECT trace_id, CAST(path AS BLOB) FROM trace ORDER BY trace_id")
        .map_err(ctx())?;
    let rows = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(ctx())?;
    rows.collect::<Result<_, _>>().map_err(ctx())
}

/// The traces of the database, or only `trace`: (trace_id, system,
/// dialect), in id order, for messages that depend on what recorded them.
pub fn trace_systems(
    conn: &Connection,
    trace: Option<i64>,
) -> Result<Vec<(i64, String, String)>, Error> {
    let ctx = || sql_err("reading table trace".into());
    let mut st = conn
        .prepare(
            "SELECT trace_id, system, dialect FROM trace
             WHERE ?1 IS NULL OR trace_id = ?1 ORDER BY trace_id",
        )
        .map_err(ctx())?;
    let rows = st
        .query_map([trace], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .map_err(ctx())?;
    rows.collect::<Result<_, _>>().map_err(ctx())
}

/// The heading a text report prints above each trace of a database that
/// holds several: `Trace 2: /path/of/ktrace.out`, as `kt2sql stats` names
/// them.
pub fn write_trace_heading(
    out: &mut dyn std::io::Write,
    id: i64,
    path: &[u8],
) -> std::io::Result<()> {
    writeln!(out, "Trace {id}: {}", crate::text::vis(path))
}

/// Whether the database holds a trace with this `trace_id`.
pub fn has_trace(conn: &Connection, trace: i64) -> Result<bool, Error> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM trace WHERE trace_id = ?1)",
        [trace],
        |r| r.get(0),
    )
    .map_err(sql_err("reading table trace".into()))
}
