//! `kt2sql timeline`: where the time of a traced build went, as a Chrome
//! Trace Event file ([`chrome`], for ui.perfetto.dev, chrome://tracing,
//! speedscope; the slices of `--calls` by `calls`) or a static SVG picture ([`svg`], its time axis in [`ticks`]). Both are written as the
//! rows of `queries/timeline_*.sql` come from SQLite, never held whole in
//! memory: what is kept is per file flow, a bit per process (whose
//! track has begun) and two words per
//! lifetime of a reused pid ([`tracks`]), never per call; the track names
//! are asked of SQLite at the end, a track at a time.
//!
//! The critical path is found per trace (each trace is its own build) and
//! highlighted in both formats; `kt2sql stats` prints it as text, from
//! the same walk. The timeline works it out in Rust ([`critical`]) from
//! the file flows ([`flows`]), which it reads once and holds (per flow),
//! so `build_flow` is computed once per run, asking SQLite for each
//! lifetime the walk visits; the steps go to a temporary table
//! ([`path`]), read back in order for the path's own track or lane and
//! by command for the slices on it.
//!
//! Every process lifetime gets its own Chrome track, so each sits under
//! its parent in tree order even where the kernel reused a pid or two
//! traces share one; the track's `pid` is the OS pid unless another
//! lifetime in the output has that pid ([`tracks`] gives the rule). The
//! SVG draws one row per command, so one per lifetime, within a row
//! budget: the shortest commands are folded into summary rows ([`fold`]);
//! its critical path is a lane of its own.

mod calls;
pub mod chrome;
pub mod critical;
pub mod flows;
pub mod fold;
pub mod path;
pub mod svg;
pub mod ticks;
pub mod tracks;

use std::borrow::Cow;

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use super::row::typed_row;
use super::{collect_as, each_as, opt_int, Cell, Scope};
use crate::Error;

/// What a timeline shows.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Which traces and processes.
    pub scope: Scope,
    /// One slice per system call too (Chrome format only).
    pub calls: bool,
    /// Chrome with `calls`: only calls that took at least this long (ns).
    /// SVG: commands shorter than this are folded into summary rows.
    pub min_dur: Option<i64>,
    /// SVG: at most this many rows ([`fold::MAX_ROWS`] by default); the
    /// shortest commands are folded to keep within it.
    pub max_rows: Option<usize>,
}

impl Options {
    /// The scope as bound parameters.
    fn params(&self) -> Vec<(&'static str, Cell)> {
        self.scope.params()
    }
}

typed_row! {
    /// One row of `queries/build_time.sql`: a trace's extent in the scope.
    #[derive(Debug, Clone, Copy, Default)]
    pub struct Extent from "build_time" {
        /// Trace id.
        pub trace_id: i64,
        /// Commands (process images).
        pub commands: i64,
        /// First process start (ns).
        pub start_ts: i64,
        /// Last process end (ns).
        pub end_ts: i64,
        /// Most processes running at once.
        pub peak_parallel: i64,
    }
}

/// The extent of every trace in the scope, in trace order.
pub fn extents(conn: &Connection, scope: Scope) -> Result<Vec<Extent>, Error> {
    collect_as(conn, "build_time", &scope.params())
}

typed_row! {
    /// One step of the critical path (a row of `queries/critical_path.sql`).
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Step from "critical_path" {
        /// Trace id.
        pub trace_id: i64,
        /// Process lifetime (process.process_id).
        pub process_id: i64,
        /// OS pid.
        pub pid: i64,
        /// The command (exec.exec_id).
        pub exec_id: i64,
        /// Image number within its process.
        pub image: i64,
        /// Command name.
        pub comm: Vec<u8>,
        /// When the step began (ns).
        pub start_ts: i64,
        /// When it ended (ns).
        pub end_ts: i64,
        /// Time between the previous step's end and this one's start (ns).
        pub wait: i64,
        /// `start`, `fork`, `exec`, `wait`, `file` or `after` (see
        /// `queries/critical_path.sql`).
        pub via: String,
    }
}

/// The critical path of each trace in `traces` within `scope`, step by
/// step in time order, trace after trace, as `queries/critical_path.sql`
/// gives it (the timeline itself works it out from the flows it reads
/// anyway: [`critical::critical_path`]).
pub fn critical_path(conn: &Connection, scope: Scope, traces: &[i64]) -> Result<Vec<Step>, Error> {
    let mut steps = Vec::new();
    for &trace in traces {
        let params = Scope {
            trace: Some(trace),
            ..scope
        }
        .params();
        steps.extend(collect_as::<Step>(conn, "critical_path", &params)?);
    }
    Ok(steps)
}

typed_row! {
    /// A row of `queries/timeline_slices.sql`: one command, in tree order.
    pub struct Slice<'r> from "timeline_slices" {
        trace_id: i64,
        process_id: i64,
        pid: i64,
        tid: i64,
        exec_id: i64,
        image: i64,
        depth: i64,
        comm: Cow<'r, [u8]>,
        start_ts: i64,
        end_ts: i64,
        path: Option<&'r [u8]>,
        /// As stored: a JSON array (TEXT) or NUL-separated (BLOB).
        argv: ValueRef<'r>,
        cwd: Option<&'r [u8]>,
        exit_status: Option<i64>,
        exit_signal: Option<i64>,
        calls: i64,
        files: i64,
        /// 1 on the last image of a process alive at a followed trace's
        /// snapshot: its slice is open to the snapshot.
        running: Option<i64>,
    }
}

/// Every row of `queries/timeline_slices.sql` in tree order; `brief`:
/// without the columns only the Chrome slices show (tid, calls, files are
/// NULL), half the query's time on a big build.
fn each_slice(
    conn: &Connection,
    opts: &Options,
    brief: bool,
    f: impl FnMut(Slice<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut params = opts.params();
    if brief {
        params.push(("brief", Cell::Int(1)));
    }
    each_as::<Slice<'static>>(conn, "timeline_slices", &params, f)
}

typed_row! {
    /// A row of `queries/parallelism.sql`: from `ts` on, `running`
    /// processes.
    struct Running from "parallelism" {
        ts: i64,
        running: i64,
    }
}

/// An I/O error on the output.
fn out_err(source: std::io::Error) -> Error {
    Error::Io {
        path: "the timeline output".into(),
        source,
    }
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::Extent>();
        check::<super::Step>();
        check::<super::Slice<'static>>();
        check::<super::Running>();
    }
}
