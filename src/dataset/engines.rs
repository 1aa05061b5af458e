//! The dataset's SQL for other engines, generated from the one schema
//! source (`schema/*.sql`, `queries/*.sql`): `DIR/duckdb.sql` (the tables
//! and every view, for DuckDB), `DIR/duckdb/NAME.sql` (every canned
//! query, for DuckDB), `DIR/spark.sql` (the tables and every view, for
//! Spark SQL) and `DIR/spark/NAME.sql` (every canned query, for Spark,
//! parameters `:name`). Owns the few per-engine rewrites where SQLite and the
//! other engine share no form; the SQL itself is written once, in forms
//! every engine accepts (docs/datasets.md lists the rewrites).
//!
//! **Ids.** The SQL joins on ids, which are unique per trace only in a
//! dataset. The engines' table views therefore make every id unique
//! across the dataset: a trace's ids plus its number (its rank by trace
//! key) times 2^40, [`ID_SPAN`]. The views then run unchanged, each trace's
//! rows exactly its database's but for that offset; `kt2sql_id(x)` and
//! `kt2sql_trace_key(x)` (DuckDB) give an id's own value and trace back.

use std::path::Path;

use rusqlite::Connection;

use super::columns::{Kind, TableColumns, BYTES_SUFFIX, TRACE_KEY};
use super::write_atomically;
use crate::schema::{sql_err, QUERIES, SCHEMA, SCHEMA_VERSION};
use crate::Error;

/// The step between two traces' ids in the engines' views: 2^40, room
/// for a trillion ids per trace and eight million traces.
pub const ID_SPAN: i64 = 1 << 40;

/// The files of view definitions, and the directory of DuckDB queries.
pub const DUCKDB_SQL: &str = "duckdb.sql";
/// Spark SQL's view definitions.
pub const SPARK_SQL: &str = "spark.sql";
/// The canned queries for DuckDB, one file each.
pub const DUCKDB_QUERIES: &str = "duckdb";
/// The canned queries for Spark SQL, one file each.
pub const SPARK_QUERIES: &str = "spark";

/// An engine the dataset ships SQL for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// DuckDB 1.x.
    DuckDb,
    /// Spark SQL 4.
    Spark,
}

/// Write (or rewrite, when the text differs) the engines' SQL in `dir`,
/// each file under a temporary name first.
pub fn write(dir: &Path, tables: &[TableColumns]) -> Result<(), Error> {
    let mut files = vec![
        (dir.join(DUCKDB_SQL), views(Engine::DuckDb, tables)?),
        (dir.join(SPARK_SQL), views(Engine::Spark, tables)?),
    ];
    for (engine, sub) in [
        (Engine::DuckDb, DUCKDB_QUERIES),
        (Engine::Spark, SPARK_QUERIES),
    ] {
        let qdir = dir.join(sub);
        std::fs::create_dir_all(&qdir).map_err(|source| Error::Io {
            path: qdir.clone(),
            source,
        })?;
        for (file, sql) in QUERIES {
            let sql = match engine {
                Engine::DuckDb => (*sql).to_owned(),
                Engine::Spark => spark_forms(file.trim_end_matches(".sql"), sql),
            };
            files.push((qdir.join(file), query(engine, &sql)));
        }
    }
    for (path, text) in files {
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            write_atomically(&path, text.as_bytes())?;
        }
    }
    Ok(())
}

/// Spark's forms of parts of the canned queries (`queries/engines/spark.sql`).
const SPARK_FORMS: &str = include_str!("../../queries/engines/spark.sql");

/// The forms of `queries/engines/spark.sql`: (query, SQLite's text, Spark's).
fn forms() -> Vec<(&'static str, String, String)> {
    let mut out = Vec::new();
    for part in SPARK_FORMS.split("-- form: ").skip(1) {
        let (name, body) = part.split_once('\n').unwrap_or((part, ""));
        let body = body.split("-- end form").next().unwrap_or("");
        let (_, rest) = body.split_once("-- sqlite:\n").unwrap_or(("", ""));
        let (sqlite, spark) = rest.split_once("-- spark:\n").unwrap_or(("", ""));
        out.push((name.trim(), sqlite.to_owned(), spark.to_owned()));
    }
    out
}

