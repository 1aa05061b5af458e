//! The diff for people: one summary line per section, a blank line, then
//! the details of each section under its name, one line each: `+` added
//! (or new), `-` removed (or gone), `~` changed, then what, and where a
//! command is concerned, which command (its program, its directory, what
//! it left). The same entry several times (a step the build repeats) is
//! written once with its count (`(×N)`); a build whose trace recorded no argv gets one note
//! under `commands:`; the time measures are named in `kt2sql stats`'
//! words. Values are escaped as every report escapes them.

use std::collections::HashMap;
use std::io::{self, Write};

use super::spill::Spill;
use super::Line;
use crate::report::Cell;

/// Write the summary, then the details.
pub fn write(out: &mut dyn Write, summary: &[Vec<Cell>], details: Vec<Spill>) -> io::Result<()> {
    let summary: Vec<Line> = Line::summary().rows(summary).collect();
    for line in summary_lines(&summary) {
        writeln!(out, "{line}")?;
    }
    let names = [
        "commands",
        "files",
        "what each command read",
        "hazards",
        "time",
    ];
    let detail_line = Line::detail();
    for (name, d) in names.iter().zip(details) {
        let measures = *name == "time" && summary.iter().any(|r| r.section == "time");
        if d.rows == 0 && !measures {
            continue;
        }
        writeln!(out, "\n{name}:")?;
        if *name == "commands" {
            if let Some(note) = argv_note(&summary) {
                writeln!(out, "  ({note})")?;
            }
        }
        if measures {
            for r in summary.iter().filter(|r| r.section == "time") {
                writeln!(out, "  {}", measure(r))?;
            }
        }
        let mut same = Repeats::default();
        d.replay(|row| {
            let l = detail_line.cells(row);
            same.push(out, window(&l), detail(&l))
        })?;
        same.flush(out)?;
    }
    Ok(())
}

/// Identical entries written once, with their count: an entry is a
/// detail line and the indented lines under it (a command's argv), and
/// commands the output cannot tell apart (the same program, directory,
/// files written and argv: a build repeating a step) read as one entry
/// ending `(×N)`, where the first of them was. Entries are gathered per
/// window: the rows of one directory and set of files written in a row
/// (the commands of one identity come together), or at most
/// [`WINDOW`] distinct entries, so memory stays bounded.
#[derive(Default)]
struct Repeats {
    /// What the rows of the window share: section, directory, writes.
    key: Vec<u8>,
    /// The window's distinct entries, in order, with their counts.
    entries: Vec<(Vec<String>, u64)>,
    /// Where each entry is in `entries`.
    at: HashMap<Vec<String>, usize>,
    /// The entry being read.
    cur: Vec<String>,
}

/// The most distinct entries a window holds before it is written.
const WINDOW: usize = 10_000;

impl Repeats {
    /// One more detail row, its window key and its line.
    fn push(&mut self, out: &mut dyn Write, key: Vec<u8>, line: String) -> io::Result<()> {
        if line.starts_with(' ') && !self.cur.is_empty() {
            self.cur.push(line);
            return Ok(());
        }
        self.complete(out)?;
        if key != self.key {
            self.write(out)?;
            self.key = key;
        }
        self.cur.push(line);
        Ok(())
    }

    /// The entry read is complete: counted in the window.
    fn complete(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.cur.is_empty() {
            return Ok(());
        }
        let entry = std::mem::take(&mut self.cur);
        match self.at.get(&entry) {
            Some(&i) => self.entries[i].1 += 1,
            None => {
                self.at.insert(entry.clone(), self.entries.len());
                self.entries.push((entry, 1));
            }
        }
        if self.entries.len() >= WINDOW {
            self.write(out)?;
        }
        Ok(())
    }

    /// Write the window's entries.
    fn write(&mut self, out: &mut dyn Write) -> io::Result<()> {
        for (lines, n) in self.entries.drain(..) {
            for (i, line) in lines.iter().enumerate() {
                match (i, n) {
                    (0, n) if n > 1 => writeln!(out, "  {line}  (×{n})")?,
                    _ => writeln!(out, "  {line}")?,
                }
            }
        }
        self.at.clear();
        Ok(())
    }

    /// Write what is held.
    fn flush(&mut self, out: &mut dyn Write) -> io::Result<()> {
        self.complete(out)?;
        self.write(out)
    }
}

