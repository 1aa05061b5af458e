//! One build of a diff, read on two threads of its own (each with its own
//! connection): one gathers the commands and files (`gather.rs`), whose
//! rows are many, the other runs the time and hazard queries, whose work
//! is long but whose rows are few, so that both run at once. Each thread
//! makes its lists in a fixed order and hands their rows over one by one
//! through a bounded channel, each row typed by its list ([`Row`]): the
//! comparison asks for a list by its row type, and a row of another list
//! where it expected that one is an error, never a row misread.

use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use super::commands::Cmd;
use super::gather::File;
use crate::report::row::typed_row;
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

/// What a side thread sends: a row of the current list, its end, or why
/// it stopped.
pub(super) enum Msg {
    Row(Row),
    End,
    Failed(Error),
}

/// One row of one of a side's lists, typed by the list it belongs to.
pub(super) enum Row {
    /// A command (`gather.rs`).
    Command(Cmd),
    /// An input or output (`gather.rs`).
    File(File),
    /// `build_time`'s row.
    Time(BuildTime),
    /// A step of `critical_path`.
    Step(PathStep),
    /// A row of `diff_hazards`.
    Hazard(Hazard),
}

/// The rows of one list of a side: which lane brings it, and how it is
/// told from the others.
pub(super) trait Listed: Sized {
    /// The list, for errors.
    const NAME: &'static str;
    /// The thread that reads it.
    const LANE: Lane;
    /// The row, if it is one of this list's.
    fn of(row: Row) -> Option<Self>;
}

/// `Listed` for a row type and its variant of [`Row`].
macro_rules! listed {
    ($($t:ty, $variant:ident, $name:literal, $lane:ident;)*) => {$(
        impl Listed for $t {
            const NAME: &'static str = $name;
            const LANE: Lane = Lane::$lane;
            fn of(row: Row) -> Option<Self> {
                match row {
                    Row::$variant(r) => Some(r),
                    _ => None,
                }
            }
        }
    )*};
}

listed! {
    Cmd, Command, "commands", Commands;
    File, File, "inputs and outputs", Commands;
    BuildTime, Time, "build_time", Other;
    PathStep, Step, "critical_path", Other;
    Hazard, Hazard, "diff_hazards", Other;
}

typed_row! {
    /// The row of `queries/build_time.sql`: the time measures compared.
    pub struct BuildTime from "build_time" {
        pub wall: Cell,
        pub process_time: Cell,
        pub avg_parallel: Cell,
        pub peak_parallel: Cell,
    }
}

typed_row! {
    /// A step of `queries/critical_path.sql`.
    pub struct PathStep from "critical_path" {
        pub exec_id: Option<i64>,
        pub start_ts: Option<i64>,
        pub end_ts: Option<i64>,
    }
}

typed_row! {
    /// A row of `queries/diff_hazards.sql`: how many hazards of a kind
    /// a path has.
    pub struct Hazard from "diff_hazards" {
        pub kind: Cell,
        pub path: Cell,
        pub hazards: Cell,
    }
}

/// Which lists each side reads, each only when asked for.
pub struct Plan {
    /// `build_time` then `critical_path`.
    pub time: bool,
    /// The commands (`gather.rs`).
    pub commands: bool,
    /// The inputs and outputs, gathered with the commands.
    pub files: bool,
    /// `diff_hazards`.
    pub hazards: bool,
}

/// The two threads of a side.
#[derive(Debug, Clone, Copy)]
pub enum Lane {
    /// The commands, then the inputs and outputs (`gather.rs`).
    Commands = 0,
    /// `build_time` and `critical_path`, then `diff_hazards`.
    Other = 1,
}

