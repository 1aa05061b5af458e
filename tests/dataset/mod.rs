//! Parquet datasets (`kt2sql export`, `import --to parquet`): composed
//! builds of several dialects exported and read back with the parquet
//! crate, checked column by column against the SQLite schema and cell by
//! cell against the database; three databases made apart in one dataset;
//! a duplicate refused or replaced, never doubled; a killed export leaving
//! nothing visible; and DuckDB (and Spark, when installed) reading the
//! same rows (`engines.py`).

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_array::{Array, BinaryArray, Float64Array, Int64Array, RecordBatchReader, StringArray};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rusqlite::types::ValueRef;
use rusqlite::Connection;

use crate::require_shared;
use crate::util::{compose, skip, Composed};

mod answers;
mod engines;

/// A value as SQLite holds it, byte strings compared as bytes (a BLOB in
/// a lossless column is exactly a value that is not UTF-8).
#[derive(Debug, Clone, PartialEq, PartialOrd)]
enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Bytes(Vec<u8>),
}

fn kt2sql() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kt2sql"))
}

fn run_ok(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn import(trace: &Path, db: &Path) {
    run_ok(kt2sql().args(["import", "-q"]).arg(trace).arg(db));
}

fn export(db: &Path, dir: &Path) {
    run_ok(kt2sql().args(["export", "-q"]).arg(db).arg(dir));
}

/// The dataset's tables, `trace` first.
fn table_names() -> Vec<&'static str> {
    kt2sql::dataset::columns::tables()
        .unwrap()
        .iter()
        .map(|t| t.name)
        .collect()
}

/// (column, SQLite type, NOT NULL) of a table, from the database.
fn sqlite_columns(conn: &Connection, table: &str) -> Vec<(String, String, bool)> {
    kt2sql::dataset::columns::ddl_columns(conn, table).unwrap()
}

/// A table's rows in a database, every column in the schema's order,
/// sorted.
fn sqlite_rows(conn: &Connection, table: &str, filter: &str) -> Vec<Vec<Cell>> {
    let sql = format!("SELECT * FROM {table} {filter}");
    let mut stmt = conn.prepare(&sql).unwrap();
    let n = stmt.column_count();
    let mut rows: Vec<Vec<Cell>> = stmt
        .query_map([], |r| {
            Ok((0..n)
                .map(|i| match r.get_ref_unwrap(i) {
                    ValueRef::Null => Cell::Null,
                    ValueRef::Integer(v) => Cell::Int(v),
                    ValueRef::Real(v) => Cell::Real(v),
                    ValueRef::Text(b) | ValueRef::Blob(b) => Cell::Bytes(b.to_vec()),
                })
                .collect())
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    rows.sort_by(|a, b| a.partial_cmp(b).unwrap());
    rows
}

/// One Parquet file read back: its columns (name, type, nullable), and
/// per row the trace key and the SQLite columns' values (a `_bytes`
/// companion, when set, giving the value's bytes).
struct ParquetTable {
    fields: Vec<(String, DataType, bool)>,
    rows: Vec<(String, Vec<Cell>)>,
}

fn read_parquet(path: &Path) -> ParquetTable {
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let schema = reader.schema();
    let fields: Vec<(String, DataType, bool)> = schema
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone(), f.is_nullable()))
        .collect();
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        for r in 0..batch.num_rows() {
            let mut key = String::new();
            let mut cells: Vec<Cell> = Vec::new();
            for (i, (name, _, _)) in fields.iter().enumerate() {
                let col = batch.column(i);
                let cell = if col.is_null(r) {
                    Cell::Null
                } else if let Some(a) = col.as_any().downcast_ref::<Int64Array>() {
                    Cell::Int(a.value(r))
                } else if let Some(a) = col.as_any().downcast_ref::<Float64Array>() {
                    Cell::Real(a.value(r))
                } else if let Some(a) = col.as_any().downcast_ref::<StringArray>() {
                    Cell::Bytes(a.value(r).as_bytes().to_vec())
                } else if let Some(a) = col.as_any().downcast_ref::<BinaryArray>() {
                    Cell::Bytes(a.value(r).to_vec())
                } else {
                    panic!("{}: column {name} of an unexpected type", path.display())
                };
                if i == 0 {
                    let Cell::Bytes(k) = cell else {
                        panic!("trace_key NULL")
                    };
                    key = String::from_utf8(k).unwrap();
                } else if name.ends_with("_bytes")
                    && fields.iter().any(|f| f.0 == name[..name.len() - 6])
                {
                    // The exact bytes of a value that is not UTF-8.
                    if cell != Cell::Null {
                        *cells.last_mut().unwrap() = cell;
                    }
                } else {
                    cells.push(cell);
                }
            }
            rows.push((key, cells));
        }
    }
    ParquetTable { fields, rows }
}

