//! kt2sql: BSD `ktrace.out` files into SQLite.
//!
//! The pipeline is one-way:
//!
//! ```text
//!  bytes ──decode──▶ record::Record ──process::Model──▶ rows ──load──▶ SQLite ──report──▶ text
//!                     (per record)     (processes,        (SQL values,
//!                                       calls, paths)      INSERTs)
//! ```
//!
//! The layers, lowest first. Each uses only the layers before it in this
//! list, never one after it, and every layer may name [`error`]'s type;
//! `tests/docs/layers.rs` reads this list and checks every `crate::` path
//! under `src/` against it, so a new module takes its place here.
//!
//! 1. [`text`]: how recorded bytes are shown (escaped text, numbers).
//! 2. [`json`]: the JSON object writer the outputs share.
//! 3. [`record`]: the dialect-neutral records decoding yields and
//!    everything above reads.
//! 4. [`names`]: the numbers a trace records (syscalls, errnos, signals,
//!    argument flags) to the names each system gives them, and a call's
//!    arguments printed with them as kdump prints them.
//! 5. [`schema`]: the embedded DDL, its version, how a database file is
//!    recognised, and the canned queries (`queries/*.sql`) that read it;
//!    shared by `load`, `import`, `dataset` and `report`.
//! 6. [`decode`]: bytes → [`record`]s. Never touches SQLite (it knows a
//!    database file by [`schema`]'s magic, to refuse one given as a trace).
//! 7. [`error`]: the crate's error type, which carries [`decode`]'s errors
//!    and which every layer returns.
//! 8. [`process`]: records → the process model's rows (processes, threads,
//!    calls, lookups, events, issues) through its [`process::Sink`].
//! 9. [`sink`]: what the two sinks of the rows share, so both store them
//!    alike: the table list, the one visitor of a row's columns
//!    ([`sink::columns::Columns`]), the path cache, the call rows' order
//!    window, the `trace` row's values, the tree order. Writes nothing.
//! 10. [`load`]: rows → SQLite: the [`load::encode::Encoder`] (that `Sink`)
//!     and the [`load::writer::Writer`]. Starts no thread; the one file it
//!     opens is a trace, to fingerprint its ends.
//! 11. [`dataset`]: rows → a directory of Parquet files, the second sink
//!     ([`dataset::rows::RowColumns`]), with the SQL that DuckDB and Spark
//!     read it with. `load` and `dataset` each use [`sink`], never each
//!     other.
//! 12. [`import`]: the driver of `kt2sql import`: trace files → one
//!     database (or dataset), atomically, on two threads, skipping damaged
//!     stretches; or a trace still being written into a database kept
//!     current as it grows (`import --follow`).
//! 13. [`build`]: the rules of build analysis on values (which programs
//!     are compilers, what a depfile lists, the graph's roles, the hazard
//!     kinds), for `report` and the manual.
//! 14. [`dump`]: records → text without a database (`kt2sql dump`).
//! 15. [`report`]: SQL → text (every report command, `sql` and `query`);
//!     it asks [`decode`] only whether a file given as a database is a
//!     trace.
//!
//! Only the binary (`src/cli`) owns the command line and the progress bar.
//!
//! Words used throughout: an [`decode::Abi`] is everything needed to decode
//! a file (family, header version, byte order, width, variant); users call
//! it the *dialect* (`--dialect freebsd-v1:le:64`, the `trace.dialect`
//! column), written `LAYOUT:ORDER:BITS[:VARIANT]`: the *layout* (`freebsd-v1`)
//! is the family and header version. Its [`decode::Family`] is the system
//! family that decides record layouts, and the [`names::Numbering`] the syscall numbering its names
//! come from (one family can have had two, as OpenBSD had before 5.5).

pub mod build;
pub mod dataset;
pub mod decode;
pub mod dump;
pub mod error;
pub mod import;
pub mod json;
pub mod load;
pub mod names;
pub mod process;
pub mod record;
pub mod report;
pub mod schema;
pub mod sink;
pub mod text;

pub use error::Error;
