//! The binary on damaged, empty and foreign input: exit codes 0/1/2, the
//! warning and error lines on stderr, what the database holds, and that a
//! refused import leaves no database and no temporary file. Dropped-events
//! flags (KTR_DROP) through ktcompose `--drop-flag`.

use std::fs;
use std::path::Path;

use rusqlite::Connection;

use super::{kt2sql, one, temp_files, write};
use crate::util::{compose, decode};

/// stderr of a finished command, as text.
fn stderr(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

/// A default-size composed trace (past the 256 KiB detection sample, so
/// damage beyond it leaves detection alone).
fn big_trace() -> Vec<u8> {
    let c = compose("freebsd-v1-amd64", 11, &[]);
    let bytes = fs::read(&c.trace).unwrap();
    assert!(bytes.len() > 400_000, "{} bytes", bytes.len());
    bytes
}

#[test]
fn a_truncated_tail_imports_every_complete_record_with_exit_code_1() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = big_trace();
    let d = decode(&bytes, None).unwrap();
    // Cut 10 bytes into the last record's header.
    let last = d.records.last().unwrap().offset;
    let cut = last as usize + 10;
    let trace = write(dir.path(), "cut.out", &bytes[..cut]);
    let db = dir.path().join("cut.db");
    let out = kt2sql().arg(&trace).arg(&db).assert().code(1);
    let err = stderr(&out);
    let want = format!(
        "kt2sql: warning: {}: stopped at byte offset {last}: truncated record",
        trace.display()
    );
    assert!(err.starts_with(&want), "{err}");
    assert!(err.contains(", 10 left"), "bytes left: {err}");
    assert!(err.contains("with data loss"), "{err}");
    let records: i64 = one(&db, "SELECT records FROM trace");
    assert_eq!(
        records as usize,
        d.records.len() - 1,
        "every complete record"
    );
    let (offset, message): (i64, String) = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT offset, message FROM import_issue WHERE kind = 'truncated' \
             AND severity = 'data_loss'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(offset as u64, last);
    assert!(message.contains("the last 10 bytes"), "{message}");
    let (complete, decoded): (bool, i64) = Connection::open(&db)
        .unwrap()
        .query_row("SELECT complete, decoded_bytes FROM trace", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert!(!complete);
    assert_eq!(decoded as u64, last);
}

#[test]
fn corruption_in_the_middle_is_skipped_and_strict_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = big_trace();
    let clean = decode(&bytes, None).unwrap();
    // A zeroed 4 KiB page two thirds in.
    let at = bytes.len() * 2 / 3;
    bytes[at..at + 4096].fill(0);
    let trace = write(dir.path(), "zeroed.out", &bytes);
    let db = dir.path().join("zeroed.db");
    let out = kt2sql().arg(&trace).arg(&db).arg("-q").assert().code(1);
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("kt2sql: warning: {}: bytes ", trace.display()))
            && err.contains(" skipped: "),
        "{err}"
    );
    // The skipped range covers the page and ends on a record of the clean file.
    let (from, msg): (i64, String) = Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT offset, message FROM import_issue WHERE kind = 'skipped'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let resumed: u64 = msg
        .split("records resume at byte ")
        .nth(1)
        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{msg}"));
    let hit = clean
        .records
        .iter()
        .rev()
        .find(|r| r.offset <= at as u64)
        .unwrap();
    let next = clean
        .records
        .iter()
        .find(|r| r.offset >= (at + 4096) as u64)
        .unwrap();
    assert!(
        from as u64 >= hit.offset && (from as usize) < at + 4096,
        "page at {at}: {msg}"
    );
    assert_eq!(resumed, next.offset, "page at {at}: {msg}");
    let imported: i64 = one(&db, "SELECT records FROM trace");
    let outside = clean
        .records
        .iter()
        .filter(|r| r.offset < from as u64 || r.offset >= resumed)
        .count();
    assert_eq!(imported as usize, outside, "every record outside the range");
    // --strict: nothing written, exit code 2, the damage named.
    let strict = dir.path().join("strict.db");
    let out = kt2sql()
        .arg(&trace)
        .arg(&strict)
        .arg("--strict")
        .assert()
        .code(2);
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("kt2sql: error: {}: ", trace.display()))
            && err.contains(&format!(" {from}"))
            && err.contains("--strict"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!strict.exists());
    assert!(temp_files(dir.path()).is_empty());
    // --strict with an undamaged file is a plain import.
    let c = compose("netbsd-v2-amd64", 3, &["--processes", "3"]);
    kt2sql()
        .arg(&c.trace)
        .arg(dir.path().join("fine.db"))
        .args(["--strict", "-q"])
        .assert()
        .code(0);
}

