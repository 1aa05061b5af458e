//! The comparison itself: both sides' lists walked side by side, each
//! read as its own typed row ([`super::side`]), the details spilled to
//! temporary files and the summary rows counted, section by section:
//! commands (with the per-command reads), files, hazards, time.

use std::collections::{HashMap, HashSet};
use std::io;

use crate::build::diff::{merge, pair, Extremes, Side, Timed};
use crate::report::Cell;
use crate::Error;

use super::commands::{bytes, text, word, Cmd, Counts, Group, Groups, Writer};
use super::gather::File;
use super::side::{BuildTime, Hazard, PathStep, Rows};
use super::spill::Spill;
use super::{Outcome, Sections};

/// A summary row.
fn summary(section: &str, change: &str, kind: &str, old: Cell, new: Cell) -> Vec<Cell> {
    let mut r = vec![word("summary"), word(section), word(change), word(kind)];
    r.extend([Cell::Null, Cell::Null, Cell::Null, Cell::Null, old, new]);
    r
}

fn count(section: &str, change: &str, kind: &str, n: u64) -> Vec<Cell> {
    summary(section, change, kind, Cell::Null, Cell::Int(n as i64))
}

/// An error writing a temporary file.
fn io_err(source: io::Error) -> Error {
    Error::Io {
        path: "a temporary file".into(),
        source,
    }
}

/// Both sides' critical paths, as command ids, and what the commands
/// section learns of them: which new command each old step is, and which
/// command a new step (a fork before its exec) is part of.
#[derive(Default)]
struct Paths {
    old_ids: Vec<i64>,
    new_ids: Vec<i64>,
    on_path: HashSet<i64>,
    on_new_path: HashSet<i64>,
    matched: HashMap<i64, i64>,
    new_owner: HashMap<i64, i64>,
}

impl Paths {
    fn new(old: &[PathStep], new: &[PathStep]) -> Paths {
        let ids = |p: &[PathStep]| -> Vec<i64> { p.iter().filter_map(|r| r.exec_id).collect() };
        let (old_ids, new_ids) = (ids(old), ids(new));
        Paths {
            on_path: old_ids.iter().copied().collect(),
            on_new_path: new_ids.iter().copied().collect(),
            old_ids,
            new_ids,
            ..Paths::default()
        }
    }

    /// Whether the two paths went through the same commands: a fork's
    /// step before its exec is the command it became, so consecutive
    /// steps of one command are one.
    fn same_commands(&self) -> bool {
        let mut mapped: Vec<Option<i64>> = self
            .old_ids
            .iter()
            .map(|i| self.matched.get(i).copied())
            .collect();
        let mut steps: Vec<Option<i64>> = self
            .new_ids
            .iter()
            .map(|i| Some(self.new_owner.get(i).copied().unwrap_or(*i)))
            .collect();
        mapped.dedup_by(|x, y| x.is_some() && x == y);
        steps.dedup();
        mapped == steps
    }
}

/// Compare the sides and count: the summary rows and the details.
pub(super) fn compare(
    old: &mut Rows,
    new: &mut Rows,
    s: Sections,
    top: usize,
) -> Result<Outcome, Error> {
    let spill = || Spill::new().map_err(io_err);
    let (mut commands, mut files, mut reads) = (spill()?, spill()?, spill()?);
    let (mut hazards, mut times) = (spill()?, spill()?);
    let mut out = Vec::new();

    // Time first: the build times and each critical path, small.
    let (mut old_time, mut new_time) = (Vec::new(), Vec::new());
    let (mut old_path, mut new_path) = (Vec::new(), Vec::new());
    if s.time {
        old_time = old.collect::<BuildTime>()?;
        new_time = new.collect::<BuildTime>()?;
        old_path = old.collect::<PathStep>()?;
        new_path = new.collect::<PathStep>()?;
    }
    let mut paths = Paths::new(&old_path, &new_path);

    let mut n = Counts::default();
    let mut extremes = Extremes::new(top);
    // The commands are read for the files and time sections too.
    if s.commands || s.files || s.time {
        let mut w = Writer {
            s,
            n: &mut n,
            commands: &mut commands,
            reads: &mut reads,
        };
        compare_commands(old, new, &mut w, &mut paths, &mut extremes)?;
    }
    if s.commands {
        out.push(count("commands", "added", "command", n.added));
        out.push(count("commands", "removed", "command", n.removed));
        out.push(count("commands", "changed", "command", n.changed));
        out.push(count("commands", "same", "command", n.same));
        out.push(summary(
            "commands",
            "recorded",
            "argv",
            Cell::Int(n.old_argv as i64),
            Cell::Int(n.new_argv as i64),
        ));
    }
    if s.files {
        out.extend(compare_files(old, new, &mut files)?);
        out.push(count("files", "changed", "command", n.reads_changed));
    }
    if s.hazards {
        out.extend(compare_hazards(old, new, &mut hazards)?);
    }
    if s.time {
        out.extend(time_summary(&old_time, &new_time, &old_path, &new_path));
        out.push(summary(
            "time",
            if paths.same_commands() {
                "same"
            } else {
                "changed"
            },
            "critical_path_commands",
            Cell::Int(paths.old_ids.len() as i64),
            Cell::Int(paths.new_ids.len() as i64),
        ));
        write_extremes(&extremes, &mut times)?;
    }
    Ok(Outcome {
        summary: out,
        details: vec![commands, files, reads, hazards, times],
    })
}

