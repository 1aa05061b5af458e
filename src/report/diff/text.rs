//! The diff for people: one summary line per section, a blank line, then
//! the details of each section under its name, one line each: `+` added
//! (or new), `-` removed (or gone), `~` changed, then what, and where a
//! command is concerned, which command (its program, its directory, what
//! it left). Values are escaped as every report escapes them.

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
        if measures {
            for r in summary.iter().filter(|r| r.section == "time") {
                writeln!(out, "  {}", measure(r))?;
            }
        }
        d.replay(|row| writeln!(out, "  {}", detail(&detail_line.cells(row))))?;
    }
    Ok(())
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

/// A time measure of the summary, as a detail line.
fn measure(r: &Line) -> String {
    let kind = &r.kind;
    let ns = matches!(kind.as_str(), "wall" | "process_time" | "critical_path");
    let what = match kind.as_str() {
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
