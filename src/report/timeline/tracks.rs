//! Which Chrome track (`pid` value) each process lifetime is drawn on,
//! from `queries/timeline_tracks.sql`: one track per lifetime, so every
//! lifetime can sit under its parent in tree order. A lifetime keeps its
//! OS pid as the track's `pid` unless another lifetime in scope has the
//! same pid (a reused pid, or two traces sharing it); then the k-th of
//! them (by trace, start) is drawn under pid + (k − 1)·M, M the smallest
//! power of ten above every pid in scope, and its track name says
//! `pid P, lifetime k of n`. Held per process, never per call.

use std::collections::{HashMap, HashSet};

use rusqlite::{Connection, OptionalExtension};

use super::{int, Options};
use crate::report::each;
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

/// Every lifetime's track in scope, by process_id.
#[derive(Debug, Default)]
pub struct Tracks {
    by_process: HashMap<i64, Track>,
    /// OS pids that more than one lifetime in scope has.
    shared: HashSet<i64>,
}

impl Tracks {
    /// The tracks of `opts`' scope.
    pub fn load(conn: &Connection, opts: &Options) -> Result<Self, Error> {
        let mut t = Tracks::default();
        each(conn, "timeline_tracks", &opts.params(), |r| {
            let track = Track {
                track: int(&r[3]),
                pid: int(&r[2]),
                trace_id: int(&r[1]),
                lifetime: int(&r[4]),
                lifetimes: int(&r[5]),
            };
            if track.shared() {
                t.shared.insert(track.pid);
            }
            t.by_process.insert(int(&r[0]), track);
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

    /// The track of call `call_id`, made by OS pid `pid`: its pid unless
    /// that pid is shared, then its lifetime's (looked up by the call).
    pub fn of_call(&self, conn: &Connection, pid: i64, call_id: i64) -> Result<i64, Error> {
        if !self.shared.contains(&pid) {
            return Ok(pid);
        }
        let sql = "SELECT process_id FROM call WHERE call_id = ?1";
        let process: Option<i64> = conn
            .prepare_cached(sql)
            .and_then(|mut s| s.query_row([call_id], |r| r.get(0)).optional())
            .map_err(|source| Error::Sqlite {
                context: format!("finding the process of call {call_id}"),
                source,
            })?;
        Ok(process.map_or(pid, |p| self.of(p, pid)))
    }
}
