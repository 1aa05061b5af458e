//! The two charts `kt2sql serve` shows beside the timeline, as SVG:
//! calls per syscall (the rows of `queries/syscall_top.sql`, a bar each)
//! and the build's parallelism over time (`queries/parallelism.sql`, how
//! many processes ran at once, as steps). Plain pictures with their
//! numbers written on them, no script; the rows are the canned queries',
//! read here by column name.

use std::fmt::Write as _;

use rusqlite::Connection;

use super::row::typed_row;
use super::timeline::svg::xml;
use super::timeline::ticks::{axis_label, tick};
use super::{collect_as, Cell};
use crate::Error;

typed_row! {
    /// A row of `queries/syscall_top.sql`.
    struct Syscall from "syscall_top" {
        syscall: String,
        calls: i64,
    }
}

typed_row! {
    /// A row of `queries/parallelism.sql`.
    struct Running from "parallelism" {
        ts: i64,
        running: i64,
    }
}

/// Width of a chart (px).
const WIDTH: f64 = 900.0;
/// Room left of the bars for the syscall names (px).
const NAMES: f64 = 140.0;
/// Height of a bar's row (px).
const BAR: f64 = 18.0;
/// Room above the plot for the title (px).
const TITLE: f64 = 34.0;

/// The SVG bar chart of the `limit` most frequent syscalls of `trace`
/// (every trace when `None`), most frequent on top, each bar labelled
/// with its count.
pub fn syscalls(conn: &Connection, trace: Option<i64>, limit: i64) -> Result<String, Error> {
    let params = [
        ("trace", trace.map_or(Cell::Null, Cell::Int)),
        ("limit", Cell::Int(limit)),
    ];
    let rows: Vec<Syscall> = collect_as(conn, "syscall_top", &params)?;
    let max = rows.iter().map(|r| r.calls).max().unwrap_or(0).max(1) as f64;
    let height = TITLE + rows.len() as f64 * BAR + 10.0;
    let mut s = header(
        height,
        &format!("Calls per syscall (the {} most made)", rows.len()),
    );
    let plot = WIDTH - NAMES - 70.0;
    for (i, r) in rows.iter().enumerate() {
        let y = TITLE + i as f64 * BAR;
        let w = (r.calls as f64 / max * plot).max(1.0);
        let name = xml(r.syscall.as_bytes());
        let _ = writeln!(
            s,
            "<g class=\"bar\"><title>{name}: {calls} calls</title>\
             <text x=\"{tx}\" y=\"{ty:.1}\" text-anchor=\"end\">{name}</text>\
             <rect x=\"{NAMES}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h}\" fill=\"#4a7ab0\"/>\
             <text x=\"{cx:.1}\" y=\"{ty:.1}\">{calls}</text></g>",
            calls = r.calls,
            tx = NAMES - 6.0,
            ty = y + BAR - 5.0,
            h = BAR - 3.0,
            cx = NAMES + w + 4.0,
        );
    }
    s.push_str("</svg>\n");
    Ok(s)
}

/// The SVG step chart of how many processes of `trace` (every trace
/// when `None`) ran at each moment, with a time axis from the first
/// process's start.
pub fn parallelism(conn: &Connection, trace: Option<i64>) -> Result<String, Error> {
    let params = [
        ("trace", trace.map_or(Cell::Null, Cell::Int)),
        ("pid", Cell::Null),
    ];
    let rows: Vec<Running> = collect_as(conn, "parallelism", &params)?;
    let (plot_h, left, right) = (240.0, 50.0, 60.0);
    let height = TITLE + plot_h + 30.0;
    let peak = rows.iter().map(|r| r.running).max().unwrap_or(0);
    let mut s = header(
        height,
        &format!("Processes running at once (at most {peak})"),
    );
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        s.push_str("</svg>\n");
        return Ok(s);
    };
    let span = (last.ts - first.ts).max(1);
    let plot_w = WIDTH - left - right;
    let x = |ts: i64| left + (ts - first.ts) as f64 * plot_w / span as f64;
    let y = |n: i64| TITLE + plot_h - n as f64 * plot_h / peak.max(1) as f64;
    let base = y(0);
    // The steps: level until the next change, then up or down to it; of
    // the changes within one pixel only the highest and the last are
    // drawn, so a build of any size is a path of a few thousand points.
    let mut d = format!("M{left:.1},{base:.1}");
    let mut level = 0;
    let mut high = 0;
    for (i, r) in rows.iter().enumerate() {
        let px = x(r.ts).floor();
        high = high.max(r.running);
        if rows.get(i + 1).is_some_and(|n| x(n.ts).floor() == px) {
            continue;
        }
        let _ = write!(
            d,
            " L{:.1},{:.1} L{:.1},{:.1} L{:.1},{:.1}",
            x(r.ts),
            y(level),
            x(r.ts),
            y(high),
            x(r.ts),
            y(r.running)
        );
        (level, high) = (r.running, 0);
    }
    let _ = write!(d, " L{:.1},{base:.1} Z", x(last.ts));
    let _ = writeln!(s, "<path class=\"running\" d=\"{d}\" fill=\"#4a7ab0\" fill-opacity=\"0.6\" stroke=\"#2a5a90\"/>");
    for n in [0, peak / 2, peak] {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{n}</text>\
             <line x1=\"{left}\" x2=\"{:.1}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"#ccc\"/>",
            left - 6.0,
            y(n) + 4.0,
            WIDTH - right,
            yy = y(n),
        );
    }
    let step = tick(span);
    let mut t = 0;
    while t <= span {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            x(first.ts + t),
            base + 18.0,
            axis_label(t, step, span)
        );
        t += step;
    }
    s.push_str("</svg>\n");
    Ok(s)
}

/// The start of a chart `height` px tall titled `title`.
fn header(height: f64, title: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {WIDTH} {height:.0}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">{}</text>\n",
        xml(title.as_bytes())
    )
}
