//! sink: what the two sinks of the process model's rows share, [`crate::load`]
//! (SQLite) and [`crate::dataset`] (Parquet), so that both store every row
//! alike: the list of tables ([`table`]), how a value is stored and the
//! columns derived from a row and its trace ([`value`]), the path cache
//! ([`paths`]), the window that puts call rows back into id order
//! ([`reorder`]), the `trace` row and the context of a trace's rows
//! ([`trace`]) and the order of the process tree ([`tree`]).
//!
//! It writes nothing: no SQL statement, no file. Each sink imports this
//! kit and never the other sink.

pub mod columns;
pub mod paths;
pub mod reorder;
pub mod table;
pub mod trace;
pub mod tree;
pub mod value;

pub use paths::PathCache;
pub use trace::TraceContext;
