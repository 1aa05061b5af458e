//! kt2sql: BSD `ktrace.out` files into SQLite.
//!
//! The pipeline is one-way: a layer uses only the layers to its left and
//! the shared leaves (`record`, `names`, `schema`, `text`, `json`, `error`),
//! never one to its right:
//!
//! ```text
//!  bytes ──decode──▶ record::Record ──process::Model──▶ rows ──load──▶ SQLite ──report──▶ text
//!                     (per record)     (processes,        (SQL values,
//!                                       calls, paths)      INSERTs)
//! ```
//!
//! * [`decode`]: bytes → [`record`]s. Never touches SQLite.
//! * [`process`]: records → the process model's rows (processes, threads,
//!   calls, lookups, events, issues) through its [`process::Sink`].
//! * [`sink`]: what the two sinks of the rows share, so both store them
//!   alike: the table list, the one visitor of a row's columns
//!   ([`sink::columns::Columns`]), the path cache, the call rows' order
//!   window, the `trace` row's values, the tree order. Writes nothing.
//! * [`load`]: rows → SQLite: the [`load::encode::Encoder`] (that `Sink`)
//!   and the [`load::writer::Writer`]. Starts no thread; the one file it
//!   opens is a trace, to fingerprint its ends.
//! * [`dataset`]: rows → Parquet files, the second sink
//!   ([`dataset::rows::RowColumns`]), and the export of a database.
//!   `load` and `dataset` each use [`sink`], never each other.
//! * [`import`]: the driver of `kt2sql import`: trace files → one database,
//!   atomically, on two threads, skipping damaged stretches.
//! * [`schema`]: the embedded DDL, its version and how a database file is
//!   recognised; shared by `load`, `import` and `report`.
//! * [`report`]: SQL → text (every report command, `sql` and `query`); it
//!   asks [`decode`] only whether a file given as a database is a trace.
//!   [`dump`]: records → text without a database.
//! * [`build`]: the rules of build analysis on values (which programs are
//!   compilers, what a depfile lists, the graph's roles), for `report`.
//! * [`names`]: the numbers a trace records (syscalls, errnos, signals,
//!   argument flags) to the names each system gives them.
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
