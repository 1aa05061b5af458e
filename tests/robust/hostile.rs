//! Hostile header values through the whole import, in every dialect:
//! lengths of 2^31, i32::MAX and negative ones (a file and a pipe), a pid
//! of -1, command names without NUL, terminal escape sequences in command
//! names, paths and the trace's own file name (never printed raw by
//! `dump` or by the import's warnings), timestamps at both ends of i64,
//! a million NAMI records in one call (bounded memory, reasonable time),
//! and six times the processes in the same memory.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use kt2sql::decode::{Abi, Family};
use kt2sql::import::{import, ImportOptions, NoProgress};
use kt2sql::record::{Body, Record};

use super::{kt2sql, one, write};
use crate::util::peak::{self, Measured};
use crate::util::records::{call, forks, realistic, rec, ret, T0};
use crate::util::writer::{fields_for, TraceWriter};

/// `realistic(abi)` with record `at` written with the header changed by `f`.
fn with_hostile(
    abi: &Abi,
    at: usize,
    f: impl Fn(&mut crate::util::writer::Fields),
) -> (Vec<u8>, Vec<u64>) {
    let recs = realistic(abi);
    let mut w = TraceWriter::new(*abi);
    for (i, r) in recs.iter().enumerate() {
        let (mut fields, payload) = fields_for(abi, r).unwrap();
        if i == at {
            f(&mut fields);
        }
        w.raw(&fields, &payload);
    }
    let mut offsets = w.offsets().to_vec();
    offsets.push(w.len() as u64);
    (w.bytes(), offsets)
}

fn given(abi: &Abi) -> ImportOptions {
    ImportOptions {
        abi: Some(*abi),
        ..ImportOptions::default()
    }
}

#[test]
fn absurd_lengths_are_skipped_and_the_records_after_them_imported() {
    let dir = super::scratch();
    let neg_one = u64::MAX;
    let mut n = 0;
    for abi in Abi::all() {
        for len in [1 << 31, i32::MAX as u64, neg_one, 0x8000_0010] {
            n += 1;
            let (bytes, offsets) = with_hostile(&abi, 3, |f| f.len = len);
            let total = offsets.len() - 1;
            let trace = write(dir.path(), &format!("t{n}.out"), &bytes);
            let db = dir.path().join(format!("t{n}.db"));
            let s = import(&[trace], &db, &given(&abi), &NoProgress)
                .unwrap_or_else(|e| panic!("{abi} len {len:#x}: {e}"));
            let t = &s.traces[0];
            assert_eq!(t.damage.len(), 1, "{abi} len {len:#x}: {:?}", t.damage);
            let d = &t.damage[0];
            assert_eq!(
                (d.offset, d.resumed_at),
                (offsets[3], Some(offsets[4])),
                "{abi} len {len:#x}: {d}"
            );
            assert_eq!(
                t.totals.records as usize,
                total - 1,
                "{abi} len {len:#x}: all but the bad record"
            );
        }
    }
}

#[test]
fn an_absurd_length_in_a_pipe_allocates_nothing_for_it() {
    // A pipe has no known length, so only the payload limit guards the
    // buffer; the import goes on after the record.
    let abi: Abi = "freebsd-v1:le:64".parse().unwrap();
    let (bytes, offsets) = with_hostile(&abi, 3, |f| f.len = i32::MAX as u64);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pipe.db");
    let out = kt2sql()
        .args(["--dialect", "freebsd-v1:le:64", "/dev/stdin"])
        .arg(&db)
        .arg("-q")
        .write_stdin(bytes)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains(&format!(
            "bytes {}..{} skipped: record length",
            offsets[3], offsets[4]
        )),
        "{err}"
    );
    let records: i64 = one(&db, "SELECT records FROM trace");
    assert_eq!(records as usize, offsets.len() - 2);
}