/// A canned query (`name`, without `.sql`) with Spark's forms of its parts
/// put in (each form's SQLite text occurs once: a test checks).
fn spark_forms(name: &str, sql: &str) -> String {
    let mut sql = sql.to_owned();
    for (query, sqlite, spark) in forms() {
        if query == name {
            sql = sql.replacen(&sqlite, &spark, 1);
        }
    }
    sql
}

/// A canned query in the engine's dialect: Spark names a parameter
/// `:name` where SQLite and DuckDB write `$name`.
pub fn query(engine: Engine, sql: &str) -> String {
    let sql = rewrite(engine, sql);
    match engine {
        Engine::DuckDb => sql,
        Engine::Spark => parameters(&sql),
    }
}

/// `$name` becomes `:name` (outside comments and strings).
fn parameters(sql: &str) -> String {
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = sql[i..].find('\n').map_or(b.len(), |n| i + n);
            }
            b'\'' | b'"' | b'`' => i = skip_quoted(b, i),
            b'$' if b.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic()) => {
                out.push_str(&sql[copied..i]);
                out.push(':');
                i += 1;
                copied = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&sql[copied..]);
    out
}

/// The script that defines every table and view for `engine`: the
/// tables over the Parquet files (paths relative to the dataset's
/// directory), ids made unique across the dataset, then the views.
pub fn views(engine: Engine, tables: &[TableColumns]) -> Result<String, Error> {
    let ids = id_columns(tables)?;
    let mut s = String::new();
    s.push_str(&header(engine));
    let (create, read) = match engine {
        Engine::DuckDb => (
            "CREATE OR REPLACE VIEW",
            "read_parquet('{T}/*/*.parquet', hive_partitioning = false)",
        ),
        Engine::Spark => ("CREATE OR REPLACE TEMPORARY VIEW", "parquet.`{T}`"),
    };
    s.push_str(&format!(
        "-- Each trace's number times 2^40, added to its ids.\n\
         {create} _trace_base AS\n\
         SELECT {TRACE_KEY}, row_number() OVER (ORDER BY {TRACE_KEY}) * {ID_SPAN} AS base\n\
         FROM {};\n\n",
        read.replace("{T}", "trace")
    ));
    if engine == Engine::DuckDb {
        // SQLite and Spark sort NULL before every value (ascending);
        // DuckDB after, unless told: the canned queries' orders are
        // SQLite's.
        s.push_str(
            "-- NULL sorts first ascending and last descending, as in SQLite.\n\
             SET default_null_order = 'nulls_first_on_asc_last_on_desc';\n\n",
        );
        s.push_str(&format!(
            "-- An id's value in its trace, and its trace's key.\n\
             CREATE OR REPLACE MACRO kt2sql_id(x) AS x % {ID_SPAN};\n\
             CREATE OR REPLACE MACRO kt2sql_trace_key(x) AS\n  \
             (SELECT {TRACE_KEY} FROM _trace_base WHERE base = x - x % {ID_SPAN});\n\n"
        ));
    }
    // Identifiers quoted as the engine quotes them (`offset` is a keyword).
    let q = |name: &str| match engine {
        Engine::DuckDb => format!("\"{name}\""),
        Engine::Spark => format!("`{name}`"),
    };
    for (t, tids) in tables.iter().zip(&ids) {
        let mut cols = vec![TRACE_KEY.to_string()];
        for c in &t.columns {
            if tids.contains(&c.name) {
                cols.push(format!("{0} + b.base AS {0}", q(&c.name)));
            } else {
                cols.push(q(&c.name));
            }
            if c.kind == Kind::Bytes {
                cols.push(q(&format!("{}{BYTES_SUFFIX}", c.name)));
            }
        }
        s.push_str(&format!(
            "{create} {} AS\nSELECT {}\nFROM {}\nJOIN _trace_base AS b USING ({TRACE_KEY});\n\n",
            q(t.name),
            cols.join(", "),
            read.replace("{T}", t.name)
        ));
    }
    for (name, sql) in SCHEMA.iter().skip(2) {
        s.push_str(&format!("-- schema/{name}\n"));
        s.push_str(&rewrite(engine, &schema_views(engine, sql)));
        s.push('\n');
    }
    Ok(s)
}

