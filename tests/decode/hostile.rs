//! Empty, foreign and damaged input: an empty file, text, ELF, PNG and
//! random bytes are refused as not a trace; lengths of 2^31, i32::MAX and
//! negative ones in every dialect are refused at the right offset before
//! anything is allocated for them; bad header versions, cut headers,
//! command names without NUL, payloads that break their type's rules, a
//! refused detection naming its candidates, small damage near the start
//! that does not decide the dialect, and a reader that hands out
//! a few bytes at a time.

use std::io::Read;

use kt2sql::decode::{Abi, DecodeErrorKind, Decoder};
use kt2sql::record::Body;

use crate::require_shared;
use crate::util::records::{realistic, rec, ret, T0};
use crate::util::writer::{fields_for, shape, TraceWriter};
use crate::util::{corpus, decode, escape, shared_dir, CORPUS};

fn detect_err(bytes: &[u8]) -> DecodeErrorKind {
    match Decoder::new(bytes, None, Some(bytes.len() as u64)) {
        Err(e) => {
            assert_eq!((e.offset, e.record), (0, 0));
            e.kind
        }
        Ok(d) => panic!("{} bytes detected as {}", bytes.len(), d.abi()),
    }
}

/// Deterministic pseudo-random bytes (xorshift64).
fn noise(n: usize, mut s: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s as u8
        })
        .collect()
}

#[test]
fn empty_input_is_empty() {
    assert_eq!(detect_err(&[]), DecodeErrorKind::Empty);
    for abi in Abi::all() {
        let d = decode(&[], Some(abi)).unwrap();
        assert_eq!(
            (d.records.len(), d.error),
            (0, None),
            "{abi}: nothing to decode"
        );
    }
}

#[test]
fn foreign_files_are_not_traces() {
    let text = b"This is not a ktrace file, just some words.\n".repeat(40);
    let mut elf =
        b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0\x3e\0\x01\0\0\0\x40\x10\x40\0\0\0\0\0"
            .to_vec();
    elf.extend(noise(4000, 3));
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x01\0\0\0\x01\0\x08\x06\0\0\0".to_vec();
    png.extend(noise(4000, 5));
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("text", text),
        ("elf", elf),
        ("png", png),
        ("noise", noise(8192, 7)),
        ("zeros", vec![0; 4096]),
        ("ff", vec![0xff; 4096]),
        ("one byte", vec![1]),
    ];
    for (what, bytes) in inputs {
        let kind = detect_err(&bytes);
        assert!(
            matches!(
                kind,
                DecodeErrorKind::Unrecognized(_) | DecodeErrorKind::Ambiguous(_)
            ),
            "{what}: {kind}"
        );
    }
}

/// Two good records, then one whose stored length is `len`.
fn with_len(abi: &Abi, len: u64) -> (Vec<u8>, u64) {
    let recs = realistic(abi);
    let mut w = TraceWriter::new(*abi);
    w.records(&recs[..2]);
    let at = w.len() as u64;
    let (mut f, payload) = fields_for(abi, &recs[2]).unwrap();
    f.len = len;
    w.raw(&f, &payload);
    (w.bytes(), at)
}

#[test]
fn absurd_lengths_are_refused_at_their_record() {
    let neg_one = u64::MAX; // -1 in an int32 field and in a size_t
    for abi in Abi::all() {
        for len in [
            1 << 31,
            i32::MAX as u64,
            neg_one,
            u64::from(u32::MAX),
            0x8000_0010,
        ] {
            let (bytes, at) = with_len(&abi, len);
            // known length (a file) and unknown length (a pipe)
            for known in [Some(bytes.len() as u64), None] {
                let mut d = Decoder::new(&bytes[..], Some(abi), known).unwrap();
                assert!(d.next_record().unwrap().is_some());
                assert!(d.next_record().unwrap().is_some());
                let e = d.next_record().expect_err("absurd length");
                assert_eq!((e.offset, e.record), (at, 2), "{abi} len {len:#x}: {e}");
                assert!(
                    matches!(e.kind, DecodeErrorKind::BadLength { .. }),
                    "{abi} len {len:#x} (known {known:?}): {e}"
                );
                assert_eq!(d.next_record(), Ok(None), "{abi}: nothing after an error");
            }
        }
    }
}

/// Two good records, then the first record of `abi`'s realistic trace
/// that `pick` chooses, with its stored length set to `len`.
fn kind_with_len(abi: &Abi, len: u64, pick: fn(&Body) -> bool) -> (Vec<u8>, u64) {
    let recs = realistic(abi);
    let mut w = TraceWriter::new(*abi);
    w.records(&recs[..2]);
    let at = w.len() as u64;
    let r = recs.iter().find(|r| pick(&r.body)).expect("a record");
    let (mut f, payload) = fields_for(abi, r).unwrap();
    f.len = len;
    w.raw(&f, &payload);
    (w.bytes(), at)
}