/// Walk both sides' commands, group by identity: each pair compared,
/// each lone one added or removed; the paired ones' steps of the critical
/// path matched and their durations kept for the time section.
fn compare_commands(
    old: &mut Rows,
    new: &mut Rows,
    w: &mut Writer<'_>,
    paths: &mut Paths,
    extremes: &mut Extremes<Cmd>,
) -> Result<(), Error> {
    let by_identity = |a: &Group, b: &Group| a.key.cmp(&b.key);
    merge(
        Groups::new(old.list::<Cmd>()),
        Groups::new(new.list::<Cmd>()),
        by_identity,
        |step| {
            let (a, b) = match step {
                Side::Old(a) => (a.cmds, Vec::new()),
                Side::New(b) => (Vec::new(), b.cmds),
                Side::Both(a, b) => (a.cmds, b.cmds),
            };
            for c in &b {
                for &f in c.folded.iter().filter(|f| paths.on_new_path.contains(f)) {
                    paths.new_owner.insert(f, c.id);
                }
            }
            w.n.old_argv += a.iter().filter(|c| c.argv().is_some()).count() as u64;
            w.n.new_argv += b.iter().filter(|c| c.argv().is_some()).count() as u64;
            let (pairs, removed, added) = pair(&a, &b, Cmd::argv);
            for i in removed {
                w.lone(&a[i], "removed")?;
            }
            for j in added {
                w.lone(&b[j], "added")?;
            }
            for (i, j) in pairs {
                let (a, b) = (&a[i], &b[j]);
                w.both(a, b)?;
                for &id in std::iter::once(&a.id).chain(&a.folded) {
                    if paths.on_path.contains(&id) {
                        paths.matched.insert(id, b.id);
                    }
                }
                if w.s.time {
                    let what = b.clone();
                    extremes.add(Timed {
                        old: a.dur,
                        new: b.dur,
                        what,
                    });
                }
            }
            Ok(())
        },
    )
}

/// The inputs and outputs of one build only, into `files`; their counts.
fn compare_files(
    old: &mut Rows,
    new: &mut Rows,
    files: &mut Spill,
) -> Result<Vec<Vec<Cell>>, Error> {
    let (mut k_added, mut k_removed) = (HashMap::new(), HashMap::new());
    let key = |f: &File| (f.kind.as_bytes().to_vec(), f.path.clone());
    merge(
        old.list::<File>(),
        new.list::<File>(),
        |a, b| key(a).cmp(&key(b)),
        |step| {
            let (change, file, tally) = match step {
                Side::Both(..) => return Ok(()),
                Side::Old(a) => ("removed", a, &mut k_removed),
                Side::New(b) => ("added", b, &mut k_added),
            };
            *tally.entry(file.kind).or_insert(0u64) += 1;
            let mut r = vec![
                word("files"),
                word(change),
                word(file.kind),
                text(Cell::Blob(file.path)),
            ];
            r.extend([Cell::Null, Cell::Null, Cell::Null, Cell::Null, Cell::Null]);
            files.push(&r).map_err(io_err)
        },
    )?;
    let mut out = Vec::new();
    for kind in ["input", "output"] {
        let n = |tally: &HashMap<&str, u64>| tally.get(kind).copied().unwrap_or(0);
        out.push(count("files", "added", kind, n(&k_added)));
        out.push(count("files", "removed", kind, n(&k_removed)));
    }
    Ok(out)
}

