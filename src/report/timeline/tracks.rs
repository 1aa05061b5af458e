//! Which Chrome track (`pid` value) each process lifetime is drawn on,
//! from `queries/timeline_tracks.sql`: one track per lifetime, so every
//! lifetime can sit under its parent in tree order. A lifetime keeps its
//! OS pid as the track's `pid` unless another lifetime in scope has the
//! same pid (a reused pid, or two traces sharing it); then the k-th of
//! them (by trace, start) is drawn under pid + (k − 1)·M, M the smallest
//! power of ten above every pid in scope, and its track name says
//! `pid P, lifetime k of n`. The calls of `--calls` are drawn on their
//! lifetime's track and their thread's OS id ([`Threads`]).
//!
//! What is held does not grow with the build's processes but by the
//! lifetimes that share a pid (two words each, [`Tracks`]); the OS pid of
//! a call's lifetime and the OS id of its thread are asked of SQLite
//! through the primary keys and kept in small caches of the recent ones
//! ([`Threads`]: the calls come in time order, from the few processes
//! running at once). The track names are read at the end, a track at a
//! time ([`each_name`]).

use rusqlite::{Connection, OptionalExtension, Statement};

use super::Options;
use crate::report::each_as;
use crate::report::each_sql_as;
use crate::report::query;
use crate::report::row::typed_row;
use crate::schema::sql_err;
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
        pid: i64,
        track: i64,
    }
}

/// The track of every lifetime in scope drawn under another number than
/// its OS pid (the 2nd, 3rd, … lifetime of a shared pid), by process_id:
/// every other lifetime's track is its OS pid.
#[derive(Debug)]
pub struct Tracks {
    /// (process_id, track), sorted by process_id.
    moved: Vec<(i64, i64)>,
}

impl Tracks {
    /// The tracks of `opts`' scope.
    pub fn load(conn: &Connection, opts: &Options) -> Result<Self, Error> {
        let mut moved = Vec::new();
        each_as::<TrackRow>(conn, "timeline_tracks", &opts.params(), |r| {
            if r.track != r.pid {
                moved.push((r.process_id, r.track));
            }
            Ok(())
        })?;
        // The query gives them by process_id; sorted again so the search
        // does not depend on it.
        moved.sort_unstable();
        Ok(Tracks { moved })
    }

    /// The track of lifetime `process_id`, whose OS pid is `pid`; `pid`
    /// when the scope does not hold it.
    pub fn of(&self, process_id: i64, pid: i64) -> i64 {
        match self.moved.binary_search_by_key(&process_id, |m| m.0) {
            Ok(i) => self.moved[i].1,
            Err(_) => pid,
        }
    }
}

typed_row! {
    /// A track and one of its commands' names (the lifetime's images in
    /// order, tracks in `track` order): the rows of [`each_name`]'s SQL.
    struct NameRow {
        track: i64,
        process_id: i64,
        trace_id: i64,
        pid: i64,
        lifetime: i64,
        lifetimes: i64,
        comm: Vec<u8>,
    }
}

