//! Property tests: random records under a random ABI decode back to their
//! representable form; arbitrary bytes, and realistic traces with flipped
//! bytes, under every ABI (given explicitly, and detected) never panic, and
//! any error points inside the input after the records returned before it.

use kt2sql::decode::Abi;
use proptest::prelude::*;

use crate::decode::roundtrip::round_trip;
use crate::util::arb::arb_record;
use crate::util::decode;
use crate::util::records::realistic;
use crate::util::writer::TraceWriter;

/// Decode under `abi` (or detection) and check the error invariants.
fn check_invariants(bytes: &[u8], abi: Option<Abi>) {
    let Ok(d) = decode(bytes, abi) else { return };
    let mut next = 0;
    for (i, r) in d.records.iter().enumerate() {
        assert_eq!(r.index, i as u64, "{abi:?}");
        assert!(r.offset >= next, "{abi:?}: offsets go forward");
        next = r.offset + 1;
        assert!(r.offset < bytes.len() as u64);
    }
    if let Some(e) = d.error {
        assert!(e.offset <= bytes.len() as u64, "{abi:?}: {e}");
        assert_eq!(e.record, d.records.len() as u64, "{abi:?}: {e}");
        if let Some(last) = d.records.last() {
            assert!(e.offset > last.offset, "{abi:?}: {e}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_records_round_trip(i in 0usize..50, junk: bool,
                                 recs in prop::collection::vec(arb_record(), 1..10)) {
        let abi = Abi::all()[i % Abi::all().len()];
        round_trip(&abi, &recs, junk);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        for abi in Abi::all() {
            check_invariants(&bytes, Some(abi));
        }
        check_invariants(&bytes, None);
    }

    #[test]
    fn damaged_traces_never_panic(i in 0usize..50, cut in any::<prop::sample::Index>(),
                                  flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6)) {
        let abi = Abi::all()[i % Abi::all().len()];
        let mut bytes = TraceWriter::new(abi).records(&realistic(&abi)).bytes();
        for (at, v) in flips {
            let at = at.index(bytes.len());
            bytes[at] = v;
        }
        bytes.truncate(cut.index(bytes.len() + 1));
        for other in Abi::all() {
            check_invariants(&bytes, Some(other));
        }
        check_invariants(&bytes, None);
    }
}
