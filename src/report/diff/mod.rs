//! `kt2sql diff`: what changed between two builds, each a trace in a
//! database. Both databases are read at once, each on its own threads
//! (`side.rs`): the commands and files gathered from `diff_paths`,
//! `diff_commands` and `diff_accesses` (`gather.rs`), the rest by the
//! queries `diff_hazards`, `build_time` and `critical_path`; every list
//! comes sorted, and the lists are walked side by side ([`crate::build::diff`]'s
//! rules: which commands are the same, what differs), so neither build is
//! held in memory. The details go to temporary files (`spill.rs`) while
//! the counts are made, then the summary is printed (one line per section)
//! and the details after it: as text (`text.rs`), or as CSV or JSON rows
//! of [`COLUMNS`].

mod gather;
mod side;
mod spill;
mod text;

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};

use crate::build::diff::{lines_diff, merge, pair, Extremes, Side, Timed};
use crate::report::{Cell, Format, Render, RowSink};
use crate::Error;

pub use side::Build;
use side::{Lane, Plan, Rows};
use spill::Spill;

/// The columns of every row of the CSV and JSON output. `part` is
/// `summary` (the counts and times, first) or `detail`; `section` is
/// `commands`, `files`, `hazards` or `time`; `change` says what happened
/// (`added`, `removed`, `changed`, `same`; `new`, `gone` for hazards;
/// `slower`, `faster` for times); `kind` what changed (`command`, `argv`,
/// `input`, `output`, `read`, a hazard kind, a time measure); `path` the
/// program, file or hazard path; `cwd`, `command` (its argv where
/// recorded, else its name) and `writes` (the files it left, one per
/// line) name a command; `old` and `new` hold the values compared (command
/// ids, counts, nanoseconds, argv).
pub const COLUMNS: [&str; 10] = [
    "part", "section", "change", "kind", "path", "cwd", "command", "writes", "old", "new",
];

/// The sections of a diff to compute and print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sections {
    /// Commands added, removed, changed.
    pub commands: bool,
    /// Inputs and outputs added and removed, and each command's reads.
    pub files: bool,
    /// Hazards new and gone.
    pub hazards: bool,
    /// Wall time, parallelism, critical path, slower and faster commands.
    pub time: bool,
}

impl Sections {
    /// Every section.
    pub const ALL: Sections = Sections {
        commands: true,
        files: true,
        hazards: true,
        time: true,
    };
}

/// Compare `old` with `new` and write the result in `format` (`None`:
/// text) to `out`; `top` is how many slower and faster commands to list.
/// Returns whether they differ.
pub fn diff(
    old: &Build,
    new: &Build,
    sections: Sections,
    top: usize,
    format: Option<Format>,
    out: &mut dyn Write,
) -> Result<bool, Error> {
    let plan = Plan {
        time: sections.time,
        commands: sections.commands || sections.files || sections.time,
        files: sections.files,
        hazards: sections.hazards,
    };
    let outcome = std::thread::scope(|scope| {
        let mut orows = side::spawn(scope, old, &plan);
        let mut nrows = side::spawn(scope, new, &plan);
        // Dropping the receivers on an error stops the threads.
        compare(&mut orows, &mut nrows, sections, top)
    })?;
    let different = outcome.different();
    let io = |source| Error::Io {
        path: "standard output".into(),
        source,
    };
    match format {
        None => text::write(out, &outcome.summary, outcome.details).map_err(io)?,
        Some(f) => write_rows(out, f, &outcome.summary, outcome.details).map_err(io)?,
    }
    Ok(different)
}

/// What a comparison found: the summary rows, and the details: commands,
/// inputs and outputs, each command's reads, hazards, times.
struct Outcome {
    summary: Vec<Vec<Cell>>,
    details: Vec<Spill>,
}

impl Outcome {
    /// Any detail, or a time measure that changed.
    fn different(&self) -> bool {
        let changed = |r: &Vec<Cell>| bytes(&r[1]) == b"time" && bytes(&r[2]) == b"changed";
        self.details.iter().any(|d| d.rows > 0) || self.summary.iter().any(changed)
    }
}

