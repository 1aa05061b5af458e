//! The critical path as a report holds it: walked once ([`super::critical`])
//! into a temporary table of the report's connection, then read from
//! there in time order, by command or as a summary. A big build's path
//! has tens of thousands of steps; SQLite keeps them in a temporary file
//! behind its small page cache (a report's connection puts temporary
//! tables in files), so what the report holds does not grow with the
//! path.
//!
//! Creating and filling the table changes the connection's temporary
//! schema, which a report's guard refuses unless its caller lifted it for
//! that ([`crate::report::Database::in_temp`]); the database itself is
//! never written. The table is dropped with the [`Path`].

use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::{params_from_iter, Connection, Statement};

use super::critical::{each_step_back, Deps};
use super::Step;
use crate::report::{RowReader, Scope};
use crate::schema::sql_err;
use crate::Error;

/// Numbers the tables of the paths a connection may hold at once.
static NEXT: AtomicU64 = AtomicU64::new(1);

/// A step's columns as the table stores them (and [`Step`] reads them).
const COLUMNS: [&str; 10] = [
    "trace_id",
    "process_id",
    "pid",
    "exec_id",
    "image",
    "comm",
    "start_ts",
    "end_ts",
    "wait",
    "via",
];

/// Steps inserted by one statement.
const BATCH: usize = 64;

/// The critical path of a scope's traces, in a temporary table: `back`
/// numbers its steps from the last (1) to the first (`len`), the order
/// the walk finds them in; a step's number on the path is `len - back +
/// 1`.
pub struct Path<'c> {
    conn: &'c Connection,
    table: String,
    len: i64,
}

impl std::fmt::Debug for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Path")
            .field("table", &self.table)
            .field("len", &self.len)
            .finish()
    }
}

impl<'c> Path<'c> {
    /// Walk the critical path of each trace in `traces` within `scope`
    /// (trace after trace, as [`super::critical::critical_path`] orders
    /// them) over `deps`, into a new temporary table.
    pub fn walk(
        conn: &'c Connection,
        scope: Scope,
        traces: &[i64],
        deps: &Deps,
    ) -> Result<Self, Error> {
        let table = format!("kt2sql_critical_{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let create = format!(
            "CREATE TEMP TABLE {table} (back INTEGER PRIMARY KEY, trace_id INTEGER, \
             process_id INTEGER, pid INTEGER, exec_id INTEGER, image INTEGER, comm BLOB, \
             start_ts INTEGER, end_ts INTEGER, wait INTEGER, via TEXT)"
        );
        conn.execute_batch(&create).map_err(sql_err(format!(
            "creating the critical path's table {table}"
        )))?;
        // Dropped from here on, on an error too.
        let mut path = Path {
            conn,
            table,
            len: 0,
        };
        let one = format!("({})", vec!["?"; COLUMNS.len()].join(","));
        let insert = |n: usize| {
            format!(
                "INSERT INTO temp.{} ({}) VALUES {}",
                path.table,
                COLUMNS.join(", "),
                vec![one.as_str(); n].join(",")
            )
        };
        let (full, single) = (insert(BATCH), insert(1));
        let mut full = path.prepare(&full)?;
        let mut single = path.prepare(&single)?;
        let mut batch: Vec<Step> = Vec::with_capacity(BATCH);
        let mut len = 0;
        each_step_back(conn, scope, traces, deps, |s| {
            batch.push(s);
            len += 1;
            if batch.len() == BATCH {
                put(&mut full, &batch)?;
                batch.clear();
            }
            Ok(())
        })?;
        for s in &batch {
            put(&mut single, std::slice::from_ref(s))?;
        }
        drop((full, single));
        path.len = len;
        let index = format!("CREATE INDEX temp.{0}_exec ON {0} (exec_id)", path.table);
        conn.execute_batch(&index).map_err(sql_err(format!(
            "indexing the critical path's table {}",
            path.table
        )))?;
        Ok(path)
    }

    /// How many steps the path has.
    pub fn len(&self) -> i64 {
        self.len
    }

    /// Whether the path has no step.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Each step in time order with its number on the path (from 1).
    pub fn each(&self, f: impl FnMut(i64, Step) -> Result<(), Error>) -> Result<(), Error> {
        let sql = self.select("ORDER BY back DESC");
        self.read(&sql, &[], f)
    }

