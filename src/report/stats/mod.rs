//! `kt2sql stats`: what a database holds, from `queries/traces.sql`,
//! `build_time.sql`, `issues.sql`, `process_top.sql`, `critical_path.sql`,
//! `slow_commands.sql` and `syscall_top.sql`: each trace's identity, time
//! span and counts, its wall time, summed process time and parallelism,
//! the import issues, the busiest processes, a summary of each trace's
//! critical path, the slowest commands (the compiler drivers among them
//! marked by [`crate::build::compiler`]), and a syscall histogram drawn with bars in the DTrace `quantize` / ktap
//! `histogram()` style.
//!
//! The critical path of a big build has a step per command (tens of
//! thousands), so stats only summarises it: its length and times, its
//! first and last steps and the `top` longest by own time. The whole path
//! is `kt2sql query DB critical-path`.
//!
//! Shapes (stable):
//! * json: `{"traces":[…],"build":[…],"issues":[…],"processes":[…],
//!   "critical_path":[…],"critical_path_steps":[…],"slow_commands":[…],
//!   "syscalls":[…],"syscalls_more":[…]}`, each an array of row objects with the columns
//!   of its query; `critical_path` has one row per trace
//!   (`trace_id,steps,total,own,wait`), `critical_path_steps` the steps
//!   shown, in step order, and `syscalls_more` one row (`syscalls,calls`:
//!   the syscall names `--top` left out of `syscalls`, and their calls).
//!   `slow_commands` has the columns of slow_commands.sql and `compile`
//!   (1 when the program is a compiler driver, else 0).
//! * csv: the same sections as one table, a first column `section` naming
//!   each row's ([`super::write_sections_csv`]).

use std::borrow::Cow;
use std::io::{self, Write};

use rusqlite::Connection;

use super::compile_commands::words;
use super::{opt_int, run, write_sections_csv, Cell, ResultSet};
use crate::build::compiler::{basename, is_compiler};
use crate::Error;

/// Width of the histogram's bar column, as DTrace draws it.
const BAR: usize = 40;

/// Everything `stats` shows.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Rows of traces.sql.
    pub traces: ResultSet,
    /// Rows of build_time.sql.
    pub build: ResultSet,
    /// One row per trace's critical path: `trace_id`, `steps` (its
    /// length), `total` (own + wait), `own` and `wait` (ns, summed).
    pub critical: ResultSet,
    /// The steps of critical_path.sql shown, one trace after another in
    /// step order: the first, the `top` longest by own time, the last.
    pub critical_steps: ResultSet,
    /// Rows of issues.sql.
    pub issues: ResultSet,
    /// Rows of process_top.sql.
    pub processes: ResultSet,
    /// Rows of slow_commands.sql, the `top` longest by own time, and a
    /// column `compile`.
    pub slow: ResultSet,
    /// Rows of syscall_top.sql, the `top` most frequent.
    pub syscalls: ResultSet,
    /// How many of the longest steps `critical_steps` holds per trace.
    pub longest: usize,
    /// Syscall names left out of `syscalls` by `top`.
    pub syscalls_more: usize,
    /// Calls of every syscall, those left out included (the bars' 100 %).
    pub calls: i64,
}