/// One command as `gather.rs` sends it.
#[derive(Clone)]
struct Cmd {
    id: i64,
    program: Cell,
    cwd: Cell,
    writes: Cell,
    reads: Vec<u8>,
    comm: Cell,
    argv: Cell,
    dur: i64,
    /// The images counted as part of it (its fork before the exec, forks
    /// that never exec'd).
    folded: Vec<i64>,
}

impl Cmd {
    fn from_row(row: Vec<Cell>) -> Cmd {
        let mut c = row.into_iter();
        let mut next = || c.next().unwrap_or(Cell::Null);
        Cmd {
            id: next().int().unwrap_or(0),
            program: text(next()),
            cwd: text(next()),
            writes: text(next()),
            reads: next().bytes().map(<[u8]>::to_vec).unwrap_or_default(),
            comm: text(next()),
            argv: next(),
            dur: {
                let _start = next();
                next().int().unwrap_or(0)
            },
            folded: next()
                .bytes()
                .map(|b| {
                    b.split(|&c| c == b',')
                        .filter_map(|i| std::str::from_utf8(i).ok()?.parse().ok())
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// Its argv, where recorded.
    fn argv(&self) -> Option<&[u8]> {
        self.argv.bytes()
    }

    /// What names it for people: its argv where recorded, else its name.
    fn command(&self) -> Cell {
        match &self.argv {
            Cell::Text(b) => match crate::json::json_str_list(b) {
                Some(args) => Cell::Text(args.join(" ").into_bytes()),
                None => Cell::Text(b.clone()),
            },
            Cell::Blob(b) => {
                let args: Vec<&[u8]> = b.split(|&c| c == 0).filter(|a| !a.is_empty()).collect();
                text(Cell::Blob(args.join(&b' ')))
            }
            _ => self.comm.clone(),
        }
    }

    /// A detail row about this command.
    fn row(
        &self,
        section: &str,
        change: &str,
        kind: &str,
        path: Cell,
        old: Cell,
        new: Cell,
    ) -> Vec<Cell> {
        vec![
            word(section),
            word(change),
            word(kind),
            path,
            self.cwd.clone(),
            self.command(),
            self.writes.clone(),
            old,
            new,
        ]
    }
}

/// A BLOB that is UTF-8 as TEXT (the queries cast paths to BLOB to sort
/// them bytewise; the output shows them as text).
fn text(c: Cell) -> Cell {
    match c {
        Cell::Blob(b) if crate::text::is_utf8(&b) => Cell::Text(b),
        other => other,
    }
}

fn word(s: &str) -> Cell {
    Cell::Text(s.as_bytes().to_vec())
}

fn bytes(c: &Cell) -> &[u8] {
    c.bytes().unwrap_or_default()
}

/// A summary row.
fn summary(section: &str, change: &str, kind: &str, old: Cell, new: Cell) -> Vec<Cell> {
    let mut r = vec![word("summary"), word(section), word(change), word(kind)];
    r.extend([Cell::Null, Cell::Null, Cell::Null, Cell::Null, old, new]);
    r
}

fn count(section: &str, change: &str, kind: &str, n: u64) -> Vec<Cell> {
    summary(section, change, kind, Cell::Null, Cell::Int(n as i64))
}

/// The counts of the commands section and the per-command file changes.
#[derive(Default)]
struct Counts {
    added: u64,
    removed: u64,
    changed: u64,
    same: u64,
    reads_changed: u64,
}

/// The commands of one identity, in start order.
struct Group {
    key: Identity,
    cmds: Vec<Cmd>,
}

/// What makes two commands the same: program, cwd, writes (NULL as
/// empty), compared bytewise as `gather.rs` sorts them.
type Identity = [Vec<u8>; 3];

fn identity(row: &[Cell]) -> Identity {
    [1, 2, 3].map(|i| bytes(&row[i]).to_vec())
}

/// The command rows of one side, grouped by identity (the rows
/// come sorted by it): one group held at a time.
struct Groups<I: Iterator<Item = Result<Vec<Cell>, Error>>> {
    rows: std::iter::Peekable<I>,
}

impl<I: Iterator<Item = Result<Vec<Cell>, Error>>> Groups<I> {
    fn new(rows: I) -> Self {
        Groups {
            rows: rows.peekable(),
        }
    }
}

impl<I: Iterator<Item = Result<Vec<Cell>, Error>>> Iterator for Groups<I> {
    type Item = Result<Group, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let first = match self.rows.next()? {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let key = identity(&first);
        let mut cmds = vec![Cmd::from_row(first)];
        while let Some(Ok(r)) = self.rows.peek() {
            if identity(r) != key {
                break;
            }
            let r = self.rows.next().unwrap().ok()?;
            cmds.push(Cmd::from_row(r));
        }
        Some(Ok(Group { key, cmds }))
    }
}

/// Where the commands section and the per-command file changes go.
struct Writer<'a> {
    s: Sections,
    n: &'a mut Counts,
    commands: &'a mut Spill,
    reads: &'a mut Spill,
}

impl Writer<'_> {
    fn push(spill: &mut Spill, row: &[Cell]) -> Result<(), Error> {
        spill.push(row).map_err(|source| Error::Io {
            path: "a temporary file".into(),
            source,
        })
    }

    /// A command of one build only.
    fn lone(&mut self, c: &Cmd, change: &str) -> Result<(), Error> {
        let (old, new) = match change {
            "removed" => (Cell::Int(c.id), Cell::Null),
            _ => (Cell::Null, Cell::Int(c.id)),
        };
        match change {
            "removed" => self.n.removed += 1,
            _ => self.n.added += 1,
        }
        if self.s.commands {
            let row = c.row("commands", change, "command", c.program.clone(), old, new);
            Self::push(self.commands, &row)?;
        }
        Ok(())
    }

    /// A command of both builds: its argv and reads compared.
    fn both(&mut self, a: &Cmd, b: &Cmd) -> Result<(), Error> {
        let (ida, idb) = (Cell::Int(a.id), Cell::Int(b.id));
        let argv = a.argv.bytes().is_some() && b.argv.bytes().is_some() && a.argv != b.argv;
        let (added, removed) = lines_diff(&a.reads, &b.reads);
        let reads = !added.is_empty() || !removed.is_empty();
        match argv || reads {
            true => self.n.changed += 1,
            false => self.n.same += 1,
        }
        if reads {
            self.n.reads_changed += 1;
        }
        if self.s.commands && (argv || reads) {
            let prog = b.program.clone();
            let row = b.row(
                "commands",
                "changed",
                "command",
                prog.clone(),
                ida.clone(),
                idb.clone(),
            );
            Self::push(self.commands, &row)?;
            if argv {
                let row = b.row(
                    "commands",
                    "changed",
                    "argv",
                    prog,
                    a.command(),
                    b.command(),
                );
                Self::push(self.commands, &row)?;
            }
        }
        if self.s.files {
            for (change, list) in [("removed", &removed), ("added", &added)] {
                for p in list.iter() {
                    let path = text(Cell::Blob(p.to_vec()));
                    let row = b.row("files", change, "read", path, ida.clone(), idb.clone());
                    Self::push(self.reads, &row)?;
                }
            }
        }
        Ok(())
    }
}

fn compare(old: &mut Rows, new: &mut Rows, s: Sections, top: usize) -> Result<Outcome, Error> {
    let spill = |r: io::Result<Spill>| {
        r.map_err(|source| Error::Io {
            path: "a temporary file".into(),
            source,
        })
    };
    let io = |source| Error::Io {
        path: "a temporary file".into(),
        source,
    };
    let (mut commands, mut files) = (spill(Spill::new())?, spill(Spill::new())?);
    let mut reads = spill(Spill::new())?;
    let (mut hazards, mut times) = (spill(Spill::new())?, spill(Spill::new())?);
    let mut out = Vec::new();

    // Time first: the build times and each critical path, small.
    let (mut old_time, mut new_time) = (Vec::new(), Vec::new());
    let (mut old_path, mut new_path) = (Vec::new(), Vec::new());
    if s.time {
        old_time = old.collect(Lane::Other)?;
        new_time = new.collect(Lane::Other)?;
        old_path = old.collect(Lane::Other)?;
        new_path = new.collect(Lane::Other)?;
    }
    // The critical path as command ids (exec_id, column 4).
    let ids = |p: &[Vec<Cell>]| -> Vec<i64> { p.iter().filter_map(|r| r[4].int()).collect() };
    let (old_ids, new_ids) = (ids(&old_path), ids(&new_path));
    let on_path: HashSet<i64> = old_ids.iter().copied().collect();
    let on_new_path: HashSet<i64> = new_ids.iter().copied().collect();
    // Old path steps -> the new command they pair with; new path steps
    // that are part of another command (a fork before its exec) -> it.
    let (mut matched, mut new_owner): (HashMap<i64, i64>, HashMap<i64, i64>) = Default::default();

    let mut n = Counts::default();
    let mut extremes = Extremes::new(top);
    let mut w = Writer {
        s,
        n: &mut n,
        commands: &mut commands,
        reads: &mut reads,
    };
    // The commands are read for the files and time sections too.
    if s.commands || s.files || s.time {
        let by_identity = |a: &Group, b: &Group| a.key.cmp(&b.key);
        merge(
            Groups::new(old.query(Lane::Commands)),
            Groups::new(new.query(Lane::Commands)),
            by_identity,
            |step| {
                let (a, b) = match step {
                    Side::Old(a) => (a.cmds, Vec::new()),
                    Side::New(b) => (Vec::new(), b.cmds),
                    Side::Both(a, b) => (a.cmds, b.cmds),
                };
                for c in &b {
                    for &f in c.folded.iter().filter(|f| on_new_path.contains(f)) {
                        new_owner.insert(f, c.id);
                    }
                }
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
                        if on_path.contains(&id) {
                            matched.insert(id, b.id);
                        }
                    }
                    if s.time {
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
        )?;
    }
    if s.commands {
        out.push(count("commands", "added", "command", n.added));
        out.push(count("commands", "removed", "command", n.removed));
        out.push(count("commands", "changed", "command", n.changed));
        out.push(count("commands", "same", "command", n.same));
    }

    if s.files {
        let (mut k_added, mut k_removed) = (HashMap::new(), HashMap::new());
        let key = |r: &Vec<Cell>| (bytes(&r[0]).to_vec(), bytes(&r[1]).to_vec());
        merge(
            old.query(Lane::Commands),
            new.query(Lane::Commands),
            |a, b| key(a).cmp(&key(b)),
            |step| {
                let (change, row, tally) = match step {
                    Side::Both(..) => return Ok(()),
                    Side::Old(a) => ("removed", a, &mut k_removed),
                    Side::New(b) => ("added", b, &mut k_added),
                };
                let kind = String::from_utf8_lossy(bytes(&row[0])).into_owned();
                *tally.entry(kind.clone()).or_insert(0u64) += 1;
                let mut r = vec![
                    word("files"),
                    word(change),
                    word(&kind),
                    text(row[1].clone()),
                ];
                r.extend([Cell::Null, Cell::Null, Cell::Null, Cell::Null, Cell::Null]);
                files.push(&r).map_err(io)
            },
        )?;
        for kind in ["input", "output"] {
            out.push(count(
                "files",
                "added",
                kind,
                k_added.get(kind).copied().unwrap_or(0),
            ));
            out.push(count(
                "files",
                "removed",
                kind,
                k_removed.get(kind).copied().unwrap_or(0),
            ));
        }
        out.push(count("files", "changed", "command", n.reads_changed));
    }

    if s.hazards {
        let (mut fresh, mut gone, mut changed) = (0, 0, 0);
        let key = |r: &Vec<Cell>| (bytes(&r[0]).to_vec(), bytes(&r[1]).to_vec());
        merge(
            old.query(Lane::Other),
            new.query(Lane::Other),
            |a, b| key(a).cmp(&key(b)),
            |step| {
                let (change, row, old_n, new_n) = match step {
                    Side::Both(a, b) if a[2] == b[2] => return Ok(()),
                    Side::Both(a, b) => {
                        changed += 1;
                        ("changed", b.clone(), a[2].clone(), b[2].clone())
                    }
                    Side::Old(a) => {
                        gone += 1;
                        ("gone", a.clone(), a[2].clone(), Cell::Null)
                    }
                    Side::New(b) => {
                        fresh += 1;
                        ("new", b.clone(), Cell::Null, b[2].clone())
                    }
                };
                let mut r = vec![
                    word("hazards"),
                    word(change),
                    text(row[0].clone()),
                    text(row[1].clone()),
                ];
                r.extend([Cell::Null, Cell::Null, Cell::Null, old_n, new_n]);
                hazards.push(&r).map_err(io)
            },
        )?;
        out.push(count("hazards", "new", "hazard", fresh));
        out.push(count("hazards", "gone", "hazard", gone));
        out.push(count("hazards", "changed", "hazard", changed));
    }

    if s.time {
        out.extend(time_summary(&old_time, &new_time, &old_path, &new_path));
        // The path as commands: a fork's step before its exec is the
        // command it became, so consecutive steps of one command are one.
        let mut mapped: Vec<Option<i64>> =
            old_ids.iter().map(|i| matched.get(i).copied()).collect();
        let mut steps: Vec<Option<i64>> = new_ids
            .iter()
            .map(|i| Some(new_owner.get(i).copied().unwrap_or(*i)))
            .collect();
        mapped.dedup_by(|x, y| x.is_some() && x == y);
        steps.dedup();
        let same_path = mapped == steps;
        out.push(summary(
            "time",
            if same_path { "same" } else { "changed" },
            "critical_path_commands",
            Cell::Int(old_ids.len() as i64),
            Cell::Int(new_ids.len() as i64),
        ));
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
                times.push(&row).map_err(io)?;
            }
        }
    }
    Ok(Outcome {
        summary: out,
        details: vec![commands, files, reads, hazards, times],
    })
}

/// The time measures of both builds: `build_time`'s row and the length of
/// the critical path (its last step's end less its first step's start).
fn time_summary(
    old: &[Vec<Cell>],
    new: &[Vec<Cell>],
    old_path: &[Vec<Cell>],
    new_path: &[Vec<Cell>],
) -> Vec<Vec<Cell>> {
    let col = |rows: &[Vec<Cell>], i: usize| rows.first().map_or(Cell::Null, |r| r[i].clone());
    let length = |p: &[Vec<Cell>]| match (
        p.first().and_then(|r| r[7].int()),
        p.last().and_then(|r| r[8].int()),
    ) {
        (Some(s), Some(e)) => Cell::Int(e - s),
        _ => Cell::Null,
    };
    // build_time: wall 5, process_time 6, avg_parallel 7, peak_parallel 8.
    let mut rows = Vec::new();
    for (kind, i) in [
        ("wall", 5),
        ("process_time", 6),
        ("avg_parallel", 7),
        ("peak_parallel", 8),
    ] {
        let (a, b) = (col(old, i), col(new, i));
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

/// The summary rows, then every detail row, in `format`.
fn write_rows(
    out: &mut dyn Write,
    format: Format,
    summary: &[Vec<Cell>],
    details: Vec<Spill>,
) -> io::Result<()> {
    let mut r = Render::new(out, format);
    let columns: Vec<String> = COLUMNS.iter().map(|c| c.to_string()).collect();
    r.start(&columns)?;
    for row in summary {
        r.row(row)?;
    }
    let mut full = Vec::with_capacity(COLUMNS.len());
    for d in details {
        d.replay(|row| {
            full.clear();
            full.push(word("detail"));
            full.extend_from_slice(row);
            r.row(&full)
        })?;
    }
    r.end()
}