/// The window of a detail row: its section, directory and writes.
fn window(r: &Line) -> Vec<u8> {
    let mut k = r.section.as_bytes().to_vec();
    k.push(0);
    k.extend_from_slice(r.cwd.bytes().unwrap_or_default());
    k.push(0);
    k.extend_from_slice(r.writes.as_deref().unwrap_or_default());
    k
}

/// One note when a build's commands are named by program only, its trace
/// holding no argv: which build, and what tells its commands apart.
fn argv_note(summary: &[Line]) -> Option<String> {
    let r = summary
        .iter()
        .find(|r| r.section == "commands" && r.change == "recorded")?;
    let (old, new) = (r.old.int().unwrap_or(0), r.new.int().unwrap_or(0));
    let which = match (old, new) {
        (0, 0) => "neither build's trace recorded argv",
        (0, _) => "the old build's trace recorded no argv",
        (_, 0) => "the new build's trace recorded no argv",
        _ => return None,
    };
    Some(format!(
        "{which}: commands without it are named by program, told apart by their \
         directory (in) and the files they wrote (writing), and their argv is not compared"
    ))
}

fn s(c: &Cell) -> std::borrow::Cow<'_, str> {
    c.display()
}

/// The count of the summary row of `section`, `change` and `kind`.
fn n(summary: &[Line], section: &str, change: &str, kind: &str) -> i64 {
    summary
        .iter()
        .find(|r| r.section == section && r.change == change && r.kind == kind)
        .and_then(|r| r.new.int())
        .unwrap_or(0)
}

fn summary_lines(summary: &[Line]) -> Vec<String> {
    let has = |section: &str| summary.iter().any(|r| r.section == section);
    let mut lines = Vec::new();
    let c = |change, kind| n(summary, "commands", change, kind);
    if has("commands") {
        lines.push(format!(
            "commands: {} added, {} removed, {} changed, {} same",
            c("added", "command"),
            c("removed", "command"),
            c("changed", "command"),
            c("same", "command"),
        ));
    }
    let f = |change, kind| n(summary, "files", change, kind);
    if has("files") {
        lines.push(format!(
            "files: inputs {} added, {} removed; outputs {} added, {} removed; \
             {} commands read other files",
            f("added", "input"),
            f("removed", "input"),
            f("added", "output"),
            f("removed", "output"),
            f("changed", "command"),
        ));
    }
    let h = |change| n(summary, "hazards", change, "hazard");
    if has("hazards") {
        lines.push(format!(
            "hazards: {} new, {} gone, {} changed in number",
            h("new"),
            h("gone"),
            h("changed")
        ));
    }
    if has("time") {
        let get = |kind: &str| {
            summary
                .iter()
                .find(|r| r.section == "time" && r.kind == kind)
        };
        let span =
            |kind: &str| get(kind).map_or_else(String::new, |r| change(&r.old, &r.new, true));
        let path = match get("critical_path_commands").map(|r| r.change.as_str()) {
            Some("same") => "the same commands",
            _ => "other commands",
        };
        lines.push(format!(
            "time: wall {}; critical path {}, {path}",
            span("wall"),
            span("critical_path")
        ));
    }
    lines
}

/// `a -> b (+d, +p%)`, in seconds when `ns`.
fn change(a: &Cell, b: &Cell, ns: bool) -> String {
    let num = |c: &Cell| match c {
        Cell::Int(i) => Some(*i as f64),
        Cell::Real(f) => Some(*f),
        _ => None,
    };
    let show = |c: &Cell| match (c, ns) {
        (Cell::Int(i), true) => secs(*i as f64),
        (other, _) => match s(other).as_ref() {
            "" => "-".into(),
            v => v.into(),
        },
    };
    let (x, y) = (num(a), num(b));
    let mut text = format!("{} -> {}", show(a), show(b));
    if let (Some(x), Some(y)) = (x, y) {
        let d = y - x;
        let d = if ns {
            secs(d)
        } else {
            format!("{}", (d * 100.0).round() / 100.0)
        };
        let sign = if y >= x { "+" } else { "" };
        match x != 0.0 {
            true => text.push_str(&format!(" ({sign}{d}, {sign}{:.1}%)", (y - x) / x * 100.0)),
            false => text.push_str(&format!(" ({sign}{d})")),
        }
    }
    text
}

