//! One build of a diff, read on two threads of its own (each with its own
//! connection): one gathers the commands and files (`gather.rs`), whose
//! rows are many, the other runs the time and hazard queries, whose work
//! is long but whose rows are few, so that both run at once. Each thread
//! makes its lists in a fixed order and hands their rows over one by one
//! through a bounded channel.

use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use crate::report::{self, Cell};
use crate::Error;

/// Rows in flight per side.
const IN_FLIGHT: usize = 4096;

/// One side of a diff: a database, the trace in it, and how its paths are
/// rewritten (`:map`, a JSON array of [from, to]; `None` for none).
#[derive(Debug, Clone)]
pub struct Build {
    /// The database.
    pub db: PathBuf,
    /// The trace compared.
    pub trace: i64,
    /// The `:map` parameter.
    pub map: Option<String>,
}

/// What a side thread sends: rows of the current query, its end, or why
/// it stopped.
pub(super) enum Msg {
    Row(Vec<Cell>),
    End,
    Failed(Error),
}

/// The queries run on each side, in this order, each only when asked for.
pub struct Plan {
    /// `build-time` then `critical-path`.
    pub time: bool,
    /// The commands (`gather.rs`).
    pub commands: bool,
    /// The inputs and outputs, gathered with the commands.
    pub files: bool,
    /// `diff-hazards`.
    pub hazards: bool,
}

/// The two threads of a side.
#[derive(Debug, Clone, Copy)]
pub enum Lane {
    /// The commands, then the inputs and outputs (`gather.rs`).
    Commands = 0,
    /// `build-time` and `critical-path`, then `diff-hazards`.
    Other = 1,
}

impl Plan {
    /// The queries of the `Other` lane, in order, each with whether it
    /// takes `:map`.
    fn queries(&self) -> Vec<(&'static str, bool)> {
        let mut q = Vec::new();
        if self.time {
            q.push(("build-time", false));
            q.push(("critical-path", false));
        }
        if self.hazards {
            q.push(("diff-hazards", true));
        }
        q
    }
}

/// Start reading `build` as `plan` says, on two threads of `scope`.
pub fn spawn<'s>(scope: &'s std::thread::Scope<'s, '_>, build: &'s Build, plan: &'s Plan) -> Rows {
    let lanes = [Lane::Commands, Lane::Other].map(|lane| {
        let (tx, rx) = sync_channel(IN_FLIGHT);
        scope.spawn(move || match lane {
            Lane::Commands => gathered(build, plan, tx),
            Lane::Other => produce(build, plan.queries(), tx),
        });
        rx
    });
    Rows {
        lanes,
        db: build.db.clone(),
    }
}

/// Gather the commands (and files) of `build` on this thread into `tx`.
/// Ends quietly when the receiver is gone.
fn gathered(build: &Build, plan: &Plan, tx: SyncSender<Msg>) {
    if !plan.commands {
        return;
    }
    let gone = || Error::Refused {
        path: build.db.clone(),
        reason: "the diff stopped reading".into(),
    };
    let run = || -> Result<(), Error> {
        let db = report::open(&build.db)?;
        super::gather::run(
            &db,
            build,
            plan.files,
            &mut |row| tx.send(Msg::Row(row)).map_err(|_| gone()),
            &mut || tx.send(Msg::End).map_err(|_| gone()),
        )
    };
    if let Err(e) = run() {
        let _ = tx.send(Msg::Failed(e));
    }
}

/// Read `build` on this thread: each of `queries` in turn into `tx`.
/// Ends quietly when the receiver is gone.
fn produce(build: &Build, queries: Vec<(&'static str, bool)>, tx: SyncSender<Msg>) {
    if queries.is_empty() {
        return;
    }
    let run = || -> Result<(), Error> {
        let db = report::open(&build.db)?;
        for (name, mapped) in queries {
            let mut params = vec![("trace", Cell::Int(build.trace))];
            if mapped {
                let map = build.map.clone().map(String::into_bytes);
                params.push(("map", map.map_or(Cell::Null, Cell::Text)));
            }
            let gone = || Error::Refused {
                path: build.db.clone(),
                reason: "the diff stopped reading".into(),
            };
            report::each(&db, name, &params, |row| {
                tx.send(Msg::Row(row.to_vec())).map_err(|_| gone())
            })?;
            tx.send(Msg::End).map_err(|_| gone())?;
        }
        Ok(())
    };
    if let Err(e) = run() {
        let _ = tx.send(Msg::Failed(e));
    }
}

/// The receiving end of a side: per lane, the rows of one query after
/// another.
pub struct Rows {
    lanes: [Receiver<Msg>; 2],
    db: PathBuf,
}

impl Rows {
    /// The rows of the next query of `lane`, up to its end.
    pub fn query(&mut self, lane: Lane) -> Query<'_> {
        Query {
            rx: &self.lanes[lane as usize],
            db: &self.db,
            done: false,
        }
    }

    /// Every row of the next query of `lane`, collected (the small ones:
    /// build time, the critical path).
    pub fn collect(&mut self, lane: Lane) -> Result<Vec<Vec<Cell>>, Error> {
        self.query(lane).collect()
    }
}

/// The rows of one query of a side, as an iterator.
pub struct Query<'r> {
    rx: &'r Receiver<Msg>,
    db: &'r PathBuf,
    done: bool,
}

impl Iterator for Query<'_> {
    type Item = Result<Vec<Cell>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.rx.recv() {
            Ok(Msg::Row(r)) => Some(Ok(r)),
            Ok(Msg::End) => {
                self.done = true;
                None
            }
            Ok(Msg::Failed(e)) => {
                self.done = true;
                Some(Err(e))
            }
            Err(_) => {
                self.done = true;
                Some(Err(Error::Refused {
                    path: self.db.clone(),
                    reason: "the reading thread ended early".into(),
                }))
            }
        }
    }
}
