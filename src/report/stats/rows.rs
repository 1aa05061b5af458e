//! The rows `kt2sql stats` reads from its queries' results, by column
//! name ([`crate::report::row`]): the text report reads these; JSON and
//! CSV write the results whole.

use rusqlite::types::ValueRef;

use crate::report::row::typed_row;
use crate::report::Cell;

typed_row! {
    /// A row of `queries/traces.sql`: one trace, its identity and counts.
    pub(super) struct Trace<'r> from "traces" {
        pub trace_id: i64,
        pub path: String,
        pub dialect: String,
        /// NULL for a complete file.
        pub damage: ValueRef<'r>,
        pub size: i64,
        pub records: i64,
        pub first_ts: Option<i64>,
        pub last_ts: Option<i64>,
        pub processes: i64,
        pub running_at_start: i64,
        pub threads: i64,
        pub execs: i64,
        pub failed_execs: i64,
        pub calls: i64,
        pub failed_calls: i64,
        pub no_return: i64,
        pub lookups: i64,
        pub unresolved: i64,
        pub files: i64,
        pub events: i64,
        pub issues: i64,
        /// 1 while `import --follow` follows the file.
        pub following: i64,
        /// Processes alive at the snapshot.
        pub running: i64,
    }
}

typed_row! {
    /// A row of `queries/build_time.sql`: a trace's wall time and
    /// parallelism.
    pub(super) struct Build from "build_time" {
        pub trace_id: Option<i64>,
        pub processes: i64,
        pub start_ts: Option<i64>,
        pub wall: i64,
        pub process_time: i64,
        pub avg_parallel: String,
        pub peak_parallel: i64,
    }
}

typed_row! {
    /// A row of `queries/critical_path.sql`: one step.
    pub(super) struct Step from "critical_path" {
        pub step: i64,
        pub trace_id: Option<i64>,
        pub pid: i64,
        pub comm: String,
        pub start_ts: i64,
        pub dur: i64,
        pub wait: i64,
        pub via: String,
    }
}

typed_row! {
    /// A row of `queries/issues.sql`: one kind of import issue.
    pub(super) struct Issue from "issues" {
        pub severity: String,
        pub kind: String,
        pub issues: String,
        pub example: String,
    }
}

typed_row! {
    /// A row of `queries/process_top.sql`: one busy process.
    pub(super) struct Process from "process_top" {
        pub pid: i64,
        pub comm: String,
        pub calls: i64,
        pub failed_calls: i64,
        pub lookups: i64,
        pub files: i64,
        pub dur: i64,
    }
}

typed_row! {
    /// A row of `queries/slow_commands.sql`: one slow command.
    pub(super) struct Slow<'r> from "slow_commands" {
        pub pid: i64,
        pub comm: Cell,
        pub dur: i64,
        pub wall: i64,
        pub cwd: Cell,
        pub path: Option<&'r [u8]>,
        pub argv: ValueRef<'r>,
        pub writes: i64,
        pub first_write: Cell,
    }
}

typed_row! {
    /// A row of `queries/syscall_top.sql`: one syscall's calls.
    pub(super) struct Syscall from "syscall_top" {
        pub syscall: String,
        pub calls: i64,
    }
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::Trace<'static>>();
        check::<super::Build>();
        check::<super::Step>();
        check::<super::Issue>();
        check::<super::Process>();
        check::<super::Slow<'static>>();
        check::<super::Syscall>();
    }
}