#[test]
fn lengths_past_the_end_are_truncation() {
    for abi in Abi::all() {
        let (bytes, at) = kind_with_len(&abi, 1 << 20, |b| matches!(b, Body::Gio(_)));
        let d = decode(&bytes, Some(abi)).unwrap();
        let e = d.error.expect("truncated");
        assert_eq!(
            (d.records.len(), e.offset, e.record),
            (2, at, 2),
            "{abi}: {e}"
        );
        assert!(
            matches!(e.kind, DecodeErrorKind::Truncated { .. }),
            "{abi}: {e}"
        );
    }
}

#[test]
fn lengths_past_their_types_limit_are_bad_records() {
    for abi in Abi::all() {
        // A MiB is more than a RET allows, whatever the file holds.
        let (bytes, at) = kind_with_len(&abi, 1 << 20, |b| matches!(b, Body::Ret(_)));
        let d = decode(&bytes, Some(abi)).unwrap();
        let e = d.error.expect("bad record");
        assert_eq!(
            (d.records.len(), e.offset, e.record),
            (2, at, 2),
            "{abi}: {e}"
        );
        assert!(
            matches!(&e.kind, DecodeErrorKind::BadRecord(why) if why.to_string().contains("at most")),
            "{abi}: {e}"
        );
    }
}

#[test]
fn unknown_header_versions_are_errors() {
    for (name, version) in [
        ("freebsd-v1:le:64", 7u8),
        ("freebsd-v1:be:32", 2),
        ("netbsd-v2:le:64", 3),
        ("netbsd-v2:be:32", 9),
    ] {
        let abi: Abi = name.parse().unwrap();
        let recs = realistic(&abi);
        let mut w = TraceWriter::new(abi);
        w.records(&recs[..3]);
        let at = w.len() as u64;
        let (mut f, payload) = fields_for(&abi, &recs[3]).unwrap();
        f.version = version.min(abi.version); // keep a known shape ...
        w.raw(&f, &payload);
        let mut bytes = w.bytes();
        // ... and store the bad version where the header keeps it
        let vat = at as usize
            + if name.contains(":be:") && name.starts_with("netbsd") {
                4
            } else {
                6
            };
        bytes[vat..vat + 2].copy_from_slice(&if name.contains(":be:") {
            [0, version]
        } else {
            [version, 0]
        });
        let d = decode(&bytes, Some(abi)).unwrap();
        let e = d
            .error
            .unwrap_or_else(|| panic!("{name}: version {version} accepted"));
        assert_eq!((e.offset, e.record), (at, 3), "{name}: {e}");
        assert!(
            matches!(e.kind, DecodeErrorKind::BadVersion { .. }),
            "{name}: {e}"
        );
    }
}

#[test]
fn cut_headers_are_truncation() {
    for abi in Abi::all() {
        let recs = realistic(&abi);
        let full = TraceWriter::new(abi).records(&recs[..2]).bytes();
        let at = TraceWriter::new(abi).records(&recs[..1]).len();
        for cut in [at + 1, at + 5, at + 8, at + 9, full.len() - 1] {
            let d = decode(&full[..cut], Some(abi)).unwrap();
            let e = d
                .error
                .unwrap_or_else(|| panic!("{abi}: cut at {cut} accepted"));
            assert_eq!((d.records.len(), e.offset), (1, at as u64), "{abi}: {e}");
            assert!(
                matches!(e.kind, DecodeErrorKind::Truncated { .. }),
                "{abi}: {e}"
            );
        }
    }
}

#[test]
fn command_names_without_nul_stop_at_maxcomlen() {
    for abi in Abi::all() {
        let r = &realistic(&abi)[1];
        let (mut f, payload) = fields_for(&abi, r).unwrap();
        f.comm = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".to_vec(); // fills the array, no NUL
        let bytes = TraceWriter::new(abi).raw(&f, &payload).bytes();
        let d = decode(&bytes, Some(abi)).unwrap();
        let max = shape(&abi, f.version).unwrap().comm_max;
        assert_eq!(escape(&d.records[0].comm), escape(&f.comm[..max]), "{abi}");
        // stale bytes after a NUL are not part of the name
        f.comm = b"sh\0stale-tail".to_vec();
        let bytes = TraceWriter::new(abi).raw(&f, &payload).bytes();
        assert_eq!(
            &*decode(&bytes, Some(abi)).unwrap().records[0].comm,
            b"sh",
            "{abi}"
        );
    }
}

#[test]
fn payloads_that_break_their_rule_are_bad_records() {
    for abi in Abi::all() {
        let r = rec(5, None, "x", T0, ret(3, 0, 1));
        let (mut f, _) = fields_for(&abi, &r).unwrap();
        f.len = 3;
        let bytes = TraceWriter::new(abi).raw(&f, &[1, 2, 3]).bytes();
        let d = decode(&bytes, Some(abi)).unwrap();
        let e = d.error.expect("a 3-byte RET is damage");
        assert_eq!((d.records.len(), e.offset), (0, 0), "{abi}: {e}");
        assert!(
            matches!(&e.kind, DecodeErrorKind::BadRecord(why) if why.to_string().starts_with("RET payload of 3 bytes")),
            "{abi}: {e}"
        );
    }
}

