//! The critical path, walked in Rust over the file flows
//! ([`super::flows`]) and the lifetimes it visits: the rule
//! `queries/critical_path.sql` states, step for step. It is the one walk
//! the binary runs: `timeline` highlights its steps (over the flows it
//! draws anyway, so `build_flow` is worked out once per run) and `stats`
//! summarises them ([`path_rows`] gives them as the query's rows). The
//! query file stays for `kt2sql query critical_path` and the `sqlite3`
//! shell, which have no Rust to call; the Rust walk is kept because it
//! takes a fraction of the query's instructions (its recursive walk seeks
//! a child, a root and a flow per step). A test on every dialect and scope
//! keeps the two giving the same rows, cell for cell.
//!
//! It holds one state of the walk, per root of a trace and per file flow,
//! never per lifetime or per step: each state asks SQLite, through probes
//! on indexed columns prepared once, for its lifetime, the child that
//! ended last before it (`process_parent`) and, when it is a step, its
//! images (`exec_process`); the steps are handed over as the walk finds
//! them, the last first ([`each_step_back`]), and a report keeps them in
//! a temporary table ([`super::path`]). So its memory grows neither with
//! the build's processes nor with the path's length.

use std::collections::{BTreeSet, HashMap};

use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OptionalExtension, Statement};

use super::flows::Flow;
use super::Step;
use crate::report::{each_as, query, Cell, ResultSet, Scope};
use crate::schema::sql_err;
use crate::Error;

/// The scope's traces, in order (build_time.sql's rows).
const TRACES: &str = "SELECT DISTINCT trace_id FROM _scope \
     WHERE root_pid IS NOT DISTINCT FROM ?2 AND (?1 IS NULL OR trace_id = ?1) ORDER BY 1";

/// The scope's first process start (ns); 0 when it is empty.
const ORIGIN: &str = "SELECT COALESCE(min(first_ts), 0) FROM process WHERE process_id IN \
     (SELECT process_id FROM _scope \
      WHERE root_pid IS NOT DISTINCT FROM ?2 AND (?1 IS NULL OR trace_id = ?1))";

/// A trace's lifetime that ended last (the walk's start), and how many
/// rows the scope has in the trace (critical_path.sql's `bound`).
const START: &str = "SELECT (SELECT s.process_id FROM _scope AS s \
       JOIN process AS p ON p.process_id = s.process_id \
       WHERE s.root_pid IS NOT DISTINCT FROM ?2 AND s.trace_id = ?1 \
       ORDER BY p.last_ts DESC, p.first_ts, p.process_id LIMIT 1), \
     (SELECT count(*) FROM _scope WHERE root_pid IS NOT DISTINCT FROM ?2 AND trace_id = ?1)";

/// A trace's roots (`top`) without a pid (?2 NULL): its lifetimes without
/// a parent.
const ROOTS: &str =
    "SELECT process_id FROM process WHERE parent_id IS NULL AND trace_id = ?1 AND ?2 IS NULL";

/// A trace's roots (`top`) with a pid: the pid's lifetimes.
const PID_ROOTS: &str = "SELECT process_id FROM process WHERE trace_id = ?1 AND pid = ?2";

/// One lifetime.
const LIFE: &str = "SELECT trace_id, pid, parent_id, first_ts, last_ts, fork_ts \
     FROM process WHERE process_id = ?1";

/// A lifetime's child that ended last by ?2 (strictly before it when ?3 is
/// set: back at a fork, not the child just left), critical_path.sql's
/// order on a tie.
const CHILD: &str = "SELECT process_id, last_ts FROM process \
     WHERE parent_id = ?1 AND last_ts <= ?2 AND NOT (?3 AND last_ts = ?2) \
     ORDER BY last_ts DESC, first_ts DESC, pid DESC, process_id DESC LIMIT 1";

/// A lifetime's images, in order.
const IMAGES: &str = "SELECT exec_id, image, comm, ts FROM exec \
     WHERE process_id = ?1 AND image IS NOT NULL ORDER BY image";

