//! One build of a diff, read on its own thread: the database opened for
//! reading, the queries of the sections asked for run on it in a fixed
//! order, and their rows handed over one by one through a bounded channel,
//! so that both databases are read at once and neither result is held.

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
    /// `diff-commands`.
    pub commands: bool,
    /// `diff-files`.
    pub files: bool,
    /// `diff-hazards`.
    pub hazards: bool,
}

impl Plan {
    fn queries(&self) -> Vec<(&'static str, bool)> {
        let mut q = Vec::new();
        if self.time {
            q.push(("build-time", false));
            q.push(("critical-path", false));
        }
        if self.commands {
            q.push(("diff-commands", true));
        }
        if self.files {
            q.push(("diff-files", true));
        }
        if self.hazards {
            q.push(("diff-hazards", true));
        }
        q
    }
}

/// Read `build` on this thread: each query of `plan` in turn into `tx`.
/// Ends quietly when the receiver is gone.
pub fn produce(build: &Build, plan: &Plan, tx: SyncSender<Msg>) {
    let run = || -> Result<(), Error> {
        let db = report::open(&build.db)?;
        for (name, mapped) in plan.queries() {
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

/// The receiving end of a side: the rows of one query after another.
pub struct Rows {
    rx: Receiver<Msg>,
    db: PathBuf,
}

/// A channel for one side: its sender for [`produce`], its [`Rows`].
pub fn channel(build: &Build) -> (SyncSender<Msg>, Rows) {
    let (tx, rx) = sync_channel(IN_FLIGHT);
    let db = build.db.clone();
    (tx, Rows { rx, db })
}

impl Rows {
    /// The rows of the next query, up to its end.
    pub fn query(&mut self) -> Query<'_> {
        Query {
            rows: self,
            done: false,
        }
    }

    /// Every row of the next query, collected (the small ones: build time,
    /// the critical path).
    pub fn collect(&mut self) -> Result<Vec<Vec<Cell>>, Error> {
        self.query().collect()
    }
}

/// The rows of one query of a side, as an iterator.
pub struct Query<'r> {
    rows: &'r mut Rows,
    done: bool,
}

impl Iterator for Query<'_> {
    type Item = Result<Vec<Cell>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.rows.rx.recv() {
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
                    path: self.rows.db.clone(),
                    reason: "the reading thread ended early".into(),
                }))
            }
        }
    }
}
