//! An existing database → a dataset: every trace, every table, each
//! trace's rows under its key. Reads the database as it is (any trace
//! count, ids as they are); writes nothing until every trace's key is known
//! to be new to the dataset (or is to be replaced), so a refusal leaves the
//! dataset as it was.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::{trace_key, Dataset, OnDuplicate};
use crate::schema::{sql_err, Existing};
use crate::Error;

/// One trace exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// Its `trace_id` in the database.
    pub trace_id: i64,
    /// Its key in the dataset.
    pub key: String,
    /// Rows per table, in the order of [`Dataset::tables`].
    pub rows: Vec<u64>,
}

/// Write every trace of the database `db` into the dataset `dir`.
pub fn export(db: &Path, dir: &Path, on_dup: OnDuplicate) -> Result<Vec<Exported>, Error> {
    match crate::schema::inspect(db)? {
        Existing::Current => {}
        Existing::OtherVersion(v) => {
            return Err(Error::Refused {
                path: db.to_owned(),
                reason: format!(
                    "a kt2sql database of schema version {v}; this kt2sql exports version {}",
                    crate::schema::SCHEMA_VERSION
                ),
            })
        }
        Existing::Foreign(_) if crate::decode::Decoder::is_trace(db) => {
            return Err(Error::Refused {
                path: db.to_owned(),
                reason: "is a ktrace file, not a database: import it first (kt2sql import \
                         TRACE DB), or write the dataset from it (kt2sql import --to parquet \
                         TRACE DIR)"
                    .into(),
            })
        }
        Existing::Foreign(why) => {
            return Err(Error::Refused {
                path: db.to_owned(),
                reason: format!("not a kt2sql database: {why}"),
            })
        }
    }
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(sql_err(format!("{}: opening", db.display())))?;
    let ctx = |what: &str| sql_err(format!("{}: {what}", db.display()));
    let traces: Vec<(i64, String)> = {
        let mut stmt = conn
            .prepare(
                "SELECT trace_id, fingerprint, size, CAST(path AS BLOB), imported_at \
                 FROM trace ORDER BY trace_id",
            )
            .map_err(ctx("reading table trace"))?;
        let rows = stmt
            .query_map([], |r| {
                let fp: Option<String> = r.get(1)?;
                let size: i64 = r.get(2)?;
                let path: Vec<u8> = r.get(3)?;
                let at: String = r.get(4)?;
                Ok((r.get(0)?, trace_key(fp.as_deref(), size as u64, &path, &at)))
            })
            .map_err(ctx("reading table trace"))?;
        rows.collect::<Result<_, _>>()
            .map_err(ctx("reading table trace"))?
    };
    for (i, (id, key)) in traces.iter().enumerate() {
        if let Some((other, _)) = traces[..i].iter().find(|(_, k)| k == key) {
            return Err(Error::Refused {
                path: db.to_owned(),
                reason: format!(
                    "traces {other} and {id} are the same file (key {key}): \
                     a dataset holds a trace once"
                ),
            });
        }
    }
    let dataset = Dataset::open(dir)?;
    if on_dup == OnDuplicate::Refuse {
        if let Some((id, key)) = traces.iter().find(|(_, k)| dataset.contains(k)) {
            return Err(Error::Refused {
                path: dir.to_owned(),
                reason: format!(
                    "already holds trace {id} of {} (key {key}, the same file); \
                     --force replaces it",
                    db.display()
                ),
            });
        }
    }
    let one = traces.len() == 1;
    let queries: Vec<String> = dataset
        .tables()
        .iter()
        .map(|t| select(&conn, t.name, one))
        .collect::<Result<_, _>>()?;
    let mut done = Vec::with_capacity(traces.len());
    for (trace_id, key) in traces {
        let mut files = dataset.begin(&key, OnDuplicate::Replace)?;
        for (n, (sql, t)) in queries.iter().zip(dataset.tables()).enumerate() {
            let what = format!("reading table {}", t.name);
            let mut stmt = conn.prepare_cached(sql).map_err(ctx(&what))?;
            let cols = stmt.column_count();
            let mut rows = if sql.contains("?1") {
                stmt.query([trace_id])
            } else {
                stmt.query([])
            }
            .map_err(ctx(&what))?;
            while let Some(row) = rows.next().map_err(ctx(&what))? {
                files.push(n, (0..cols).map(|i| row.get_ref_unwrap(i)))?;
            }
        }
        let rows = files.finish()?;
        done.push(Exported {
            trace_id,
            key,
            rows,
        });
    }
    Ok(done)
}

/// The SELECT of one trace's rows of `table` (`?1`: its `trace_id`), every
/// column in the schema's order, in key order. With `all`, the database
/// holds one trace: every row is its.
fn select(conn: &Connection, table: &str, all: bool) -> Result<String, Error> {
    let ddl = super::columns::ddl_columns(conn, table)?;
    let cols: Vec<&str> = ddl.iter().map(|c| c.0.as_str()).collect();
    let mut pk: Vec<(i64, String)> = conn
        .prepare("SELECT pk, name FROM pragma_table_info(?1) WHERE pk > 0")
        .and_then(|mut s| {
            s.query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()
        })
        .map_err(sql_err(format!("reading the key of {table}")))?;
    pk.sort();
    let order: Vec<&str> = pk.iter().map(|(_, n)| n.as_str()).collect();
    let of_trace = "SELECT process_id FROM process WHERE trace_id = ?1";
    let filter = if all {
        String::new()
    } else if cols.contains(&"trace_id") {
        "WHERE trace_id = ?1".into()
    } else if table == "path" {
        format!(
            "WHERE path_id IN (SELECT path_id FROM namei WHERE process_id IN ({of_trace}) \
             UNION SELECT resolved_id FROM namei WHERE process_id IN ({of_trace}) \
             UNION SELECT path_id FROM exec WHERE process_id IN ({of_trace}) \
             UNION SELECT resolved_id FROM exec WHERE process_id IN ({of_trace}) \
             UNION SELECT cwd_id FROM exec WHERE process_id IN ({of_trace}))"
        )
    } else {
        format!("WHERE process_id IN ({of_trace})")
    };
    Ok(format!(
        "SELECT {} FROM {table} {filter} ORDER BY {}",
        cols.join(", "),
        order.join(", ")
    ))
}
