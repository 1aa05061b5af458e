//! The commands of a diff: a command as a side sends it ([`Cmd`]), the
//! commands of one identity taken together ([`Groups`]), and what the
//! comparison of two commands writes: the commands section's detail rows
//! and counts, and each command's reads ([`Writer`]).

use crate::build::diff::lines_diff;
use crate::report::Cell;
use crate::Error;

use super::spill::Spill;
use super::Sections;

/// One command as `gather.rs` sends it, its paths as the output shows
/// them ([`text`]).
#[derive(Clone)]
pub struct Cmd {
    /// Its command_id.
    pub id: i64,
    /// The program it ran, rewritten by `--map`; NULL when unknown.
    pub program: Cell,
    /// Where it ran, rewritten; NULL when unknown.
    pub cwd: Cell,
    /// The paths it left, one per line, sorted bytewise; NULL for none.
    pub writes: Cell,
    /// The paths it read, one per line, sorted bytewise.
    pub reads: Vec<u8>,
    /// Its name.
    pub comm: Cell,
    /// Its argv as stored (NULL when not recorded).
    pub argv: Cell,
    /// How long it ran (ns).
    pub dur: i64,
    /// The images counted as part of it (its fork before the exec, forks
    /// that never exec'd).
    pub folded: Vec<i64>,
}

impl Cmd {
    /// Its argv, where recorded.
    pub(super) fn argv(&self) -> Option<&[u8]> {
        self.argv.bytes()
    }

    /// What names it for people: its argv where recorded, else its name.
    pub(super) fn command(&self) -> Cell {
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
    pub(super) fn row(
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
pub(super) fn text(c: Cell) -> Cell {
    match c {
        Cell::Blob(b) if crate::text::is_utf8(&b) => Cell::Text(b),
        other => other,
    }
}

/// A word of the output (`added`, `commands`) as TEXT.
pub(super) fn word(s: &str) -> Cell {
    Cell::Text(s.as_bytes().to_vec())
}

/// The bytes of a TEXT or BLOB; empty for anything else.
pub(super) fn bytes(c: &Cell) -> &[u8] {
    c.bytes().unwrap_or_default()
}

/// The counts of the commands section and the per-command file changes.
#[derive(Default)]
pub(super) struct Counts {
    pub added: u64,
    pub removed: u64,
    pub changed: u64,
    pub same: u64,
    pub reads_changed: u64,
    /// Commands of each build whose argv was recorded.
    pub old_argv: u64,
    pub new_argv: u64,
}

/// The commands of one identity, in start order.
pub(super) struct Group {
    pub key: Identity,
    pub cmds: Vec<Cmd>,
}

/// What makes two commands the same: program, cwd, writes (NULL as
/// empty), compared bytewise as `gather.rs` sorts them.
pub(super) type Identity = [Vec<u8>; 3];

fn identity(c: &Cmd) -> Identity {
    [&c.program, &c.cwd, &c.writes].map(|v| bytes(v).to_vec())
}

/// The commands of one side, grouped by identity (they come sorted by
/// it): one group held at a time.
pub(super) struct Groups<I: Iterator<Item = Result<Cmd, Error>>> {
    rows: std::iter::Peekable<I>,
}

impl<I: Iterator<Item = Result<Cmd, Error>>> Groups<I> {
    pub(super) fn new(rows: I) -> Self {
        Groups {
            rows: rows.peekable(),
        }
    }
}

impl<I: Iterator<Item = Result<Cmd, Error>>> Iterator for Groups<I> {
    type Item = Result<Group, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let first = match self.rows.next()? {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let key = identity(&first);
        let mut cmds = vec![first];
        while let Some(Ok(r)) = self.rows.peek() {
            if identity(r) != key {
                break;
            }
            cmds.push(self.rows.next().unwrap().ok()?);
        }
        Some(Ok(Group { key, cmds }))
    }
}

/// Where the commands section and the per-command file changes go.
pub(super) struct Writer<'a> {
    pub s: Sections,
    pub n: &'a mut Counts,
    pub commands: &'a mut Spill,
    pub reads: &'a mut Spill,
}

impl Writer<'_> {
    fn push(spill: &mut Spill, row: &[Cell]) -> Result<(), Error> {
        spill.push(row).map_err(|source| Error::Io {
            path: "a temporary file".into(),
            source,
        })
    }

    /// A command of one build only.
    pub(super) fn lone(&mut self, c: &Cmd, change: &str) -> Result<(), Error> {
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
    pub(super) fn both(&mut self, a: &Cmd, b: &Cmd) -> Result<(), Error> {
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
