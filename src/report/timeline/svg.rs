//! The timeline as a static SVG picture, readable in any browser or image
//! viewer: the parallelism strip on top (processes running over time), a
//! time axis labelled as a person reads it (`+100 s`, `+2 min 30 s`,
//! `+250 ms`: [`axis_label`]) at the top and again at the bottom, the
//! critical path in a lane of its own (one red bar per step, under the
//! axis), then one row per command (process image) in process-tree order,
//! its bar coloured by program (a hash of its comm), labelled by what it
//! made or ran ([`crate::build::label`], paths relative to the trace's
//! start directory), each with a `<title>` tooltip (pid, comm, duration,
//! path). The rows of commands on the critical path have a red mark at
//! their left edge and their pieces of the path outlined in red; no line
//! crosses the picture for it. A thin grey line joins the producer's row at its
//! write to the consumer's at its read, per file flow (`build_flow`).
//! Rows are written as they come from SQLite; only the critical path and
//! each command's row are held.
//!
//! The picture keeps within a row budget ([`fold`]): the shortest
//! commands are folded, each drawn in the row of the command kept last
//! before it in tree order (a grey `+N` at that row's right end says how
//! many and, in its tooltip, the longest of them; folded commands before
//! any kept one share a grey summary row), and a line under the title
//! says so (the caller
//! repeats it on stderr from the [`Fold`] returned). Every text is placed
//! inside the picture: an axis label that would pass the right edge ends
//! at its tick instead.

use std::collections::{HashMap, HashSet};
use std::io::Write;

use rusqlite::Connection;

use super::super::compile_commands::words;
use super::critical;
use super::flows::{self, Flow};
use super::fold::{self, Fold};
use super::path::Path;
use super::ticks::{axis_label, tick};
use super::{each_slice, extents, out_err, Options, Running};
use crate::build::label;
use crate::report::stats::duration;
use crate::report::{each_as, start_dirs};
use crate::text::vis;
use crate::Error;

