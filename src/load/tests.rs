//! Unit tests of the [`Loader`] as a [`Sink`]: hand-made rows in, SQL out.

use rusqlite::Connection;

use super::*;
use crate::decode::Abi;
use crate::process::rows::Totals;
use crate::process::rows::{
    Access, CallRow, End, ExecRow, IssueKind, IssueRow, NameiRow, ProcessRow, Resolution, Severity,
    Sink, Unpaired,
};
use crate::schema;

fn abi() -> Abi {
    "freebsd-v1:le:64".parse().unwrap()
}

fn fresh() -> Connection {
    let conn = Connection::open_in_memory().unwrap();
    schema::bulk_pragmas(&conn).unwrap();
    schema::create_tables(&conn).unwrap();
    conn
}

fn start(path: &[u8]) -> TraceStart<'_> {
    TraceStart {
        path,
        size: 100,
        abi: Some(abi()),
        start_cwd: Some(b"/usr/src"),
        keep_io_data: false,
        imported_at: "2024-01-01T00:00:00Z".into(),
        fingerprint: None,
    }
}

fn process(id: i64, pid: i64) -> ProcessRow {
    ProcessRow {
        id,
        pid,
        running_at_start: true,
        first_comm: b"make".to_vec(),
        last_comm: b"cc\xff".to_vec(),
        first_ts: 10,
        last_ts: 20,
        exit_status: Some(0),
        exit_ts: Some(20),
        exit_seen: true,
        records: 3,
        calls: 2,
        failed_calls: 1,
        lookups: 4,
        unresolved_lookups: 1,
        files: 3,
        end_seen_by: Some(End::Exit),
        ..ProcessRow::default()
    }
}

fn call(id: i64, error: Option<i32>) -> CallRow<'static> {
    CallRow {
        id,
        process_id: 1,
        thread_id: None,
        code: 5,
        syscall: Some("open"),
        args: &[0xffff_ffff_ffff_ff9c, 0x7ffe12, 0],
        ts: Some(100),
        ret_ts: error.map(|_| 150),
        retval: error.map(|_| 3),
        error,
        success: error.map(|e| e == 0 || e == -2),
        errno: error.filter(|&e| e > 0).map(i64::from),
        call_offset: Some(64),
        ret_offset: error.map(|_| 200),
        unpaired: if error.is_none() {
            Some(Unpaired::EndOfTrace)
        } else {
            None
        },
    }
}