/// One image of a lifetime (exec.image not NULL).
#[derive(Debug)]
struct Image {
    exec_id: i64,
    image: i64,
    comm: Vec<u8>,
    ts: i64,
}

/// One lifetime in scope, as the walk reads it.
#[derive(Debug, Clone, Copy)]
struct Life {
    trace_id: i64,
    pid: i64,
    parent_id: Option<i64>,
    first_ts: i64,
    last_ts: i64,
    fork_ts: Option<i64>,
}

impl Life {
    /// When its parent reached it: the fork's return, or its first record
    /// when that came first.
    fn forked(&self) -> i64 {
        match self.fork_ts {
            Some(f) if f < self.first_ts => f,
            _ => self.first_ts,
        }
    }
}

/// How a state of the walk was reached from the previous one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    File,
    Wait,
    Fork,
    After,
}

impl How {
    fn name(self) -> &'static str {
        match self {
            How::File => "file",
            How::Wait => "wait",
            How::Fork => "fork",
            How::After => "after",
        }
    }
}

/// A state of the backward walk: in `process` at time `t`.
#[derive(Debug, Clone, Copy)]
struct State {
    process: i64,
    t: i64,
    how: Option<How>,
}

/// The scope's parameters as the probes bind them: (trace, pid).
fn scope_params(scope: Scope) -> (Option<i64>, Option<i64>) {
    (scope.trace, scope.pid)
}

/// The traces the scope has lifetimes in, in order (build_time.sql's rows).
pub fn traces(conn: &Connection, scope: Scope) -> Result<Vec<i64>, Error> {
    let mut st = prepare(conn, TRACES)?;
    let rows = st
        .query_map(scope_params(scope), |r| r.get(0))
        .map_err(probe_err(TRACES))?;
    rows.collect::<Result<_, _>>().map_err(probe_err(TRACES))
}

/// The scope's first process start (ns); 0 when it is empty.
pub fn origin(conn: &Connection, scope: Scope) -> Result<i64, Error> {
    prepare(conn, ORIGIN)?
        .query_row(scope_params(scope), |r| r.get(0))
        .map_err(probe_err(ORIGIN))
}

/// The critical path of each trace in `traces` within `scope`, step by
/// step in time order, trace after trace: the rows
/// `queries/critical_path.sql` gives with `trace` and the scope's `pid`
/// for each, from `flows` (timeline_flows.sql's rows for the same scope),
/// collected. A report keeps them in a [`super::path::Path`] instead,
/// which holds none of them.
pub fn critical_path(
    conn: &Connection,
    scope: Scope,
    traces: &[i64],
    deps: &Deps,
) -> Result<Vec<Step>, Error> {
    let mut steps = Vec::new();
    each_step_back(conn, scope, traces, deps, |s| {
        steps.push(s);
        Ok(())
    })?;
    steps.reverse();
    Ok(steps)
}

/// The steps [`critical_path`] gives, from the last to the first: the
/// last trace's last step first. The walk goes back in time, so this is
/// the order it finds them in; it holds one state of the walk and the
/// images of one lifetime at a time, never the path.
pub fn each_step_back(
    conn: &Connection,
    scope: Scope,
    traces: &[i64],
    deps: &Deps,
    mut f: impl FnMut(Step) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut probes = Probes::new(conn)?;
    for &trace in traces.iter().rev() {
        let walk = Walk::new(&mut probes, conn, trace, scope.pid, deps)?;
        walk.each_back(&mut probes, &mut f)?;
    }
    Ok(())
}

/// The error of a probe's statement.
fn probe_err(sql: &'static str) -> impl Fn(rusqlite::Error) -> Error {
    move |e| sql_err(format!("the critical path's probe `{sql}`"))(e)
}

/// Prepare one of the probes.
fn prepare<'c>(conn: &'c Connection, sql: &'static str) -> Result<Statement<'c>, Error> {
    conn.prepare(sql).map_err(probe_err(sql))
}

