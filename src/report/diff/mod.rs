//! `kt2sql diff`: what changed between two builds, each a trace in a
//! database. Both databases are read at once, each on its own threads
//! (`side.rs`): the commands and files gathered from `diff_paths`,
//! `diff_commands` and `diff_accesses` (`gather.rs`), the rest by the
//! queries `diff_hazards`, `build_time` and `critical_path`, each list's
//! rows typed by the list; every list comes sorted, and the lists are
//! walked side by side (`compare.rs`, by [`crate::build::diff`]'s rules:
//! which commands are the same, what differs; `commands.rs`: what two
//! commands' comparison writes), so neither build is held in memory. The
//! details go to temporary files (`spill.rs`) while the counts are made,
//! then the summary is printed (one line per section) and the details
//! after it: as text (`text.rs`), or as CSV or JSON rows of [`COLUMNS`].

mod commands;
mod compare;
mod gather;
mod side;
mod spill;
mod text;

use std::io::{self, Write};

use crate::report::{Cell, Format, Render, RowSink};
use crate::Error;

use crate::report::row::{typed_row, RowReader};
use commands::word;
use compare::compare;
pub use side::Build;
use side::Plan;
use spill::Spill;

/// The columns of every row of the CSV and JSON output. `part` is
/// `summary` (the counts and times, first) or `detail`; `section` is
/// `commands`, `files`, `hazards` or `time`; `change` says what happened
/// (`added`, `removed`, `changed`, `same`; `new`, `gone` for hazards;
/// `slower`, `faster` for times; `recorded` for the summary row counting
/// each build's commands whose argv was recorded); `kind` what changed (`command`, `argv`,
/// `input`, `output`, `read`, a hazard kind, a time measure); `path` the
/// program, file or hazard path; `cwd`, `command` (its argv where
/// recorded, else its name) and `writes` (the files it left, one per
/// line) name a command; `old` and `new` hold the values compared (command
/// ids, counts, nanoseconds, argv).
pub const COLUMNS: [&str; 10] = [
    "part", "section", "change", "kind", "path", "cwd", "command", "writes", "old", "new",
];

typed_row! {
    /// A row of the output, read by column name ([`COLUMNS`]).
    struct Line {
        section: String,
        change: String,
        kind: String,
        path: String,
        cwd: Cell,
        command: String,
        writes: Option<Vec<u8>>,
        old: Cell,
        new: Cell,
    }
}

impl Line {
    /// Where a summary row's columns are: [`COLUMNS`].
    fn summary() -> RowReader<Line> {
        RowReader::new(&COLUMNS, "the diff's summary").expect("COLUMNS has every field")
    }

    /// Where a detail row's columns are, as spilled: [`COLUMNS`] without
    /// `part`.
    fn detail() -> RowReader<Line> {
        RowReader::new(&COLUMNS[1..], "the diff's details").expect("COLUMNS has every field")
    }
}

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
        let line = Line::summary();
        let changed = |r: &Vec<Cell>| {
            let l = line.cells(r);
            l.section == "time" && l.change == "changed"
        };
        self.details.iter().any(|d| d.rows > 0) || self.summary.iter().any(changed)
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_rows_are_read_back_by_their_column_names() {
        let row: Vec<Cell> = COLUMNS.iter().map(|c| word(c)).collect();
        let l = Line::summary().cells(&row);
        assert_eq!(
            (l.section.as_str(), l.change.as_str()),
            ("section", "change")
        );
        assert_eq!((l.old, l.new), (word("old"), word("new")));
        let l = Line::detail().cells(&row[1..]);
        assert_eq!((l.kind.as_str(), l.path.as_str()), ("kind", "path"));
        assert_eq!(l.writes.as_deref(), Some(&b"writes"[..]));
    }
}