fn namei(id: i64, path: &'static [u8]) -> NameiRow<'static> {
    NameiRow {
        id,
        call_id: Some(1),
        process_id: 1,
        seq: 0,
        ts: 120,
        offset: 128,
        comm: b"cc",
        exec_id: 1,
        coredump: false,
        path,
        resolved: path,
        resolution: Resolution::Absolute,
        access: Access::Read,
        success: Some(true),
    }
}

/// Feed one small trace's rows through a Loader and complete it.
fn load(conn: &Connection, paths: &mut PathCache, name: &[u8]) -> i64 {
    let mut l = Loader::begin(conn, paths, &start(name)).unwrap();
    l.process(&process(1, 42)).unwrap();
    l.call(&call(1, Some(0))).unwrap();
    l.call(&call(2, Some(2))).unwrap();
    l.call(&call(3, Some(-2))).unwrap();
    l.call(&call(4, None)).unwrap();
    l.namei(&namei(1, b"/usr/include/stdio.h")).unwrap();
    l.namei(&namei(2, b"/usr/include/stdio.h")).unwrap();
    l.namei(&namei(3, b"/tmp/caf\xe9")).unwrap();
    l.issue(&IssueRow {
        offset: Some(99),
        severity: Severity::DataLoss,
        kind: IssueKind::Truncated,
        message: "cut".into(),
        process_id: None,
    })
    .unwrap();
    let mut totals = Totals {
        records: 9,
        first_ts: Some(10),
        last_ts: Some(20),
        ..Totals::default()
    };
    totals.by_type.insert("CALL", 4);
    totals.by_type.insert("NAMI", 3);
    let id = l.trace_id();
    l.end(&TraceEnd {
        totals: &totals,
        decoded_bytes: 100,
        size: 100,
        damage: None,
        seconds: 0.5,
        following: false,
    })
    .unwrap();
    id
}

fn one<T: rusqlite::types::FromSql>(conn: &Connection, sql: &str) -> T {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn call_columns_are_derived() {
    let conn = fresh();
    load(&conn, &mut PathCache::default(), b"/t/ktrace.out");
    type Derived = (
        Option<i64>,
        Option<i64>,
        Option<bool>,
        Option<i64>,
        String,
        i64,
    );
    let rows: Vec<Derived> = conn
        .prepare("SELECT error, errno, success, dur, args, arg0 FROM call ORDER BY call_id")
        .unwrap()
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let args = "0xffffffffffffff9c,0x7ffe12,0".to_string();
    assert_eq!(
        rows[0],
        (Some(0), None, Some(true), Some(50), args.clone(), -100)
    );
    assert_eq!(
        rows[1],
        (Some(2), Some(2), Some(false), Some(50), args.clone(), -100)
    );
    assert_eq!(
        rows[2],
        (Some(-2), None, Some(true), Some(50), args.clone(), -100)
    );
    assert_eq!(rows[3], (None, None, None, None, args, -100));
    let unpaired: String = one(&conn, "SELECT unpaired FROM call WHERE call_id = 4");
    assert_eq!(unpaired, "end of trace");
}

#[test]
fn paths_are_interned_and_lossless() {
    let conn = fresh();
    let mut paths = PathCache::default();
    load(&conn, &mut paths, b"/t/ktrace.out");
    assert_eq!(paths.added(), 2);
    let n: i64 = one(&conn, "SELECT count(*) FROM path");
    assert_eq!(n, 2);
    let t: String = one(
        &conn,
        "SELECT typeof(path) FROM path WHERE path LIKE '/usr/%'",
    );
    assert_eq!(t, "text");
    let b: Vec<u8> = one(&conn, "SELECT path FROM path WHERE typeof(path) = 'blob'");
    assert_eq!(b, b"/tmp/caf\xe9");
    let comm: Vec<u8> = one(&conn, "SELECT last_comm FROM process");
    assert_eq!(comm, b"cc\xff");
}

#[test]
fn process_counters_are_stored() {
    let conn = fresh();
    let mut paths = PathCache::default();
    load(&conn, &mut paths, b"/t/ktrace.out");
    let got: String = one(
        &conn,
        "SELECT format('%d %d %d %d %d', calls, failed_calls, lookups, unresolved_lookups, files) \
         FROM process",
    );
    assert_eq!(got, "2 1 4 1 3");
}

#[test]
fn trace_row_is_completed_and_scoped() {
    let conn = fresh();
    let mut paths = PathCache::default();
    let a = load(&conn, &mut paths, b"/t/a.out");
    // A second trace continues the ids the way --append does.
    let ids = next_ids(&conn).unwrap();
    assert_eq!((ids.process, ids.call, ids.namei, ids.event), (2, 5, 4, 1));
    let mut l = Loader::begin(&conn, &mut paths, &start(b"/t/b.out")).unwrap();
    l.process(&process(ids.process, 42)).unwrap();
    l.namei(&namei(ids.namei, b"/usr/include/stdio.h")).unwrap();
    let b = l.trace_id();
    l.flush().unwrap(); // rows are written in batches
    drop(l);
    assert_ne!(a, b);
    assert_eq!(paths.added(), 2, "a known path is not added again");
    let row: (i64, String, i64, i64, String, i64, bool, i64) = conn
        .query_row(
            "SELECT records, records_by_type, call_records, namei_records, dialect, word_bits, \
             complete, issues FROM trace WHERE trace_id = ?1",
            [a],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                ))
            },
        )
        .unwrap();
    assert_eq!(
        row,
        (
            9,
            r#"{"CALL":4,"NAMI":3}"#.into(),
            4,
            3,
            "freebsd-v1:le:64".into(),
            64,
            true,
            1
        )
    );
    let per_trace: i64 = one(
        &conn,
        &format!("SELECT count(*) FROM process WHERE trace_id = {b}"),
    );
    assert_eq!(per_trace, 1);
    let calls_of_a: i64 = one(
        &conn,
        "SELECT json_extract(records_by_type, '$.CALL') FROM trace WHERE trace_id = 1",
    );
    assert_eq!(calls_of_a, 4);
}

