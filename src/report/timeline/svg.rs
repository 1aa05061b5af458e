//! The timeline as a static SVG picture, readable in any browser or image
//! viewer: the parallelism strip on top (processes running over time), a
//! time axis, then one row per command (process image) in process-tree
//! order, its bar coloured by program (a hash of its comm) and labelled
//! `pid comm`, each with a `<title>` tooltip. A thin grey line joins the
//! producer's row at its write to the consumer's at its read, per file
//! flow (`build_flow`). The critical path's pieces are outlined in red and
//! joined by a red line. Rows are written as they come from SQLite; only
//! the critical path and each command's row are held.
//!
//! The picture keeps within a row budget ([`fold`]): the shortest
//! commands are folded into grey summary rows, each run of them in tree
//! order sharing one, and a line under the title says so (the caller
//! repeats it on stderr from the [`Fold`] returned). Every text is placed
//! inside the picture: an axis label that would pass the right edge ends
//! at its tick instead.

use std::collections::HashMap;
use std::io::Write;

use rusqlite::Connection;

use super::critical::Lifetimes;
use super::flows::{self, Flow};
use super::fold::{self, Fold};
use super::{each_slice, extents, out_err, Options, Running, Step};
use crate::report::each_as;
use crate::report::stats::duration;
use crate::text::vis;
use crate::Error;

/// Width of the label column (px).
const LABEL: f64 = 230.0;
/// Width of the time plot (px).
const PLOT: f64 = 900.0;
/// Height of one command row (px).
pub const ROW: f64 = 14.0;
/// Height of the parallelism strip (px).
const STRIP: f64 = 60.0;
/// Top of the strip (below the title).
const TOP: f64 = 24.0;
/// Height of the note line saying what was folded (px).
const NOTE: f64 = 14.0;
/// From the top of the strip to the first row (the strip and the axis
/// labels).
const ROWS: f64 = STRIP + 22.0;
/// Width of the picture (px).
pub const WIDTH: f64 = LABEL + PLOT + 20.0;
/// Height of the picture with `rows` rows, with or without the note line.
pub fn height(rows: usize, note: bool) -> f64 {
    TOP + if note { NOTE } else { 0.0 } + ROWS + rows as f64 * ROW + 8.0
}

/// The width (px) a text of `chars` characters at `size` px takes at
/// most in a sans-serif font (0.6 em a character).
pub fn text_width(chars: usize, size: f64) -> f64 {
    chars as f64 * 0.6 * size
}

/// Text safe inside XML: escaped as [`vis`] does, then `& < > "`.
pub fn xml(b: &[u8]) -> String {
    let v = vis(b);
    let mut s = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            c => s.push(c),
        }
    }
    s
}

/// A fill colour for a program: its comm hashed (FNV-1a) to a hue.
pub fn colour(comm: &[u8]) -> String {
    let h = comm.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    format!("hsl({},55%,62%)", h % 360)
}

/// Time to x, and the top of the strip (below the title and the note).
struct Scale {
    start: i64,
    span: f64,
    top: f64,
}

impl Scale {
    fn x(&self, ns: i64) -> f64 {
        LABEL + (ns - self.start) as f64 * PLOT / self.span
    }
}

/// A tick spacing of 1, 2 or 5 × 10^k ns giving about 8 ticks.
fn tick(span: i64) -> i64 {
    let raw = (span / 8).max(1);
    let mut p = 1_i64;
    while p.saturating_mul(10) <= raw {
        p *= 10;
    }
    [1, 2, 5, 10]
        .iter()
        .map(|m| p.saturating_mul(*m))
        .find(|s| *s >= raw)
        .unwrap_or(p)
}

