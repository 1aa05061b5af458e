//! Loading (records → SQLite) and the `import` command: counts against the
//! decoder for every corpus file, atomic replacement (failed, refused,
//! appended and killed imports), lossless bytes, exit codes.

// `import --follow`: snapshots and the end against one-shot imports, kills, ends.
pub(crate) mod follow;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use rusqlite::Connection;

use crate::require_shared;
use crate::util::records::{call, rec, ret};
use crate::util::writer::TraceWriter;
use crate::util::{corpus, decode, CORPUS};
use kt2sql::import::{import, ImportMode, ImportOptions, NoProgress, Progress};
use kt2sql::record::Body;

fn kt2sql() -> Command {
    Command::cargo_bin("kt2sql").unwrap()
}

/// Temporary files of kt2sql in `dir`.
fn temp_files(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".kt2sql-tmp-"))
        .collect()
}

fn one<T: rusqlite::types::FromSql>(db: &Path, sql: &str) -> T {
    let conn = Connection::open(db).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// A tiny freebsd-v1:le:64 trace: open(2) of `path` by a process named `comm`.
fn open_trace(path: &'static [u8], comm: &'static [u8]) -> Vec<u8> {
    let abi = "freebsd-v1:le:64".parse().unwrap();
    let t = crate::util::records::T0;
    let mut rs = vec![
        rec(100, Some(100_001), "x", t, call(5, &[0x1000, 0])),
        rec(100, Some(100_001), "x", t + 1000, Body::Namei(path.into())),
        rec(100, Some(100_001), "x", t + 2000, ret(5, 0, 3)),
    ];
    for r in &mut rs {
        r.version = 1;
        r.comm = comm.into();
    }
    TraceWriter::new(abi).records(&rs).bytes()
}

#[test]
fn corpus_counts_match_the_decoder() {
    let shared = require_shared!();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("corpus.db");
    let traces: Vec<PathBuf> = CORPUS.iter().map(|(n, _, _)| corpus(&shared, n)).collect();
    let s = import(&traces, &db, &ImportOptions::default(), &NoProgress).unwrap();
    assert!(!s.data_loss());
    let conn = Connection::open(&db).unwrap();
    for ((name, dialect, records), t) in CORPUS.iter().zip(&s.traces) {
        let d = decode(&fs::read(corpus(&shared, name)).unwrap(), None).unwrap();
        let by = d.by_label();
        let get = |k: &str| by.get(k).copied().unwrap_or(0) as i64;
        let row: (i64, String, i64, i64, i64, String, bool) = conn
            .query_row(
                "SELECT records, records_by_type, call_records, ret_records, namei_records, \
                 dialect, complete FROM trace WHERE trace_id = ?1",
                [t.trace_id],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                    ))
                },
            )
            .unwrap();
        assert_eq!(row.0, *records as i64, "{name}: records");
        assert_eq!(row.0, d.records.len() as i64, "{name}: records vs decoder");
        let json: serde_json::Value = serde_json::from_str(&row.1).unwrap();
        let want: serde_json::Map<String, serde_json::Value> = by
            .iter()
            .map(|(k, v)| (k.to_string(), (*v).into()))
            .collect();
        assert_eq!(
            json,
            serde_json::Value::Object(want),
            "{name}: records_by_type"
        );
        assert_eq!(
            (row.2, row.3, row.4),
            (get("CALL"), get("RET"), get("NAMI")),
            "{name}"
        );
        assert_eq!(row.5, *dialect, "{name}: dialect");
        assert!(row.6, "{name}: complete");
        let namei: i64 = conn
            .query_row(
                "SELECT count(*) FROM namei JOIN process USING (process_id) WHERE trace_id = ?1",
                [t.trace_id],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(namei, get("NAMI"), "{name}: one namei row per NAMI record");
    }
    crate::report::summaries::check(&conn, "corpus");
    // Every documented reference resolves once the load is done.
    let mut stmt = conn.prepare("PRAGMA foreign_key_check").unwrap();
    let bad: Vec<(String, i64, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        bad.is_empty(),
        "dangling references (table, rowid, parent): {bad:?}"
    );
}