/// Every track of `opts`' scope that has a command, in track order, with
/// its lifetime and its commands' distinct names in the order they
/// appeared (its images in order): `f(track, process_id, names)`. Holds
/// one track's names at a time.
pub fn each_name(
    conn: &Connection,
    opts: &Options,
    mut f: impl FnMut(&Track, i64, &[Vec<u8>]) -> Result<(), Error>,
) -> Result<(), Error> {
    let tracks = query("timeline_tracks").expect("queries/timeline_tracks.sql is built in");
    let body = tracks.sql.trim_end().trim_end_matches(';');
    // Each lifetime's images in tree order are its images in order (the
    // next image is the sibling after the children of the one before).
    let sql = format!(
        "SELECT tr.track, tr.process_id, tr.trace_id, tr.pid, tr.lifetime, tr.lifetimes, e.comm \
         FROM ({body}\n) AS tr \
         JOIN tree_node AS t ON t.process_id = tr.process_id \
         JOIN exec AS e ON e.exec_id = t.exec_id \
         ORDER BY tr.track, tr.process_id, t.pos"
    );
    let mut cur: Option<(Track, i64)> = None;
    let mut names: Vec<Vec<u8>> = Vec::new();
    each_sql_as::<NameRow>(
        conn,
        &sql,
        &opts.params(),
        "reading the timeline's track names",
        |r| {
            if cur.is_some_and(|(_, p)| p != r.process_id) {
                let (t, p) = cur.take().expect("checked");
                f(&t, p, &names)?;
                names.clear();
            }
            if cur.is_none() {
                let t = Track {
                    track: r.track,
                    pid: r.pid,
                    trace_id: r.trace_id,
                    lifetime: r.lifetime,
                    lifetimes: r.lifetimes,
                };
                cur = Some((t, r.process_id));
            }
            if !names.iter().any(|c| c[..] == r.comm[..]) {
                names.push(r.comm);
            }
            Ok(())
        },
    )?;
    match cur {
        Some((t, p)) => f(&t, p, &names),
        None => Ok(()),
    }
}

/// How many recent lifetimes and threads [`Threads`] keeps (a power of
/// two): far more than a build runs at once.
const CACHED: usize = 256;

/// The OS pid of a lifetime and the OS id of a thread, for the calls of
/// `--calls`: asked of SQLite by primary key, the recent ones kept in
/// direct-mapped caches of [`CACHED`] entries.
pub struct Threads<'c> {
    pids: Box<[(i64, i64)]>,
    tids: Box<[(i64, i64)]>,
    pid_of: Statement<'c>,
    tid_of: Statement<'c>,
}

impl<'c> Threads<'c> {
    /// The lookups, prepared once.
    pub fn new(conn: &'c Connection) -> Result<Self, Error> {
        let prep = |sql: &str| {
            conn.prepare(sql).map_err(sql_err(
                "preparing the timeline's pid and tid lookups".into(),
            ))
        };
        Ok(Threads {
            pids: vec![(i64::MIN, 0); CACHED].into_boxed_slice(),
            tids: vec![(i64::MIN, 0); CACHED].into_boxed_slice(),
            pid_of: prep("SELECT pid FROM process WHERE process_id = ?1")?,
            tid_of: prep("SELECT tid FROM thread WHERE thread_id = ?1")?,
        })
    }

    /// The OS pid of lifetime `process_id`.
    pub fn pid(&mut self, process_id: i64) -> Result<i64, Error> {
        cached(&mut self.pids, &mut self.pid_of, process_id, "process")?.ok_or_else(|| {
            Error::Sqlite {
                context: format!("finding the pid of process {process_id}"),
                source: rusqlite::Error::QueryReturnedNoRows,
            }
        })
    }

    /// The OS id of thread `thread_id`; `pid` (its process's OS pid) when
    /// the call has no thread, as `queries/timeline_calls.sql` gives it.
    pub fn tid(&mut self, thread_id: Option<i64>, pid: i64) -> Result<i64, Error> {
        let Some(t) = thread_id else { return Ok(pid) };
        Ok(cached(&mut self.tids, &mut self.tid_of, t, "thread")?.unwrap_or(pid))
    }
}

/// `id`'s value from `cache`, else from `stmt` (None: no such row).
fn cached(
    cache: &mut [(i64, i64)],
    stmt: &mut Statement<'_>,
    id: i64,
    what: &str,
) -> Result<Option<i64>, Error> {
    let slot = &mut cache[(id as u64 as usize) & (CACHED - 1)];
    if slot.0 == id {
        return Ok(Some(slot.1));
    }
    let found = stmt
        .query_row([id], |r| r.get::<_, i64>(0))
        .optional()
        .map_err(sql_err(format!("finding {what} {id}")))?;
    if let Some(v) = found {
        *slot = (id, v);
    }
    Ok(found)
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::TrackRow>();
    }
}