/// Write the SVG picture of `opts` to `out`; returns what was folded.
pub fn write(conn: &Connection, opts: &Options, out: &mut dyn Write) -> Result<Fold, Error> {
    let ext = extents(conn, opts.scope)?;
    let start = ext.iter().map(|e| e.start_ts).min().unwrap_or(0);
    let end = ext.iter().map(|e| e.end_ts).max().unwrap_or(0);
    let commands: i64 = ext.iter().map(|e| e.commands).sum();
    let fold = fold::plan(conn, opts, usize::try_from(commands).unwrap_or(0))?;
    let traces: Vec<i64> = ext.iter().map(|e| e.trace_id).collect();
    let flows = flows::load(conn, opts)?;
    let steps = Lifetimes::load(conn, opts.scope)?.critical_path(&traces, &flows);
    let note = fold.folded > 0;
    let sc = Scale {
        start,
        span: (end - start).max(1) as f64,
        top: TOP + if note { NOTE } else { 0.0 },
    };
    let height = height(fold.rows, note);
    let width = WIDTH;
    let path_ns: i64 = steps.iter().map(|s| s.end_ts - s.start_ts + s.wait).sum();
    let w = |out: &mut dyn Write, s: String| out.write_all(s.as_bytes()).map_err(out_err);
    w(
        out,
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" font-size=\"10\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <text x=\"4\" y=\"14\" font-size=\"12\">kt2sql timeline: {commands} commands, wall time {}; \
             critical path ({} steps, {}) in red</text>\n",
            duration(end - start),
            steps.len(),
            duration(path_ns)
        ),
    )?;
    if note {
        w(
            out,
            format!(
                "<text class=\"note\" x=\"4\" y=\"{}\" fill=\"#555\">{}</text>\n",
                TOP + 8.0,
                xml(note_text(&fold).as_bytes())
            ),
        )?;
    }
    strip(conn, opts, out, &sc, end)?;
    axis(out, &sc, end, height)?;
    let (drawn, row_of) = command_rows(conn, opts, out, &sc, &steps, &fold)?;
    file_lines(&flows, out, &sc, &row_of)?;
    path_line(out, &sc, &steps, &drawn)?;
    w(out, "</svg>\n".into())?;
    Ok(fold)
}

/// The line under the title saying what was folded and how to see it.
pub fn note_text(f: &Fold) -> String {
    format!(
        "{} of {} commands, those shorter than {}, are folded into {} grey rows \
         (--max-rows N or --min-dur DUR shows more, -p PID one subtree, --format chrome each)",
        f.folded,
        f.commands,
        duration(f.threshold),
        f.summaries
    )
}

/// The parallelism strip: a step area of running processes.
fn strip(
    conn: &Connection,
    opts: &Options,
    out: &mut dyn Write,
    sc: &Scale,
    end: i64,
) -> Result<(), Error> {
    let mut peak = 0;
    each_as::<Running>(conn, "parallelism", &opts.scope.params(), |r| {
        peak = peak.max(r.running);
        Ok(())
    })?;
    let base = sc.top + STRIP;
    let y = |n: i64| base - n as f64 * STRIP / peak.max(1) as f64;
    write!(
        out,
        "<text x=\"4\" y=\"{}\">running processes</text>\n\
         <text x=\"4\" y=\"{}\">(peak {peak})</text>\n\
         <path fill=\"#8fa8c8\" stroke=\"#4a6a98\" stroke-width=\"0.5\" d=\"M{:.2} {base}",
        sc.top + STRIP / 2.0,
        sc.top + STRIP / 2.0 + 12.0,
        sc.x(sc.start)
    )
    .map_err(out_err)?;
    let mut last = 0;
    each_as::<Running>(conn, "parallelism", &opts.scope.params(), |r| {
        let (x, n) = (sc.x(r.ts), r.running);
        write!(out, " L{x:.2} {:.2} L{x:.2} {:.2}", y(last), y(n)).map_err(out_err)?;
        last = n;
        Ok(())
    })?;
    writeln!(out, " L{:.2} {base} Z\"/>", sc.x(end)).map_err(out_err)
}