#[test]
fn a_pid_of_minus_one_is_damage_and_the_rest_is_imported() {
    let dir = super::scratch();
    for (n, abi) in Abi::all().into_iter().enumerate() {
        let (bytes, offsets) = with_hostile(&abi, 3, |f| f.pid = -1);
        let total = offsets.len() - 1;
        let trace = write(dir.path(), &format!("p{n}.out"), &bytes);
        let db = dir.path().join(format!("p{n}.db"));
        let s = import(&[trace], &db, &given(&abi), &NoProgress)
            .unwrap_or_else(|e| panic!("{abi}: {e}"));
        let t = &s.traces[0];
        let d = t
            .damage
            .first()
            .unwrap_or_else(|| panic!("{abi}: no damage"));
        assert_eq!(d.offset, offsets[3], "{abi}: {d}");
        assert!(d.why.contains("pid out of range"), "{abi}: {d}");
        // Exactly that record is skipped: resynchronisation starts from
        // it and finds the next one.
        assert_eq!(d.resumed_at, Some(offsets[4]), "{abi}: {d}");
        assert_eq!(
            t.totals.records as usize,
            total - 1,
            "{abi}: {} of {total} records",
            t.totals.records
        );
        let pids: i64 = one(&db, "SELECT count(*) FROM process WHERE pid < 0");
        assert_eq!(pids, 0, "{abi}: a process with a negative pid");
    }
}

#[test]
fn command_names_without_nul_are_cut_at_maxcomlen() {
    let dir = super::scratch();
    for (n, abi) in Abi::all().into_iter().enumerate() {
        let layout = abi.primary_layout().unwrap();
        // Every record: a comm filling the whole array, no NUL.
        let recs: Vec<Record> = realistic(&abi)
            .into_iter()
            .map(|mut r| {
                if !matches!(r.body, Body::Start) {
                    r.comm = vec![b'C'; 64].into();
                }
                r
            })
            .collect();
        let mut w = TraceWriter::new(abi);
        for r in &recs {
            let (mut f, p) = fields_for(&abi, r).unwrap();
            f.comm = r.comm.to_vec();
            w.raw(&f, &p);
        }
        let trace = write(dir.path(), &format!("c{n}.out"), &w.bytes());
        let db = dir.path().join(format!("c{n}.db"));
        let s = import(&[trace], &db, &given(&abi), &NoProgress)
            .unwrap_or_else(|e| panic!("{abi}: {e}"));
        assert!(!s.data_loss(), "{abi}: {:?}", s.traces[0].damage);
        let comm: Vec<u8> = one(&db, "SELECT CAST(first_comm AS BLOB) FROM process");
        assert_eq!(
            comm,
            vec![b'C'; layout.comm_max.min(layout.comm.1)],
            "{abi}: comm cut at MAXCOMLEN"
        );
    }
}

/// Characters a terminal acts on, with some context: C0 controls but
/// newline and tab, DEL, C1 controls (as UTF-8, and as raw bytes, which
/// 8-bit terminals take for C1).
fn control_bytes(out: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let mut at = 0;
    for chunk in out.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() && c != '\n' && c != '\t' {
                found.push(format!("U+{:04X} at byte {at}", c as u32));
            }
            at += c.len_utf8();
        }
        for &b in chunk.invalid() {
            if (0x80..0xa0).contains(&b) {
                found.push(format!("raw {b:#04x} at byte {at}"));
            }
            at += 1;
        }
    }
    if !found.is_empty() {
        found.push(crate::util::escape(&out[..out.len().min(2000)]));
    }
    found
}

const EVIL_COMM: &[u8] = b"\x1b[2J\x1b]0;owned\x07";
const EVIL_PATHS: &[&[u8]] = &[
    b"/tmp/\x1b[31mred\x1b[0m",
    b"/tmp/\x9b6n-c1-csi",
    b"/tmp/\xc2\x9b6n-utf8-csi",
    b"/tmp/bell\x07and\x08backspace\rcr\x7fdel",
    b"/tmp/\x1bP+q\x1b\\dcs",
];