#[test]
fn non_utf8_bytes_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, db) = (dir.path().join("t.out"), dir.path().join("t.db"));
    fs::write(&trace, open_trace(b"/tmp/caf\xe9/x.h", b"caf\xe9")).unwrap();
    // Detected: a Latin-1 command name is not held against the right reading.
    kt2sql()
        .arg(&trace)
        .arg(&db)
        .args(["-q"])
        .assert()
        .success();
    let path: Vec<u8> = one(&db, "SELECT path FROM namei_detail");
    assert_eq!(path, b"/tmp/caf\xe9/x.h");
    let kind: String = one(&db, "SELECT typeof(path) FROM namei_detail");
    assert_eq!(kind, "blob");
    let comm: Vec<u8> = one(&db, "SELECT first_comm FROM process");
    assert_eq!(comm, b"caf\xe9");
    // Valid UTF-8 stays TEXT.
    fs::write(&trace, open_trace("/tmp/café".as_bytes(), b"cc")).unwrap();
    kt2sql()
        .arg(&trace)
        .arg(&db)
        .arg("--force")
        .arg("-q")
        .assert()
        .success();
    let path: String = one(
        &db,
        "SELECT path FROM namei_detail WHERE typeof(path) = 'text'",
    );
    assert_eq!(path, "/tmp/café");
}

#[test]
fn a_failed_import_leaves_no_database_and_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, db) = (dir.path().join("t.out"), dir.path().join("t.db"));
    fs::write(&trace, open_trace(b"/etc/passwd", b"cat")).unwrap();
    let junk = dir.path().join("notes.txt");
    fs::write(&junk, "these are not the records you are looking for\n").unwrap();
    let missing = dir.path().join("missing.out");
    for bad in [&junk, &missing] {
        let out = kt2sql().arg(&trace).arg(bad).arg(&db).assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        let want = format!("kt2sql: error: {}: ", bad.display());
        assert!(
            err.starts_with(&want),
            "stderr {err:?} should start with {want:?}"
        );
        assert_eq!(err.lines().count(), 1, "one error line: {err:?}");
        assert!(!db.exists(), "{}: database left behind", bad.display());
        assert!(
            temp_files(dir.path()).is_empty(),
            "{:?}",
            temp_files(dir.path())
        );
    }
}

#[test]
fn an_existing_database_needs_force_or_append() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, db) = (dir.path().join("t.out"), dir.path().join("t.db"));
    fs::write(&trace, open_trace(b"/etc/passwd", b"cat")).unwrap();
    kt2sql()
        .arg("import")
        .arg(&trace)
        .arg(&db)
        .assert()
        .success();
    let before = fs::read(&db).unwrap();
    let out = kt2sql().arg(&trace).arg(&db).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("already exists") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(fs::read(&db).unwrap(), before);
    kt2sql()
        .arg(&trace)
        .arg(&db)
        .arg("--force")
        .assert()
        .success();
    let traces: i64 = one(&db, "SELECT count(*) FROM trace");
    assert_eq!(traces, 1, "--force replaces rather than appends");
    assert!(temp_files(dir.path()).is_empty());
}

