//! kt2sql: BSD `ktrace.out` files into SQLite.
//!
//! The pipeline is one-way: [`decode`] (bytes → [`record`]s) → [`process`]
//! model (processes, calls, paths) → [`load`] (SQLite) → [`report`] (SQL →
//! text). Decode never touches
//! SQLite; only the binary owns the command line and the progress bar.

pub mod decode;
pub mod dump;
pub mod error;
pub mod json;
pub mod load;
pub mod process;
pub mod record;
pub mod report;
pub mod tables;
pub mod text;

pub use error::Error;
