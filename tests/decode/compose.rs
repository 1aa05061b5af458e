//! ktcompose traces (every dialect, two seeds) decoded with detection and
//! compared with the truth JSON's `oracle`: dialect, byte order, word bits,
//! header version, record counts by type, KTR_DROP count, pids, tids, comms
//! per pid, NAMI paths, times, and syscall calls/rets by name with errors
//! and pseudo-errors. Also `--truncate` (complete records, then an error at
//! the partial record) and `--drop-flag` (FreeBSD).

use std::collections::BTreeMap;

use kt2sql::decode::{Endianness, Family};
use kt2sql::names::syscall_name;
use kt2sql::record::{Body, Record};
use serde_json::{json, Value};

use crate::require_shared;
use crate::util::{compose, decode, Decoded};

/// ktcompose dialect → the ABI it writes.
const DIALECTS: &[(&str, &str)] = &[
    ("freebsd-v1-amd64", "freebsd-v1:le:64"),
    ("freebsd-v0-amd64", "freebsd-v0:le:64"),
    ("freebsd-v0-i386", "freebsd-v0:le:32"),
    ("openbsd-amd64", "openbsd:le:64"),
    ("netbsd-v2-amd64", "netbsd-v2:le:64"),
    ("netbsd-v0-i386", "netbsd-v0:le:32"),
    ("darwin-ppc", "darwin:be:32"),
];

/// Bytes as Python's `decode('utf-8', 'backslashreplace')` shows them.
fn py_str(b: &[u8]) -> String {
    let mut out = String::new();
    for chunk in b.utf8_chunks() {
        out.push_str(chunk.valid());
        for c in chunk.invalid() {
            out.push_str(&format!("\\x{c:02x}"));
        }
    }
    out
}