#[test]
fn a_foreign_file_is_never_replaced_or_appended_to() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.out");
    fs::write(&trace, open_trace(b"/etc/passwd", b"cat")).unwrap();
    let text = dir.path().join("thesis.db");
    fs::write(&text, "chapter 1\n").unwrap();
    let other = dir.path().join("other.db");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE meta (key, value); INSERT INTO meta VALUES ('a', 'b');")
        .unwrap();
    // A kt2sql database of another schema version.
    let newer = dir.path().join("newer.db");
    kt2sql()
        .arg(&trace)
        .arg(&newer)
        .arg("-q")
        .assert()
        .success();
    Connection::open(&newer)
        .unwrap()
        .execute_batch(
            "UPDATE meta SET value = '99' WHERE key = 'schema_version'; PRAGMA user_version = 99;",
        )
        .unwrap();
    for target in [&text, &other, &newer] {
        let before = fs::read(target).unwrap();
        let flags: &[Option<&str>] = if target == &newer {
            &[None, Some("--append")]
        } else {
            &[None, Some("--append"), Some("--force")]
        };
        for &flag in flags {
            let out = kt2sql().arg(&trace).arg(target).args(flag).assert().code(2);
            let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
            assert!(err.starts_with("kt2sql: error: "), "{err}");
            if target != &newer {
                assert!(
                    err.contains("not a kt2sql database") && err.contains("--force or not"),
                    "{err}"
                );
            }
            assert_eq!(
                fs::read(target).unwrap(),
                before,
                "{} {flag:?}",
                target.display()
            );
        }
    }
    // kt2sql's own database of another version, and an empty file, hold
    // nothing --force could destroy.
    let empty = dir.path().join("empty.db");
    fs::write(&empty, b"").unwrap();
    for target in [&newer, &empty] {
        kt2sql()
            .arg(&trace)
            .arg(target)
            .arg("--force")
            .arg("-q")
            .assert()
            .success();
        let n: i64 = one(target, "SELECT count(*) FROM trace");
        assert_eq!(n, 1);
    }
    assert!(temp_files(dir.path()).is_empty());
}

/// `kt2sql -f t1.ktrace t2.ktrace` (the database forgotten) or `kt2sql -f
/// *.ktrace` names a trace where the database goes: it is refused in every
/// mode, with the order of the arguments, and the trace is left as it was.
#[test]
fn a_trace_is_never_taken_for_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let (t1, t2) = (dir.path().join("t1.ktrace"), dir.path().join("t2.ktrace"));
    fs::write(&t1, open_trace(b"/etc/passwd", b"cat")).unwrap();
    fs::write(&t2, open_trace(b"/etc/group", b"cat")).unwrap();
    let before = fs::read(&t2).unwrap();
    for flag in [None, Some("--force"), Some("-f"), Some("--append")] {
        let out = kt2sql().arg(&t1).arg(&t2).args(flag).assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert_eq!(
            err,
            format!(
                "kt2sql: error: {}: is a ktrace file, not a database: the database comes \
                 last (kt2sql import TRACE... DB); nothing was written\n",
                t2.display()
            ),
            "{flag:?}"
        );
        assert_eq!(fs::read(&t2).unwrap(), before, "{flag:?}");
    }
    assert!(temp_files(dir.path()).is_empty());
}

/// A trace that recorded nothing is a failure, not an empty database (a
/// `ktrace` that recorded nothing must not pass a script); among other
/// traces it is a trace row with no records, a warning and exit 1.
#[test]
fn an_empty_trace_is_refused_alone_and_a_warning_among_others() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("empty.out");
    fs::write(&trace, b"").unwrap();
    let db = dir.path().join("empty.db");
    let out = kt2sql().arg(&trace).arg(&db).arg("-q").assert().code(2);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stderr),
        format!(
            "kt2sql: error: {}: empty trace: no records; nothing was imported\n",
            trace.display()
        )
    );
    assert!(!db.exists());
    assert!(temp_files(dir.path()).is_empty());
    // Only empty traces: the same.
    let again = dir.path().join("empty2.out");
    fs::write(&again, b"").unwrap();
    kt2sql()
        .arg(&trace)
        .arg(&again)
        .arg(&db)
        .arg("-q")
        .assert()
        .code(2);
    assert!(!db.exists());
    // Beside a trace with records: its row, a warning, exit 1.
    let full = dir.path().join("t.out");
    fs::write(&full, open_trace(b"/etc/passwd", b"cat")).unwrap();
    let out = kt2sql()
        .arg(&full)
        .arg(&trace)
        .arg(&db)
        .arg("-q")
        .assert()
        .code(1);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stderr),
        format!(
            "kt2sql: warning: {}: empty trace: no records\n",
            trace.display()
        )
    );
    let row: (i64, i64, String, i64) = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT records, size, dialect, issues FROM trace WHERE trace_id = 2",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(row, (0, 0, "unknown".into(), 1));
    let kind: String = one(&db, "SELECT kind FROM import_issue WHERE trace_id = 2");
    assert_eq!(kind, "empty");
}