/// A freebsd-v1 trace whose process is named and opens paths with escape
/// sequences; also a copy cut short, for the import's warnings.
fn evil_trace() -> Vec<u8> {
    let abi: Abi = "freebsd-v1:le:64".parse().unwrap();
    let mut rs = Vec::new();
    let mut ts = T0;
    for p in EVIL_PATHS {
        for body in [
            call(5, &[0x1000, 0]),
            Body::Namei(p.to_vec().into()),
            ret(5, 2, 0),
        ] {
            ts += 1000;
            let mut r = rec(100, Some(100_001), "x", ts, body);
            r.version = 1;
            r.comm = EVIL_COMM.into();
            rs.push(r);
        }
    }
    TraceWriter::new(abi).records(&rs).bytes()
}

#[test]
fn escape_sequences_are_never_printed_raw() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = evil_trace();
    let trace = write(dir.path(), "evil.out", &bytes);
    // Detection holds the escapes in every command name against the right
    // reading (see the report), so the dialect is given.
    let abi = ["--dialect", "freebsd-v1:le:64"];
    for args in [
        &["dump"][..],
        &["dump", "--format", "jsonl"],
        &["dump", "--info"],
    ] {
        let out = kt2sql().args(args).args(abi).arg(&trace).assert().success();
        let o = out.get_output();
        for (what, b) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            let bad = control_bytes(b);
            assert!(bad.is_empty(), "{args:?} {what}: {bad:?}");
        }
    }
    // The import's warnings about a damaged copy, whose name has escapes too.
    let cut = write(
        dir.path(),
        "\x1b[31mcut\x1b[0m.out",
        &bytes[..bytes.len() - 5],
    );
    let db = dir.path().join("evil.db");
    let out = kt2sql().arg(&cut).arg(&db).args(abi).assert().code(1);
    let o = out.get_output();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("warning"), "{err}");
    for (what, b) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
        let bad = control_bytes(b);
        assert!(bad.is_empty(), "import {what}: {bad:?}");
    }
    // And the error for a foreign file with such a name.
    let junk = write(dir.path(), "\x1b]0;title\x07junk", b"no trace here\n");
    let out = kt2sql()
        .arg(&junk)
        .arg(dir.path().join("j.db"))
        .assert()
        .code(2);
    let bad = control_bytes(&out.get_output().stderr);
    assert!(bad.is_empty(), "error line: {bad:?}");
    // The bytes themselves are stored exactly.
    let comm: Vec<u8> = one(&db, "SELECT CAST(first_comm AS BLOB) FROM process");
    assert_eq!(comm, EVIL_COMM);
}

#[test]
fn a_million_namei_records_in_one_call_stay_bounded() {
    if !peak::usable() {
        return;
    }
    const N: usize = 1_000_000;
    let abi: Abi = "freebsd-v0:le:32".parse().unwrap();
    assert_eq!(abi.family, Family::FreeBsd);
    let dir = tempfile::tempdir().unwrap();
    let trace: PathBuf = dir.path().join("nami.out");
    {
        let mut w = TraceWriter::new(abi);
        let mut r = rec(100, Some(100_001), "find", T0, call(5, &[0x1000, 0]));
        w.record(&r);
        let (mut f, _) = fields_for(&abi, &r).unwrap();
        f.typ = 3; // NAMI
        for i in 0..N {
            let p = format!("/usr/src/{i}");
            f.len = p.len() as u64;
            f.frac = (i / 1000) as i64;
            w.raw(&f, p.as_bytes());
        }
        r.body = ret(5, 2, 0);
        r.ts = T0 + 2_000_000_000;
        w.record(&r);
        fs::write(&trace, w.bytes()).unwrap();
    }
    let size = fs::metadata(&trace).unwrap().len();
    let db = dir.path().join("nami.db");
    let t0 = Instant::now();
    let (mut cmd, peak) = Measured::command(assert_cmd::cargo::cargo_bin("kt2sql"));
    let status = cmd.arg(&trace).arg(&db).arg("-q").status().unwrap();
    let peak = peak.kib();
    let secs = t0.elapsed().as_secs_f64();
    assert!(status.success(), "{status}");
    let rows: i64 = one(&db, "SELECT count(*) FROM namei");
    assert_eq!(rows as usize, N);
    let max_seq: i64 = one(&db, "SELECT max(seq) FROM namei");
    assert_eq!(max_seq as usize, N - 1);
    eprintln!(
        "{N} NAMI records ({} MB) in one call: {secs:.1}s, peak RSS {} MB",
        size >> 20,
        peak >> 10
    );
    // The decoder's buffer, SQLite's page cache (64 MiB) and the path
    // interning map (a million distinct paths) — not the whole file.
    assert!(peak < 512 << 10, "peak RSS {} MB", peak >> 10);
}

