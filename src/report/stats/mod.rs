//! `kt2sql stats`: what a database holds, from `queries/traces.sql`,
//! `build_time.sql`, `issues.sql`, `process_top.sql`, the critical path
//! (walked as the timeline walks it, [`super::timeline::critical`]: the
//! rows of `critical_path.sql`), `slow_commands.sql` and
//! `syscall_top.sql`: each trace's identity, time
//! span and counts, its wall time, summed process time and parallelism,
//! the import issues, the busiest processes, a summary of each trace's
//! critical path, the slowest commands (the compiler drivers among them
//! marked by [`crate::build::compiler`]), and a syscall histogram drawn with bars in the DTrace `quantize` / ktap
//! `histogram()` style.
//!
//! On a database `import --follow` still keeps current (trace.following
//! = 1) the text says so: `time … UTC, running, 12.000 s so far` and how
//! many processes run now; a finished trace keeps its `for …` wording.
//!
//! The critical path of a big build has a step per command (tens of
//! thousands), so stats only summarises it: its length and times, its
//! first and last steps and the `top` longest by own time, asked of the
//! path's temporary table ([`super::timeline::path`]: the caller lifts
//! the report guard for the temporary schema). The whole path is `kt2sql
//! query DB critical_path`.
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
//! * jsonl: the same rows, one object per line, with `section` first and
//!   the section's own columns ([`super::write_sections_jsonl`]).

use std::borrow::Cow;
use std::io::{self, Write};

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use super::compile_commands::words;
use super::row::{RowReader, TypedRow};
use super::timeline::critical::{self, path_rows_of};
use super::timeline::path::Path;
use super::{opt_int, run, write_sections_csv, write_sections_jsonl, Cell, ResultSet, Scope};
use crate::build::compiler::{basename, is_compiler};
use crate::Error;

mod rows;

/// Width of the histogram's bar column, as DTrace draws it.
const BAR: usize = 40;

/// Everything `stats` shows.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Rows of traces.sql.
    pub traces: ResultSet,
    /// Rows of build_time.sql.
    pub build: ResultSet,
    /// Each trace's critical path, summed.
    pub critical: Vec<CriticalPath>,
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
    let calls = typed::<rows::Syscall>(&syscalls, "syscall_top")?
        .all(&syscalls)
        .map(|r| r.calls)
        .sum();
    let keep = usize::try_from(top).unwrap_or(0);
    let syscalls_more = syscalls.rows.len().saturating_sub(keep);
    syscalls.rows.truncate(keep);
    let build = run(conn, "build_time", &t)?;
    let mut critical = Vec::new();
    let mut critical_steps = ResultSet::default();
    // The walk of timeline::critical (queries/critical_path.sql's rows),
    // over the flows' dependencies read once for every trace; only the
    // steps shown become rows.
    let scope = Scope { trace, pid: None };
    let deps = critical::Deps::load(conn, scope)?;
    for b in typed::<rows::Build>(&build, "build_time")?.all(&build) {
        let path = Path::walk(conn, scope, &[b.trace_id.unwrap_or(0)], &deps)?;
        let (own, wait) = path.totals()?;
        critical.push(CriticalPath {
            trace_id: b.trace_id,
            steps: path.len(),
            own,
            wait,
        });
        // The longest by own time, the earlier step first on a tie, and
        // the first and the last.
        let shown = path.longest(keep)?;
        let mut rows = path_rows_of(shown.iter().map(|(n, s)| (*n, s)));
        critical_steps.columns = rows.columns;
        critical_steps.rows.append(&mut rows.rows);
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
    let reader = typed::<rows::Slow>(&slow, "slow_commands")?;
    let marks: Vec<bool> = reader.all(&slow).map(|r| compiles(r.path)).collect();
    for (r, cc) in slow.rows.iter_mut().zip(marks) {
        r.push(Cell::Int(i64::from(cc)));
    }
    slow.columns.push("compile".into());
    Ok(slow)
}