fn header(engine: Engine) -> String {
    let (name, run) = match engine {
        Engine::DuckDb => (
            "DuckDB",
            "-- Run it in the dataset's directory (`cd DIR && duckdb -init duckdb.sql`), or\n\
             -- elsewhere after `SET file_search_path = 'DIR'`.",
        ),
        Engine::Spark => (
            "Spark SQL",
            "-- Run it with the dataset's directory as the working directory; the\n\
             -- views are temporary (per session).",
        ),
    };
    format!(
        "-- The tables and views of a kt2sql dataset for {name}, generated by kt2sql {}\n\
         -- from its schema (version {SCHEMA_VERSION}): the same views as in a database.\n\
         {run}\n\
         -- Ids are unique per trace in the files; here each trace's are offset by\n\
         -- its number (rank by trace_key) times 2^40, so that joins on ids stay\n\
         -- within a trace.\n\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// For each table, the columns holding ids: its integer primary key, the
/// columns that reference another table, exec.calls_from (a call_id,
/// declared without a reference: it may name the call after the last), and
/// tree_node's positions and call ids beside its `pos` (`subtree_end`,
/// `calls_from`, `calls_to`), so the order holds across traces.
fn id_columns(tables: &[TableColumns]) -> Result<Vec<Vec<String>>, Error> {
    let conn = Connection::open_in_memory().map_err(sql_err("opening memory".into()))?;
    crate::schema::create_tables(&conn)?;
    tables
        .iter()
        .map(|t| {
            let ctx = || sql_err(format!("reading the keys of {}", t.name));
            let mut stmt = conn
                .prepare(
                    "SELECT name FROM pragma_table_info(?1) AS c \
                     WHERE (c.pk = 1 AND c.type = 'INTEGER' \
                            AND (SELECT count(*) FROM pragma_table_info(?1) WHERE pk > 0) = 1) \
                        OR c.name IN (SELECT \"from\" FROM pragma_foreign_key_list(?1)) \
                        OR (?1 = 'exec' AND c.name = 'calls_from') \
                        OR (?1 = 'tree_node' AND c.name IN ('subtree_end', 'calls_from', 'calls_to'))",
                )
                .map_err(ctx())?;
            let rows = stmt
                .query_map([t.name], |r| r.get::<_, String>(0))
                .map_err(ctx())?;
            rows.collect::<Result<Vec<_>, _>>().map_err(ctx())
        })
        .collect()
}

/// A schema file's views for `engine`: the constant table `_access_class`
/// as the engine can hold it, every view replaceable.
fn schema_views(engine: Engine, sql: &str) -> String {
    let sql = match engine {
        Engine::DuckDb => sql
            .replace(") WITHOUT ROWID;", ");")
            .replace("CREATE VIEW IF NOT EXISTS", "CREATE OR REPLACE VIEW"),
        Engine::Spark => sql.replace(
            "CREATE VIEW IF NOT EXISTS",
            "CREATE OR REPLACE TEMPORARY VIEW",
        ),
    };
    if engine == Engine::DuckDb {
        return sql;
    }
    // Spark holds no table of its own: the constant rows become a view.
    let Some(start) = sql.find("CREATE TABLE IF NOT EXISTS _access_class") else {
        return sql;
    };
    let Some(ins) = sql[start..].find("INSERT OR IGNORE INTO _access_class") else {
        return sql;
    };
    let ins = start + ins;
    let Some(values) = sql[ins..].find("VALUES") else {
        return sql;
    };
    let Some(end) = sql[ins..].find(';') else {
        return sql;
    };
    let rows = &sql[ins + values + "VALUES".len()..ins + end];
    format!(
        "{}CREATE OR REPLACE TEMPORARY VIEW _access_class AS\nSELECT * FROM VALUES{} AS t(access, effect, modifies, creates);{}",
        &sql[..start],
        rows,
        &sql[ins + end + 1..]
    )
}

/// The per-engine rewrites, where SQLite and the engine share no form.
///
/// DuckDB: `CAST(x AS BLOB)` (bytewise order of TEXT-or-BLOB values) is
/// `encode(x)`; `CAST(x AS INTEGER)` is `CAST(x AS BIGINT)` (DuckDB's
/// INTEGER is 32 bits); `char(n)` is `chr(n)`; `json_each(x)` yields
/// `value` as text (DuckDB's is JSON); a row value compared with a
/// subquery takes the subquery's columns as one row value.
///
/// Spark: `"x"` is `` `x` ``; `CAST(x AS BLOB)` is `CAST(x AS BINARY)`, TEXT is STRING,
/// INTEGER BIGINT; `MATERIALIZED` goes; `main.tree_node` (SQLite's schema
/// named) is `tree_node`; `rtrim(x, chars)` is
/// `trim(TRAILING chars FROM x)`; `json_array`/`json_group_array` are
/// `to_json` of `array`/`collect_list`; `x ->> 0` is
/// `get_json_object(x, '$[0]')`; `json_each(x)` (an array of strings) is
/// `posexplode` of `from_json(x, 'array<string>')`.
fn rewrite(engine: Engine, sql: &str) -> String {
    match engine {
        Engine::DuckDb => {
            let s = rewrite_calls(sql, "CAST", &|inner| {
                if let Some(x) = strip_suffix_ci(inner, " AS BLOB") {
                    Some(format!("encode({x})"))
                } else {
                    strip_suffix_ci(inner, " AS INTEGER").map(|x| format!("CAST({x} AS BIGINT)"))
                }
            });
            let s = rewrite_calls(&s, "char", &|inner| Some(format!("chr({inner})")));
            let s = row_subqueries(&s);
            rewrite_calls(&s, "json_each", &|inner| {
                Some(format!(
                    "(SELECT key, value ->> '$' AS value FROM json_each({inner}))"
                ))
            })
        }
        Engine::Spark => {
            let s = rewrite_calls(sql, "CAST", &|inner| {
                if let Some(x) = strip_suffix_ci(inner, " AS BLOB") {
                    Some(format!("CAST({x} AS BINARY)"))
                } else if let Some(x) = strip_suffix_ci(inner, " AS TEXT") {
                    Some(format!("CAST({x} AS STRING)"))
                } else {
                    strip_suffix_ci(inner, " AS INTEGER").map(|x| format!("CAST({x} AS BIGINT)"))
                }
            });
            let s = rewrite_calls(&s, "rtrim", &|inner| match split_args(inner).as_slice() {
                [x, chars] => Some(format!("trim(TRAILING {} FROM {})", chars.trim(), x.trim())),
                _ => None,
            });
            let s = rewrite_calls(&s, "json_group_array", &|inner| {
                Some(format!("to_json(collect_list({inner}))"))
            });
            let s = rewrite_calls(&s, "json_array", &|inner| {
                Some(format!("to_json(array({inner}))"))
            });
            let s = json_arrows(&s);
            let s = rewrite_calls(&s, "json_each", &|inner| {
                Some(format!(
                    "(SELECT CAST(pos AS BIGINT) AS key, col AS value \
                     FROM posexplode(from_json({inner}, 'array<string>')))"
                ))
            });
            backticks(&lateral_json_each(
                &s.replace(" AS MATERIALIZED (", " AS (")
                    .replace("main.tree_node", "tree_node"),
            ))
        }
    }
}

/// Spark: `x ->> 0` (an element of a JSON array, as text) is
/// `get_json_object(x, '$[0]')`; `x` is a column name.
fn json_arrows(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(i) = rest.find(" ->> ") {
        let left = &rest[..i];
        let start = left
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .map_or(0, |j| j + 1);
        let after = &rest[i + " ->> ".len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if start == i || digits == 0 {
            out.push_str(&rest[..i + " ->> ".len()]);
            rest = after;
            continue;
        }
        out.push_str(&left[..start]);
        out.push_str(&format!(
            "get_json_object({}, '$[{}]')",
            &left[start..],
            &after[..digits]
        ));
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// Spark reads a subquery in FROM that names an earlier table of the same
/// FROM only when marked `LATERAL`: a rewritten `json_each` after a comma.
fn lateral_json_each(sql: &str) -> String {
    sql.replace(
        ", (SELECT CAST(pos AS BIGINT) AS key",
        ", LATERAL (SELECT CAST(pos AS BIGINT) AS key",
    )
}

/// DuckDB compares a row value with a subquery's row only when the
/// subquery selects one row value: `(a, b) = (SELECT x, y FROM …)` becomes
/// `(a, b) = (SELECT (x, y) FROM …)` (SQLite takes only the first form).
fn row_subqueries(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(i) = rest.find(") = (") {
        let after = &rest[i + ") = (".len()..];
        let list_at = after.len() - after.trim_start().len();
        let body = &after[list_at..];
        let from = body.find(" FROM ");
        match (body.strip_prefix("SELECT "), from) {
            (Some(_), Some(f)) if split_args(&body["SELECT ".len()..f]).len() > 1 => {
                let cut = i + ") = (".len() + list_at;
                out.push_str(&rest[..cut]);
                out.push_str(&format!("SELECT ({})", &body["SELECT ".len()..f]));
                rest = &rest[cut + f..];
            }
            _ => {
                out.push_str(&rest[..i + ") = (".len()]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Spark quotes identifiers with backticks (a double-quoted word is a
/// string there).
fn backticks(sql: &str) -> String {
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        match b[i] {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = sql[i..].find('\n').map_or(b.len(), |n| i + n);
            }
            b'\'' => i = skip_quoted(b, i),
            b'"' => {
                let end = skip_quoted(b, i);
                out.push_str(&sql[copied..i]);
                out.push('`');
                out.push_str(&sql[i + 1..end - 1]);
                out.push('`');
                i = end;
                copied = end;
            }
            _ => i += 1,
        }
    }
    out.push_str(&sql[copied..]);
    out
}

fn strip_suffix_ci<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let t = s.trim_end();
    let n = t.len().checked_sub(suffix.len())?;
    (t.is_char_boundary(n) && t[n..].eq_ignore_ascii_case(suffix)).then(|| &t[..n])
}

/// Replace every call `name(…)` in `sql` (outside comments and strings)
/// by what `f` makes of its argument text (itself rewritten first);
/// `None` keeps the call.
fn rewrite_calls(sql: &str, name: &str, f: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(sql.len());
    let b = sql.as_bytes();
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        match b[i] {
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = sql[i..].find('\n').map_or(b.len(), |n| i + n);
            }
            b'\'' | b'"' => i = skip_quoted(b, i),
            _ if starts_call(sql, i, name) => {
                let open = i + name.len();
                let Some(close) = matching(b, open) else {
                    i = open;
                    continue;
                };
                let inner = rewrite_calls(&sql[open + 1..close], name, f);
                out.push_str(&sql[copied..i]);
                match f(&inner) {
                    Some(r) => out.push_str(&r),
                    None => {
                        out.push_str(&sql[i..=open]);
                        out.push_str(&inner);
                        out.push(')');
                    }
                }
                i = close + 1;
                copied = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&sql[copied..]);
    out
}

/// Whether `name(` starts at `i`, as a whole word (any case).
fn starts_call(sql: &str, i: usize, name: &str) -> bool {
    let b = sql.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    (i == 0 || !word(b[i - 1]))
        && sql.len() > i + name.len()
        && sql.is_char_boundary(i + name.len())
        && sql[i..i + name.len()].eq_ignore_ascii_case(name)
        && b[i + name.len()] == b'('
}

/// The index just past the quoted string or identifier starting at `i`.
fn skip_quoted(b: &[u8], i: usize) -> usize {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() {
        if b[j] == q {
            if b.get(j + 1) == Some(&q) {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    b.len()
}

/// The index of the `)` matching the `(` at `open`.
fn matching(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'\'' | b'"' => {
                i = skip_quoted(b, i);
                continue;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A call's arguments, split at its top-level commas.
fn split_args(inner: &str) -> Vec<&str> {
    let b = inner.as_bytes();
    let (mut out, mut depth, mut start, mut i) = (Vec::new(), 0, 0, 0);
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'\'' | b'"' => {
                i = skip_quoted(b, i);
                continue;
            }
            b',' if depth == 0 => {
                out.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&inner[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_rewritten_outside_comments_and_strings() {
        let sql = "SELECT CAST(COALESCE(a, '') AS BLOB), 'CAST(x AS BLOB)' -- CAST(y AS BLOB)\n\
                   , rtrim(rtrim(p, replace(p, '/', '')), '/'), CAST(n AS INTEGER)";
        assert_eq!(
            rewrite(Engine::DuckDb, sql),
            "SELECT encode(COALESCE(a, '')), 'CAST(x AS BLOB)' -- CAST(y AS BLOB)\n\
             , rtrim(rtrim(p, replace(p, '/', '')), '/'), CAST(n AS BIGINT)"
        );
        assert_eq!(
            rewrite(Engine::Spark, sql),
            "SELECT CAST(COALESCE(a, '') AS BINARY), 'CAST(x AS BLOB)' -- CAST(y AS BLOB)\n\
             , trim(TRAILING '/' FROM trim(TRAILING replace(p, '/', '') FROM p)), CAST(n AS BIGINT)"
        );
    }

    #[test]
    fn spark_reads_json_arrays_and_named_parameters() {
        assert_eq!(
            query(
                Engine::Spark,
                "SELECT m.value ->> 1, '$x' FROM z, json_each(z.c) AS m -- $y\n\
                 WHERE $trace IS NULL AND \"offset\" IN (SELECT value FROM json_each($files))"
            ),
            "SELECT get_json_object(m.value, '$[1]'), '$x' FROM z, LATERAL \
             (SELECT CAST(pos AS BIGINT) AS key, col AS value \
             FROM posexplode(from_json(z.c, 'array<string>'))) AS m -- $y\n\
             WHERE :trace IS NULL AND `offset` IN (SELECT value FROM \
             (SELECT CAST(pos AS BIGINT) AS key, col AS value \
             FROM posexplode(from_json(:files, 'array<string>'))))"
        );
    }

    /// Every form of `queries/engines/spark.sql` names a canned query and
    /// replaces text found exactly once in it.
    #[test]
    fn spark_forms_each_replace_one_text_of_their_query() {
        let forms = forms();
        assert!(forms.len() >= 4, "{} forms", forms.len());
        for (name, sqlite, spark) in forms {
            let file = format!("{name}.sql");
            let (_, sql) = QUERIES
                .iter()
                .find(|(f, _)| *f == file)
                .unwrap_or_else(|| panic!("a form names {name}, no canned query"));
            assert!(
                !sqlite.trim().is_empty() && !spark.trim().is_empty(),
                "{name}"
            );
            assert_eq!(
                sql.matches(sqlite.as_str()).count(),
                1,
                "{name}: the form's SQLite text occurs once:\n{sqlite}"
            );
            let out = spark_forms(name, sql);
            assert!(out.contains(spark.as_str()) && !out.contains(sqlite.as_str()));
        }
    }

    #[test]
    fn json_each_yields_text_on_duckdb() {
        assert_eq!(
            rewrite(
                Engine::DuckDb,
                "SELECT value FROM json_each(COALESCE($m, '[]')) AS m"
            ),
            "SELECT value FROM (SELECT key, value ->> '$' AS value \
             FROM json_each(COALESCE($m, '[]'))) AS m"
        );
    }
}
