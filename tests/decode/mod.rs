//! Decoder tests (bytes → records), one file per angle of attack.

// Writer → decoder for every Abi, mixed header versions, dialect detection.
mod roundtrip;
// Proptests: random records × random ABIs, arbitrary bytes × every ABI.
mod props;
// The real ../shared/corpus files: full decode, counts, golden summaries.
mod corpus;
// Every corpus file cut at every byte offset.
mod truncation;
// Empty, foreign and damaged input: errors with the right offset, no panic.
mod hostile;
// ktcompose traces checked against their truth JSON.
mod compose;