impl Stats {
    /// The text report.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        let tr = &self.traces;
        for r in shown::<rows::Trace>(tr, "traces")?.all(tr) {
            writeln!(out, "Trace {}: {}", r.trace_id, r.path)?;
            writeln!(out, "    dialect    {}", r.dialect)?;
            let state = match r.damage {
                ValueRef::Null => "complete".to_string(),
                d => format!("incomplete: {}", Cell::from(d).display()),
            };
            writeln!(
                out,
                "    file       {} bytes, {} records, {state}",
                r.size, r.records
            )?;
            let live = r.following != 0;
            let time = match (r.first_ts, r.last_ts) {
                (Some(a), Some(b)) if live => format!(
                    "from {} UTC, running, {} so far",
                    timestamp(a),
                    duration(b - a)
                ),
                (Some(a), Some(b)) => format!("from {} UTC for {}", timestamp(a), duration(b - a)),
                _ if live => "running, no records yet".into(),
                _ => "no records".into(),
            };
            writeln!(out, "    time       {time}")?;
            self.write_build(out, r.trace_id)?;
            let now = match live {
                true => format!(", {} running now", r.running),
                false => String::new(),
            };
            writeln!(
                out,
                "    processes  {} ({} running at start{now}), {} threads, {} execs ({} failed)",
                r.processes, r.running_at_start, r.threads, r.execs, r.failed_execs
            )?;
            writeln!(
                out,
                "    calls      {} ({} failed, {} without return)",
                r.calls, r.failed_calls, r.no_return
            )?;
            writeln!(
                out,
                "    lookups    {} ({} unresolved), {} distinct files",
                r.lookups, r.unresolved, r.files
            )?;
            writeln!(out, "    events     {}", r.events)?;
            writeln!(out, "    issues     {}", r.issues)?;
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
        let reader = shown::<rows::Build>(t, "build_time")?;
        let Some(r) = reader.all(t).find(|r| r.trace_id == Some(trace)) else {
            return Ok(());
        };
        writeln!(
            out,
            "    build      {} wall, {} summed over {} processes; parallelism {} average, {} peak",
            duration(r.wall),
            duration(r.process_time),
            r.processes,
            r.avg_parallel,
            r.peak_parallel
        )
    }

