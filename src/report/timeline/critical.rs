//! The critical path, walked in Rust from the scope's lifetimes
//! (`queries/timeline_lifetimes.sql`) and the file flows
//! ([`super::flows`]): the rule `queries/critical_path.sql` states, step
//! for step. It is the one walk the binary runs: `timeline` highlights its
//! steps (over the flows it draws anyway, so `build_flow` is worked out
//! once per run) and `stats` summarises them ([`path_rows`] gives them as
//! the query's rows). The query file stays for `kt2sql query
//! critical_path` and the `sqlite3` shell, which have no Rust to call; the
//! Rust walk is kept because it takes a fraction of the query's
//! instructions (its recursive walk seeks a child, a root and a flow per
//! step). A test on every dialect and scope keeps the two giving the same
//! rows, cell for cell. Held per lifetime and per step, never per call.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use rusqlite::Connection;

use super::flows::Flow;
use super::Step;
use crate::report::row::typed_row;
use crate::report::{each_as, opt_int, query, Cell, ResultSet, Scope};
use crate::Error;

typed_row! {
    /// A row of `queries/timeline_lifetimes.sql`: a lifetime, with one of
    /// its images (or none).
    struct LifeRow<'r> from "timeline_lifetimes" {
        process_id: i64,
        trace_id: i64,
        pid: i64,
        parent_id: Option<i64>,
        first_ts: i64,
        last_ts: i64,
        fork_ts: Option<i64>,
        scoped: i64,
        exec_id: Option<i64>,
        image: Option<i64>,
        comm: Cow<'r, [u8]>,
        ts: i64,
    }
}

/// One image of a lifetime (exec.image not NULL).
#[derive(Debug)]
struct Image {
    exec_id: i64,
    image: i64,
    comm: Vec<u8>,
    ts: i64,
}

/// One lifetime in scope, as the walk reads it.
#[derive(Debug)]
struct Life {
    trace_id: i64,
    pid: i64,
    parent_id: Option<i64>,
    first_ts: i64,
    last_ts: i64,
    fork_ts: Option<i64>,
    /// How many times the scope holds it (critical_path.sql's `bound`
    /// counts the scope's rows).
    scoped: i64,
    /// By image.
    images: Vec<Image>,
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

/// The lifetimes of a timeline's scope with their images, by process_id
/// (`queries/timeline_lifetimes.sql`).
#[derive(Debug)]
pub struct Lifetimes {
    scope: Scope,
    lives: HashMap<i64, Life>,
}

impl Lifetimes {
    /// Every lifetime of `scope`.
    pub fn load(conn: &Connection, scope: Scope) -> Result<Self, Error> {
        let mut lives: HashMap<i64, Life> = HashMap::new();
        let params = [("trace", opt_int(scope.trace)), ("pid", opt_int(scope.pid))];
        each_as::<LifeRow<'static>>(conn, "timeline_lifetimes", &params, |r| {
            let life = lives.entry(r.process_id).or_insert_with(|| Life {
                trace_id: r.trace_id,
                pid: r.pid,
                parent_id: r.parent_id,
                first_ts: r.first_ts,
                last_ts: r.last_ts,
                fork_ts: r.fork_ts,
                scoped: r.scoped,
                images: Vec::new(),
            });
            if let (Some(exec_id), Some(image)) = (r.exec_id, r.image) {
                life.images.push(Image {
                    exec_id,
                    image,
                    comm: r.comm.into_owned(),
                    ts: r.ts,
                });
            }
            Ok(())
        })?;
        Ok(Lifetimes { scope, lives })
    }

    /// The traces the scope has lifetimes in, in order (build_time.sql's rows).
    pub fn traces(&self) -> Vec<i64> {
        let t: BTreeSet<i64> = self.lives.values().map(|l| l.trace_id).collect();
        t.into_iter().collect()
    }

    /// The scope's first process start (ns); 0 when it is empty.
    pub fn origin(&self) -> i64 {
        self.lives.values().map(|l| l.first_ts).min().unwrap_or(0)
    }

    /// The critical path of each trace in `traces`, step by step in time
    /// order, trace after trace: the rows `queries/critical_path.sql` gives
    /// with `trace` and the scope's `pid` for each, from `flows`
    /// (timeline_flows.sql's rows for the same scope).
    pub fn critical_path(&self, traces: &[i64], flows: &[Flow]) -> Vec<Step> {
        let mut steps = Vec::new();
        for &trace in traces {
            Walk::new(&self.lives, trace, self.scope.pid, flows).steps(&self.lives, &mut steps);
        }
        steps
    }
}