/// The statements the walk asks at each state, prepared once.
struct Probes<'c> {
    life: Statement<'c>,
    child: Statement<'c>,
    images: Statement<'c>,
}

impl<'c> Probes<'c> {
    fn new(conn: &'c Connection) -> Result<Self, Error> {
        Ok(Probes {
            life: prepare(conn, LIFE)?,
            child: prepare(conn, CHILD)?,
            images: prepare(conn, IMAGES)?,
        })
    }

    /// The lifetime `id`, if there is one.
    fn life(&mut self, id: i64) -> Result<Option<Life>, Error> {
        self.life
            .query_row([id], |r| {
                Ok(Life {
                    trace_id: r.get(0)?,
                    pid: r.get(1)?,
                    parent_id: r.get(2)?,
                    first_ts: r.get(3)?,
                    last_ts: r.get(4)?,
                    fork_ts: r.get(5)?,
                })
            })
            .optional()
            .map_err(probe_err(LIFE))
    }

    /// The child of `id` that ended last by `t` (before `t` when
    /// `before`): its id and end.
    fn child(&mut self, id: i64, t: i64, before: bool) -> Result<Option<(i64, i64)>, Error> {
        self.child
            .query_row(params![id, t, before], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
            .map_err(probe_err(CHILD))
    }

    /// The images of `id`, in order.
    fn images(&mut self, id: i64) -> Result<Vec<Image>, Error> {
        let rows = self
            .images
            .query_map([id], |r| {
                let comm = match r.get_ref(2)? {
                    ValueRef::Text(b) | ValueRef::Blob(b) => b.to_vec(),
                    _ => Vec::new(),
                };
                Ok(Image {
                    exec_id: r.get(0)?,
                    image: r.get(1)?,
                    comm,
                    ts: r.get(3)?,
                })
            })
            .map_err(probe_err(IMAGES))?;
        rows.collect::<Result<_, _>>().map_err(probe_err(IMAGES))
    }
}

/// Each consumer's file dependencies (consumer, write_ts, read_ts,
/// producer), distinct, between two lifetimes (`dep`), from the file
/// flows (timeline_flows.sql's rows) of the walk's scope: four numbers per
/// flow, never per lifetime.
#[derive(Debug, Default)]
pub struct Deps(BTreeSet<(i64, i64, i64, i64)>);

impl Deps {
    /// The dependencies of `flows`, which a caller holds anyway.
    pub fn of(flows: &[Flow]) -> Self {
        let mut deps = Deps::default();
        flows.iter().for_each(|f| deps.add(f));
        deps
    }

    /// The dependencies of `scope`'s flows, read without holding the
    /// flows.
    pub fn load(conn: &Connection, scope: Scope) -> Result<Self, Error> {
        let mut deps = Deps::default();
        each_as::<Flow>(conn, "timeline_flows", &scope.params(), |f| {
            deps.add(&f);
            Ok(())
        })?;
        Ok(deps)
    }

    fn add(&mut self, f: &Flow) {
        if f.consumer_process != f.producer_process {
            let (c, p) = (f.consumer_process, f.producer_process);
            self.0.insert((c, f.write_ts, f.read_ts, p));
        }
    }

