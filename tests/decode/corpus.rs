//! The real traces in `../shared/corpus` (read in place, never copied):
//! each decodes to its last byte as the dialect its README names, both
//! with that dialect given and detected, with the README's record count;
//! the facts the formats doc states about them hold; and a golden summary
//! per file (`tests/golden/corpus-<name>.txt`) pins types, pids, tids,
//! comms, NAMI paths and syscalls by name.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use kt2sql::decode::Abi;
use kt2sql::names::syscall_name;
use kt2sql::record::{Body, Record};

use crate::require_shared;
use crate::util::{assert_golden, corpus, decode, escape, Decoded, CORPUS};

fn load(name: &str) -> Option<(Vec<u8>, Decoded)> {
    let shared = crate::util::shared_dir()?;
    let bytes = std::fs::read(corpus(&shared, name)).unwrap();
    let (_, dialect, _) = CORPUS.iter().find(|c| c.0 == name).unwrap();
    let d = decode(&bytes, Some(dialect.parse().unwrap())).unwrap();
    Some((bytes, d))
}

#[test]
fn corpus_decodes_to_the_last_byte() {
    let shared = require_shared!();
    for &(name, dialect, count) in CORPUS {
        let bytes = std::fs::read(corpus(&shared, name)).unwrap();
        let given = decode(&bytes, Some(dialect.parse().unwrap())).unwrap();
        assert_eq!(given.error, None, "{name}");
        assert_eq!(
            (given.records.len(), given.end),
            (count, bytes.len() as u64),
            "{name}"
        );
        let detected = decode(&bytes, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            detected.abi.to_string(),
            dialect,
            "{name}: detected dialect"
        );
        assert_eq!(detected.records, given.records, "{name}");
    }
}

/// CALL records of `code`.
fn calls(d: &Decoded, code: i32) -> Vec<&kt2sql::record::Call<'static>> {
    d.records
        .iter()
        .filter_map(|r| match &r.body {
            Body::Call(c) if c.code == code => Some(c),
            _ => None,
        })
        .collect()
}

#[test]
fn corpus_matches_the_formats_doc() {
    require_shared!();
    // FreeBSD 14: the 64-bit-inode fstat (551); v1 headers with cpu on every record.
    let (_, f14) = load("freebsd14-amd64").unwrap();
    assert!(!calls(&f14, 551).is_empty());
    assert!(f14
        .records
        .iter()
        .all(|r| r.version == 1 && r.cpu.is_some() && r.tid.is_some_and(|t| t >= 100_000)));
    // FreeBSD 9 i386: v0 headers, PROCCTOR first, 0x4109 sv_flags.
    let (_, f9) = load("freebsd9-i386").unwrap();
    assert!(f9.records.iter().all(|r| r.version == 0 && r.cpu.is_none()));
    assert!(f9
        .records
        .iter()
        .any(|r| matches!(r.body, Body::ProcCtor { sv_flags: 0x4109 })));
    // Darwin: 153 pread, 188/189 stat/fstat, 197 mmap appear; no thread ids.
    let (_, mac) = load("macosx104-ppc").unwrap();
    for code in [153, 188, 189, 197] {
        assert!(!calls(&mac, code).is_empty(), "darwin {code}");
    }
    assert!(mac.records.iter().all(|r| r.tid.is_none()));
    // OpenBSD 2023: START first; pad-free mmap 49 with 6 args; kbind 86;
    // getentropy 7; sysctl CALLs carry a 2-int MIB (8 bytes) after the args.
    let (_, ob) = load("openbsd73-amd64").unwrap();
    assert!(matches!(ob.records[0].body, Body::Start));
    assert_eq!((ob.records[0].pid, ob.records[0].tid), (-1, None));
    let mmaps = calls(&ob, 49);
    assert!(!mmaps.is_empty() && mmaps.iter().all(|c| c.nargs == 6 && c.extra.is_empty()));
    assert!(!calls(&ob, 86).is_empty() && !calls(&ob, 7).is_empty());
    let sysctls = calls(&ob, 202);
    assert!(
        !sysctls.is_empty() && sysctls.iter().all(|c| c.extra.len() == 8),
        "{sysctls:?}"
    );
    // NetBSD 10: v2 headers, lid == pid for the first LWP, NAMI stored with
    // a trailing NUL that the decoder strips.
    let (nb_bytes, nb) = load("netbsd10-amd64").unwrap();
    assert!(nb.records.iter().all(|r| r.version == 2 && r.tid.is_some()));
    assert!(nb.records.iter().any(|r| r.tid == Some(r.pid)));
    let mut namis = 0;
    for (i, r) in nb.records.iter().enumerate() {
        if let Body::Namei(p) = &r.body {
            let end = nb
                .records
                .get(i + 1)
                .map_or(nb_bytes.len() as u64, |n| n.offset) as usize;
            assert_eq!(
                nb_bytes[end - 1],
                0,
                "NAMI at {} ends in NUL in the file",
                r.offset
            );
            assert_eq!(
                p.len(),
                end - r.offset as usize - 56 - 1,
                "one NUL stripped"
            );
            assert_ne!(p.last(), Some(&0));
            namis += 1;
        }
    }
    assert!(namis > 0);
}

