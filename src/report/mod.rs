//! report: SQL → rows → text. Runs the canned queries (`queries/*.sql`,
//! registered beside the schema: [`crate::schema::QUERIES`]) and owns the
//! reports built from their rows: [`tree`], [`files`] and
//! [`stats`], each with its text, JSON and CSV (and DOT) renderers,
//! [`timeline`] (Chrome Trace Event JSON and SVG, streamed), [`graph`]
//! (the build as DOT, streamed), [`lint`] (its rows counted by kind),
//! [`lint_scope`] (`lint -p`: the hazard rules over the subtree's paths),
//! [`deps`] and [`depfile`] (the rows of `deps` and `rdeps` and their make
//! rules), [`compile_commands`] (`compile_commands.json`), [`diff`] (two
//! builds compared, both read at once and streamed) and [`watch`] (one
//! snapshot of a build still running, for `kt2sql watch`: its terminal
//! view is the binary's); which programs compile
//! what, and the other
//! build rules, are [`crate::build`]'s. One job per file underneath:
//!
//! - `database.rs`: opening a database read-only, for reading only
//!   (`guard.rs`: SQLite's authorizer refuses anything else);
//! - `run.rs`: running a query (or `kt2sql sql`'s SQL) with bound named
//!   parameters and the report scope;
//! - [`row`]: a query's rows read by column name into typed rows, each
//!   column found once per statement;
//! - [`result_set`]: a result collected in memory; [`render`]: rows written
//!   as they arrive (aligned text, CSV, JSON, JSON Lines); `json.rs`: any
//!   SQL value in the shared JSON writer;
//! - `lookup.rs`: small lookups the commands share (the traces, a pid's
//!   lifetimes); `schema_text.rs`: the documented schema for `kt2sql schema`;
//! - [`datasette`]: the Datasette configuration of `kt2sql serve`, from the
//!   schema's comments and the queries' headers; [`charts`]: the SVG charts
//!   its pages show (calls per syscall, parallelism over time).
//!
//! It never writes a database (`lint -p` makes temporary views that live
//! and die with its connection), and decodes no trace: the decoder is asked
//! only whether a file given as the database is a trace, to say so
//! (`database.rs`). Every filter is a bound parameter.
//!
//! The `kt2sql` commands run exactly these files, so `.param set $pid 1383`
//! then `.read queries/files.sql` in the `sqlite3` shell gives the rows of
//! `kt2sql files DB -p 1383 --format csv`.

pub mod charts;
pub mod compile_commands;
pub mod datasette;
pub mod depfile;
pub mod deps;
pub mod diff;
pub mod files;
pub mod graph;
mod guard;
mod json;
pub mod lint;
pub mod lint_scope;
pub mod render;
pub mod result_set;
pub mod row;
pub mod stats;
pub mod timeline;
pub mod tree;
pub mod watch;

mod database;
mod lookup;
mod run;
mod schema_text;

/// The canned queries, registered beside the schema, where the reports'
/// callers look for them.
pub use crate::schema::{queries, query, Query, QUERIES};
pub use database::{open, Database, CACHE_SIZE, READ_BUSY_TIMEOUT, SOFT_HEAP_LIMIT};
pub use lookup::{
    has_trace, lifetimes, start_dirs, trace_paths, trace_systems, write_trace_heading, StartDir,
};
pub use render::{Format, Render, RowSink};
pub use result_set::{
    value_bytes, value_int, write_sections_csv, write_sections_jsonl, Cell, ResultSet,
};
pub use row::{RowReader, TypedRow};
pub use run::{
    collect_as, collect_sql_as, each, each_as, each_sql_as, opt_int, prepare, prepare_as, run,
    run_sql, stream, Scope,
};
pub use schema_text::{schema_objects, schema_text};
