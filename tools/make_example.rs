//! Writes `example/build.ktrace`, the small trace shipped with kt2sql (its
//! records are in `tests/util/example_trace.rs`), with the project's own
//! test-only writer, so the bytes follow the formats notes, not the decoder.
//!
//! Regenerate: `cargo run --example make_example -- example/build.ktrace`
//! (a test checks the shipped file equals this program's output).

#[path = "../tests/util/writer/mod.rs"]
#[allow(dead_code, unused_imports)]
mod writer;

#[path = "../tests/util/example_trace.rs"]
mod example_trace;

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "example/build.ktrace".into());
    let abi: kt2sql::decode::Abi = "freebsd-v1:le:64".parse().expect("abi");
    let recs = example_trace::script();
    let bytes = writer::TraceWriter::new(abi).records(recs.iter()).bytes();
    std::fs::write(&out, &bytes).unwrap_or_else(|e| panic!("{out}: {e}"));
    eprintln!("wrote {out}: {} records, {} bytes", recs.len(), bytes.len());
}