/// Every file of a table in a dataset, by trace key (from the path).
fn table_files(dir: &Path, table: &str) -> BTreeMap<String, PathBuf> {
    let mut files = BTreeMap::new();
    let Ok(parts) = std::fs::read_dir(dir.join(table)) else {
        return files;
    };
    for p in parts {
        let p = p.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_owned();
        if let Some(key) = name.strip_prefix("trace_key=") {
            for f in std::fs::read_dir(&p).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "parquet") {
                    files.insert(key.to_owned(), f);
                }
            }
        }
    }
    files
}

/// The rows of `key` in a dataset's table, sorted.
fn dataset_rows(dir: &Path, table: &str, key: &str) -> Vec<Vec<Cell>> {
    let files = table_files(dir, table);
    let t = read_parquet(&files[key]);
    let mut rows: Vec<Vec<Cell>> = t
        .rows
        .into_iter()
        .map(|(k, cells)| {
            assert_eq!(k, key, "{table}: a row of another trace in {key}'s file");
            cells
        })
        .collect();
    rows.sort_by(|a, b| a.partial_cmp(b).unwrap());
    rows
}

/// The trace keys of a one-trace-per-database dataset built from `dbs`.
fn key_of(db: &Path) -> String {
    let conn = Connection::open(db).unwrap();
    conn.query_row("SELECT fingerprint || '-' || size FROM trace", [], |r| {
        r.get(0)
    })
    .unwrap()
}

/// The composed builds the tests export: several dialects, one with
/// damage, big enough to have every kind of row.
fn builds() -> Vec<Composed> {
    [
        ("freebsd-v1-amd64", 11),
        ("openbsd-amd64", 12),
        ("netbsd-v2-amd64", 13),
        ("darwin-ppc", 14),
        ("freebsd-v0-i386", 15),
    ]
    .iter()
    .map(|(d, seed)| compose(d, *seed, &["--processes", "12"]))
    .collect()
}

/// The same dialects from the committed fixtures, which need no
/// `../shared`: as their kernels write them (lost records, reused pids,
/// killed jobs), two with planted hazards.
fn committed_builds() -> Vec<Composed> {
    let (faithful, hazards) = (&["--faithful"][..], &["--faithful", "--hazards"][..]);
    [
        ("freebsd-v1-amd64", faithful),
        ("openbsd-amd64", hazards),
        ("netbsd-v2-amd64", faithful),
        ("darwin-ppc", hazards),
        ("freebsd-v0-i386", faithful),
    ]
    .iter()
    .map(|(d, extra)| compose(d, 4, extra))
    .collect()
}

/// Each file's columns are the trace key, then SQLite's columns in order
/// (recorded bytes with their `_bytes` companion), typed and nullable as
/// the SQLite column; each trace's rows are the database's, cell for cell.
#[test]
fn export_reads_back_as_the_database_in_every_dialect() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    for (i, b) in committed_builds().iter().enumerate() {
        let db = tmp.path().join(format!("{i}.db"));
        import(&b.trace, &db);
        export(&db, &dir);
        let conn = Connection::open(&db).unwrap();
        let key = key_of(&db);
        for table in table_names() {
            let files = table_files(&dir, table);
            let t = read_parquet(&files[&key]);
            let mut expected = vec![("trace_key".to_owned(), DataType::Utf8, false)];
            for (name, ty, notnull) in sqlite_columns(&conn, table) {
                let dt = match ty.as_str() {
                    "INTEGER" => DataType::Int64,
                    "REAL" => DataType::Float64,
                    "BLOB" => DataType::Binary,
                    _ => DataType::Utf8,
                };
                expected.push((name.clone(), dt, !notnull));
                let companion = format!("{name}_bytes");
                if t.fields.iter().any(|f| f.0 == companion) {
                    expected.push((companion, DataType::Binary, true));
                }
            }
            assert_eq!(t.fields, expected, "{table}'s columns");
            let want = sqlite_rows(&conn, table, "");
            assert!(table != "call" || want.len() > 50, "a build with calls");
            assert!(
                table != "tree_node" || want.len() > 12,
                "a tree of 12 processes"
            );
            assert_eq!(
                dataset_rows(&dir, table, &key),
                want,
                "{table} of build {i} ({key})"
            );
        }
    }
    // The companions are those of the recorded byte strings.
    let exec = read_parquet(table_files(&dir, "exec").values().next().unwrap());
    let names: Vec<&str> = exec.fields.iter().map(|f| f.0.as_str()).collect();
    assert!(names.contains(&"comm_bytes") && names.contains(&"argv_bytes"));
    assert!(!names.contains(&"path_id_bytes"));
}

