//! Writer → decoder round trips: the same logical records written for every
//! entry of `Abi::all()` (zeroed and junk-filled padding) decode back to
//! exactly what the dialect can express; FreeBSD v0/v1 and NetBSD v0/v1/v2
//! headers mixed in one file decode per record; and detection without a
//! dialect picks the writer's ABI for the common ones.

use kt2sql::decode::detect::rank;
use kt2sql::decode::{Abi, Family, Width};
use kt2sql::record::{Body, Record};

use crate::util::records::{every_kind, kinds_of, realistic, rec, ret, T0};
use crate::util::writer::{representable, shape, TraceWriter};
use crate::util::{decode, escape};

/// Write `recs` (those the ABI can express) and check they decode to their
/// representable form. Returns the bytes written.
pub fn round_trip(abi: &Abi, recs: &[Record<'static>], junk: bool) -> Vec<u8> {
    let (recs, mut want): (Vec<_>, Vec<_>) = recs
        .iter()
        .filter_map(|r| Some((r, representable(abi, r)?)))
        .unzip();
    let mut w = TraceWriter::new(*abi);
    w.junk(junk).records(recs.iter().copied());
    let bytes = w.bytes();
    for (i, r) in want.iter_mut().enumerate() {
        // A name of NULs only (EMUL, NAMI, SCTL) decodes to an empty one,
        // which cannot be written again (an empty payload is damage); what
        // it decodes to is still checked below.
        let emptied =
            matches!(&r.body, Body::Emul(p) | Body::Namei(p) | Body::Sysctl(p) if p.is_empty());
        if !emptied {
            assert_eq!(
                representable(abi, r).as_ref(),
                Some(&*r),
                "{abi}: representable is not idempotent"
            );
        }
        r.index = i as u64;
        r.offset = w.offsets()[i];
    }
    let got = decode(&bytes, Some(*abi)).unwrap_or_else(|e| panic!("{abi}: {e}"));
    assert_eq!(got.error, None, "{abi} (junk {junk})");
    assert_eq!(got.records.len(), want.len(), "{abi} (junk {junk})");
    for (g, r) in got.records.iter().zip(&want) {
        assert_eq!(g, r, "{abi} (junk {junk}) record {}", r.index);
    }
    bytes
}

#[test]
fn every_kind_round_trips_in_every_abi() {
    assert_eq!(
        Abi::all().len(),
        50,
        "Abi::all() changed: review the writer's shapes"
    );
    for abi in Abi::all() {
        let all = every_kind();
        let mut labels: Vec<&str> = all
            .iter()
            .filter(|r| representable(&abi, r).is_some())
            .map(|r| r.body.label())
            .collect();
        labels.sort();
        labels.dedup();
        let mut want = kinds_of(abi.family).to_vec();
        want.sort();
        assert_eq!(
            labels, want,
            "{abi}: every body kind of the family is written"
        );
        round_trip(&abi, &all, false);
        round_trip(&abi, &all, true);
    }
}

#[test]
fn realistic_round_trips_in_every_abi() {
    for abi in Abi::all() {
        let bytes = round_trip(&abi, &realistic(&abi), true);
        let size = shape(&abi, abi.version).unwrap().size;
        let first = realistic(&abi)[0].clone();
        assert!(bytes.len() > size, "{abi}");
        if matches!(first.body, Body::Start) {
            assert_eq!(
                &bytes[..4],
                b"KTR\0",
                "{abi}: START magic is big-endian everywhere"
            );
        }
    }
}

/// Records alternating through `versions`, one of each kind the family has.
fn mixed(abi: &Abi, versions: &[u8]) -> Vec<Record<'static>> {
    every_kind()
        .into_iter()
        .filter(|r| representable(abi, r).is_some())
        .enumerate()
        .map(|(i, mut r)| {
            r.version = versions[i % versions.len()];
            r.ts = T0 + 999_999_999; // keeps ns only in timespec headers
            r
        })
        .collect()
}