#[test]
fn append_adds_a_trace_and_continues_ids() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, db) = (
        dir.path().join("a.out"),
        dir.path().join("b.out"),
        dir.path().join("t.db"),
    );
    fs::write(&a, open_trace(b"/etc/passwd", b"cat")).unwrap();
    fs::write(&b, open_trace(b"/etc/passwd", b"cat")).unwrap();
    kt2sql().arg(&a).arg(&db).arg("-q").assert().success();
    kt2sql()
        .arg(&b)
        .arg(&db)
        .arg("--append")
        .arg("-q")
        .assert()
        .success();
    let conn = Connection::open(&db).unwrap();
    let q = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(q("SELECT count(*) FROM trace"), 2);
    assert_eq!(q("SELECT count(DISTINCT process_id) FROM process"), 2);
    assert_eq!(
        q("SELECT count(DISTINCT call_id) FROM call"),
        q("SELECT count(*) FROM call")
    );
    assert_eq!(q("SELECT count(*) FROM namei"), 2);
    assert_eq!(
        q("SELECT count(*) FROM path"),
        1,
        "the path is interned once"
    );
    assert_eq!(q("SELECT count(DISTINCT trace_id) FROM namei_detail"), 2);
}

#[test]
fn a_failing_append_leaves_the_old_database_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, db) = (
        dir.path().join("a.out"),
        dir.path().join("b.out"),
        dir.path().join("t.db"),
    );
    fs::write(&a, open_trace(b"/etc/passwd", b"cat")).unwrap();
    fs::write(&b, open_trace(b"/etc/group", b"cat")).unwrap();
    kt2sql().arg(&a).arg(&db).arg("-q").assert().success();
    let before = fs::read(&db).unwrap();
    // Refused before anything is written: the second argument is no trace.
    let junk = dir.path().join("junk");
    fs::write(&junk, [0xffu8; 100]).unwrap();
    kt2sql()
        .arg(&b)
        .arg(&junk)
        .arg(&db)
        .arg("--append")
        .assert()
        .code(2);
    assert_eq!(fs::read(&db).unwrap(), before);
    // Failing midway, inside the transaction on the copy: the second trace
    // disappears while the first is being imported.
    struct Saboteur(PathBuf);
    impl Progress for Saboteur {
        fn start(&self, _: &Path, _: u64) {
            let _ = fs::remove_file(&self.0);
        }
    }
    let opts = ImportOptions {
        mode: ImportMode::Append,
        ..ImportOptions::default()
    };
    let traces = [b.clone(), a.clone()];
    let err = import(&traces, &db, &opts, &Saboteur(a.clone())).unwrap_err();
    assert!(err.to_string().contains("a.out"), "{err}");
    assert_eq!(fs::read(&db).unwrap(), before, "the old database changed");
    assert!(
        temp_files(dir.path()).is_empty(),
        "{:?}",
        temp_files(dir.path())
    );
}