/// A duration in the unit that shows it: s, ms or µs.
fn secs(ns: f64) -> String {
    match ns.abs() {
        a if a >= 1e9 => format!("{:.3} s", ns / 1e9),
        a if a >= 1e6 => format!("{:.3} ms", ns / 1e6),
        _ => format!("{:.1} µs", ns / 1e3),
    }
}

/// What a time measure is called, in the words of `kt2sql stats` ("1.650
/// ms wall, 3.106 ms summed over 6 processes; parallelism 1.88 average, 3
/// peak").
fn label(kind: &str) -> &str {
    match kind {
        "process_time" => "summed over processes",
        "avg_parallel" => "parallelism, average",
        "peak_parallel" => "parallelism, peak",
        "critical_path" => "critical path",
        "critical_path_commands" => "critical path steps",
        other => other,
    }
}

/// A time measure of the summary, as a detail line.
fn measure(r: &Line) -> String {
    let kind = label(&r.kind);
    let ns = matches!(r.kind.as_str(), "wall" | "process_time" | "critical_path");
    let what = match r.kind.as_str() {
        "critical_path_commands" => {
            let verdict = match r.change.as_str() {
                "same" => "the same commands",
                _ => "other commands",
            };
            return format!(
                "{:<24}{} -> {} steps, {verdict}",
                kind,
                s(&r.old),
                s(&r.new)
            );
        }
        _ => change(&r.old, &r.new, ns),
    };
    format!("{kind:<24}{what}")
}

/// One detail row.
fn detail(r: &Line) -> String {
    let (section, change_, kind) = (&r.section, &r.change, &r.kind);
    let sign = match change_.as_str() {
        "added" | "new" => "+",
        "removed" | "gone" => "-",
        "slower" | "faster" => "",
        _ => "~",
    };
    let who = || {
        let mut w = r.command.clone();
        if !matches!(r.cwd, Cell::Null) {
            w.push_str(&format!(" in {}", s(&r.cwd)));
        }
        if let Some(b) = &r.writes {
            let list: Vec<String> = b
                .split(|&c| c == b'\n')
                .map(|p| crate::text::vis(p).into_owned())
                .collect();
            w.push_str(&format!(" writing {}", list.join(" ")));
        }
        w
    };
    let (path, old, new) = (&r.path, &r.old, &r.new);
    match (section.as_str(), kind.as_str()) {
        ("commands", "argv") => format!("    argv {} -> {}", s(old), s(new)),
        ("commands", _) => format!("{sign} {}", who()),
        ("files", "read") => format!("{sign} {path} by {}", who()),
        ("files", _) => format!("{sign} {kind} {path}"),
        ("hazards", _) if sign == "~" => {
            format!("{sign} {kind} {path}: {} -> {}", s(old), s(new))
        }
        ("hazards", _) => format!("{sign} {kind} {path}"),
        _ => format!("{change_} ({kind}) {}: {}", change(old, new, true), who()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grouped(rows: &[(&str, &str)]) -> String {
        let mut out = Vec::new();
        let mut r = Repeats::default();
        for (key, line) in rows {
            r.push(&mut out, key.as_bytes().to_vec(), line.to_string())
                .unwrap();
        }
        r.flush(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn identical_entries_of_a_window_are_written_once_with_their_count() {
        let text = grouped(&[
            ("a", "+ sh -c x"),
            ("a", "~ cc"),
            ("a", "    argv 1 -> 2"),
            ("a", "+ sh -c x"),
            ("a", "~ cc"),
            ("a", "    argv 1 -> 2"),
            ("a", "~ cc"),
            ("a", "    argv 1 -> 3"),
            ("b", "+ sh -c x"),
        ]);
        assert_eq!(
            text,
            "  + sh -c x  (×2)\n  ~ cc  (×2)\n      argv 1 -> 2\n  ~ cc\n      argv 1 -> 3\n  \
             + sh -c x\n"
        );
    }

    #[test]
    fn time_measures_have_the_words_of_stats() {
        assert_eq!(label("process_time"), "summed over processes");
        assert_eq!(label("avg_parallel"), "parallelism, average");
        assert_eq!(label("critical_path_commands"), "critical path steps");
        assert_eq!(label("wall"), "wall");
    }
}