/// Gather the stats of `trace` (every trace when `None`), with the `top`
/// busiest processes and most frequent syscalls.
pub fn stats(conn: &Connection, trace: Option<i64>, top: i64) -> Result<Stats, Error> {
    let t = [("trace", opt_int(trace))];
    let mut syscalls = run(conn, "syscall_top", &t)?;
    let col = syscalls.col("calls");
    let calls = syscalls
        .rows
        .iter()
        .map(|r| r[col].int().unwrap_or(0))
        .sum();
    let keep = usize::try_from(top).unwrap_or(0);
    let syscalls_more = syscalls.rows.len().saturating_sub(keep);
    syscalls.rows.truncate(keep);
    let build = run(conn, "build_time", &t)?;
    let mut critical = ResultSet {
        columns: ["trace_id", "steps", "total", "own", "wait"]
            .map(String::from)
            .to_vec(),
        rows: Vec::new(),
    };
    let mut critical_steps = ResultSet::default();
    for r in &build.rows {
        let id = r[build.col("trace_id")].clone();
        let path = run(conn, "critical_path", &[("trace", id.clone())])?;
        let (own, wait) = (path.col("dur"), path.col("wait"));
        let n = |r: &Vec<Cell>, c: usize| r[c].int().unwrap_or(0);
        let (o, w) = path
            .rows
            .iter()
            .fold((0, 0), |(o, w), r| (o + n(r, own), w + n(r, wait)));
        critical.rows.push(vec![
            id,
            Cell::Int(path.rows.len() as i64),
            Cell::Int(o + w),
            Cell::Int(o),
            Cell::Int(w),
        ]);
        // The longest by own time, the earlier step first on a tie.
        let mut order: Vec<usize> = (0..path.rows.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(n(&path.rows[i], own)), i));
        let mut shown: Vec<usize> = order.into_iter().take(keep).collect();
        shown.extend([0, path.rows.len().saturating_sub(1)]);
        shown.sort_unstable();
        shown.dedup();
        critical_steps.columns = path.columns;
        let mut rows = path.rows;
        let len = rows.len();
        for i in shown.into_iter().filter(|&i| i < len) {
            critical_steps.rows.push(std::mem::take(&mut rows[i]));
        }
    }
    Ok(Stats {
        traces: run(conn, "traces", &t)?,
        build,
        critical,
        critical_steps,
        longest: keep,
        issues: run(conn, "issues", &t)?,
        processes: run(
            conn,
            "process_top",
            &[("trace", opt_int(trace)), ("limit", Cell::Int(top))],
        )?,
        slow: slow_commands(conn, trace, top)?,
        syscalls,
        syscalls_more,
        calls,
    })
}

/// The `top` slowest commands, each marked `compile` 1 when its program
/// is a compiler driver.
fn slow_commands(conn: &Connection, trace: Option<i64>, top: i64) -> Result<ResultSet, Error> {
    let mut slow = run(
        conn,
        "slow_commands",
        &[("trace", opt_int(trace)), ("limit", Cell::Int(top))],
    )?;
    let path = slow.col("path");
    for r in &mut slow.rows {
        let cc = r[path].bytes().is_some_and(|p| is_compiler(basename(p)));
        r.push(Cell::Int(i64::from(cc)));
    }
    slow.columns.push("compile".into());
    Ok(slow)
}

