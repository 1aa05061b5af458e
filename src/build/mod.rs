//! build: what a traced build was, as rules on values. Which programs are
//! compilers and what one execution compiles ([`compiler`]); which
//! commands become entries of a compilation database and why the others
//! are left out ([`compile_db`]); a file named as the trace names it, and
//! which of its dependencies a depfile lists ([`deps`]); the build graph's
//! nodes and the roles of its files ([`graph`]); what makes two commands
//! of two builds the same and how two builds' sorted lists are compared
//! ([`diff`]); which files are the installed system's rather than the
//! build's ([`system`]); the hazard kinds `lint` reports and what each
//! means ([`hazard`]); what a command is called in a picture, by what it
//! made or ran ([`label`]).
//!
//! The relations themselves (who read and wrote what, in which order) are
//! SQL: the `build_*` views of `schema/` and the queries `inputs`,
//! `outputs`, `lint`, `deps`, `graph_nodes` and `graph_edges`. This module
//! never runs SQL, opens no file and writes no output format: `report`
//! runs the queries and renders (`report::compile_commands`,
//! `report::depfile`, `report::graph`), and the `kt2sql` commands are clap
//! glue over both.

pub mod compile_db;
pub mod compiler;
pub mod deps;
pub mod diff;
pub mod graph;
pub mod hazard;
pub mod label;
pub mod system;