#[test]
fn freebsd_v0_and_v1_headers_mix_per_record() {
    for abi in Abi::all()
        .into_iter()
        .filter(|a| a.family == Family::FreeBsd)
    {
        let recs = mixed(&abi, &[0, 1, 1, 0]);
        round_trip(&abi, &recs, true);
        let got = decode(&TraceWriter::new(abi).records(&recs).bytes(), Some(abi)).unwrap();
        for (g, r) in got.records.iter().zip(&recs) {
            assert_eq!(g.version, r.version, "{abi}");
            assert_eq!(
                g.cpu.is_some(),
                r.version == 1,
                "{abi}: cpu only in v1 headers"
            );
            let frac = if r.version == 1 {
                999_999_999
            } else {
                999_999_000
            };
            assert_eq!(g.ts, T0 + frac, "{abi}: timeval in v0, timespec in v1");
        }
    }
}

#[test]
fn netbsd_v0_v1_v2_headers_mix_per_record() {
    for abi in Abi::all()
        .into_iter()
        .filter(|a| a.family == Family::NetBsd)
    {
        let recs = mixed(&abi, &[2, 0, 1, 2, 1, 0]);
        let bytes = round_trip(&abi, &recs, true);
        let got = decode(&bytes, Some(abi)).unwrap();
        for (g, r) in got.records.iter().zip(&recs) {
            assert_eq!(g.version, r.version, "{abi}");
            assert_eq!(
                g.tid.is_some(),
                r.version > 0,
                "{abi}: no lid in v0 headers"
            );
        }
        // i386 writes 44-byte v0/v1 and 48-byte v2 headers into one file
        let mut sizes: Vec<usize> = recs
            .iter()
            .map(|r| shape(&abi, r.version).unwrap().size)
            .collect();
        sizes.sort();
        sizes.dedup();
        if abi.width == Width::W32 {
            assert_eq!(sizes.len(), 2, "{abi}: {sizes:?}");
        }
    }
}

#[test]
fn netbsd_big_endian_swaps_type_and_version() {
    let abi: Abi = "netbsd-v2:be:64".parse().unwrap();
    let bytes = TraceWriter::new(abi).record(&realistic(&abi)[0]).bytes();
    assert_eq!(&bytes[4..8], &[0, 2, 0, 7], "version 2 then type 7 (EMUL)");
    let le: Abi = "netbsd-v2:le:64".parse().unwrap();
    let bytes = TraceWriter::new(le).record(&realistic(&le)[0]).bytes();
    assert_eq!(&bytes[4..8], &[7, 0, 2, 0], "type 7 then version 2");
}

#[test]
fn values_are_cut_as_the_dialect_stores_them() {
    let abi: Abi = "freebsd-v0:le:32".parse().unwrap();
    let mut r = rec(
        7,
        Some(1 << 40),
        "a-name-longer-than-nineteen",
        T0 + 1_234_567,
        ret(2, 0, -1),
    );
    r.cpu = Some(3);
    let got = representable(&abi, &r).unwrap();
    assert_eq!(escape(&got.comm), "a-name-longer-than-");
    assert_eq!((got.tid, got.cpu, got.ts), (None, None, T0 + 1_234_000));
    let darwin: Abi = "darwin:be:32".parse().unwrap();
    let got = representable(&darwin, &r).unwrap();
    assert_eq!((escape(&got.comm).len(), got.tid), (16, None));
}

/// The ABIs detection must get right from a realistic file.
const COMMON: &[&str] = &[
    "freebsd-v0:le:32",
    "freebsd-v0:le:64",
    "freebsd-v1:le:64",
    "netbsd-v0:le:32",
    "netbsd-v2:le:64",
    "netbsd-v2:be:64",
    "openbsd:le:64",
    "openbsd:be:64",
    "darwin:be:32",
    "darwin:le:32",
];