impl Stats {
    /// The text report.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        let tr = &self.traces;
        for r in &tr.rows {
            let get = |c: &str| &r[tr.col(c)];
            let n = |c: &str| get(c).int().unwrap_or(0);
            writeln!(out, "Trace {}: {}", n("trace_id"), get("path").display())?;
            writeln!(out, "    dialect    {}", get("dialect").display())?;
            let state = match get("damage") {
                Cell::Null => "complete".to_string(),
                d => format!("incomplete: {}", d.display()),
            };
            writeln!(
                out,
                "    file       {} bytes, {} records, {state}",
                n("size"),
                n("records")
            )?;
            let time = match (get("first_ts").int(), get("last_ts").int()) {
                (Some(a), Some(b)) => format!("from {} UTC for {}", timestamp(a), duration(b - a)),
                _ => "no records".into(),
            };
            writeln!(out, "    time       {time}")?;
            self.write_build(out, n("trace_id"))?;
            writeln!(
                out,
                "    processes  {} ({} running at start), {} threads, {} execs ({} failed)",
                n("processes"),
                n("running_at_start"),
                n("threads"),
                n("execs"),
                n("failed_execs")
            )?;
            writeln!(
                out,
                "    calls      {} ({} failed, {} without return)",
                n("calls"),
                n("failed_calls"),
                n("no_return")
            )?;
            writeln!(
                out,
                "    lookups    {} ({} unresolved), {} distinct files",
                n("lookups"),
                n("unresolved"),
                n("files")
            )?;
            writeln!(out, "    events     {}", n("events"))?;
            writeln!(out, "    issues     {}", n("issues"))?;
            writeln!(out)?;
        }
        self.write_issues(out)?;
        self.write_processes(out)?;
        self.write_critical(out)?;
        self.write_slow(out)?;
        self.write_histogram(out)
    }

    /// The `build` line of a trace: wall time, summed time, parallelism.
    fn write_build(&self, out: &mut dyn Write, trace: i64) -> io::Result<()> {
        let t = &self.build;
        let Some(r) = t
            .rows
            .iter()
            .find(|r| r[t.col("trace_id")].int() == Some(trace))
        else {
            return Ok(());
        };
        let n = |c: &str| r[t.col(c)].int().unwrap_or(0);
        writeln!(
            out,
            "    build      {} wall, {} summed over {} processes; parallelism {} average, {} peak",
            duration(n("wall")),
            duration(n("process_time")),
            n("processes"),
            r[t.col("avg_parallel")].display(),
            n("peak_parallel")
        )
    }

    /// Each trace's critical path: its length and times, then the steps
    /// shown, with a `…` line for each run of steps left out.
    fn write_critical(&self, out: &mut dyn Write) -> io::Result<()> {
        let (s, t) = (&self.critical, &self.critical_steps);
        for r in &s.rows {
            let n = |c: &str| r[s.col(c)].int().unwrap_or(0);
            let trace = n("trace_id");
            let steps = n("steps");
            let mine: Vec<&Vec<Cell>> = t
                .rows
                .iter()
                .filter(|x| x[t.col("trace_id")].int() == Some(trace))
                .collect();
            let st = if steps == 1 { "" } else { "s" };
            writeln!(
                out,
                "Critical path of trace {trace}: {} ({} in commands, {} waiting), {steps} step{st}:",
                duration(n("total")),
                duration(n("own")),
                duration(n("wait"))
            )?;
            if mine.is_empty() {
                writeln!(out)?;
                continue;
            }
            writeln!(
                out,
                "    {:>4}  {:>12}  {:>10}  {:>10}  {:<5}  {:>7}  command",
                "step", "start", "own", "wait", "via", "pid"
            )?;
            let first = self.build.rows.iter().find_map(|b| {
                (b[self.build.col("trace_id")].int() == Some(trace))
                    .then(|| b[self.build.col("start_ts")].int())
                    .flatten()
            });
            let mut next = 1;
            for x in &mine {
                let m = |c: &str| x[t.col(c)].int().unwrap_or(0);
                if m("step") > next {
                    gap(out, m("step") - next)?;
                }
                next = m("step") + 1;
                writeln!(
                    out,
                    "    {:>4}  {:>12}  {:>10}  {:>10}  {:<5}  {:>7}  {}",
                    m("step"),
                    format!("+{}", duration(m("start_ts") - first.unwrap_or(0))),
                    duration(m("dur")),
                    duration(m("wait")),
                    x[t.col("via")].display(),
                    m("pid"),
                    x[t.col("comm")].display()
                )?;
            }
            if mine.len() < usize::try_from(steps).unwrap_or(0) {
                writeln!(
                    out,
                    "    (the first, the last and the {} longest by own time of {steps} steps; \
                     the whole path: kt2sql query DB critical-path --param trace={trace})",
                    self.longest,
                )?;
            }
            writeln!(out)?;
        }
        Ok(())
    }

    /// The slowest commands: own time, pid, whether it compiles, what it
    /// wrote, and the command line (argv, else the program, else the
    /// name), then where it ran and the first path it wrote.
    fn write_slow(&self, out: &mut dyn Write) -> io::Result<()> {
        let t = &self.slow;
        writeln!(out, "Slowest commands by own time:")?;
        writeln!(
            out,
            "    {:>10}  {:>7}  {:<7}  {:>6}  command",
            "own", "pid", "compile", "writes"
        )?;
        for r in &t.rows {
            let n = |c: &str| r[t.col(c)].int().unwrap_or(0);
            let line = match words(&r[t.col("argv")]) {
                Some(Some(w)) if !w.is_empty() => w
                    .iter()
                    .map(|a| String::from_utf8_lossy(a))
                    .collect::<Vec<_>>()
                    .join(" "),
                _ if r[t.col("path")] != Cell::Null => r[t.col("path")].display().into(),
                _ => r[t.col("comm")].display().into(),
            };
            writeln!(
                out,
                "    {:>10}  {:>7}  {:<7}  {:>6}  {line}",
                duration(n("dur")),
                n("pid"),
                if n("compile") == 1 { "yes" } else { "no" },
                n("writes"),
            )?;
            let cwd = &r[t.col("cwd")];
            let first = &r[t.col("first_write")];
            let mut notes = Vec::new();
            if *cwd != Cell::Null {
                notes.push(format!("in {}", cwd.display()));
            }
            if *first != Cell::Null {
                notes.push(format!("wrote {}", first.display()));
            }
            if !notes.is_empty() {
                writeln!(out, "    {:>37}  {}", "", notes.join("; "))?;
            }
        }
        writeln!(out)
    }

    fn write_issues(&self, out: &mut dyn Write) -> io::Result<()> {
        let t = &self.issues;
        writeln!(out, "Import issues:")?;
        if t.rows.is_empty() {
            writeln!(out, "    none")?;
        }
        for r in &t.rows {
            let c = |n: &str| r[t.col(n)].display();
            writeln!(
                out,
                "    {:>6}  {:<9}  {:<20}  {}",
                c("issues"),
                c("severity"),
                c("kind"),
                c("example")
            )?;
        }
        writeln!(out)
    }

    fn write_processes(&self, out: &mut dyn Write) -> io::Result<()> {
        let t = &self.processes;
        writeln!(out, "Top processes by calls:")?;
        writeln!(
            out,
            "    {:>8}  {:>6}  {:>7}  {:>5}  {:>10}  {:>7}  comm",
            "calls", "failed", "lookups", "files", "time", "pid"
        )?;
        for r in &t.rows {
            let n = |c: &str| r[t.col(c)].int().unwrap_or(0);
            writeln!(
                out,
                "    {:>8}  {:>6}  {:>7}  {:>5}  {:>10}  {:>7}  {}",
                n("calls"),
                n("failed_calls"),
                n("lookups"),
                n("files"),
                duration(n("dur")),
                n("pid"),
                r[t.col("comm")].display()
            )?;
        }
        writeln!(out)
    }

    /// `value ---- Distribution ---- count`, one bar per syscall, the bar's
    /// length its share of all calls.
    fn write_histogram(&self, out: &mut dyn Write) -> io::Result<()> {
        let t = &self.syscalls;
        let (name, calls) = (t.col("syscall"), t.col("calls"));
        let labels: Vec<String> = t.rows.iter().map(|r| r[name].display().into()).collect();
        let counts: Vec<i64> = t.rows.iter().map(|r| r[calls].int().unwrap_or(0)).collect();
        let total = self.calls.max(1);
        let w = labels
            .iter()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
            .max(5);
        writeln!(out, "Syscalls:")?;
        writeln!(
            out,
            "{:>w$} ------------- Distribution ------------- count",
            "value"
        )?;
        for (label, count) in labels.iter().zip(&counts) {
            let n = ((*count as f64 * BAR as f64 / total as f64).round() as usize).min(BAR);
            let bar = "@".repeat(n);
            writeln!(out, "{label:>w$} |{bar:<BAR$} {count}")?;
        }
        if self.syscalls_more > 0 {
            let n = self.syscalls_more;
            let s = if n == 1 { "" } else { "s" };
            writeln!(out, "{:>w$} ({n} more syscall{s}; --top N shows N)", "…")?;
        }
        Ok(())
    }

    /// The sections, as the JSON keys and the CSV `section` name them.
    fn sections(&self) -> [(&'static str, Cow<'_, ResultSet>); 9] {
        let listed: i64 = self
            .syscalls
            .rows
            .iter()
            .map(|r| r[self.syscalls.col("calls")].int().unwrap_or(0))
            .sum();
        let more = ResultSet {
            columns: vec!["syscalls".into(), "calls".into()],
            rows: vec![vec![
                Cell::Int(self.syscalls_more as i64),
                Cell::Int(self.calls - listed),
            ]],
        };
        [
            ("traces", Cow::Borrowed(&self.traces)),
            ("build", Cow::Borrowed(&self.build)),
            ("issues", Cow::Borrowed(&self.issues)),
            ("processes", Cow::Borrowed(&self.processes)),
            ("critical_path", Cow::Borrowed(&self.critical)),
            ("critical_path_steps", Cow::Borrowed(&self.critical_steps)),
            ("slow_commands", Cow::Borrowed(&self.slow)),
            ("syscalls", Cow::Borrowed(&self.syscalls)),
            ("syscalls_more", Cow::Owned(more)),
        ]
    }

    /// One JSON object holding every section.
    pub fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        let parts = self.sections();
        for (i, (k, t)) in parts.iter().enumerate() {
            let mut buf = Vec::new();
            t.write_json(&mut buf)?;
            let open = if i == 0 { "{" } else { "" };
            let close = if i + 1 < parts.len() { "," } else { "}" };
            write!(out, "{open}\"{k}\":")?;
            out.write_all(buf.trim_ascii_end())?;
            writeln!(out, "{close}")?;
        }
        Ok(())
    }

    /// Every section as one CSV table, by the `section` column.
    pub fn write_csv(&self, out: &mut dyn Write) -> io::Result<()> {
        let parts = self.sections();
        let parts: Vec<(&str, &ResultSet)> = parts.iter().map(|(k, t)| (*k, t.as_ref())).collect();
        write_sections_csv(out, &parts)
    }
}