    /// Each trace's critical path: its length and times, then the steps
    /// shown, with a `…` line for each run of steps left out.
    fn write_critical(&self, out: &mut dyn Write) -> io::Result<()> {
        let (t, build) = (&self.critical_steps, &self.build);
        // No step shown at all leaves critical_path.sql's columns unknown.
        let steps = match t.columns.is_empty() {
            true => None,
            false => Some(shown::<rows::Step>(t, "critical_path")?),
        };
        for c in &self.critical {
            let (trace, len) = (c.trace_id.unwrap_or(0), c.steps);
            let mine: Vec<rows::Step> = steps
                .iter()
                .flat_map(|s| s.all(t))
                .filter(|x| x.trace_id == Some(trace))
                .collect();
            let st = if len == 1 { "" } else { "s" };
            writeln!(
                out,
                "Critical path of trace {trace}: {} ({} in commands, {} waiting), {len} step{st}:",
                duration(c.own + c.wait),
                duration(c.own),
                duration(c.wait)
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
            let first = shown::<rows::Build>(build, "build_time")?
                .all(build)
                .find_map(|b| (b.trace_id == Some(trace)).then_some(b.start_ts).flatten());
            let mut next = 1;
            for x in &mine {
                if x.step > next {
                    gap(out, x.step - next)?;
                }
                next = x.step + 1;
                writeln!(
                    out,
                    "    {:>4}  {:>12}  {:>10}  {:>10}  {:<5}  {:>7}  {}",
                    x.step,
                    format!("+{}", duration(x.start_ts - first.unwrap_or(0))),
                    duration(x.dur),
                    duration(x.wait),
                    x.via,
                    x.pid,
                    x.comm
                )?;
            }
            if mine.len() < usize::try_from(len).unwrap_or(0) {
                writeln!(
                    out,
                    "    (the first, the last and the {} longest by own time of {len} steps; \
                     the whole path: kt2sql query DB critical_path --param trace={trace})",
                    self.longest,
                )?;
            }
            writeln!(out)?;
        }
        Ok(())
    }

    /// The slowest commands: own time (less its children's), wall time,
    /// pid, whether it compiles, what it
    /// wrote, and the command line (argv, else the program, else the
    /// name), then where it ran and the first path it wrote.
    fn write_slow(&self, out: &mut dyn Write) -> io::Result<()> {
        let t = &self.slow;
        writeln!(out, "Slowest commands by own time:")?;
        writeln!(
            out,
            "    {:>10}  {:>10}  {:>7}  {:<7}  {:>6}  command",
            "own", "wall", "pid", "compile", "writes"
        )?;
        for r in shown::<rows::Slow>(t, "slow_commands")?.all(t) {
            let line = match words(r.argv) {
                Some(Some(w)) if !w.is_empty() => w
                    .iter()
                    .map(|a| String::from_utf8_lossy(a))
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => match r.path {
                    Some(p) => crate::text::vis(p).into(),
                    None => r.comm.display().into(),
                },
            };
            writeln!(
                out,
                "    {:>10}  {:>10}  {:>7}  {:<7}  {:>6}  {line}",
                duration(r.dur),
                duration(r.wall),
                r.pid,
                if compiles(r.path) { "yes" } else { "no" },
                r.writes,
            )?;
            let mut notes = Vec::new();
            if r.cwd != Cell::Null {
                notes.push(format!("in {}", r.cwd.display()));
            }
            if r.first_write != Cell::Null {
                notes.push(format!("wrote {}", r.first_write.display()));
            }
            if !notes.is_empty() {
                writeln!(out, "    {:>49}  {}", "", notes.join("; "))?;
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
        for r in shown::<rows::Issue>(t, "issues")?.all(t) {
            writeln!(
                out,
                "    {:>6}  {:<9}  {:<20}  {}",
                r.issues, r.severity, r.kind, r.example
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
        for r in shown::<rows::Process>(t, "process_top")?.all(t) {
            writeln!(
                out,
                "    {:>8}  {:>6}  {:>7}  {:>5}  {:>10}  {:>7}  {}",
                r.calls,
                r.failed_calls,
                r.lookups,
                r.files,
                duration(r.dur),
                r.pid,
                r.comm
            )?;
        }
        writeln!(out)
    }

    /// `value ---- Distribution ---- count`, one bar per syscall, the bar's
    /// length its share of all calls.
    fn write_histogram(&self, out: &mut dyn Write) -> io::Result<()> {
        let t = &self.syscalls;
        let reader = shown::<rows::Syscall>(t, "syscall_top")?;
        let (labels, counts): (Vec<String>, Vec<i64>) =
            reader.all(t).map(|r| (r.syscall, r.calls)).unzip();
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
        let t = &self.syscalls;
        let listed: i64 = shown::<rows::Syscall>(t, "syscall_top")
            .map_or(0, |reader| reader.all(t).map(|r| r.calls).sum());
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
            ("critical_path", Cow::Owned(self.critical_table())),
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

    /// Every section as JSON Lines, one object per row with its `section`.
    pub fn write_jsonl(&self, out: &mut dyn Write) -> io::Result<()> {
        let parts = self.sections();
        let parts: Vec<(&str, &ResultSet)> = parts.iter().map(|(k, t)| (*k, t.as_ref())).collect();
        write_sections_jsonl(out, &parts)
    }
}

/// One trace's critical path, summed: a row of the `critical_path`
/// section (`trace_id,steps,total,own,wait`).
#[derive(Debug, Clone, Default)]
pub struct CriticalPath {
    /// The trace.
    pub trace_id: Option<i64>,
    /// Its length in steps.
    pub steps: i64,
    /// The steps' own time (ns), summed.
    pub own: i64,
    /// The waits between steps (ns), summed.
    pub wait: i64,
}

impl Stats {
    /// The `critical_path` section, one row per trace.
    fn critical_table(&self) -> ResultSet {
        let rows = self.critical.iter().map(|c| {
            let ns = [c.steps, c.own + c.wait, c.own, c.wait].map(Cell::Int);
            std::iter::once(opt_int(c.trace_id)).chain(ns).collect()
        });
        ResultSet {
            columns: ["trace_id", "steps", "total", "own", "wait"]
                .map(String::from)
                .to_vec(),
            rows: rows.collect(),
        }
    }
}

/// The rows of `set`, a result of `queries/{query}.sql`, as `T`, for
/// the text report (its errors are the output's).
fn shown<T: TypedRow>(set: &ResultSet, query: &str) -> io::Result<RowReader<T>> {
    typed(set, query).map_err(io::Error::other)
}

/// The rows of `set`, a result of `queries/{query}.sql`, as `T`.
fn typed<T: TypedRow>(set: &ResultSet, query: &str) -> Result<RowReader<T>, Error> {
    RowReader::of_set(set, &format!("queries/{query}.sql"))
}

/// Whether a command's program is a compiler driver.
fn compiles(path: Option<&[u8]>) -> bool {
    path.is_some_and(|p| is_compiler(basename(p)))
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