/// A build of 20 000 processes and one of 120 000 (past the tree order's
/// in-memory limit) import in the same peak memory. Ordering 120 000
/// processes' tree in memory held about 12 MB more. (Processes that never
/// exit cost some words each: bench/hostile.sh's 2 million.)
#[test]
fn six_times_the_processes_import_in_the_same_memory() {
    if !peak::usable() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let abi: Abi = "freebsd-v1:le:64".parse().unwrap();
    let mut peaks = Vec::new();
    for n in [20_000, 120_000] {
        let bytes = TraceWriter::new(abi).records(&forks(n)).bytes();
        let trace = write(dir.path(), &format!("forks-{n}.ktrace"), &bytes);
        let db = dir.path().join(format!("forks-{n}.db"));
        let (mut cmd, peak) = Measured::command(assert_cmd::cargo::cargo_bin("kt2sql"));
        let status = cmd.arg(&trace).arg(&db).arg("-q").status().unwrap();
        assert!(status.success(), "{n} processes: {status}");
        assert_eq!(one::<i64>(&db, "SELECT count(*) FROM tree_node"), n + 1);
        peaks.push(peak.kib());
    }
    eprintln!(
        "import peak: {} KiB with 20 000 processes, {} KiB with 120 000",
        peaks[0], peaks[1]
    );
    assert!(
        peaks[1] < peaks[0] + 5 * 1024,
        "import peak {} KiB with 20 000 processes, {} KiB with 120 000",
        peaks[0],
        peaks[1]
    );
}

#[test]
fn extreme_timestamps_do_not_overflow_the_summary() {
    // Found by the fuzzer: `dump --info` subtracted the first time from the
    // last in i64 (a panic in debug builds, a wrapped span in release).
    // Records outside 1970-2100 are now damage to the decoder itself, so
    // the summary never sees them: `dump` names the first one and stops.
    let abi: Abi = "freebsd-v1:le:64".parse().unwrap();
    let r = rec(100, Some(100_001), "x", T0, call(5, &[0x1000, 0]));
    let (mut f, p) = fields_for(&abi, &r).unwrap();
    let mut w = TraceWriter::new(abi);
    for sec in [i64::MIN, i64::MAX, 0] {
        f.sec = sec;
        w.raw(&f, &p);
    }
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "times.out", &w.bytes());
    let out = kt2sql()
        .args(["dump", "--info", "--dialect", "freebsd-v1:le:64"])
        .arg(&trace)
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("bad record: timestamp outside 1970-2100 at byte offset 0 (record #0)"),
        "{err}"
    );
    // The import keeps the one inside 1970-2100 (the epoch itself: a clock
    // never set) and reports the two before it as damage.
    let db = dir.path().join("times.db");
    kt2sql()
        .args(["--dialect", "freebsd-v1:le:64", "-q"])
        .arg(&trace)
        .arg(&db)
        .assert()
        .code(1);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let calls: i64 = conn
        .query_row("SELECT count(*) FROM call", [], |r| r.get(0))
        .unwrap();
    assert_eq!(calls, 1);
}
