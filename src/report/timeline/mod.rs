//! `kt2sql timeline`: where the time of a traced build went, as a Chrome
//! Trace Event file ([`chrome`], for ui.perfetto.dev, chrome://tracing,
//! speedscope; the slices of `--calls` by `calls`) or a static SVG picture ([`svg`]). Both are written as the
//! rows of `queries/timeline_*.sql` come from SQLite, never held whole in
//! memory: what is kept is per process (track names, the lifetimes the
//! critical path walks), per thread (its OS id, for `--calls`), per file
//! flow or per step of the critical path, never per call.
//!
//! The critical path is found per trace (each trace is its own build) and
//! highlighted in both formats; `kt2sql stats` prints it as text, from
//! the same walk. The timeline works it out in Rust ([`critical`]) from
//! the scope's lifetimes and the file flows ([`flows`]), which it reads
//! once and holds (per flow), so `build_flow` is computed once per run.
//!
//! Every process lifetime gets its own Chrome track, so each sits under
//! its parent in tree order even where the kernel reused a pid or two
//! traces share one; the track's `pid` is the OS pid unless another
//! lifetime in the output has that pid ([`tracks`] gives the rule). The
//! SVG draws one row per command, so one per lifetime, within a row
//! budget: the shortest commands are folded into summary rows ([`fold`]).

mod calls;
pub mod chrome;
pub mod critical;
pub mod flows;
pub mod fold;
pub mod svg;
pub mod tracks;

use std::collections::HashMap;

use rusqlite::Connection;

use super::{each, opt_int, run, Cell, Scope};
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

/// One row of `queries/build_time.sql`: a trace's extent in the scope.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extent {
    /// Trace id.
    pub trace_id: i64,
    /// Commands (process images).
    pub commands: i64,
    /// First process start (ns).
    pub start_ts: i64,
    /// Last process end (ns).
    pub end_ts: i64,
    /// Most processes running at once.
    pub peak: i64,
}

/// The extent of every trace in the scope, in trace order.
pub fn extents(conn: &Connection, scope: Scope) -> Result<Vec<Extent>, Error> {
    let t = run(conn, "build_time", &scope.params())?;
    let rows = t.rows.iter().map(|r| {
        let n = |c: &str| r[t.col(c)].int().unwrap_or(0);
        Extent {
            trace_id: n("trace_id"),
            commands: n("commands"),
            start_ts: n("start_ts"),
            end_ts: n("end_ts"),
            peak: n("peak_parallel"),
        }
    });
    Ok(rows.collect())
}

/// One step of the critical path (a row of `queries/critical_path.sql`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
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

/// The critical path of each trace in `traces` within `scope`, step by
/// step in time order, trace after trace, as `queries/critical_path.sql`
/// gives it (the timeline itself works it out from the flows it reads
/// anyway: [`critical::Lifetimes::critical_path`]).
pub fn critical_path(conn: &Connection, scope: Scope, traces: &[i64]) -> Result<Vec<Step>, Error> {
    let mut steps = Vec::new();
    for &trace in traces {
        let params = Scope {
            trace: Some(trace),
            ..scope
        }
        .params();
        let t = run(conn, "critical_path", &params)?;
        for r in &t.rows {
            let n = |c: &str| r[t.col(c)].int().unwrap_or(0);
            steps.push(Step {
                trace_id: n("trace_id"),
                process_id: n("process_id"),
                pid: n("pid"),
                exec_id: n("exec_id"),
                image: n("image"),
                comm: r[t.col("comm")].to_bytes().into_owned(),
                start_ts: n("start_ts"),
                end_ts: n("end_ts"),
                wait: n("wait"),
                via: r[t.col("via")].display().into_owned(),
            });
        }
    }
    Ok(steps)
}

/// The critical path's steps by command: its own time on the path.
fn on_path(steps: &[Step]) -> HashMap<i64, i64> {
    let mut m = HashMap::new();
    for s in steps {
        *m.entry(s.exec_id).or_insert(0) += s.end_ts - s.start_ts;
    }
    m
}

/// The columns of `queries/timeline_slices.sql`, by position (a test checks
/// them against the file's `@column` lines).
mod slice {
    pub const PROCESS_ID: usize = 1;
    pub const PID: usize = 2;
    pub const TID: usize = 3;
    pub const EXEC_ID: usize = 4;
    pub const IMAGE: usize = 5;
    pub const DEPTH: usize = 6;
    pub const COMM: usize = 7;
    pub const START: usize = 8;
    pub const END: usize = 9;
    pub const PATH: usize = 10;
    pub const ARGV: usize = 11;
    pub const CWD: usize = 12;
    pub const EXIT_STATUS: usize = 13;
    pub const EXIT_SIGNAL: usize = 14;
    pub const CALLS: usize = 15;
    pub const FILES: usize = 16;
    /// (name, position) for the test.
    #[cfg(test)]
    pub const ALL: &[(&str, usize)] = &[
        ("process_id", PROCESS_ID),
        ("pid", PID),
        ("tid", TID),
        ("exec_id", EXEC_ID),
        ("image", IMAGE),
        ("depth", DEPTH),
        ("comm", COMM),
        ("start_ts", START),
        ("end_ts", END),
        ("path", PATH),
        ("argv", ARGV),
        ("cwd", CWD),
        ("exit_status", EXIT_STATUS),
        ("exit_signal", EXIT_SIGNAL),
        ("calls", CALLS),
        ("files", FILES),
    ];
}

/// Every row of `queries/timeline_slices.sql` in tree order; `brief`:
/// without the columns only the Chrome slices show (tid, calls, files are
/// NULL), half the query's time on a big build.
fn each_slice(
    conn: &Connection,
    opts: &Options,
    brief: bool,
    f: impl FnMut(&[Cell]) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut params = opts.params();
    if brief {
        params.push(("brief", Cell::Int(1)));
    }
    each(conn, "timeline_slices", &params, f)
}

/// An integer cell (0 for NULL).
fn int(c: &Cell) -> i64 {
    c.int().unwrap_or(0)
}

/// An I/O error on the output.
fn out_err(source: std::io::Error) -> Error {
    Error::Io {
        path: "the timeline output".into(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_columns_match_the_query_file() {
        let q = crate::report::query("timeline_slices").unwrap();
        for (name, at) in slice::ALL {
            assert_eq!(q.columns[*at].0, *name, "column {at}");
        }
    }
}
