//! Issue #5, a damaged trace: the damage matrix (truncation, byte flips,
//! inserted, deleted and zeroed spans over every corpus file and composed
//! traces, imported in-process and compared record by record with a clean
//! import), exit codes and messages of the binary for damaged, empty and
//! foreign input, hostile header values, dropped-events flags, imports
//! interrupted by SIGINT and SIGKILL, and appends racing other writers.

mod append;
mod cli;
mod hostile;
mod interrupt;
mod matrix;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use rusqlite::types::ValueRef;
use rusqlite::Connection;

/// The kt2sql binary.
pub fn kt2sql() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("kt2sql").unwrap()
}

/// kt2sql's temporary files in `dir`.
pub fn temp_files(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".kt2sql-tmp-"))
        .collect()
}

/// A scratch directory, in RAM when /dev/shm is there (the matrix writes
/// and fsyncs a thousand small databases).
pub fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::tempdir_in(shm) {
            return d;
        }
    }
    tempfile::tempdir().unwrap()
}

/// What one record became in the database, keyed by its file offset: its
/// own fields only (not what pairing with other records added), so a
/// damaged import can be compared with a clean one record by record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    /// The record's own content: `CALL code args`, `RET code retval error`,
    /// `NAMI path`, `EVENT kind len`.
    pub raw: String,
    /// How a NAMI path was resolved (depends on earlier records: cwd, fds).
    pub resolved: Option<String>,
}

/// Every record of the (only or given) trace in `db` by file offset.
pub fn facts(db: &Path, trace_id: i64) -> BTreeMap<u64, Fact> {
    let conn = Connection::open(db).unwrap();
    let mut out = BTreeMap::new();
    let mut put = |offset: i64, raw: String, resolved: Option<String>| {
        let old = out.insert(offset as u64, Fact { raw, resolved });
        assert!(old.is_none(), "two rows claim the record at {offset}");
    };
    let q = |sql: &str| {
        let mut st = conn.prepare(sql).unwrap();
        let rows: Vec<Vec<String>> = st
            .query_map([trace_id], |r| {
                let n = r.as_ref().column_count();
                (0..n).map(|i| r.get_ref(i).map(show)).collect()
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        rows
    };
    let calls = "FROM call JOIN process USING (process_id) WHERE trace_id = ?1";
    for r in q(&format!(
        "SELECT call_offset, code, args {calls} AND call_offset IS NOT NULL"
    )) {
        put(
            r[0].parse().unwrap(),
            format!("CALL {} {}", r[1], r[2]),
            None,
        );
    }
    for r in q(&format!(
        "SELECT ret_offset, code, retval, error {calls} AND ret_offset IS NOT NULL"
    )) {
        put(
            r[0].parse().unwrap(),
            format!("RET {} {} {}", r[1], r[2], r[3]),
            None,
        );
    }
    for r in q(
        "SELECT n.offset, p.path, q.path, n.resolution FROM namei n \
         JOIN process USING (process_id) JOIN path p ON p.path_id = n.path_id \
         JOIN path q ON q.path_id = n.resolved_id WHERE trace_id = ?1",
    ) {
        put(
            r[0].parse().unwrap(),
            format!("NAMI {}", r[1]),
            Some(format!("{} ({})", r[2], r[3])),
        );
    }
    for r in q("SELECT offset, kind, len FROM event WHERE trace_id = ?1") {
        put(
            r[0].parse().unwrap(),
            format!("EVENT {} {}", r[1], r[2]),
            None,
        );
    }
    out
}

/// A column value as text (bytes escaped).
fn show(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => "NULL".into(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => f.to_string(),
        ValueRef::Text(b) | ValueRef::Blob(b) => crate::util::escape(b),
    }
}

/// One value from `db`.
pub fn one<T: rusqlite::types::FromSql>(db: &Path, sql: &str) -> T {
    Connection::open(db)
        .unwrap()
        .query_row(sql, [], |r| r.get(0))
        .unwrap()
}

/// A file in `dir` holding `bytes`.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, bytes).unwrap();
    p
}