/// `import --to parquet` writes, without SQLite, the rows the database
/// gets (the trace row but for its import time and the file's name).
#[test]
fn import_to_parquet_writes_what_export_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let (direct, exported) = (tmp.path().join("direct"), tmp.path().join("exported"));
    for (i, b) in committed_builds().iter().enumerate().take(3) {
        let db = tmp.path().join(format!("{i}.db"));
        import(&b.trace, &db);
        export(&db, &exported);
        run_ok(
            kt2sql()
                .args(["import", "-q", "--to", "parquet"])
                .arg(&b.trace)
                .arg(&direct),
        );
        let key = key_of(&db);
        for table in table_names() {
            let (a, e) = (
                dataset_rows(&direct, table, &key),
                dataset_rows(&exported, table, &key),
            );
            if table == "trace" {
                // imported_at and import_seconds differ from run to run.
                let conn = Connection::open(&db).unwrap();
                let cols = sqlite_columns(&conn, "trace");
                let keep = |rows: Vec<Vec<Cell>>| -> Vec<Vec<Cell>> {
                    rows.into_iter()
                        .map(|r| {
                            r.into_iter()
                                .zip(&cols)
                                .filter(|(_, c)| {
                                    !["imported_at", "import_seconds"].contains(&c.0.as_str())
                                })
                                .map(|(v, _)| v)
                                .collect()
                        })
                        .collect()
                };
                assert_eq!(keep(a), keep(e), "trace row of build {i}");
            } else {
                assert_eq!(a, e, "{table} of build {i}");
            }
        }
    }
}

/// A build of more processes than the tree order holds in memory (70 000
/// forked children): imported straight to a dataset, its `tree_node` rows
/// (ordered in the import's scratch file) are the database's, and so are
/// they when no scratch file can be made (`TMPDIR` missing: the words stay
/// in memory).
#[test]
fn a_tree_too_big_for_memory_is_ordered_as_the_database_orders_it() {
    use crate::util::records::forks;
    use crate::util::writer::TraceWriter;
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("forks.ktrace");
    let abi = "freebsd-v1:le:64".parse().unwrap();
    std::fs::write(
        &trace,
        TraceWriter::new(abi).records(&forks(70_000)).bytes(),
    )
    .unwrap();
    let db = tmp.path().join("forks.db");
    import(&trace, &db);
    let exported = tmp.path().join("exported");
    export(&db, &exported);
    let key = key_of(&db);
    let want = dataset_rows(&exported, "tree_node", &key);
    assert_eq!(want.len(), 70_001);
    for (name, tmpdir) in [("direct", None), ("in-memory", Some("/nonexistent/tmp"))] {
        let dir = tmp.path().join(name);
        let mut cmd = kt2sql();
        cmd.args(["import", "-q", "--to", "parquet"])
            .arg(&trace)
            .arg(&dir);
        if let Some(t) = tmpdir {
            cmd.env("TMPDIR", t);
        }
        run_ok(&mut cmd);
        assert_eq!(dataset_rows(&dir, "tree_node", &key), want, "{name}");
    }
}

/// Three databases made apart (their ids overlap: each starts at 1) in
/// one dataset: per trace, each table holds exactly its database's rows,
/// and the trace key tells them apart.
#[test]
fn three_databases_make_one_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    let builds = committed_builds();
    let dbs: Vec<PathBuf> = builds
        .iter()
        .take(3)
        .enumerate()
        .map(|(i, b)| {
            let db = tmp.path().join(format!("{i}.db"));
            import(&b.trace, &db);
            db
        })
        .collect();
    for db in &dbs {
        export(db, &dir);
    }
    let mut keys: Vec<String> = dbs.iter().map(|d| key_of(d)).collect();
    for db in &dbs {
        let conn = Connection::open(db).unwrap();
        let key = key_of(db);
        let first: i64 = conn
            .query_row("SELECT min(process_id) FROM process", [], |r| r.get(0))
            .unwrap();
        assert_eq!(first, 1, "ids of databases made apart overlap");
        for table in table_names() {
            assert_eq!(
                dataset_rows(&dir, table, &key),
                sqlite_rows(&conn, table, ""),
                "{table} of {key}"
            );
        }
    }
    keys.sort();
    for table in table_names() {
        let found: Vec<String> = table_files(&dir, table).into_keys().collect();
        assert_eq!(found, keys, "every table has every trace, even empty");
    }
}