/// A minimal valid PNG (1×1 pixel).
fn png() -> Vec<u8> {
    let mut v = b"\x89PNG\r\n\x1a\n".to_vec();
    for (typ, data) in [
        (&b"IHDR"[..], &b"\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0"[..]),
        (b"IDAT", b"\x78\x9c\x63\x60\x00\x02\x00\x00\x05\x00\x01"),
        (b"IEND", b""),
    ] {
        v.extend((data.len() as u32).to_be_bytes());
        v.extend(typ);
        v.extend(data);
        v.extend([0, 0, 0, 0]); // CRC: no reader here checks it
    }
    v
}

#[test]
fn foreign_input_is_refused_with_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let text = write(
        dir.path(),
        "notes.txt",
        &b"Dear diary, today I traced make.\n".repeat(100),
    );
    let png = write(dir.path(), "picture.png", &png());
    let directory = dir.path().join("a-directory");
    fs::create_dir(&directory).unwrap();
    let missing = dir.path().join("missing.out");
    let unreadable = write(dir.path(), "secret.out", b"whatever is in here");
    let mut cases: Vec<(std::path::PathBuf, &str)> = vec![
        (text, "not a ktrace file"),
        (png, "not a ktrace file"),
        ("/dev/null".into(), "expected a ktrace.out file"),
        (directory, "is a directory, not a trace file"),
        (missing, "No such file or directory"),
    ];
    // A real ELF binary, as people do pass the traced program by mistake.
    if let Some(elf) = ["/bin/ls", "/bin/sh", "/usr/bin/env"]
        .iter()
        .map(Path::new)
        .find(|p| fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() < 4 << 20))
    {
        let copy = dir.path().join("program");
        fs::copy(elf, &copy).unwrap();
        cases.push((copy, "not a ktrace file"));
    }
    let root = is_root();
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&unreadable, fs::Permissions::from_mode(0o000)).unwrap();
    }
    if root {
        eprintln!(
            "running as root: {} stays readable, so only its refusal as no trace is checked",
            unreadable.display()
        );
        cases.push((unreadable, "not a ktrace file"));
    } else {
        cases.push((unreadable, "Permission denied"));
    }
    let db = dir.path().join("out.db");
    for (input, why) in &cases {
        let out = kt2sql().arg(input).arg(&db).assert().code(2);
        let err = stderr(&out);
        let want = format!("kt2sql: error: {}: ", input.display());
        assert!(err.starts_with(&want), "{}: {err:?}", input.display());
        assert!(
            err.contains(why),
            "{}: {err:?} should say {why:?}",
            input.display()
        );
        assert_eq!(err.lines().count(), 1, "one line: {err:?}");
        assert!(!db.exists(), "{}: a database was created", input.display());
        assert!(temp_files(dir.path()).is_empty(), "{}", input.display());
    }
}

fn is_root() -> bool {
    // The owner of a file we just created is our effective uid.
    use std::os::unix::fs::MetadataExt;
    let f = tempfile::NamedTempFile::new().unwrap();
    f.as_file().metadata().unwrap().uid() == 0
}

#[test]
fn dropped_events_are_counted_per_process_and_as_issues() {
    let c = compose("freebsd-v1-amd64", 4, &["--drop-flag", "3"]);
    assert_eq!(c.truth["drop_flags_set"], 3);
    let d = decode(&fs::read(&c.trace).unwrap(), None).unwrap();
    let mut pids: Vec<i64> = d
        .records
        .iter()
        .filter(|r| r.dropped)
        .map(|r| r.pid)
        .collect();
    pids.sort();
    assert_eq!(pids.len(), 3);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.db");
    // The kernel's loss, not the import's: exit code 0, with a warning.
    let out = kt2sql().arg(&c.trace).arg(&db).arg("-q").assert().code(0);
    let err = stderr(&out);
    assert!(
        err.contains("the kernel dropped events before 3 records"),
        "{err}"
    );
    let conn = Connection::open(&db).unwrap();
    let q = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(q("SELECT dropped_records FROM trace"), 3);
    assert_eq!(q("SELECT complete FROM trace"), 1);
    assert_eq!(
        q(
            "SELECT count(*) FROM import_issue WHERE kind = 'dropped-events' \
           AND severity = 'data_loss' AND process_id IS NOT NULL AND offset IS NOT NULL"
        ),
        3
    );
    let mut st = conn
        .prepare("SELECT pid, dropped_events FROM process WHERE dropped_events > 0 ORDER BY pid")
        .unwrap();
    let flagged: Vec<(i64, i64)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut want: Vec<(i64, i64)> = Vec::new();
    for p in pids {
        match want.last_mut() {
            Some((q, n)) if *q == p => *n += 1,
            _ => want.push((p, 1)),
        }
    }
    assert_eq!(flagged, want, "processes flagged with their dropped events");
}