#[test]
fn views_expose_path_text() {
    let conn = fresh();
    load(&conn, &mut PathCache::default(), b"/t/ktrace.out");
    schema::create_indexes_and_views(&conn).unwrap();
    let (path, ok, pid): (String, bool, i64) = conn
        .query_row(
            "SELECT path, success, pid FROM namei_detail WHERE namei_id = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((path.as_str(), ok, pid), ("/usr/include/stdio.h", true, 42));
    let n: i64 = one(
        &conn,
        "SELECT count(*) FROM call_detail WHERE syscall = 'open'",
    );
    assert_eq!(n, 4);
}

#[test]
fn exec_rows_keep_argv() {
    let conn = fresh();
    let mut paths = PathCache::default();
    let mut l = Loader::begin(&conn, &mut paths, &start(b"/t")).unwrap();
    let row = |id, argv: &'static [u8]| ExecRow {
        id,
        process_id: 1,
        seq: id,
        image: Some(id),
        ts: 5,
        call_id: Some(9),
        calls_from: 10,
        path: Some(b"cc"),
        resolved: Some(b"/usr/bin/cc"),
        comm: b"cc",
        argv: Some(argv),
        envp: None,
        success: true,
        cwd: Some(b"/usr/src"),
    };
    l.process(&process(1, 42)).unwrap();
    l.exec(&row(1, b"cc\0-c\0x.c\0")).unwrap();
    l.exec(&row(2, b"cc\0\xff\0")).unwrap();
    l.flush().unwrap(); // rows are written in batches
    drop(l);
    schema::create_indexes_and_views(&conn).unwrap();
    let argv: String = one(&conn, "SELECT argv FROM exec WHERE exec_id = 1");
    assert_eq!(argv, r#"["cc","-c","x.c"]"#);
    let second: String = one(
        &conn,
        "SELECT json_extract(argv, '$[1]') FROM exec WHERE exec_id = 1",
    );
    assert_eq!(second, "-c");
    let raw: Vec<u8> = one(&conn, "SELECT argv FROM exec WHERE exec_id = 2");
    assert_eq!(raw, b"cc\0\xff\0");
    let (resolved, cwd): (String, String) = conn
        .query_row(
            "SELECT resolved, cwd FROM exec_detail WHERE exec_id = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        (resolved.as_str(), cwd.as_str()),
        ("/usr/bin/cc", "/usr/src")
    );
}

/// Every row keeps the id the model gave it, whether it arrives in order,
/// late within the reorder window, late beyond it, after a gap, or on top
/// of rows already in the database (`--append`): the writer's NULL-id
/// appends must give each row exactly its own id.
#[test]
fn ids_survive_reordering_and_appends() {
    let conn = fresh();
    conn.execute_batch(
        "INSERT INTO call (call_id, process_id, code, nargs, args, call_offset)
         VALUES (10, 1, 1, 0, '', 10)",
    )
    .unwrap();
    let mut ids: Vec<i64> = (11..=200).collect();
    ids.swap(3, 7); // late within the window
    ids.swap(20, 150); // and across many batches of 50
    ids.retain(|&i| i != 100); // a gap the model never fills
    ids.push(5); // below every id seen
    ids.push(1_000); // a jump

    // One call open across more than the window: passed over, written late.
    ids.extend(1_001..1_001 + crate::sink::reorder::CALL_WINDOW as i64 + 10);
    let open = 1_001 + crate::sink::reorder::CALL_WINDOW as i64 + 10;
    ids.extend(open + 1..open + 100);
    ids.push(open);
    let mut paths = PathCache::default();
    let mut l = Loader::begin(&conn, &mut paths, &start(b"/t")).unwrap();
    for &id in &ids {
        let mut row = call(id, Some(0));
        row.call_offset = Some(id as u64);
        l.call(&row).unwrap();
    }
    l.flush().unwrap();
    drop(l);
    let mut stored: Vec<(i64, i64)> = conn
        .prepare("SELECT call_id, call_offset FROM call ORDER BY call_id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut want: Vec<(i64, i64)> = ids.iter().map(|&i| (i, i)).collect();
    want.push((10, 10));
    want.sort_unstable();
    assert_eq!(stored.len(), want.len());
    stored.sort_unstable();
    assert_eq!(stored, want);
}

/// A parameter that holds its value already is not bound again (writer.rs):
/// values that repeat at the distance of one INSERT and values that do not,
/// over several batches whose texts lie at the same places in their bytes,
/// each stored as given.
#[test]
fn repeated_values_are_stored_as_given() {
    /// call_id, args, syscall, errno, thread_id
    type Stored = (i64, String, String, Option<i64>, Option<i64>);
    let conn = fresh();
    let mut paths = PathCache::default();
    let mut l = Loader::begin(&conn, &mut paths, &start(b"/t")).unwrap();
    let n = 3 * encode::BATCH_ROWS as i64 + 77;
    let word = |w: u64| {
        if w == 0 {
            "0".to_string()
        } else {
            format!("{w:#x}")
        }
    };
    let mut want: Vec<Stored> = Vec::new();
    for id in 1..=n {
        let args = [id as u64 % 7 + 1, (id / 50) as u64 % 3];
        let mut row = call(id, Some(if id % 5 == 0 { 2 } else { 0 }));
        row.args = &args;
        row.syscall = Some(if id % 3 == 0 { "read" } else { "open" });
        row.thread_id = (id % 4 != 0).then_some(id / 100);
        l.call(&row).unwrap();
        want.push((
            id,
            format!("{},{}", word(args[0]), word(args[1])),
            row.syscall.unwrap().to_string(),
            row.errno,
            row.thread_id,
        ));
    }
    l.flush().unwrap();
    drop(l);
    let stored: Vec<Stored> = conn
        .prepare("SELECT call_id, args, syscall, errno, thread_id FROM call ORDER BY call_id")
        .unwrap()
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(stored.len(), want.len());
    assert_eq!(stored, want);
}