    /// The steps' own time and their waits, summed (ns).
    pub fn totals(&self) -> Result<(i64, i64), Error> {
        let sql = format!(
            "SELECT COALESCE(sum(end_ts - start_ts), 0), COALESCE(sum(wait), 0) FROM temp.{}",
            self.table
        );
        self.conn
            .query_row(&sql, [], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(sql_err(format!(
                "summing the critical path's table {}",
                self.table
            )))
    }

    /// The `keep` longest steps by own time (the earlier first on a tie)
    /// and the first and the last, in time order, each with its number.
    pub fn longest(&self, keep: usize) -> Result<Vec<(i64, Step)>, Error> {
        let sql = self.select(&format!(
            "WHERE back IN (SELECT back FROM temp.{} ORDER BY end_ts - start_ts DESC, back DESC \
             LIMIT ?1) OR back IN (1, ?2) ORDER BY back DESC",
            self.table
        ));
        let mut out = Vec::new();
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        self.read(&sql, &[keep, self.len], |n, s| {
            out.push((n, s));
            Ok(())
        })?;
        Ok(out)
    }

    /// A reader of the steps of one command at a time, by exec_id.
    pub fn commands(&self) -> Result<Commands<'_>, Error> {
        let sql = self.select("WHERE exec_id = ?1 ORDER BY back DESC");
        let stmt = self.prepare(&sql)?;
        let reader = RowReader::of_statement(&stmt, &self.table)?;
        Ok(Commands {
            stmt,
            reader,
            len: self.len,
        })
    }

    /// The steps' SELECT, `back` first, then `tail`.
    fn select(&self, tail: &str) -> String {
        format!(
            "SELECT back, {} FROM temp.{} {tail}",
            COLUMNS.join(", "),
            self.table
        )
    }

    fn prepare(&self, sql: &str) -> Result<Statement<'c>, Error> {
        self.conn
            .prepare(sql)
            .map_err(sql_err(format!("the critical path's `{sql}`")))
    }

    /// The rows of `sql` (from [`Path::select`]) bound to `params`.
    fn read(
        &self,
        sql: &str,
        params: &[i64],
        mut f: impl FnMut(i64, Step) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut stmt = self.prepare(sql)?;
        let reader = RowReader::<Step>::of_statement(&stmt, &self.table)?;
        let ctx = || sql_err(format!("reading the critical path's `{sql}`"));
        let mut rows = stmt.query(params_from_iter(params)).map_err(ctx())?;
        while let Some(row) = rows.next().map_err(ctx())? {
            let back: i64 = row.get(0).map_err(ctx())?;
            f(self.len - back + 1, reader.row(row))?;
        }
        Ok(())
    }
}

impl Drop for Path<'_> {
    fn drop(&mut self) {
        // The table dies with the connection anyway; a failed drop leaves
        // it there until then.
        let _ = self
            .conn
            .execute_batch(&format!("DROP TABLE IF EXISTS temp.{}", self.table));
    }
}

/// Insert `steps` with `stmt` (as many rows as it has places for).
fn put(stmt: &mut Statement<'_>, steps: &[Step]) -> Result<(), Error> {
    let values = steps.iter().flat_map(|s| {
        [
            rusqlite::types::Value::Integer(s.trace_id),
            s.process_id.into(),
            s.pid.into(),
            s.exec_id.into(),
            s.image.into(),
            s.comm.clone().into(),
            s.start_ts.into(),
            s.end_ts.into(),
            s.wait.into(),
            s.via.clone().into(),
        ]
    });
    stmt.execute(params_from_iter(values))
        .map(drop)
        .map_err(sql_err("writing the critical path's steps".into()))
}

/// The steps of one command at a time ([`Path::commands`]).
pub struct Commands<'p> {
    stmt: Statement<'p>,
    reader: RowReader<Step>,
    len: i64,
}

impl Commands<'_> {
    /// Each step of command `exec_id` on the path, in time order, with
    /// its number.
    pub fn each(
        &mut self,
        exec_id: i64,
        mut f: impl FnMut(i64, Step) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let ctx = || sql_err("reading the critical path's steps of a command".into());
        let mut rows = self.stmt.query([exec_id]).map_err(ctx())?;
        while let Some(row) = rows.next().map_err(ctx())? {
            let back: i64 = row.get(0).map_err(ctx())?;
            f(self.len - back + 1, self.reader.row(row))?;
        }
        Ok(())
    }

    /// Command `exec_id`'s own time on the path (ns), if it is on it.
    pub fn own(&mut self, exec_id: i64) -> Result<Option<i64>, Error> {
        let mut own = None;
        self.each(exec_id, |_, s| {
            *own.get_or_insert(0) += s.end_ts - s.start_ts;
            Ok(())
        })?;
        Ok(own)
    }
}