/// The line standing for `n` steps of a critical path left out.
fn gap(out: &mut dyn Write, n: i64) -> io::Result<()> {
    let s = if n == 1 { "" } else { "s" };
    writeln!(out, "    {:>4}  ({n} step{s})", "…")
}

/// `2025-11-21 04:40:00.000007431` (UTC) for ns since the epoch.
pub fn timestamp(ns: i64) -> String {
    let (secs, sub) = (ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000));
    match chrono::DateTime::from_timestamp(secs, sub as u32) {
        Some(t) => t.format("%Y-%m-%d %H:%M:%S%.9f").to_string(),
        None => format!("{ns} ns"),
    }
}

/// A duration in ns, human-sized: `850 ns`, `12.500 us`, `1.650 ms`, `3.200 s`.
pub fn duration(ns: i64) -> String {
    let f = ns as f64;
    match ns.unsigned_abs() {
        0..=999 => format!("{ns} ns"),
        1_000..=999_999 => format!("{:.3} us", f / 1e3),
        1_000_000..=999_999_999 => format!("{:.3} ms", f / 1e6),
        _ => format!("{:.3} s", f / 1e9),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_human() {
        assert_eq!(duration(850), "850 ns");
        assert_eq!(duration(1_649_682), "1.650 ms");
        assert_eq!(duration(3_200_000_000), "3.200 s");
        assert_eq!(
            timestamp(1_763_700_000_000_007_431),
            "2025-11-21 04:40:00.000007431"
        );
    }
}
