//! The same-work floor: SQLite writing the import's own rows, already
//! encoded and in memory, into the same schema with the same indexes and
//! pragmas. That is the limit of any import into this schema on this
//! engine; bench/run.sh reports the import's time as a ratio to it beside
//! the plain insert floor (bench/floor.rs).
//!
//! Reads every table of DB (a database kt2sql imported) into memory, in
//! rowid order (key order for a WITHOUT ROWID table), as SQL values; then,
//! timed: a fresh file with the bulk pragmas, the tables, one transaction of multi-row INSERTs of the
//! writer's size ([`kt2sql::load::writer::PER_INSERT`] rows), table after
//! table, then the indexes and views, then `tree_node` (the import writes
//! it after the indexes), the commit and an fsync, as the import's target
//! file gets. Prints the seconds and the rows.
//!
//! With `SAME_FLOOR_DETAIL=1` it also says where the time goes: each
//! table's inserts, each index of `schema/0002_indexes.sql` built on its
//! own (in the file's order), then the rest of the schema (views, report
//! tables), each timed alone. The sum is the same work as the plain run.
//!
//! `cargo run --release --example same_floor -- DB OUT`

use std::time::Instant;

use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection, OpenFlags};

use kt2sql::load::writer::PER_INSERT;
use kt2sql::schema;

/// A table's name, its columns and its rows.
struct Table {
    name: String,
    columns: Vec<String>,
    rows: Vec<Value>,
}

/// Tables the schema fills itself when it is created (`_access_class`
/// with the views).
const FILLED_BY_SCHEMA: &[&str] = &["meta", "_access_class"];

/// Written after the indexes, as the import does.
const AFTER_INDEXES: &str = "tree_node";

fn read(db: &str) -> Vec<Table> {
    let src = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("open DB");
    let names: Vec<String> = src
        .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             ORDER BY rowid",
        )
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .expect("tables");
    let mut tables = Vec::new();
    for name in names {
        if FILLED_BY_SCHEMA.contains(&name.as_str()) {
            continue;
        }
        // A WITHOUT ROWID table (syscall_stat) comes in its key's order.
        let without_rowid: bool = src
            .query_row(
                "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?1",
                [&name],
                |r| r.get(0),
            )
            .expect("table_list");
        let order = if without_rowid { "" } else { " ORDER BY rowid" };
        let mut st = src
            .prepare(&format!("SELECT * FROM \"{name}\"{order}"))
            .expect("select");
        let columns: Vec<String> = st.column_names().iter().map(|c| c.to_string()).collect();
        let n = columns.len();
        let mut rows = Vec::new();
        let mut q = st.query([]).expect("query");
        while let Some(r) = q.next().expect("row") {
            for i in 0..n {
                rows.push(r.get::<_, Value>(i).expect("value"));
            }
        }
        tables.push(Table {
            name,
            columns,
            rows,
        });
    }
    tables
}

fn write(conn: &Connection, t: &Table) -> usize {
    let cols = t.columns.len();
    let one = format!("({})", vec!["?"; cols].join(","));
    let head = format!(
        "INSERT INTO \"{}\" ({}) VALUES ",
        t.name,
        t.columns
            .iter()
            .map(|c| format!("\"{c}\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut many = conn
        .prepare(&format!(
            "{head}{}",
            vec![one.as_str(); PER_INSERT].join(",")
        ))
        .expect("prepare");
    let mut single = conn.prepare(&format!("{head}{one}")).expect("prepare");
    let mut chunks = t.rows.chunks_exact(cols * PER_INSERT);
    for c in &mut chunks {
        many.execute(params_from_iter(c.iter())).expect("insert");
    }
    for r in chunks.remainder().chunks_exact(cols) {
        single.execute(params_from_iter(r.iter())).expect("insert");
    }
    t.rows.len() / cols
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(db), Some(out)) = (args.next(), args.next()) else {
        eprintln!("usage: same_floor DB OUT");
        std::process::exit(2);
    };
    let tables = read(&db);
    let _ = std::fs::remove_file(&out);
    let t = Instant::now();
    let conn = Connection::open(&out).expect("open OUT");
    schema::bulk_pragmas(&conn).expect("pragmas");
    conn.execute_batch("BEGIN").expect("begin");
    schema::create_tables(&conn).expect("tables");
    let detail = std::env::var_os("SAME_FLOOR_DETAIL").is_some_and(|v| v == "1");
    let mut parts: Vec<(String, f64)> = Vec::new();
    let mut timed = |what: String, f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        parts.push((what, t.elapsed().as_secs_f64()));
    };
    let mut rows = 0;
    for table in tables.iter().filter(|t| t.name != AFTER_INDEXES) {
        timed(format!("table {}", table.name), &mut || {
            rows += write(&conn, table)
        });
    }
    if detail {
        // Each index alone, then the rest of the schema after the tables.
        let (_, indexes) = schema::SCHEMA
            .iter()
            .find(|(n, _)| *n == "0002_indexes.sql")
            .expect("the indexes' file");
        for stmt in statements(indexes) {
            timed(stmt.clone(), &mut || {
                conn.execute_batch(&stmt).expect("index")
            });
        }
        for (name, sql) in schema::SCHEMA.iter().skip(2) {
            timed(format!("schema {name}"), &mut || {
                conn.execute_batch(sql).expect("schema")
            });
        }
    } else {
        timed("indexes and views".into(), &mut || {
            schema::create_indexes_and_views(&conn).expect("indexes")
        });
    }
    for table in tables.iter().filter(|t| t.name == AFTER_INDEXES) {
        timed(format!("table {}", table.name), &mut || {
            rows += write(&conn, table)
        });
    }
    conn.execute_batch("COMMIT").expect("commit");
    drop(conn);
    std::fs::File::open(&out)
        .and_then(|f| f.sync_all())
        .expect("fsync");
    let s = t.elapsed().as_secs_f64();
    println!("same_floor: {rows} rows in {s:.3} s");
    if detail {
        parts.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (what, secs) in parts.iter().filter(|(_, s)| *s >= 0.005) {
            let what: String = what.split_whitespace().collect::<Vec<_>>().join(" ");
            println!("{secs:8.3} s {:5.1} %  {what}", 100.0 * secs / s);
        }
    }
}

/// The statements of a schema file, comments left out.
fn statements(sql: &str) -> Vec<String> {
    let text: String = sql
        .lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n");
    text.split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| format!("{s};"))
        .collect()
}