/// Hands out at most `step` bytes per read, and never says how long it is.
struct Trickle<'a> {
    b: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(out.len()).min(self.b.len());
        out[..n].copy_from_slice(&self.b[..n]);
        self.b = &self.b[n..];
        self.step = self.step % 7 + 1;
        Ok(n)
    }
}

#[test]
fn a_trickling_reader_gives_the_same_records() {
    let Some(shared) = shared_dir() else {
        return crate::util::skip("../shared not found");
    };
    for &(name, dialect, count) in CORPUS {
        let bytes = std::fs::read(corpus(&shared, name)).unwrap();
        let want = decode(&bytes, Some(dialect.parse().unwrap()))
            .unwrap()
            .records;
        for abi in [None, Some(dialect.parse().unwrap())] {
            let mut d = Decoder::new(Trickle { b: &bytes, step: 3 }, abi, None).unwrap();
            let mut n = 0;
            while let Some(r) = d.next_record().unwrap() {
                assert_eq!(r, want[n], "{name}");
                n += 1;
            }
            assert_eq!(n, count, "{name}");
        }
    }
}

/// The error texts users see, offsets included, pinned in a golden file.
#[test]
fn error_messages_are_pinned() {
    let msg = |bytes: &[u8], abi: Option<&str>| {
        let abi = abi.map(|a| a.parse::<Abi>().unwrap());
        match decode(bytes, abi) {
            Err(e) => e.to_string(),
            Ok(d) => d.error.map_or("no error".into(), |e| e.to_string()),
        }
    };
    let mut out = String::new();
    let mut case = |what: &str, m: String| out.push_str(&format!("{what}: {m}\n"));
    case("empty", msg(&[], None));
    case("text", msg(&b"not a trace\n".repeat(20), None));
    case("noise", msg(&noise(4096, 11), None));
    for (abi, len) in [
        ("freebsd-v0:le:32", 1u64 << 31),
        ("freebsd-v1:le:64", i32::MAX as u64),
        ("netbsd-v2:be:64", u64::MAX),
        ("openbsd:le:64", u64::MAX),
        ("openbsd-mid:le:64", 1 << 31),
        ("darwin:be:32", 1 << 20),
    ] {
        let (bytes, _) = with_len(&abi.parse().unwrap(), len);
        case(&format!("{abi} len {len:#x}"), msg(&bytes, Some(abi)));
    }
    let abi: Abi = "netbsd-v0:le:32".parse().unwrap();
    let bytes = TraceWriter::new(abi).records(&realistic(&abi)[..3]).bytes();
    case(
        "netbsd-v0:le:32 cut header",
        msg(&bytes[..bytes.len() - 60], Some("netbsd-v0:le:32")),
    );
    case(
        "netbsd-v0:le:32 cut payload",
        msg(&bytes[..bytes.len() - 3], Some("netbsd-v0:le:32")),
    );
    case(
        "netbsd-v0:le:32 detected, cut",
        msg(&bytes[..bytes.len() - 3], None),
    );
    crate::util::assert_golden("decode-errors.txt", &out);
}

#[test]
fn a_failed_detection_names_the_candidates_and_how_far_they_chained() {
    // Two good records, then noise: too little to tell a dialect by.
    let abi: Abi = "freebsd-v0:le:32".parse().unwrap();
    let recs = realistic(&abi);
    let mut bytes = TraceWriter::new(abi).records(&recs[..2]).bytes();
    bytes.extend(noise(4096, 11));
    let DecodeErrorKind::Unrecognized(why) = detect_err(&bytes) else {
        panic!("not refused as unrecognised");
    };
    assert!(why.contains("chained"), "{why}");
    assert!(
        why.contains("freebsd-v0:le:32 chained 2 record(s)"),
        "{why}"
    );
}

#[test]
fn small_damage_near_the_start_does_not_decide_the_dialect() {
    let shared = require_shared!();
    for &(name, dialect, _) in CORPUS {
        let clean = std::fs::read(corpus(&shared, name)).unwrap();
        let first = decode(&clean, None).unwrap().records[1].offset as usize;
        let mut zero_block = clean.clone();
        zero_block[..4096].fill(0);
        let mut bad_length = clean.clone();
        bad_length[first] ^= 0x40; // the second record's length (LE) or its top byte (BE)
        let mut zero_tail = clean.clone();
        zero_tail.extend([0; 512]);
        for (what, bytes) in [
            ("a zeroed first page", zero_block),
            ("a bad second length", bad_length),
            ("a zero-filled tail", zero_tail),
        ] {
            let d = Decoder::new(&bytes[..], None, Some(bytes.len() as u64))
                .unwrap_or_else(|e| panic!("{name}, {what}: {e}"));
            assert_eq!(d.abi().to_string(), dialect, "{name}, {what}");
        }
    }
}
