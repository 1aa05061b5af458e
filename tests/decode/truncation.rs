//! Every real corpus file cut at every byte offset, decoded with its known
//! ABI: never a panic, exactly the complete records before the cut (the
//! last one compared in full with the uncut decode), then either a clean
//! end (cut on a record boundary) or an error at the partial record's
//! offset whose `record` is the number of complete records.
//!
//! Decoding `&bytes[..cut]` for every cut is O(n²) (about 2.3·10⁸ records,
//! ~40 s of CPU at opt-level 1). So every cut is decoded from the record
//! before the cut (`&bytes[b..cut]`, offsets shifted back), and from the
//! very start for every 8th cut, all cuts in the first 32 and the last 2
//! records; `KT2SQL_TRUNCATE_ALL=1` decodes every cut from the start.
//! The offsets are split over all cores.

use std::time::Instant;

use kt2sql::decode::{Abi, DecodeErrorKind, Decoder};
use kt2sql::record::Record;

use crate::require_shared;
use crate::util::{corpus, decode, CORPUS};

/// Check one cut, decoding from record `from`; `full` is the decode of the
/// whole file, `bounds[k]` the offset where record k starts (and, last, the
/// file length).
fn check_cut(
    bytes: &[u8],
    abi: Abi,
    full: &[Record<'static>],
    bounds: &[u64],
    cut: usize,
    from: usize,
) {
    let complete = bounds.partition_point(|&b| b <= cut as u64) - 1;
    let on_boundary = bounds[complete] == cut as u64;
    let base = bounds[from];
    let input = &bytes[base as usize..cut];
    let mut d = Decoder::new(input, Some(abi), Some(input.len() as u64)).expect("given ABI");
    let mut n = from;
    let err = loop {
        match d.next_record() {
            Ok(Some(r)) => {
                assert!(
                    n < complete,
                    "cut {cut}: record {n} decoded from a partial record"
                );
                let (off, label) = (r.offset + base, r.body.label());
                assert_eq!(
                    (off, label),
                    (full[n].offset, full[n].body.label()),
                    "cut {cut}"
                );
                if n + 1 == complete {
                    let index = r.index + from as u64;
                    let r = Record {
                        index,
                        offset: off,
                        ..r.into_owned()
                    };
                    assert_eq!(r, full[n], "cut {cut}: last complete record");
                }
                n += 1;
            }
            Ok(None) => break None,
            Err(e) => break Some(e),
        }
    };
    assert_eq!(n, complete, "cut {cut}: complete records");
    match err {
        None => assert!(on_boundary, "cut {cut}: clean end inside record {complete}"),
        Some(e) => {
            assert!(!on_boundary, "cut {cut}: error on a record boundary: {e}");
            let at = (e.offset + base, e.record + from as u64);
            assert_eq!(
                at,
                (bounds[complete], complete as u64),
                "cut {cut} from {from}: {e}"
            );
            assert!(
                matches!(e.kind, DecodeErrorKind::Truncated { .. }),
                "cut {cut}: {e}"
            );
        }
    }
}

#[test]
fn every_cut_of_every_corpus_file() {
    let shared = require_shared!();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let all = std::env::var("KT2SQL_TRUNCATE_ALL").is_ok_and(|v| v == "1");
    let start = Instant::now();
    let mut cuts = 0usize;
    for &(name, dialect, count) in CORPUS {
        let bytes = std::fs::read(corpus(&shared, name)).unwrap();
        let abi: Abi = dialect.parse().unwrap();
        let full = decode(&bytes, Some(abi)).unwrap();
        assert_eq!(
            (full.records.len(), full.error.as_ref()),
            (count, None),
            "{name}"
        );
        let mut bounds: Vec<u64> = full.records.iter().map(|r| r.offset).collect();
        bounds.push(bytes.len() as u64);
        let (bytes, full, bounds) = (&bytes[..], &full.records[..], &bounds[..]);
        std::thread::scope(|s| {
            for t in 0..threads {
                s.spawn(move || {
                    for cut in (t..=bytes.len()).step_by(threads) {
                        let k = bounds.partition_point(|&b| b <= cut as u64) - 1;
                        let literal = all || cut % 8 == 0 || k < 32 || k + 2 >= full.len();
                        let from = if literal { 0 } else { k.saturating_sub(1) };
                        check_cut(bytes, abi, full, bounds, cut, from);
                    }
                });
            }
        });
        cuts += bytes.len() + 1;
    }
    eprintln!(
        "truncation: {cuts} cuts on {threads} threads in {:.1?}",
        start.elapsed()
    );
}