/// Width of the label column (px).
const LABEL: f64 = 320.0;
/// Width of the time plot (px).
const PLOT: f64 = 1000.0;
/// Height of one command row (px).
pub const ROW: f64 = 14.0;
/// Height of the parallelism strip (px).
const STRIP: f64 = 60.0;
/// Top of the strip (below the title).
const TOP: f64 = 24.0;
/// Height of the note line saying what was folded (px).
const NOTE: f64 = 14.0;
/// Top of the critical path's lane, from the top of the strip (below the
/// strip and the axis labels).
const LANE_TOP: f64 = STRIP + 20.0;
/// Height of the critical path's lane (px).
const LANE: f64 = 16.0;
/// From the top of the strip to the first row (the strip, the axis
/// labels and the critical path's lane).
const ROWS: f64 = LANE_TOP + LANE + 4.0;
/// Below the last row: the axis labels again.
const BOTTOM: f64 = 22.0;
/// Room right of the plot for the `+N` of the commands folded into a row.
const MORE: f64 = 50.0;
/// Width of the picture (px).
pub const WIDTH: f64 = LABEL + PLOT + MORE;
/// Height of the picture with `rows` rows, with or without the note line.
pub fn height(rows: usize, note: bool) -> f64 {
    TOP + if note { NOTE } else { 0.0 } + ROWS + rows as f64 * ROW + BOTTOM
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

/// Write the SVG picture of `opts` to `out`; returns what was folded.
pub fn write(conn: &Connection, opts: &Options, out: &mut dyn Write) -> Result<Fold, Error> {
    let ext = extents(conn, opts.scope)?;
    let start = ext.iter().map(|e| e.start_ts).min().unwrap_or(0);
    let end = ext.iter().map(|e| e.end_ts).max().unwrap_or(0);
    let commands: i64 = ext.iter().map(|e| e.commands).sum();
    let fold = fold::plan(conn, opts, usize::try_from(commands).unwrap_or(0))?;
    let traces: Vec<i64> = ext.iter().map(|e| e.trace_id).collect();
    let flows = flows::load(conn, opts)?;
    let deps = critical::Deps::of(&flows);
    let path = Path::walk(conn, opts.scope, &traces, &deps)?;
    let note = fold.folded > 0;
    let sc = Scale {
        start,
        span: (end - start).max(1) as f64,
        top: TOP + if note { NOTE } else { 0.0 },
    };
    let height = height(fold.rows, note);
    let width = WIDTH;
    let path_ns: i64 = {
        let (own, wait) = path.totals()?;
        own + wait
    };
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
            path.len(),
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
    let bottom = height - BOTTOM;
    axis(out, &sc, end, bottom)?;
    lane(out, &sc, &path)?;
    let row_of = command_rows(conn, opts, out, &sc, &path, &fold, &flows)?;
    file_lines(&flows, out, &sc, &row_of)?;
    w(out, "</svg>\n".into())?;
    Ok(fold)
}

/// The line under the title saying what was folded and how to see it.
pub fn note_text(f: &Fold) -> String {
    format!(
        "{} of {} commands, the shortest (each at most {}), are drawn in the row above them \
         (+N at its end; --max-rows N or --min-dur DUR shows more, -p PID one subtree)",
        f.folded,
        f.commands,
        duration(f.longest_folded),
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

/// Tick lines and labels, relative to the start: the labels under the
/// strip and again under the last row (`bottom`, where the lines end). A
/// label centred on its tick that would pass the picture's right edge
/// ends at the tick.
fn axis(out: &mut dyn Write, sc: &Scale, end: i64, bottom: f64) -> Result<(), Error> {
    let span = end - sc.start;
    let step = tick(span);
    let mut t = 0_i64;
    while sc.start + t <= end {
        let x = sc.x(sc.start + t);
        let label = axis_label(t, step, span);
        let half = text_width(label.chars().count(), 10.0) / 2.0;
        let anchor = if x + half > WIDTH - 2.0 {
            "end"
        } else {
            "middle"
        };
        write!(
            out,
            "<line x1=\"{x:.2}\" y1=\"{}\" x2=\"{x:.2}\" y2=\"{bottom}\" stroke=\"#ddd\"/>\n\
             <text class=\"tick\" x=\"{x:.2}\" y=\"{}\" text-anchor=\"{anchor}\">{label}</text>\n\
             <text class=\"tick\" x=\"{x:.2}\" y=\"{}\" text-anchor=\"{anchor}\">{label}</text>\n",
            sc.top,
            sc.top + STRIP + 14.0,
            bottom + 14.0,
        )
        .map_err(out_err)?;
        t += step;
    }
    Ok(())
}

/// The critical path's lane, under the axis: its name, then one red bar
/// per step over the time the step's command was on the path, with a
/// tooltip (step, pid, comm, own time, how it was reached).
fn lane(out: &mut dyn Write, sc: &Scale, path: &Path<'_>) -> Result<(), Error> {
    let y = sc.top + LANE_TOP;
    writeln!(
        out,
        "<g class=\"lane\"><rect x=\"{LABEL}\" y=\"{y}\" width=\"{PLOT}\" height=\"{LANE}\" \
         fill=\"#fbeaea\"/><text x=\"4\" y=\"{}\" fill=\"#c00\" font-weight=\"bold\">\
         critical path</text>",
        y + LANE - 4.0
    )
    .map_err(out_err)?;
    path.each(|n, st| {
        let (a, b) = (sc.x(st.start_ts), sc.x(st.end_ts));
        writeln!(
            out,
            "<rect class=\"step\" x=\"{a:.2}\" y=\"{:.1}\" width=\"{:.2}\" height=\"{}\" \
             fill=\"#d00\"><title>step {}: pid {} {} ({}, via {})</title></rect>",
            y + 2.0,
            (b - a).max(0.5),
            LANE - 4.0,
            n,
            st.pid,
            xml(&st.comm),
            duration(st.end_ts - st.start_ts),
            st.via
        )
        .map_err(out_err)
    })?;
    writeln!(out, "</g>").map_err(out_err)
}

/// The middle (y) of the row each command (by exec_id) was drawn in.
type Drawn = HashMap<i64, f64>;

/// A run of folded commands sharing one row: the row of the command
/// kept before them, or a summary row of their own.
struct Run {
    /// Top of its row.
    y: f64,
    /// Whether the row is a summary row of its own.
    own: bool,
    /// Commands in it.
    count: usize,
    /// The smallest depth among them (the label's indent).
    depth: i64,
    /// The longest of them (ns).
    longest: i64,
}

/// Characters of argv a tooltip shows at most.
const TITLE_ARGV: usize = 300;

/// One row per command, or per run of folded commands; returns the row
/// (y) of each command a file flow joins (by exec_id): only those, not
/// every command of the build.
fn command_rows(
    conn: &Connection,
    opts: &Options,
    out: &mut dyn Write,
    sc: &Scale,
    path: &Path<'_>,
    fold: &Fold,
    flows: &[Flow],
) -> Result<Drawn, Error> {
    let joined: HashSet<i64> = flows
        .iter()
        .flat_map(|f| [f.producer_id, f.consumer_id])
        .collect();
    let mut by_exec = path.commands()?;
    let starts: HashMap<i64, Option<Vec<u8>>> = start_dirs(conn, opts.scope)?
        .into_iter()
        .map(|d| (d.trace, d.start_cwd))
        .collect();
    let mut row_of = HashMap::new();
    let mut y = sc.top + ROWS;
    let mut run: Option<Run> = None;
    // The top of the last kept command's row.
    let mut last: Option<f64> = None;
    each_slice(conn, opts, true, |r| {
        let comm = &r.comm;
        let (s, e) = (r.start_ts, r.end_ts);
        let (x0, x1) = (sc.x(s), sc.x(e));
        let depth = r.depth;
        let path = r.path.map(xml).unwrap_or_default();
        let pid = r.pid;
        let argv = words(r.argv).flatten();
        let start = starts.get(&r.trace_id).and_then(|s| s.as_deref());
        let full = label::command(comm, argv.as_deref(), r.cwd, start, TITLE_ARGV);
        let title = format!(
            "pid {pid} {} ({}) {path} · {}",
            xml(comm),
            duration(e - s),
            xml(full.as_bytes())
        );
        // The command's pieces of the path (start, end).
        let mut on_path = Vec::new();
        by_exec.each(r.exec_id, |_, s| {
            on_path.push((s.start_ts, s.end_ts));
            Ok(())
        })?;
        let row = if fold.folds(r.exec_id, e - s) {
            let at = match &mut run {
                Some(run) => {
                    run.count += 1;
                    run.depth = run.depth.min(depth);
                    run.longest = run.longest.max(e - s);
                    run.y
                }
                None => match last {
                    Some(at) => {
                        write!(out, "<g class=\"more\">").map_err(out_err)?;
                        run = Some(Run {
                            y: at,
                            own: false,
                            count: 1,
                            depth,
                            longest: e - s,
                        });
                        at
                    }
                    None => {
                        write!(
                            out,
                            "<g class=\"folded\"><rect x=\"{LABEL}\" y=\"{y:.1}\" \
                             width=\"{PLOT}\" height=\"{ROW}\" fill=\"#f4f4f4\"/>"
                        )
                        .map_err(out_err)?;
                        run = Some(Run {
                            y,
                            own: true,
                            count: 1,
                            depth,
                            longest: e - s,
                        });
                        y += ROW;
                        y - ROW
                    }
                },
            };
            write!(out, "<g><title>{title}</title>").map_err(out_err)?;
            at
        } else {
            if let Some(done) = run.take() {
                end_run(out, &done)?;
            }
            let x = indent(depth);
            let room = ((LABEL - 6.0 - x) / text_width(1, 10.0)).max(4.0) as usize;
            let text = label::command(comm, argv.as_deref(), r.cwd, start, room);
            write!(
                out,
                "<g class=\"cmd\"><title>{title}</title>\
                 <text x=\"{x}\" y=\"{:.1}\">{}</text>",
                y + ROW - 3.0,
                xml(text.as_bytes()),
            )
            .map_err(out_err)?;
            if !on_path.is_empty() {
                // A red mark at the left edge: the row is on the path.
                write!(
                    out,
                    "<rect class=\"on-path\" x=\"0\" y=\"{:.1}\" width=\"3\" height=\"{}\" \
                     fill=\"#d00\"/>",
                    y + 1.0,
                    ROW - 2.0
                )
                .map_err(out_err)?;
            }
            last = Some(y);
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
        for (start, end) in on_path {
            let (a, b) = (sc.x(start), sc.x(end));
            write!(
                out,
                "<rect class=\"piece\" x=\"{a:.2}\" y=\"{:.1}\" width=\"{:.2}\" height=\"{}\" \
                 fill=\"none\" stroke=\"#d00\" stroke-width=\"1.5\"/>",
                row + 1.0,
                (b - a).max(0.5),
                ROW - 2.0
            )
            .map_err(out_err)?;
        }
        if run.is_some() {
            write!(out, "</g>").map_err(out_err)?;
        } else {
            writeln!(out, "</g>").map_err(out_err)?;
        }
        if joined.contains(&r.exec_id) {
            row_of.insert(r.exec_id, row + ROW / 2.0);
        }
        Ok(())
    })?;
    if let Some(done) = run.take() {
        end_run(out, &done)?;
    }
    Ok(row_of)
}

/// The left edge of a row's label at `depth`.
fn indent(depth: i64) -> f64 {
    4.0 + 6.0 * depth.min(16) as f64
}

/// The end of a run's group: a summary row's label (how many, and the
/// longest of them), or the `+N` at the right end of the row it joined.
fn end_run(out: &mut dyn Write, run: &Run) -> Result<(), Error> {
    let (n, longest) = (run.count, duration(run.longest));
    let s = if n == 1 { "" } else { "s" };
    if run.own {
        writeln!(
            out,
            "<text x=\"{}\" y=\"{:.1}\" fill=\"#555\" font-style=\"italic\">{n} command{s}, each ≤ {longest}</text></g>",
            indent(run.depth),
            run.y + ROW - 3.0,
        )
    } else {
        writeln!(
            out,
            "<g class=\"n\"><title>{n} more command{s} in this row, each ≤ {longest}</title>\
             <text x=\"{}\" y=\"{:.1}\" fill=\"#777\" font-size=\"9\">+{n}</text></g></g>",
            LABEL + PLOT + 4.0,
            run.y + ROW - 3.0,
        )
    }
    .map_err(out_err)
}

/// The most rows a file line crosses: a flow between rows further apart
/// is drawn as a mark on the reader's row only (a line per such flow,
/// a header every compile reads, would cover the picture).
const FLOW_REACH: f64 = 12.0 * ROW;

/// Per producer → consumer file flow, a thin line from the producer's row
/// at its write to the consumer's row at its read when the rows are near
/// ([`FLOW_REACH`]), else a small grey mark on the consumer's row at its
/// read; both with the path in their tooltip.
fn file_lines(
    flows: &[Flow],
    out: &mut dyn Write,
    sc: &Scale,
    row_of: &Drawn,
) -> Result<(), Error> {
    for f in flows {
        let (Some(ya), Some(yb)) = (row_of.get(&f.producer_id), row_of.get(&f.consumer_id)) else {
            continue;
        };
        let (xa, xb) = (sc.x(f.write_ts), sc.x(f.read_ts));
        if (ya - yb).abs() <= FLOW_REACH {
            writeln!(
                out,
                "<line class=\"file\" x1=\"{xa:.2}\" y1=\"{ya:.1}\" x2=\"{xb:.2}\" y2=\"{yb:.1}\" \
                 stroke=\"#555\" stroke-width=\"0.4\"><title>{}</title></line>",
                xml(&f.path)
            )
        } else {
            writeln!(
                out,
                "<circle class=\"file\" cx=\"{xb:.2}\" cy=\"{yb:.1}\" r=\"1.5\" fill=\"#555\">\
                 <title>reads {} (written at +{})</title></circle>",
                xml(&f.path),
                duration(f.write_ts - sc.start)
            )
        }
        .map_err(out_err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_axis_label_ends_inside_the_picture() {
        // 1.6 ms over 8 ticks of 0.2 ms: the last tick is on the plot's
        // right edge.
        let sc = Scale {
            start: 0,
            span: 1.6e6,
            top: TOP,
        };
        let mut out = Vec::new();
        axis(&mut out, &sc, 1_600_000, 200.0).unwrap();
        let s = String::from_utf8(out).unwrap();
        // The room right of the plot holds half of it: centred.
        let last = s.lines().last().unwrap();
        assert!(last.contains("text-anchor=\"middle\">+1.6 ms<"), "{last}");
        assert!(LABEL + PLOT + text_width(7, 10.0) / 2.0 <= WIDTH);
        let first = s.lines().nth(1).unwrap();
        assert!(first.contains("text-anchor=\"middle\">+0.0 ms<"), "{first}");
        // Each label twice: under the strip and at the bottom.
        assert_eq!(s.matches(">+0.8 ms<").count(), 2, "{s}");
        assert!(s.contains("y=\"214\""), "{s}");
    }

    #[test]
    fn text_is_escaped_for_xml() {
        assert_eq!(xml(b"a<b>&\"c"), "a&lt;b&gt;&amp;&quot;c");
        assert_eq!(xml(b"\x01"), "\\001");
    }
}