/// One trace's `steps` ([`Lifetimes::critical_path`] with that trace) as
/// the rows `queries/critical_path.sql` gives for the same trace and
/// scope, cell for cell: numbered from 1, `comm` TEXT when it is UTF-8,
/// else BLOB (as the importer stores it).
pub fn path_rows(steps: &[Step]) -> ResultSet {
    let columns = query("critical_path")
        .map(|q| q.columns.into_iter().map(|(c, _)| c).collect())
        .unwrap_or_default();
    let rows = steps.iter().zip(1..);
    let rows = rows.map(|(s, n)| {
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

/// One trace's walk: its lifetimes' children, roots and file dependencies.
struct Walk {
    /// The lifetime the walk starts in: the one that ended last.
    start: Option<i64>,
    /// Each lifetime's children, the one that ended last first (then
    /// start, pid, id, all descending, critical_path.sql's order).
    children: HashMap<i64, Vec<(i64, i64, i64, i64)>>,
    /// The scope's roots (`top`): the walk cannot go above them.
    top: BTreeSet<i64>,
    /// Each root's predecessor: the other root that ended last before it
    /// began (`after_root`).
    after_root: HashMap<i64, i64>,
    /// Each consumer's file dependencies (write_ts, read_ts, producer),
    /// distinct, the latest write first (`dep`).
    deps: HashMap<i64, Vec<(i64, i64, i64)>>,
    /// critical_path.sql's `bound`: 3 × the scope's rows + 1.
    bound: usize,
}

impl Walk {
    fn new(lives: &HashMap<i64, Life>, trace: i64, pid: Option<i64>, flows: &[Flow]) -> Self {
        let member = |id: &i64| lives.get(id).is_some_and(|l| l.trace_id == trace);
        let mut ids: Vec<i64> = lives.keys().copied().filter(member).collect();
        ids.sort_unstable();
        let life = |id: i64| &lives[&id];
        let start = ids
            .iter()
            .copied()
            .min_by_key(|&id| (std::cmp::Reverse(life(id).last_ts), life(id).first_ts, id));
        let mut children: HashMap<i64, Vec<(i64, i64, i64, i64)>> = HashMap::new();
        for &id in &ids {
            let l = life(id);
            if let Some(parent) = l.parent_id {
                children
                    .entry(parent)
                    .or_default()
                    .push((l.last_ts, l.first_ts, l.pid, id));
            }
        }
        for c in children.values_mut() {
            c.sort_unstable_by(|a, b| b.cmp(a));
        }
        // Without a pid the trace's roots; with one, its lifetimes.
        let top: Vec<i64> = ids
            .iter()
            .copied()
            .filter(|&id| match pid {
                None => life(id).parent_id.is_none(),
                Some(p) => life(id).pid == p,
            })
            .collect();
        let mut ranked = top.clone();
        ranked.sort_unstable_by_key(|&id| {
            let l = life(id);
            (l.last_ts, l.first_ts, l.pid, id)
        });
        let ends: Vec<i64> = ranked.iter().map(|&id| life(id).last_ts).collect();
        let mut after_root = HashMap::new();
        for &id in &top {
            // n: the roots that ended at or before it began.
            let n = ends.partition_point(|&e| e <= life(id).first_ts);
            let a = n.checked_sub(1).map(|i| ranked[i]);
            let prev = match a {
                Some(a) if a != id => Some(a),
                _ => n.checked_sub(2).map(|i| ranked[i]),
            };
            if let Some(prev) = prev {
                after_root.insert(id, prev);
            }
        }
        let mut seen = BTreeSet::new();
        for f in flows {
            let (c, p) = (f.consumer_process, f.producer_process);
            if c != p && member(&c) && member(&p) {
                seen.insert((c, f.write_ts, f.read_ts, p));
            }
        }
        let mut deps: HashMap<i64, Vec<(i64, i64, i64)>> = HashMap::new();
        for (c, w, r, p) in seen {
            deps.entry(c).or_default().push((w, r, p));
        }
        for d in deps.values_mut() {
            d.sort_unstable_by(|a, b| b.cmp(a));
        }
        let rows: i64 = ids.iter().map(|&id| life(id).scoped).sum();
        Walk {
            start,
            children,
            top: top.into_iter().collect(),
            after_root,
            deps,
            bound: usize::try_from(3 * rows + 1).unwrap_or(0),
        }
    }

    /// The state after `w`, if the walk goes on.
    fn next(&self, lives: &HashMap<i64, Life>, w: State) -> Option<State> {
        let p = lives.get(&w.process)?;
        // The child that ended last by `t` (back at a fork, not one that
        // ended at that very time: the one just left).
        let child = self.children.get(&w.process).and_then(|c| {
            c.iter()
                .find(|k| k.0 <= w.t && !(w.how == Some(How::Fork) && k.0 == w.t))
        });
        let (up, root) = match child {
            Some(_) => (None, None),
            None => {
                let up = p
                    .parent_id
                    .filter(|u| !self.top.contains(&w.process) && lives.contains_key(u));
                (up, self.after_root.get(&w.process).copied())
            }
        };
        // The process-tree way back and when it reaches there.
        let tree = match (child, up, root) {
            (Some(c), _, _) => Some((c.3, c.0, How::Wait)),
            (None, Some(up), _) => Some((up, p.forked(), How::Fork)),
            (None, None, Some(r)) => lives.get(&r).map(|l| (r, l.last_ts, How::After)),
            _ => None,
        };
        // The latest write the process read by `t`, when it came after the
        // tree's way back (strictly: a tie keeps the tree edge).
        let file = self
            .deps
            .get(&w.process)
            .and_then(|d| d.iter().find(|k| k.1 <= w.t))
            .filter(|d| tree.is_none_or(|(_, t, _)| d.0 > t))
            .map(|&(write_ts, _, producer)| (producer, write_ts, How::File));
        file.or(tree).map(|(process, t, how)| State {
            process,
            t,
            how: Some(how),
        })
    }

    /// Append the trace's steps to `out`.
    fn steps(&self, lives: &HashMap<i64, Life>, out: &mut Vec<Step>) {
        let Some(start) = self.start else {
            return;
        };
        let mut walk = vec![State {
            process: start,
            t: lives[&start].last_ts,
            how: None,
        }];
        while walk.len() - 1 < self.bound {
            match self.next(lives, walk[walk.len() - 1]) {
                Some(s) => walk.push(s),
                None => break,
            }
        }
        // One segment per state, the last state (the earliest time) first;
        // each cut at its process's images, one piece per command.
        for (n, s) in walk.iter().enumerate().rev() {
            let p = &lives[&s.process];
            let next = walk.get(n + 1);
            let from = match next {
                Some(x) if matches!(x.how, Some(How::Wait | How::File)) => x.t,
                _ => p.first_ts,
            };
            let via = next.and_then(|x| x.how).map_or("start", How::name);
            let mut k = 0;
            for (i, img) in p.images.iter().enumerate() {
                let ts = if img.image == 0 { p.first_ts } else { img.ts };
                let next_ts = p.images[i + 1..]
                    .iter()
                    .filter(|e| e.image > img.image)
                    .map(|e| e.ts)
                    .min();
                if next_ts.is_some_and(|x| x <= from) || !(ts < s.t || ts <= from) {
                    continue;
                }
                k += 1;
                let start_ts = if from > ts { from } else { ts };
                let end_ts = match next_ts {
                    Some(x) if x < s.t => x,
                    _ => s.t,
                };
                out.push(Step {
                    trace_id: p.trace_id,
                    process_id: s.process,
                    pid: p.pid,
                    exec_id: img.exec_id,
                    image: img.image,
                    comm: img.comm.clone(),
                    start_ts,
                    end_ts,
                    wait: match (k, next) {
                        (1, Some(x)) => start_ts - x.t,
                        _ => 0,
                    },
                    via: if k == 1 { via } else { "exec" }.to_string(),
                });
            }
        }
    }
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::LifeRow<'static>>();
    }
}
