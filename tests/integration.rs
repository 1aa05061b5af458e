//! The one integration test binary (style guide 4.9): every test directory
//! is a module here, so `cargo test` builds a single binary. Add a module
//! per area with a one-line comment saying what belongs in it.

// Shared helpers: ../shared lookup and skipping, golden files, ktcompose, the test-only trace writer.
mod util;
// Decoder: writer round trips, detection, real corpus, truncation, hostile input, ktcompose truth.
mod decode;
// Process model: forks, execs, tree and file lists against ktcompose truth.
mod process;
// Loader and `kt2sql import`: corpus counts, atomic replacement, lossless bytes, exit codes.
mod load;
// Damaged, foreign and hostile input end to end (issue #5): damage matrix, exit codes, interrupts.
mod robust;
// Documentation: README and docs/ cover every command, query and column; links resolve; the example trace is current.
mod docs;
// `kt2sql dump` as kdump (issue #14): options, golden layout, -l, cross-hints.
mod dump;
// Reports (issue #4): tree/files against ktcompose truth, golden output, queries in the sqlite3 shell, safe output.
mod report;
// The command line (issue #14): parsing, hints, and nothing missing without a word.
mod cli;
// Parquet datasets (export, import --to parquet): schema, rows, keys, duplicates, kills, DuckDB and Spark.
mod dataset;
// `kt2sql serve`: Datasette configuration, canned queries over HTTP, the browser, read-only.
mod serve;
// A build watched while it runs: the view running, reports on a live database, `kt2sql watch` (tmux).
mod live;