#[test]
fn a_damaged_trace_is_imported_with_exit_code_1() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, db) = (dir.path().join("t.out"), dir.path().join("t.db"));
    let mut bytes = open_trace(b"/etc/passwd", b"cat");
    bytes.truncate(bytes.len() - 3);
    fs::write(&trace, &bytes).unwrap();
    let out = kt2sql().arg(&trace).arg(&db).arg("-q").assert().code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.starts_with(&format!("kt2sql: warning: {}: ", trace.display())),
        "{err}"
    );
    let row: (bool, i64, i64, Option<String>) = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT complete, records, decoded_bytes, damage FROM trace",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!((row.0, row.1), (false, 2));
    assert!(row.2 < bytes.len() as i64 && row.3.is_some(), "{row:?}");
    let lost: i64 = one(
        &db,
        "SELECT count(*) FROM import_issue WHERE severity = 'data_loss'",
    );
    assert!(lost >= 1);
}

#[test]
fn shorthand_quiet_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, db) = (dir.path().join("t.out"), dir.path().join("t.db"));
    fs::write(&trace, open_trace(b"/etc/passwd", b"cat")).unwrap();
    kt2sql()
        .arg(&trace)
        .arg(&db)
        .arg("--quiet")
        .assert()
        .success()
        .stderr("");
    let out = kt2sql().arg(&trace).arg(&db).arg("-f").assert().success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.starts_with(&format!("kt2sql: {}: 3 records, 1 process, ", db.display())),
        "{err}"
    );
    // Subcommand names are not taken for trace files.
    kt2sql().arg("help").assert().success();
    kt2sql().args(["dump", "--help"]).assert().success();
}

#[test]
fn a_killed_import_leaves_no_target_and_the_next_import_cleans_up() {
    let shared = require_shared!(python);
    let dir = tempfile::tempdir().unwrap();
    let (big, db) = (dir.path().join("big.out"), dir.path().join("t.db"));
    let st = std::process::Command::new("python3")
        .arg(shared.join("tools/ktcompose.py"))
        .args([
            "--dialect",
            "freebsd-v1-amd64",
            "--target-bytes",
            "64M",
            "-q",
            "-o",
        ])
        .arg(&big)
        .arg("--truth")
        .arg(dir.path().join("big.json"))
        .status()
        .unwrap();
    assert!(st.success());
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kt2sql"))
        .arg(&big)
        .arg(&db)
        .arg("-q")
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let finished = child.try_wait().unwrap().is_some();
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap(); // reap it, so its pid is gone
    if finished {
        crate::util::skip("the import finished within 0.3 s; nothing was killed");
        return;
    }
    assert!(!db.exists(), "a killed import left the target");
    if temp_files(dir.path()).is_empty() {
        crate::util::skip("killed before its temporary file existed; cleanup not tested");
        return;
    }
    // The next import into the same target removes the dead one's temp file.
    let small = dir.path().join("small.out");
    fs::write(&small, open_trace(b"/etc/passwd", b"cat")).unwrap();
    kt2sql().arg(&small).arg(&db).arg("-q").assert().success();
    assert!(db.exists());
    assert!(
        temp_files(dir.path()).is_empty(),
        "{:?}",
        temp_files(dir.path())
    );
}