/// A timestamp as the oracle prints it (µs, UTC).
fn iso(ts: i64) -> String {
    let t = chrono::DateTime::from_timestamp(
        ts.div_euclid(1_000_000_000),
        ts.rem_euclid(1_000_000_000) as u32,
    )
    .unwrap();
    t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

/// The oracle's summary, recomputed from decoded records (what ktcompose's
/// `truth_pass` counts, in its JSON shapes).
fn summary(d: &Decoded) -> Value {
    let recs: &[Record] = &d.records;
    let (mut pids, mut tids) = (Vec::new(), Vec::new());
    let mut comms: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    let (mut namei, mut by_type) = (Vec::new(), BTreeMap::<&str, u64>::new());
    let (mut calls, mut rets) = (
        BTreeMap::<String, u64>::new(),
        BTreeMap::<String, u64>::new(),
    );
    let (mut errors, mut pseudo, mut execs, mut exits) = (0, BTreeMap::<String, u64>::new(), 0, 0);
    let name = |code: i32| {
        syscall_name(d.abi.name_table(), i64::from(code)).map_or(format!("#{code}"), str::to_owned)
    };
    for r in recs {
        *by_type.entry(r.body.label()).or_default() += 1;
        if matches!(r.body, Body::Start) {
            continue;
        }
        pids.push(r.pid);
        tids.extend(r.tid);
        let c = comms.entry(r.pid).or_default();
        let comm = py_str(&r.comm);
        if !c.contains(&comm) {
            c.push(comm);
        }
        match &r.body {
            Body::Namei(p) => namei.push(py_str(p)),
            Body::Call(c) => {
                exits += u64::from(name(c.code) == "exit");
                *calls.entry(name(c.code)).or_default() += 1;
            }
            Body::Ret(x) => {
                *rets.entry(name(x.code)).or_default() += 1;
                match x.error {
                    0 | -2 if name(x.code) == "execve" => execs += 1,
                    _ => {}
                }
                match x.error {
                    e if e > 0 => errors += 1,
                    -1 => *pseudo.entry("RESTART".into()).or_default() += 1,
                    -2 => *pseudo.entry("JUSTRETURN".into()).or_default() += 1,
                    e if e < 0 => *pseudo.entry(e.to_string()).or_default() += 1,
                    _ => {}
                }
            }
            _ => {}
        }
    }
    pids.sort();
    pids.dedup();
    tids.sort();
    tids.dedup();
    let ts: Vec<i64> = recs.iter().map(|r| r.ts).collect();
    let mut v = json!({
        "dialect": d.abi.system_name(),
        "byte_order": if d.abi.endianness == Endianness::Little { "little" } else { "big" },
        "word_bits": d.abi.width.bits(),
        // only FreeBSD and NetBSD headers carry a version
        "header_version": matches!(d.abi.family, Family::FreeBsd | Family::NetBsd).then_some(d.abi.version),
        "records": {"total": recs.len(), "by_type": by_type},
        "dropped": recs.iter().filter(|r| r.dropped).count(),
        "pids": pids,
        "tids": if tids.is_empty() { Value::Null } else { json!(tids) },
        "comms": comms.iter().map(|(p, c)| (p.to_string(), json!(c))).collect::<serde_json::Map<_, _>>(),
        "namei": namei,
        "first_time": ts.first().map(|&t| iso(t)),
        "last_time": ts.last().map(|&t| iso(t)),
        "min_time": ts.iter().min().map(|&t| iso(t)),
        "max_time": ts.iter().max().map(|&t| iso(t)),
        "error": d.error.as_ref().map(|e| json!({"offset": e.offset})),
    });
    v["syscalls"] =
        json!({"calls": calls, "rets": rets, "ret_errors": errors, "ret_pseudo_errors": pseudo});
    v["execs"] = json!(execs);
    v["exits"] = json!(exits);
    v
}

/// The oracle's keys that `summary` recomputes, NetBSD's NULs stripped.
fn expected(truth: &Value) -> Value {
    let o = &truth["oracle"];
    let mut v = json!({});
    let keys = [
        "dialect",
        "byte_order",
        "word_bits",
        "header_version",
        "records",
        "dropped",
        "pids",
        "tids",
        "comms",
        "first_time",
        "last_time",
        "min_time",
        "max_time",
        "error",
        "execs",
        "exits",
    ];
    let s = &o["syscalls"];
    v["syscalls"] = json!({"calls": s["calls"], "rets": s["rets"], "ret_errors": s["ret_errors"],
        "ret_pseudo_errors": s["ret_pseudo_errors"]});
    for k in keys {
        v[k] = o[k].clone();
    }
    let strip = |p: &Value| json!(p.as_str().unwrap().trim_end_matches('\0'));
    v["namei"] = o["namei"].as_array().unwrap().iter().map(strip).collect();
    v
}

/// Compare key by key, so a failure names the key.
fn assert_same(what: &str, got: &Value, want: &Value) {
    for (k, w) in want.as_object().unwrap() {
        assert_eq!(&got[k], w, "{what}: oracle key {k}");
    }
}

fn check(dialect: &str, abi: &str, seed: u64, extra: &[&str]) -> (Decoded, Value) {
    let c = compose(dialect, seed, extra);
    let bytes = std::fs::read(&c.trace).unwrap();
    let what = format!("{dialect} seed {seed} {extra:?}");
    let d = decode(&bytes, None).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(d.abi.to_string(), abi, "{what}");
    assert_same(&what, &summary(&d), &expected(&c.truth));
    let tr = &c.truth["truncated"];
    if tr.is_null() {
        assert_eq!(
            d.end,
            bytes.len() as u64,
            "{what}: decoded to the last byte"
        );
    } else {
        assert_eq!(
            d.records.len() as u64,
            tr["complete_records"].as_u64().unwrap(),
            "{what}"
        );
        if let Some(e) = &d.error {
            assert_eq!(e.record, d.records.len() as u64, "{what}");
        }
    }
    (d, c.truth)
}

/// A committed plain build of every dialect.
#[test]
fn compose_plain_builds_match_their_truth() {
    for &(dialect, abi) in DIALECTS {
        crate::util::fixtures::committed(dialect, 2, &[]);
        check(dialect, abi, 2, &[]);
    }
}

/// More seeds of the plain builds.
#[test]
fn compose_every_dialect_matches_its_truth() {
    require_shared!(python);
    for &(dialect, abi) in DIALECTS {
        for seed in [1, 7] {
            check(dialect, abi, seed, &[]);
        }
    }
}

/// The committed fixtures, which need no `../shared`.
#[test]
fn compose_fixtures_match_their_truth() {
    for f in crate::util::fixtures::faithful() {
        let abi = DIALECTS.iter().find(|d| d.0 == f.dialect).unwrap().1;
        check(&f.dialect, abi, f.seed, &f.args());
    }
}

/// The committed cut traces: inside the last record, and at a byte count.
#[test]
fn compose_cut_traces_end_in_an_error_at_the_partial_record() {
    let abi = |dialect: &str| DIALECTS.iter().find(|d| d.0 == dialect).unwrap().1;
    let last = ["--hazards", "--truncate", "last"];
    crate::util::fixtures::committed("netbsd-v2-amd64", 5, &last);
    let (d, _) = check("netbsd-v2-amd64", abi("netbsd-v2-amd64"), 5, &last);
    assert!(
        d.error.is_some(),
        "netbsd-v2-amd64: cut inside the last record"
    );
    let bytes = ["--truncate", "150000"];
    crate::util::fixtures::committed("freebsd-v0-i386", 6, &bytes);
    check("freebsd-v0-i386", abi("freebsd-v0-i386"), 6, &bytes);
}

/// Cut traces of every dialect.
#[test]
fn compose_truncated_traces_end_in_an_error_at_the_partial_record() {
    require_shared!(python);
    for &(dialect, abi) in DIALECTS {
        let (d, _) = check(dialect, abi, 3, &["--truncate", "last"]);
        assert!(d.error.is_some(), "{dialect}: cut inside the last record");
        check(dialect, abi, 4, &["--truncate", "23456"]);
    }
}

/// On the committed FreeBSD traces with dropped-event flags.
#[test]
fn compose_drop_flags_are_counted_in_the_committed_traces() {
    let abi = DIALECTS[0].1;
    assert_eq!(DIALECTS[0].0, "freebsd-v1-amd64");
    for (seed, n) in [(4, "1"), (4, "3"), (9, "3")] {
        crate::util::fixtures::committed("freebsd-v1-amd64", seed, &["--drop-flag", n]);
        check_drop_flags("freebsd-v1-amd64", abi, seed, &["--drop-flag", n]);
    }
}

/// On each FreeBSD dialect.
#[test]
fn compose_drop_flags_are_counted() {
    require_shared!(python);
    for &(dialect, abi) in &DIALECTS[..3] {
        check_drop_flags(dialect, abi, 5, &["--drop-flag", "3"]);
    }
}

/// The records flagged `KTR_DROP` are those the truth says were dropped.
fn check_drop_flags(dialect: &str, abi: &str, seed: u64, extra: &[&str]) {
    let (d, truth) = check(dialect, abi, seed, extra);
    let dropped = d.records.iter().filter(|r| r.dropped).count() as u64;
    assert_eq!(dropped, truth["dropped"].as_u64().unwrap(), "{dialect}");
    assert_eq!(
        dropped,
        truth["drop_flags_set"].as_u64().unwrap(),
        "{dialect}"
    );
    assert!(dropped > 0, "{dialect}");
}