/// Start reading `build` as `plan` says, on two threads of `scope`.
pub fn spawn<'s>(scope: &'s std::thread::Scope<'s, '_>, build: &'s Build, plan: &'s Plan) -> Rows {
    let lanes = [Lane::Commands, Lane::Other].map(|lane| {
        let (tx, rx) = sync_channel(IN_FLIGHT);
        scope.spawn(move || match lane {
            Lane::Commands => gathered(build, plan, tx),
            Lane::Other => produce(build, plan, tx),
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

/// Read `build` on this thread: the time lists, then the hazards, as
/// `plan` asks, into `tx`. Ends quietly when the receiver is gone.
fn produce(build: &Build, plan: &Plan, tx: SyncSender<Msg>) {
    if !plan.time && !plan.hazards {
        return;
    }
    let gone = || Error::Refused {
        path: build.db.clone(),
        reason: "the diff stopped reading".into(),
    };
    let send = |row| tx.send(Msg::Row(row)).map_err(|_| gone());
    let end = || tx.send(Msg::End).map_err(|_| gone());
    let run = || -> Result<(), Error> {
        let db = report::open(&build.db)?;
        let trace = [("trace", Cell::Int(build.trace))];
        if plan.time {
            report::each_as::<BuildTime>(&db, "build_time", &trace, |r| send(Row::Time(r)))?;
            end()?;
            report::each_as::<PathStep>(&db, "critical_path", &trace, |r| send(Row::Step(r)))?;
            end()?;
        }
        if plan.hazards {
            let map = build.map.clone().map(String::into_bytes);
            let params = [
                trace[0].clone(),
                ("map", map.map_or(Cell::Null, Cell::Text)),
            ];
            report::each_as::<Hazard>(&db, "diff_hazards", &params, |r| send(Row::Hazard(r)))?;
            end()?;
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
    /// The rows of the next list of `T`'s lane, up to its end; a row of
    /// another list there is an error (the lists are asked for in the
    /// order the lane reads them).
    pub fn list<T: Listed>(&mut self) -> List<'_, T> {
        List {
            rx: &self.lanes[T::LANE as usize],
            db: &self.db,
            done: false,
            row: PhantomData,
        }
    }

    /// Every row of the next list of `T`'s lane, collected (the small
    /// ones: build time, the critical path).
    pub fn collect<T: Listed>(&mut self) -> Result<Vec<T>, Error> {
        self.list::<T>().collect()
    }
}

/// The rows of one list of a side, as an iterator.
pub struct List<'r, T> {
    rx: &'r Receiver<Msg>,
    db: &'r PathBuf,
    done: bool,
    row: PhantomData<T>,
}

impl<T: Listed> Iterator for List<'_, T> {
    type Item = Result<T, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let stop = |reason: String| Error::Refused {
            path: self.db.clone(),
            reason,
        };
        let got = match self.rx.recv() {
            Ok(Msg::Row(r)) => match T::of(r) {
                Some(r) => return Some(Ok(r)),
                None => stop(format!(
                    "the diff read another list where it expected {}",
                    T::NAME
                )),
            },
            Ok(Msg::End) => {
                self.done = true;
                return None;
            }
            Ok(Msg::Failed(e)) => e,
            Err(_) => stop("the reading thread ended early".into()),
        };
        self.done = true;
        Some(Err(got))
    }
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::BuildTime>();
        check::<super::PathStep>();
        check::<super::Hazard>();
    }
}

#[cfg(test)]
mod list_tests {
    use super::*;

    #[test]
    fn a_row_of_another_list_is_an_error_not_a_misread() {
        let (tx, rx) = sync_channel(4);
        let (_unused, other) = sync_channel(1);
        let time = BuildTime {
            wall: Cell::Int(5),
            process_time: Cell::Int(9),
            avg_parallel: Cell::Real(1.8),
            peak_parallel: Cell::Int(2),
        };
        tx.send(Msg::Row(Row::Time(time))).unwrap();
        tx.send(Msg::End).unwrap();
        let mut rows = Rows {
            lanes: [other, rx],
            db: "old.db".into(),
        };
        let got = rows.collect::<Hazard>().err().expect("a build_time row");
        assert!(
            got.to_string()
                .contains("another list where it expected diff_hazards"),
            "{got}"
        );
    }
}