/// Tick lines and labels, relative to the start. A label centred on its
/// tick that would pass the picture's right edge ends at the tick.
fn axis(out: &mut dyn Write, sc: &Scale, end: i64, height: f64) -> Result<(), Error> {
    let step = tick(end - sc.start);
    let mut t = 0_i64;
    while sc.start + t <= end {
        let x = sc.x(sc.start + t);
        let label = if t == 0 {
            "0".into()
        } else {
            format!("+{}", duration(t))
        };
        let half = text_width(label.chars().count(), 10.0) / 2.0;
        let anchor = if x + half > WIDTH - 2.0 {
            "end"
        } else {
            "middle"
        };
        write!(
            out,
            "<line x1=\"{x:.2}\" y1=\"{}\" x2=\"{x:.2}\" y2=\"{height}\" stroke=\"#ddd\"/>\n\
             <text x=\"{x:.2}\" y=\"{}\" text-anchor=\"{anchor}\">{label}</text>\n",
            sc.top,
            sc.top + STRIP + 14.0,
        )
        .map_err(out_err)?;
        t += step;
    }
    Ok(())
}

/// The middle (y) of the row each step (by index) or command (by exec_id)
/// was drawn in.
type Drawn<K = usize> = HashMap<K, f64>;

/// A run of folded commands sharing one summary row.
struct Run {
    /// Top of its row.
    y: f64,
    /// Commands in it.
    count: usize,
    /// The smallest depth among them (the label's indent).
    depth: i64,
}

/// One row per command, or per run of folded commands; returns the row
/// (y) of each critical step drawn and of each command (by exec_id).
fn command_rows(
    conn: &Connection,
    opts: &Options,
    out: &mut dyn Write,
    sc: &Scale,
    steps: &[Step],
    fold: &Fold,
) -> Result<(Drawn, Drawn<i64>), Error> {
    let mut by_exec: HashMap<i64, Vec<usize>> = HashMap::new();
    for (i, s) in steps.iter().enumerate() {
        by_exec.entry(s.exec_id).or_default().push(i);
    }
    let (mut drawn, mut row_of) = (HashMap::new(), HashMap::new());
    let mut y = sc.top + ROWS;
    let mut run: Option<Run> = None;
    each_slice(conn, opts, true, |r| {
        let comm = &r.comm;
        let (s, e) = (r.start_ts, r.end_ts);
        let (x0, x1) = (sc.x(s), sc.x(e));
        let depth = r.depth;
        let path = r.path.map(xml).unwrap_or_default();
        let pid = r.pid;
        let title = format!("pid {pid} {} ({}) {path}", xml(comm), duration(e - s));
        let row = if fold.folds(e - s) {
            let at = match &mut run {
                Some(run) => {
                    run.count += 1;
                    run.depth = run.depth.min(depth);
                    run.y
                }
                None => {
                    write!(
                        out,
                        "<g class=\"folded\"><rect x=\"{LABEL}\" y=\"{y:.1}\" \
                         width=\"{PLOT}\" height=\"{ROW}\" fill=\"#eee\"/>"
                    )
                    .map_err(out_err)?;
                    run = Some(Run { y, count: 1, depth });
                    y += ROW;
                    y - ROW
                }
            };
            write!(out, "<g><title>{title}</title>").map_err(out_err)?;
            at
        } else {
            if let Some(done) = run.take() {
                end_run(out, &done, fold)?;
            }
            write!(
                out,
                "<g class=\"cmd\"><title>{title}</title>\
                 <text x=\"{}\" y=\"{:.1}\">{pid} {}</text>",
                indent(depth),
                y + ROW - 3.0,
                xml(comm),
            )
            .map_err(out_err)?;
            y += ROW;
            y - ROW
        };
        write!(
            out,
            "<rect x=\"{x0:.2}\" y=\"{:.1}\" width=\"{:.2}\" height=\"{}\" fill=\"{}\"/>",
            row + 1.0,
            (x1 - x0).max(0.5),
            ROW - 2.0,
            colour(comm)
        )
        .map_err(out_err)?;
        for &i in by_exec.get(&r.exec_id).into_iter().flatten() {
            let st = &steps[i];
            let (a, b) = (sc.x(st.start_ts), sc.x(st.end_ts));
            write!(
                out,
                "<rect x=\"{a:.2}\" y=\"{:.1}\" width=\"{:.2}\" height=\"{}\" \
                 fill=\"none\" stroke=\"#d00\" stroke-width=\"1.5\"/>",
                row + 1.0,
                (b - a).max(0.5),
                ROW - 2.0
            )
            .map_err(out_err)?;
            drawn.insert(i, row + ROW / 2.0);
        }
        if run.is_some() {
            write!(out, "</g>").map_err(out_err)?;
        } else {
            writeln!(out, "</g>").map_err(out_err)?;
        }
        row_of.insert(r.exec_id, row + ROW / 2.0);
        Ok(())
    })?;
    if let Some(done) = run.take() {
        end_run(out, &done, fold)?;
    }
    Ok((drawn, row_of))
}