    /// The latest write (write_ts, read_ts, producer) `consumer` read by
    /// `t`: the latest write first, then the latest read, then the
    /// highest producer.
    fn latest(&self, consumer: i64, t: i64) -> Option<(i64, i64, i64)> {
        let range =
            (consumer, i64::MIN, i64::MIN, i64::MIN)..=(consumer, i64::MAX, i64::MAX, i64::MAX);
        self.0
            .range(range)
            .rev()
            .find(|d| d.2 <= t)
            .map(|&(_, w, r, p)| (w, r, p))
    }
}

/// One trace's `steps` ([`critical_path`] with that trace) as
/// the rows `queries/critical_path.sql` gives for the same trace and
/// scope, cell for cell: numbered from 1, `comm` TEXT when it is UTF-8,
/// else BLOB (as the importer stores it).
pub fn path_rows(steps: &[Step]) -> ResultSet {
    path_rows_of((1..).zip(steps))
}

/// Some steps of a path as [`path_rows`] gives them, each with its number
/// on the path (from 1).
pub fn path_rows_of<'s>(steps: impl Iterator<Item = (i64, &'s Step)>) -> ResultSet {
    let columns = query("critical_path")
        .map(|q| q.columns.into_iter().map(|(c, _)| c).collect())
        .unwrap_or_default();
    let rows = steps.map(|(n, s)| {
        let comm = match std::str::from_utf8(&s.comm) {
            Ok(_) => Cell::Text(s.comm.clone()),
            Err(_) => Cell::Blob(s.comm.clone()),
        };
        let ints = |v: &[i64]| v.iter().map(|&i| Cell::Int(i)).collect::<Vec<_>>();
        let mut row = ints(&[n, s.trace_id, s.process_id, s.pid, s.exec_id, s.image]);
        row.push(comm);
        row.extend(ints(&[s.start_ts, s.end_ts, s.end_ts - s.start_ts, s.wait]));
        row.push(Cell::Text(s.via.clone().into_bytes()));
        row
    });
    ResultSet {
        columns,
        rows: rows.collect(),
    }
}

/// One trace's walk: where it starts, the roots it cannot go above and
/// the bound on its length; the rest is asked of SQLite state by state.
struct Walk<'d> {
    /// The lifetime the walk starts in: the one that ended last.
    start: Option<i64>,
    /// The scope's roots (`top`): the walk cannot go above them.
    top: BTreeSet<i64>,
    /// Each root's predecessor: the other root that ended last before it
    /// began (`after_root`).
    after_root: HashMap<i64, i64>,
    /// Each consumer's file dependencies (`dep`).
    deps: &'d Deps,
    /// critical_path.sql's `bound`: 3 × the scope's rows + 1.
    bound: usize,
}

impl<'d> Walk<'d> {
    fn new(
        probes: &mut Probes<'_>,
        conn: &Connection,
        trace: i64,
        pid: Option<i64>,
        deps: &'d Deps,
    ) -> Result<Self, Error> {
        let (start, rows): (Option<i64>, i64) = prepare(conn, START)?
            .query_row(params![trace, pid], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(probe_err(START))?;
        // Without a pid the trace's roots; with one, its lifetimes.
        let sql = if pid.is_some() { PID_ROOTS } else { ROOTS };
        let mut st = prepare(conn, sql)?;
        let ids = st
            .query_map(params![trace, pid], |r| r.get::<_, i64>(0))
            .map_err(probe_err(sql))?
            .collect::<Result<Vec<i64>, _>>()
            .map_err(probe_err(sql))?;
        let mut top = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(l) = probes.life(id)? {
                top.push((id, l));
            }
        }
        let mut ranked = top.clone();
        ranked.sort_unstable_by_key(|(id, l)| (l.last_ts, l.first_ts, l.pid, *id));
        let ends: Vec<i64> = ranked.iter().map(|(_, l)| l.last_ts).collect();
        let mut after_root = HashMap::new();
        for (id, l) in &top {
            // n: the roots that ended at or before it began.
            let n = ends.partition_point(|&e| e <= l.first_ts);
            let a = n.checked_sub(1).map(|i| ranked[i].0);
            let prev = match a {
                Some(a) if a != *id => Some(a),
                _ => n.checked_sub(2).map(|i| ranked[i].0),
            };
            if let Some(prev) = prev {
                after_root.insert(*id, prev);
            }
        }
        Ok(Walk {
            start,
            top: top.into_iter().map(|(id, _)| id).collect(),
            after_root,
            deps,
            bound: usize::try_from(3 * rows + 1).unwrap_or(0),
        })
    }