#[test]
fn detection_picks_the_common_abis() {
    for name in COMMON {
        let abi: Abi = name.parse().unwrap();
        let bytes = TraceWriter::new(abi)
            .junk(true)
            .records(&realistic(&abi))
            .bytes();
        let got = decode(&bytes, None).unwrap_or_else(|e| panic!("{name}: {e}\n{}", fits(&bytes)));
        assert_eq!(got.abi.to_string(), *name, "{}", fits(&bytes));
        assert_eq!(got.error, None);
    }
}

/// The best few fits, for messages.
fn fits(bytes: &[u8]) -> String {
    rank(bytes, true)
        .iter()
        .take(4)
        .map(|f| {
            format!(
                "  {} records {} cost {} {:?}\n",
                f.abi, f.records, f.cost, f.broken
            )
        })
        .collect()
}

/// How detection reads `bytes` written for `abi`: `None` when it picks
/// `abi` or an ABI that reads every record identically, else what it did.
fn misread(abi: &Abi, bytes: &[u8]) -> Option<String> {
    match decode(bytes, None) {
        Err(e) => Some(format!("error: {}", e.kind)),
        Ok(d) if d.abi == *abi => None,
        Ok(d) if d.error.is_none() && decode(bytes, Some(*abi)).unwrap().records == d.records => {
            None
        }
        Ok(d) => Some(format!("detected as {}", d.abi)),
    }
}

/// Every ABI's realistic file detected without a dialect: whole, without
/// its first record (PROCCTOR / EMUL / START / RET ktrace, the strongest
/// hint), only its first 4 records; zeroed and junk padding. Misses are
/// printed (`cargo test detection_report -- --nocapture`); whole files of
/// the common ABIs must be right.
#[test]
fn detection_report() {
    let mut report = String::new();
    for abi in Abi::all() {
        let recs = realistic(&abi);
        let cuts = [
            ("whole", &recs[..]),
            ("headless", &recs[1..]),
            ("4 records", &recs[..4]),
        ];
        for ((what, recs), junk) in cuts.into_iter().flat_map(|c| [(c, false), (c, true)]) {
            let bytes = TraceWriter::new(abi).junk(junk).records(recs).bytes();
            if let Some(verdict) = misread(&abi, &bytes) {
                let line = format!("{abi} ({what}, junk {junk}): {verdict}\n{}", fits(&bytes));
                let common = COMMON.contains(&abi.to_string().as_str());
                assert!(
                    what != "whole" || !common,
                    "a common ABI is misdetected:\n{line}"
                );
                report.push_str(&line);
            }
        }
    }
    eprintln!("detection misses:\n{report}");
}

/// A realistic file whose records alternate header versions is detected
/// as its family, order and width, with the first record's version.
#[test]
fn mixed_version_files_are_detected() {
    for (name, versions) in [
        ("freebsd-v1:le:64", &[1u8, 0][..]),
        ("freebsd-v0:le:32", &[0, 1]),
        ("freebsd-v1:be:64", &[1, 0]),
        ("netbsd-v2:le:64", &[2, 1, 0]),
        ("netbsd-v0:le:32", &[0, 2, 1]),
        ("netbsd-v2:be:32", &[2, 0]),
    ] {
        let abi: Abi = name.parse().unwrap();
        let recs: Vec<Record> = realistic(&abi)
            .into_iter()
            .enumerate()
            .map(|(i, mut r)| {
                r.version = versions[i % versions.len()];
                r
            })
            .collect();
        let bytes = TraceWriter::new(abi).records(&recs).bytes();
        let got = decode(&bytes, None).unwrap_or_else(|e| panic!("{name}: {e}\n{}", fits(&bytes)));
        assert_eq!(got.abi.to_string(), *name, "{}", fits(&bytes));
        let versions: Vec<u8> = got.records.iter().map(|r| r.version).collect();
        assert_eq!(
            versions,
            recs.iter().map(|r| r.version).collect::<Vec<_>>(),
            "{name}"
        );
    }
}