/// The left edge of a row's label at `depth`.
fn indent(depth: i64) -> f64 {
    4.0 + 8.0 * depth.min(20) as f64
}

/// The label of a summary row, and the end of its group.
fn end_run(out: &mut dyn Write, run: &Run, fold: &Fold) -> Result<(), Error> {
    writeln!(
        out,
        "<text x=\"{}\" y=\"{:.1}\" fill=\"#555\" font-style=\"italic\">{} command{} &lt; {}</text></g>",
        indent(run.depth),
        run.y + ROW - 3.0,
        run.count,
        if run.count == 1 { "" } else { "s" },
        duration(fold.threshold)
    )
    .map_err(out_err)
}

/// A thin line per producer → consumer file flow, from the producer's row
/// at its write to the consumer's row at its read.
fn file_lines(
    flows: &[Flow],
    out: &mut dyn Write,
    sc: &Scale,
    row_of: &Drawn<i64>,
) -> Result<(), Error> {
    for f in flows {
        let (Some(ya), Some(yb)) = (row_of.get(&f.producer_id), row_of.get(&f.consumer_id)) else {
            continue;
        };
        let (xa, xb) = (sc.x(f.write_ts), sc.x(f.read_ts));
        writeln!(
            out,
            "<line class=\"file\" x1=\"{xa:.2}\" y1=\"{ya:.1}\" x2=\"{xb:.2}\" y2=\"{yb:.1}\" \
             stroke=\"#555\" stroke-width=\"0.4\"><title>{}</title></line>",
            xml(&f.path)
        )
        .map_err(out_err)?;
    }
    Ok(())
}

/// The red line from each critical step's end to the next one's start.
fn path_line(out: &mut dyn Write, sc: &Scale, steps: &[Step], drawn: &Drawn) -> Result<(), Error> {
    let mut d = String::new();
    for i in 1..steps.len() {
        let (Some(ya), Some(yb)) = (drawn.get(&(i - 1)), drawn.get(&i)) else {
            continue;
        };
        let (xa, xb) = (sc.x(steps[i - 1].end_ts), sc.x(steps[i].start_ts));
        d.push_str(&format!("M{xa:.2} {ya:.1} L{xb:.2} {yb:.1} "));
    }
    if d.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "<path class=\"critical\" d=\"{}\" fill=\"none\" stroke=\"#d00\" stroke-width=\"1\"/>",
        d.trim_end()
    )
    .map_err(out_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick(16_000_000), 2_000_000);
        assert_eq!(tick(80), 10);
        assert_eq!(tick(0), 1);
    }

    #[test]
    fn the_last_axis_label_ends_inside_the_picture() {
        // 16 ms over 8 ticks of 2 ms: the last tick is on the right edge.
        let sc = Scale {
            start: 0,
            span: 16e6,
            top: TOP,
        };
        let mut out = Vec::new();
        axis(&mut out, &sc, 16_000_000, 200.0).unwrap();
        let s = String::from_utf8(out).unwrap();
        let last = s.lines().last().unwrap();
        assert!(last.contains("text-anchor=\"end\">+16.000 ms<"), "{last}");
        let first = s.lines().nth(1).unwrap();
        assert!(first.contains("text-anchor=\"middle\">0<"), "{first}");
    }

    #[test]
    fn text_is_escaped_for_xml() {
        assert_eq!(xml(b"a<b>&\"c"), "a&lt;b&gt;&amp;&quot;c");
        assert_eq!(xml(b"\x01"), "\\001");
    }
}