    /// The state after `w` (in the lifetime `p`), if the walk goes on.
    fn next(&self, probes: &mut Probes<'_>, w: State, p: &Life) -> Result<Option<State>, Error> {
        // The child that ended last by `t` (back at a fork, not one that
        // ended at that very time: the one just left).
        let child = probes.child(w.process, w.t, w.how == Some(How::Fork))?;
        // The process-tree way back and when it reaches there.
        let tree = match child {
            Some((c, end)) => Some((c, end, How::Wait)),
            None => match p.parent_id.filter(|_| !self.top.contains(&w.process)) {
                Some(up) if probes.life(up)?.is_some() => Some((up, p.forked(), How::Fork)),
                _ => match self.after_root.get(&w.process) {
                    Some(&r) => probes.life(r)?.map(|l| (r, l.last_ts, How::After)),
                    None => None,
                },
            },
        };
        // The latest write the process read by `t`, when it came after the
        // tree's way back (strictly: a tie keeps the tree edge).
        let file = self
            .deps
            .latest(w.process, w.t)
            .filter(|d| tree.is_none_or(|(_, t, _)| d.0 > t))
            .map(|(write_ts, _, producer)| (producer, write_ts, How::File));
        Ok(file.or(tree).map(|(process, t, how)| State {
            process,
            t,
            how: Some(how),
        }))
    }

    /// The trace's steps, the last first, to `f`: each state's segment
    /// once the walk has found the state before it (the earlier one).
    fn each_back(
        &self,
        probes: &mut Probes<'_>,
        f: &mut impl FnMut(Step) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let Some(start) = self.start else {
            return Ok(());
        };
        let Some(first) = probes.life(start)? else {
            return Ok(());
        };
        let mut here = (
            State {
                process: start,
                t: first.last_ts,
                how: None,
            },
            first,
        );
        // States taken after the first: at most `bound`.
        let mut taken = 0;
        loop {
            let before = if taken < self.bound {
                match self.next(probes, here.0, &here.1)? {
                    Some(s) => probes.life(s.process)?.map(|l| (s, l)),
                    None => None,
                }
            } else {
                None
            };
            let pieces = self.segment(probes, &here, before.as_ref().map(|(s, _)| s))?;
            for step in pieces.into_iter().rev() {
                f(step)?;
            }
            match before {
                Some(b) => {
                    here = b;
                    taken += 1;
                }
                None => return Ok(()),
            }
        }
    }

    /// The segment of state `s` in lifetime `p`, in time order, reached
    /// from `next` (the state before it in time; none at the path's
    /// start): cut at its process's images, one piece per command.
    fn segment(
        &self,
        probes: &mut Probes<'_>,
        (s, p): &(State, Life),
        next: Option<&State>,
    ) -> Result<Vec<Step>, Error> {
        let from = match next {
            Some(x) if matches!(x.how, Some(How::Wait | How::File)) => x.t,
            _ => p.first_ts,
        };
        let via = next.and_then(|x| x.how).map_or("start", How::name);
        let images = probes.images(s.process)?;
        let mut out = Vec::new();
        for (i, img) in images.iter().enumerate() {
            let ts = if img.image == 0 { p.first_ts } else { img.ts };
            let next_ts = images[i + 1..]
                .iter()
                .filter(|e| e.image > img.image)
                .map(|e| e.ts)
                .min();
            if next_ts.is_some_and(|x| x <= from) || !(ts < s.t || ts <= from) {
                continue;
            }
            let start_ts = if from > ts { from } else { ts };
            let end_ts = match next_ts {
                Some(x) if x < s.t => x,
                _ => s.t,
            };
            let first = out.is_empty();
            out.push(Step {
                trace_id: p.trace_id,
                process_id: s.process,
                pid: p.pid,
                exec_id: img.exec_id,
                image: img.image,
                comm: img.comm.clone(),
                start_ts,
                end_ts,
                wait: match (first, next) {
                    (true, Some(x)) => start_ts - x.t,
                    _ => 0,
                },
                via: if first { via } else { "exec" }.to_string(),
            });
        }
        Ok(out)
    }
}
