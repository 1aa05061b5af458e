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
    // Room under the title for the legend.
    let top = TITLE + 14.0;
    let height = top + plot_h + 30.0;
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
    let y = |n: f64| top + plot_h - n * plot_h / peak.max(1) as f64;
    let base = y(0.0);
    // One column per pixel, so a build of any size is a path of a few
    // hundred points: the dark area is the mean over the column's time,
    // the light one the most at any moment in it. (The most alone, over
    // the thousands of changes a pixel holds on a big build, fills the
    // whole chart.)
    let cols = columns(&rows, plot_w as usize);
    let w = plot_w / cols.len() as f64;
    let area = |level: &dyn Fn(&Column) -> f64| {
        let mut d = format!("M{left:.1},{base:.1}");
        for (i, c) in cols.iter().enumerate() {
            let (x0, yy) = (left + i as f64 * w, y(level(c)));
            let _ = write!(d, " L{x0:.1},{yy:.1} L{:.1},{yy:.1}", x0 + w);
        }
        let _ = write!(d, " L{:.1},{base:.1} Z", left + plot_w);
        d
    };
    let most = area(&|c| c.most as f64);
    let mean = area(&|c| c.mean);
    let _ = writeln!(s, "<path class=\"most\" d=\"{most}\" fill=\"#b7cce6\"/>");
    let _ = writeln!(s, "<path class=\"running\" d=\"{mean}\" fill=\"#4a7ab0\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"#555\">dark: the mean \
         over each pixel's time ({:.1} over the build); light: the most at once</text>",
        left,
        TITLE + 4.0,
        mean_of(&rows),
    );
    let y = |n: i64| y(n as f64);
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

/// One pixel column of the parallelism chart: the mean of the processes
/// running over its time, and the most at any moment in it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Column {
    mean: f64,
    most: i64,
}

/// `rows` (each: from `ts` on, `running` processes) cut into `n` columns
/// of equal time from the first row to the last.
fn columns(rows: &[Running], n: usize) -> Vec<Column> {
    let n = n.max(1);
    let mut cols = vec![Column::default(); n];
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return cols;
    };
    let (t0, span) = (first.ts as f64, (last.ts - first.ts).max(1) as f64);
    let width = span / n as f64;
    for pair in rows.windows(2) {
        let (from, to, level) = (
            pair[0].ts as f64 - t0,
            pair[1].ts as f64 - t0,
            pair[0].running,
        );
        let mut c = ((from / width) as usize).min(n - 1);
        loop {
            let (lo, hi) = (c as f64 * width, (c + 1) as f64 * width);
            let overlap = to.min(hi) - from.max(lo);
            if overlap > 0.0 || c as f64 * width <= from {
                cols[c].mean += level as f64 * overlap.max(0.0) / width;
                cols[c].most = cols[c].most.max(level);
            }
            if to <= hi || c + 1 == n {
                break;
            }
            c += 1;
        }
    }
    cols
}

/// The mean of the processes running over the whole span of `rows`.
fn mean_of(rows: &[Running]) -> f64 {
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return 0.0;
    };
    let area: f64 = rows
        .windows(2)
        .map(|p| p[0].running as f64 * (p[1].ts - p[0].ts) as f64)
        .sum();
    area / (last.ts - first.ts).max(1) as f64
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

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: &[(i64, i64)]) -> Vec<Running> {
        v.iter()
            .map(|&(ts, running)| Running { ts, running })
            .collect()
    }

    #[test]
    fn columns_hold_the_mean_and_the_most_of_their_time() {
        // 2 running for [0, 50), 4 for [50, 60), 1 for [60, 100).
        let r = rows(&[(0, 2), (50, 4), (60, 1), (100, 0)]);
        let c = columns(&r, 2);
        assert_eq!(c[0], Column { mean: 2.0, most: 2 });
        assert!(
            (c[1].mean - (4.0 * 10.0 + 40.0) / 50.0).abs() < 1e-9,
            "{c:?}"
        );
        assert_eq!(c[1].most, 4);
        assert!((mean_of(&r) - (100.0 + 40.0 + 40.0) / 100.0).abs() < 1e-9);
        // A blip shorter than a column still shows as its most.
        let r = rows(&[(0, 1), (10, 9), (11, 1), (1000, 0)]);
        let c = columns(&r, 10);
        assert_eq!(c[0].most, 9);
        assert!(c[0].mean < 2.0 && c[5].most == 1, "{c:?}");
    }
}