/// The same build again is refused and leaves the dataset as it was;
/// `--force` replaces it (`--replace`, its old name, too): one copy, never two. A database that holds
/// two traces exports both, each with its own rows.
#[test]
fn a_duplicate_is_refused_or_replaced_never_doubled() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    let builds = committed_builds();
    let db = tmp.path().join("one.db");
    import(&builds[0].trace, &db);
    export(&db, &dir);
    let key = key_of(&db);
    let before = dataset_rows(&dir, "call", &key);
    let out = kt2sql()
        .args(["export"])
        .arg(&db)
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "a duplicate is an error: nothing done"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("already holds") && err.contains("--force replaces it"),
        "{err}"
    );
    // The same file imported straight to the dataset is refused too.
    let out = kt2sql()
        .args(["import", "--to", "parquet"])
        .arg(&builds[0].trace)
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
    for force in ["--force", "--replace"] {
        run_ok(kt2sql().args(["export", "-q", force]).arg(&db).arg(&dir));
    }
    run_ok(
        kt2sql()
            .args(["import", "-q", "--force", "--to", "parquet"])
            .arg(&builds[0].trace)
            .arg(&dir),
    );
    for table in table_names() {
        assert_eq!(table_files(&dir, table).len(), 1, "{table}: one trace");
    }
    assert_eq!(dataset_rows(&dir, "call", &key), before);
    // Two traces in one database (appended: ids continue) → two traces.
    let two = tmp.path().join("two.db");
    import(&builds[1].trace, &two);
    run_ok(
        kt2sql()
            .args(["import", "-q", "--append"])
            .arg(&builds[2].trace)
            .arg(&two),
    );
    export(&two, &dir);
    let conn = Connection::open(&two).unwrap();
    let mut stmt = conn
        .prepare("SELECT trace_id, fingerprint || '-' || size FROM trace")
        .unwrap();
    let traces: Vec<(i64, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(traces.len(), 2);
    for (id, key) in traces {
        let of_trace = format!("(SELECT process_id FROM process WHERE trace_id = {id})");
        assert_eq!(
            dataset_rows(&dir, "process", &key),
            sqlite_rows(&conn, "process", &format!("WHERE trace_id = {id}"))
        );
        assert_eq!(
            dataset_rows(&dir, "call", &key),
            sqlite_rows(&conn, "call", &format!("WHERE process_id IN {of_trace}"))
        );
    }
    // Re-exporting the two-trace database is refused as a whole.
    let out = kt2sql()
        .args(["export"])
        .arg(&two)
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// Every `.parquet` file a reader of the dataset would see (hidden
/// directories and temporary names are not).
fn visible_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for t in table_names() {
        found.extend(table_files(dir, t).into_values());
    }
    found
}

/// A killed export (SIGKILL while it writes) leaves no file a reader sees,
/// and the next export of the same database succeeds.
#[test]
fn a_killed_export_leaves_nothing_visible() {
    let _shared = require_shared!(python);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ds");
    let big = compose("freebsd-v1-amd64", 21, &["--target-bytes", "24M", "-q"]);
    let db = tmp.path().join("big.db");
    import(&big.trace, &db);
    let mut killed = false;
    for _ in 0..5 {
        let mut child = kt2sql()
            .args(["export", "-q"])
            .arg(&db)
            .arg(&dir)
            .spawn()
            .unwrap();
        // Wait until it is writing a file in its staging directory.
        let writing = || {
            std::fs::read_dir(&dir).into_iter().flatten().any(|e| {
                let e = e.unwrap();
                e.file_name().to_string_lossy().starts_with(".staging-")
                    && walk(&e.path())
                        .iter()
                        .any(|f| f.file_name().unwrap().to_string_lossy().contains(".tmp-"))
            })
        };
        let t0 = std::time::Instant::now();
        while !writing() && t0.elapsed().as_secs() < 30 {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            child.wait().unwrap();
            killed = true;
            break;
        }
        // It finished first: start again from nothing.
        std::fs::remove_dir_all(&dir).unwrap();
    }
    if !killed {
        skip("the export always finished before it could be killed");
        return;
    }
    assert_eq!(visible_files(&dir), Vec::<PathBuf>::new());
    export(&db, &dir);
    assert_eq!(visible_files(&dir).len(), table_names().len());
}

fn walk(p: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(p) {
        for e in rd.flatten() {
            let path = e.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}
