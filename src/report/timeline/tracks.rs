//! Which Chrome track (`pid` value) each process lifetime is drawn on,
//! from `queries/timeline_tracks.sql`: one track per lifetime, so every
//! lifetime can sit under its parent in tree order. A lifetime keeps its
//! OS pid as the track's `pid` unless another lifetime in scope has the
//! same pid (a reused pid, or two traces sharing it); then the k-th of
//! them (by trace, start) is drawn under pid + (k − 1)·M, M the smallest
//! power of ten above every pid in scope, and its track name says
//! `pid P, lifetime k of n`. The calls of `--calls` are drawn on their
//! lifetime's track and their thread's OS id ([`Threads`], from
//! `queries/timeline_threads.sql`). Held per process and thread, never per
//! call.

use foldhash::{HashMap, HashMapExt};
use rusqlite::Connection;

use super::Options;
use crate::report::each_as;
use crate::report::row::typed_row;
use crate::Error;

/// One lifetime's track.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Track {
    /// The Chrome `pid` of the track.
    pub track: i64,
    /// OS pid.
    pub pid: i64,
    /// Trace it was recorded in.
    pub trace_id: i64,
    /// 1, 2, … among the lifetimes in scope with this pid.
    pub lifetime: i64,
    /// How many lifetimes in scope have this pid.
    pub lifetimes: i64,
}

impl Track {
    /// Whether another lifetime in scope has the same OS pid.
    pub fn shared(&self) -> bool {
        self.lifetimes > 1
    }
}

typed_row! {
    /// A row of `queries/timeline_tracks.sql`.
    struct TrackRow from "timeline_tracks" {
        process_id: i64,
        trace_id: i64,
        pid: i64,
        track: i64,
        lifetime: i64,
        lifetimes: i64,
    }
}

typed_row! {
    /// A row of `queries/timeline_threads.sql`.
    struct ThreadRow from "timeline_threads" {
        thread_id: i64,
        tid: i64,
    }
}

/// Every lifetime's track in scope, by process_id.
#[derive(Debug)]
pub struct Tracks {
    by_process: HashMap<i64, Track>,
}

impl Tracks {
    /// The tracks of `opts`' scope.
    pub fn load(conn: &Connection, opts: &Options) -> Result<Self, Error> {
        let mut t = Tracks {
            by_process: HashMap::new(),
        };
        each_as::<TrackRow>(conn, "timeline_tracks", &opts.params(), |r| {
            let track = Track {
                track: r.track,
                pid: r.pid,
                trace_id: r.trace_id,
                lifetime: r.lifetime,
                lifetimes: r.lifetimes,
            };
            t.by_process.insert(r.process_id, track);
            Ok(())
        })?;
        Ok(t)
    }

    /// The track of lifetime `process_id`; `pid` (its OS pid) when the
    /// scope does not hold it.
    pub fn of(&self, process_id: i64, pid: i64) -> i64 {
        self.by_process.get(&process_id).map_or(pid, |t| t.track)
    }

    /// The lifetime of `process_id`.
    pub fn get(&self, process_id: i64) -> Option<&Track> {
        self.by_process.get(&process_id)
    }
}

/// The OS id of every thread in scope, by thread_id.
#[derive(Debug)]
pub struct Threads {
    by_thread: HashMap<i64, i64>,
}

impl Threads {
    /// The threads of `opts`' scope.
    pub fn load(conn: &Connection, opts: &Options) -> Result<Self, Error> {
        let mut by_thread = HashMap::new();
        each_as::<ThreadRow>(conn, "timeline_threads", &opts.params(), |r| {
            by_thread.insert(r.thread_id, r.tid);
            Ok(())
        })?;
        Ok(Threads { by_thread })
    }

    /// The OS id of thread `thread_id`; `pid` (its process's OS pid) when
    /// the call has no thread, as `queries/timeline_calls.sql` gives it.
    pub fn tid(&self, thread_id: Option<i64>, pid: i64) -> i64 {
        thread_id
            .and_then(|t| self.by_thread.get(&t).copied())
            .unwrap_or(pid)
    }
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::TrackRow>();
        check::<super::ThreadRow>();
    }
}
