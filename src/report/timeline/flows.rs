//! The file flows of a timeline's scope, read once per run from
//! `queries/timeline_flows.sql` and held (one row per producer → consumer
//! flow, a few thousand on a big build): the Chrome file arrows and the
//! SVG's file lines draw them, and the critical path ([`super::critical`])
//! walks them, so `build_flow` is worked out once, not once more by
//! `queries/critical_path.sql`.

use rusqlite::Connection;

use super::Options;
use crate::report::collect_as;
use crate::report::row::typed_row;
use crate::Error;

typed_row! {
    /// One row of `queries/timeline_flows.sql`.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Flow from "timeline_flows" {
        /// The arrow's id (above every process_id).
        pub id: i64,
        /// The path that flowed.
        pub path: Vec<u8>,
        /// The command that wrote it (command.command_id).
        pub producer_id: i64,
        /// Its OS pid.
        pub producer_pid: i64,
        /// Its process's first thread.
        pub producer_tid: i64,
        /// Time (ns) of the write.
        pub write_ts: i64,
        /// The command that read it.
        pub consumer_id: i64,
        /// Its OS pid.
        pub consumer_pid: i64,
        /// Its process's first thread.
        pub consumer_tid: i64,
        /// Time (ns) of the read.
        pub read_ts: i64,
        /// The producer's lifetime (process.process_id).
        pub producer_process: i64,
        /// The consumer's lifetime.
        pub consumer_process: i64,
    }
}

/// Every flow of `opts`' scope, in the query's order (by id).
pub fn load(conn: &Connection, opts: &Options) -> Result<Vec<Flow>, Error> {
    collect_as(conn, "timeline_flows", &opts.params())
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::Flow>();
    }
}