/// Issue #11: a page fault's address is stored in `event.addr` (not in
/// `len`, a data length), a pledge or pinsyscall violation's errno in
/// `event.error` (not in `signo`), and a pinsyscall's calling address in
/// `addr` (not in `code`).
#[test]
fn fault_addresses_and_violation_errors_have_their_own_columns() {
    let dir = tempfile::tempdir().unwrap();
    let mut got = Vec::new();
    for (abi, kinds, tid) in [
        ("freebsd-v1:le:64", ["PFLT"].as_slice(), 100_001),
        ("openbsd:le:64", ["PLDG", "PINS"].as_slice(), 549_797),
    ] {
        let abi: kt2sql::decode::Abi = abi.parse().unwrap();
        let rs: Vec<_> = crate::util::records::every_kind()
            .into_iter()
            .filter(|r| kinds.contains(&r.body.label()))
            .map(|r| {
                let mut r = rec(100, Some(tid), "x", crate::util::records::T0, r.body);
                r.version = u8::from(abi.family == kt2sql::decode::Family::FreeBsd);
                r
            })
            .collect();
        let trace = dir.path().join(format!("{abi}.ktrace"));
        fs::write(&trace, TraceWriter::new(abi).records(&rs).bytes()).unwrap();
        let db = dir.path().join(format!("{abi}.db"));
        let opts = ImportOptions {
            abi: Some(abi),
            ..ImportOptions::default()
        };
        import(&[trace], &db, &opts, &NoProgress).unwrap();
        let conn = Connection::open(&db).unwrap();
        let mut stmt = conn
            .prepare(
                "SELECT printf('%s len=%s addr=%s signo=%s error=%s code=%s', kind, \
                 quote(len), quote(addr), quote(signo), quote(error), quote(code)) \
                 FROM event ORDER BY event_id",
            )
            .unwrap();
        let rows = stmt.query_map([], |r| r.get::<_, String>(0)).unwrap();
        got.extend(rows.map(Result::unwrap));
    }
    // The values of util::records::every_kind.
    assert_eq!(
        got,
        [
            format!(
                "PFLT len=NULL addr={} signo=NULL error=NULL code=2",
                0x8_0000_1000_i64
            ),
            format!(
                "PLDG len=NULL addr=NULL signo=NULL error=1 code={}",
                1_i64 << 40
            ),
            format!(
                "PINS len=NULL addr={} signo=NULL error=78 code=NULL",
                0x7f7f_fffe_1000_i64
            ),
        ]
    );
}

/// The tree order SQLite's sorter gives a trace of many processes (the
/// hostile case of millions that never exit) is the in-memory order's,
/// row for row: every committed `--faithful` fixture in one database (so
/// positions run on across traces), ordered both ways.
#[test]
fn tree_order_sorted_by_sqlite_is_the_in_memory_order() {
    use kt2sql::load::tree_order::write_tree_order_with;
    let dir = tempfile::tempdir().unwrap();
    let mut traces = Vec::new();
    for f in crate::util::fixtures::faithful() {
        let t = dir.path().join(format!("{}.ktrace", f.name));
        fs::write(&t, f.read("ktrace")).unwrap();
        traces.push(t);
    }
    assert!(traces.len() >= 4, "fixtures: {}", traces.len());
    let db = dir.path().join("all.db");
    import(&traces, &db, &ImportOptions::default(), &NoProgress).unwrap();
    let conn = Connection::open(&db).unwrap();
    let nodes = tree_nodes;
    let in_memory = nodes(&conn);
    let deep = in_memory.iter().filter(|n| n[5] >= 2).count();
    let execs = in_memory.iter().filter(|n| n[4] >= 1).count();
    assert!(
        deep > 10 && execs > 10,
        "a tree worth ordering: {deep} deep, {execs} execs"
    );
    conn.execute("DELETE FROM tree_node", []).unwrap();
    let held = write_tree_order_with(&conn, 0).unwrap();
    assert_eq!(nodes(&conn), in_memory);
    assert!(
        held > 0 && held < in_memory.len() / 4,
        "held {held} of {}",
        in_memory.len()
    );
}