/// The hazards new, gone or changed in number, into `hazards`; their
/// counts.
fn compare_hazards(
    old: &mut Rows,
    new: &mut Rows,
    hazards: &mut Spill,
) -> Result<Vec<Vec<Cell>>, Error> {
    let (mut fresh, mut gone, mut changed) = (0, 0, 0);
    let key = |h: &Hazard| (bytes(&h.kind).to_vec(), bytes(&h.path).to_vec());
    merge(
        old.list::<Hazard>(),
        new.list::<Hazard>(),
        |a, b| key(a).cmp(&key(b)),
        |step| {
            let (change, h, old_n, new_n) = match step {
                Side::Both(a, b) if a.hazards == b.hazards => return Ok(()),
                Side::Both(a, b) => {
                    changed += 1;
                    let n = b.hazards.clone();
                    ("changed", b, a.hazards, n)
                }
                Side::Old(a) => {
                    gone += 1;
                    let n = a.hazards.clone();
                    ("gone", a, n, Cell::Null)
                }
                Side::New(b) => {
                    fresh += 1;
                    let n = b.hazards.clone();
                    ("new", b, Cell::Null, n)
                }
            };
            let mut r = vec![word("hazards"), word(change), text(h.kind), text(h.path)];
            r.extend([Cell::Null, Cell::Null, Cell::Null, old_n, new_n]);
            hazards.push(&r).map_err(io_err)
        },
    )?;
    Ok(vec![
        count("hazards", "new", "hazard", fresh),
        count("hazards", "gone", "hazard", gone),
        count("hazards", "changed", "hazard", changed),
    ])
}

/// The slower and faster commands, into `times`.
fn write_extremes(extremes: &Extremes<Cmd>, times: &mut Spill) -> Result<(), Error> {
    let lists = [
        ("slower", "absolute", &extremes.slower),
        ("slower", "relative", &extremes.slower_rel),
        ("faster", "absolute", &extremes.faster),
        ("faster", "relative", &extremes.faster_rel),
    ];
    for (change, kind, list) in lists {
        for t in list.iter() {
            let c = &t.what;
            let row = c.row(
                "time",
                change,
                kind,
                c.program.clone(),
                Cell::Int(t.old),
                Cell::Int(t.new),
            );
            times.push(&row).map_err(io_err)?;
        }
    }
    Ok(())
}

/// The time measures of both builds: `build_time`'s row and the length of
/// the critical path (its last step's end less its first step's start).
fn time_summary(
    old: &[BuildTime],
    new: &[BuildTime],
    old_path: &[PathStep],
    new_path: &[PathStep],
) -> Vec<Vec<Cell>> {
    let length = |p: &[PathStep]| match (
        p.first().and_then(|r| r.start_ts),
        p.last().and_then(|r| r.end_ts),
    ) {
        (Some(s), Some(e)) => Cell::Int(e - s),
        _ => Cell::Null,
    };
    type Measure = fn(&BuildTime) -> &Cell;
    let measures: [(&str, Measure); 4] = [
        ("wall", |t| &t.wall),
        ("process_time", |t| &t.process_time),
        ("avg_parallel", |t| &t.avg_parallel),
        ("peak_parallel", |t| &t.peak_parallel),
    ];
    let mut rows = Vec::new();
    for (kind, measure) in measures {
        let of = |t: &[BuildTime]| t.first().map_or(Cell::Null, |r| measure(r).clone());
        let (a, b) = (of(old), of(new));
        rows.push(summary(
            "time",
            if a == b { "same" } else { "changed" },
            kind,
            a,
            b,
        ));
    }
    let (a, b) = (length(old_path), length(new_path));
    rows.push(summary(
        "time",
        if a == b { "same" } else { "changed" },
        "critical_path",
        a,
        b,
    ));
    rows
}