/// A text summary of one decoded file, for its golden file.
fn summary(name: &str, abi: &Abi, recs: &[Record<'static>]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "file: {name}.ktrace\ndialect: {abi}\nrecords: {}",
        recs.len()
    );
    let mut by_type: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut pids, mut tids, mut comms) = (BTreeSet::new(), BTreeSet::new(), Vec::new());
    let mut versions: BTreeMap<u8, usize> = BTreeMap::new();
    // code -> (calls, rets, arg counts, extra-byte counts, return errors)
    type Sys = (
        usize,
        usize,
        BTreeSet<u16>,
        BTreeSet<usize>,
        BTreeMap<i32, usize>,
    );
    let mut sys: BTreeMap<i32, Sys> = BTreeMap::new();
    let mut namei = Vec::new();
    for r in recs {
        *by_type.entry(r.body.label()).or_default() += 1;
        *versions.entry(r.version).or_default() += 1;
        if !matches!(r.body, Body::Start) {
            pids.insert(r.pid);
            tids.extend(r.tid);
            if !comms.contains(&r.comm) {
                comms.push(r.comm.clone());
            }
        }
        match &r.body {
            Body::Call(c) => {
                let e = sys.entry(c.code).or_default();
                e.0 += 1;
                e.2.insert(c.nargs);
                e.3.insert(c.extra.len());
            }
            Body::Ret(x) => {
                let e = sys.entry(x.code).or_default();
                e.1 += 1;
                *e.4.entry(x.error).or_default() += 1;
            }
            Body::Namei(p) => namei.push(format!("  \"{}\"", escape(p))),
            _ => {}
        }
    }
    let join = |v: Vec<String>| {
        if v.is_empty() {
            "(none)".to_owned()
        } else {
            v.join(" ")
        }
    };
    let _ = writeln!(s, "header versions: {versions:?}");
    let _ = writeln!(
        s,
        "first ts: {}\nlast ts: {}",
        recs[0].ts,
        recs[recs.len() - 1].ts
    );
    let _ = writeln!(s, "by type:");
    for (k, v) in &by_type {
        let _ = writeln!(s, "  {k} {v}");
    }
    let _ = writeln!(
        s,
        "pids: {}",
        join(pids.iter().map(|p| p.to_string()).collect())
    );
    let _ = writeln!(
        s,
        "tids: {}",
        join(tids.iter().map(|p| p.to_string()).collect())
    );
    let _ = writeln!(
        s,
        "comms: {}",
        join(comms.iter().map(|c| format!("\"{}\"", escape(c))).collect())
    );
    let _ = writeln!(
        s,
        "syscalls (code name: calls rets, arg counts, extra bytes, errors):"
    );
    for (code, (c, r, nargs, extra, errs)) in &sys {
        let nm = syscall_name(abi.name_table(), i64::from(*code))
            .map_or(format!("#{code}"), str::to_owned);
        let _ = writeln!(
            s,
            "  {code} {nm}: {c} {r} args{nargs:?} extra{extra:?} errors{errs:?}"
        );
    }
    let _ = writeln!(s, "namei ({}):", namei.len());
    namei.iter().for_each(|n| {
        let _ = writeln!(s, "{n}");
    });
    s
}

#[test]
fn corpus_golden_summaries() {
    require_shared!();
    for &(name, dialect, _) in CORPUS {
        let (_, d) = load(name).unwrap();
        assert_golden(
            &format!("corpus-{name}.txt"),
            &summary(name, &dialect.parse().unwrap(), &d.records),
        );
    }
}