/// The store the dataset's sink gathers the tree words in orders them
/// as the database does, held in memory or moved to its scratch file at
/// any point: every committed `--faithful` fixture's words, read back
/// from its database, through the store with limits from 0 processes (the
/// file from the first word) to more than the trace has.
#[test]
fn tree_words_in_a_scratch_file_order_as_the_database_does() {
    use kt2sql::load::tree_scratch::Spilling;
    use kt2sql::sink::tree::{TreeImage, TreeProcess, TreeWords};
    let dir = tempfile::tempdir().unwrap();
    let mut spilled = 0;
    for f in crate::util::fixtures::faithful() {
        let t = dir.path().join(format!("{}.ktrace", f.name));
        fs::write(&t, f.read("ktrace")).unwrap();
        let db = dir.path().join(format!("{}.db", f.name));
        import(&[t], &db, &ImportOptions::default(), &NoProgress).unwrap();
        let conn = Connection::open(&db).unwrap();
        let want = tree_nodes(&conn);
        let words = |sql: &str| -> Vec<[Option<i64>; 4]> {
            let mut st = conn.prepare(sql).unwrap();
            let rows = st.query_map([], |r| Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?]));
            rows.unwrap().map(Result::unwrap).collect()
        };
        // The rank as TreeProcess::of gives it.
        let procs = words(
            "SELECT process_id, parent_exec_id,
                    CASE WHEN parent_exec_id IS NULL THEN first_ts ELSE fork_offset END, trace_id
             FROM process ORDER BY process_id",
        );
        let images = words(
            "SELECT process_id, exec_id, image, calls_from FROM exec
             WHERE image IS NOT NULL ORDER BY exec_id",
        );
        let calls_end: i64 = conn
            .query_row("SELECT COALESCE(max(call_id) + 1, 0) FROM call", [], |r| {
                r.get(0)
            })
            .unwrap();
        for limit in [0, 1, 7, procs.len() - 1, procs.len()] {
            let mut store = Spilling::with_limit(1, limit);
            for p in &procs {
                store.process(TreeProcess {
                    trace_id: p[3].unwrap(),
                    process_id: p[0].unwrap(),
                    parent_exec_id: p[1],
                    rank: p[2],
                });
            }
            for i in &images {
                store.image(TreeImage {
                    process_id: i[0].unwrap(),
                    exec_id: i[1].unwrap(),
                    image: i[2].unwrap(),
                    calls_from: i[3].unwrap(),
                });
            }
            assert_eq!(
                store.spilled(),
                limit < procs.len(),
                "{} limit {limit}",
                f.name
            );
            spilled += usize::from(store.spilled());
            let mut got = Vec::new();
            Box::new(store)
                .order(1, calls_end, &mut |n| got.push(n.values().to_vec()))
                .unwrap();
            // The sorter hands a process's nodes on after its subtree's.
            got.sort();
            assert_eq!(got, want, "{} limit {limit}", f.name);
        }
    }
    assert!(spilled >= 16, "{spilled} orders from a scratch file");
}

/// Tree rows of `conn` in `pos` order.
fn tree_nodes(conn: &Connection) -> Vec<Vec<i64>> {
    let mut st = conn
        .prepare("SELECT pos, trace_id, process_id, exec_id, image, depth, subtree_end, calls_from, calls_to FROM tree_node ORDER BY pos")
        .unwrap();
    let rows = st.query_map([], |r| (0..9).map(|i| r.get(i)).collect());
    rows.unwrap().map(Result::unwrap).collect()
}

/// The hostile shape of bench/hostile.sh, smaller: processes that each
/// write one call and never exit. Past the in-memory limit the tree order
/// holds one node at a time, however many processes (the in-memory order
/// holds every one), and gives the same rows.
#[test]
fn tree_order_of_many_live_processes_holds_one_node() {
    use kt2sql::load::tree_order::write_tree_order_with;
    let abi = "freebsd-v1:le:64".parse().unwrap();
    let rs = crate::util::records::sleepers(3000);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("live.ktrace");
    fs::write(&trace, TraceWriter::new(abi).records(&rs).bytes()).unwrap();
    let db = dir.path().join("live.db");
    import(&[trace], &db, &ImportOptions::default(), &NoProgress).unwrap();
    let conn = Connection::open(&db).unwrap();
    let in_memory = tree_nodes(&conn);
    assert_eq!(in_memory.len(), 3000);
    for (limit, most) in [(2999, 1), (3000, 0)] {
        conn.execute("DELETE FROM tree_node", []).unwrap();
        let held = write_tree_order_with(&conn, limit).unwrap();
        assert_eq!(held, most, "limit {limit}");
        assert_eq!(tree_nodes(&conn), in_memory, "limit {limit}");
    }
}
