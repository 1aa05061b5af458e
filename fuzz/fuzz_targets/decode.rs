//! Arbitrary bytes through the decoder: detection (as a file and as a
//! pipe) and every dialect given explicitly, each decoded to its end and
//! printed by `kt2sql dump` (text, JSON Lines, --info). The detected
//! dialect and one more (chosen by the first byte) are also walked the way
//! the importer walks a file: after an error (a record that breaks its
//! type's rules included), resynchronise.
//! Nothing may panic.

#![no_main]

use std::io::{self, Read};

use kt2sql::decode::{Abi, Decoder};
use kt2sql::dump::{self, DumpOptions, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let len = Some(data.len() as u64);
    for known in [len, None] {
        if let Ok(mut d) = Decoder::new(data, None, known) {
            walk(&mut d);
        }
    }
    let abis = Abi::all();
    let chosen = data.first().map_or(0, |&b| usize::from(b) % abis.len());
    if let Ok(mut d) = Decoder::new(data, Some(abis[chosen]), len) {
        walk(&mut d);
    }
    for abi in abis {
        for format in [Format::Text, Format::Jsonl] {
            if let Ok(mut d) = Decoder::new(data, Some(abi), len) {
                let opts = DumpOptions {
                    format,
                    ..DumpOptions::default()
                };
                let _ = dump::dump(&mut d, &mut io::sink(), &opts);
            }
        }
        if let Ok(mut d) = Decoder::new(data, Some(abi), len) {
            let info = dump::info(&mut d);
            let _ = dump::info_text(&d, &info, "fuzz", data.len() as u64);
        }
    }
});

/// Every record, resynchronising after damage as `kt2sql import` does.
fn walk<R: Read>(d: &mut Decoder<R>) {
    let believable = |_: &kt2sql::record::Record<'_>| true;
    loop {
        let bad = match d.next_record() {
            Ok(Some(r)) => {
                let _ = (r.body.label(), r.offset, r.index);
                continue;
            }
            Ok(None) => return,
            Err(e) => e.offset,
        };
        if d.resync(bad, 4, &believable).is_none() {
            return;
        }
    }
}
