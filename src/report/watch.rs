//! `kt2sql watch`'s snapshot of a build: what is running now, what just
//! failed, which lookups keep failing and how far the import has got,
//! read from `queries/watch_status.sql`, `running_commands.sql`,
//! `failed_commands.sql` and `failed_lookups.sql` (so the same answers
//! come from `sqlite3` or `kt2sql query`). Owns the one snapshot both the
//! terminal view (in the binary) and `watch --once` read, the thresholds
//! that highlight a long-running command, and the plain-text and JSON
//! forms of one snapshot. It never writes the database and never touches
//! the terminal.
//!
//! Shapes (stable):
//! * json: `{"status":[…],"running":[…],"failed":[…],"failed_lookups":[…]}`,
//!   each an array of row objects with the columns of its query
//!   (watch_status, running_commands, failed_commands, failed_lookups);
//!   `running` rows also have `"level"`: `ok`, `warn` or `alert`.
//! * text: per trace a head (`running, 12.000 s so far` or `ended after
//!   …`, processes, import progress, a dropped-records warning), then the
//!   commands running now (`!` past the warning threshold, `!!` past the
//!   alert one), the latest failed commands and the most repeated failing
//!   lookups.

use std::io::{self, Write};

use rusqlite::Connection;

use super::row::{typed_row, RowReader};
use super::stats::duration;
use super::{run, Cell, ResultSet};
use crate::text::vis;
use crate::Error;

/// The order of the running commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    /// Longest running first.
    #[default]
    Elapsed,
    /// Longest in its current call first.
    Call,
    /// By pid.
    Pid,
}

impl Sort {
    /// The value of running_commands.sql's `$sort`.
    pub fn name(self) -> &'static str {
        match self {
            Sort::Elapsed => "elapsed",
            Sort::Call => "call",
            Sort::Pid => "pid",
        }
    }

    /// The next order, for the key that cycles through them.
    pub fn next(self) -> Sort {
        match self {
            Sort::Elapsed => Sort::Call,
            Sort::Call => Sort::Pid,
            Sort::Pid => Sort::Elapsed,
        }
    }
}

/// When a running command is highlighted: past `warn_ns` (yellow, `!`)
/// and past `alert_ns` (red, `!!`) of running. A command waiting for its
/// children (in wait4, wait6, waitpid or wait) is never highlighted: a
/// make or a shell runs as long as its jobs, which are shown themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// ns of running past which a command is worth a look.
    pub warn_ns: i64,
    /// ns past which it is likely stuck.
    pub alert_ns: i64,
}

impl Default for Thresholds {
    /// 30 s and 2 min: a compiler or a linker of a big build takes
    /// seconds; one that has run for half a minute is among the slowest,
    /// and one that has run for two is likely waiting on something.
    fn default() -> Self {
        Thresholds {
            warn_ns: 30_000_000_000,
            alert_ns: 120_000_000_000,
        }
    }
}

/// How a running command is highlighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Below the thresholds, or waiting for its children.
    Ok,
    /// Past `warn_ns`.
    Warn,
    /// Past `alert_ns`.
    Alert,
}

impl Level {
    /// `ok`, `warn`, `alert`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Warn => "warn",
            Level::Alert => "alert",
        }
    }
}

/// The calls in which a process waits for its children.
const WAITS: &[&str] = &["wait4", "wait6", "waitpid", "wait", "waitid"];

impl Thresholds {
    /// How `r` is highlighted.
    pub fn level(&self, r: &Running) -> Level {
        if r.call.as_deref().is_some_and(|c| WAITS.contains(&c)) {
            return Level::Ok;
        }
        match r.elapsed {
            e if e >= self.alert_ns => Level::Alert,
            e if e >= self.warn_ns => Level::Warn,
            _ => Level::Ok,
        }
    }
}

typed_row! {
    /// A row of `queries/watch_status.sql`.
    struct StatusRow from "watch_status" {
        trace_id: i64,
        path: String,
        following: i64,
        elapsed: Option<i64>,
        processes: i64,
        running: i64,
        finished: i64,
        failed: i64,
        records: i64,
        size: i64,
        decoded_bytes: i64,
        lag_bytes: i64,
        dropped_records: i64,
    }
}

typed_row! {
    /// A row of `queries/running_commands.sql`.
    struct RunningRow from "running_commands" {
        trace_id: i64,
        pid: i64,
        comm: String,
        command: String,
        elapsed: i64,
        call: Option<String>,
        call_elapsed: Option<i64>,
        last_path: Option<String>,
    }
}

typed_row! {
    /// A row of `queries/failed_commands.sql`.
    struct FailedRow from "failed_commands" {
        trace_id: i64,
        pid: i64,
        command: String,
        exit_status: Option<i64>,
        exit_signal: Option<i64>,
        end_seen_by: Option<String>,
        ago: Option<i64>,
    }
}

typed_row! {
    /// A row of `queries/failed_lookups.sql`.
    struct LookupRow from "failed_lookups" {
        dir: String,
        errno_name: Option<String>,
        failed: i64,
        paths: i64,
    }
}

/// One trace's head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// Trace id.
    pub trace_id: i64,
    /// Its file.
    pub path: String,
    /// Whether `import --follow` still follows it.
    pub following: bool,
    /// ns from its first record to its latest.
    pub elapsed: i64,
    /// Process lifetimes seen.
    pub processes: i64,
    /// Alive at the snapshot.
    pub running: i64,
    /// Whose end was seen.
    pub finished: i64,
    /// Of them, non-zero exits and deaths by signal.
    pub failed: i64,
    /// Records imported.
    pub records: i64,
    /// Bytes of the file known to the import.
    pub size: i64,
    /// Bytes imported into records.
    pub decoded_bytes: i64,
    /// How far the import lags the file's end (bytes).
    pub lag_bytes: i64,
    /// Records with the dropped-events flag.
    pub dropped_records: i64,
}

/// A command running now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    /// Trace id.
    pub trace_id: i64,
    /// OS pid.
    pub pid: i64,
    /// Command name.
    pub comm: String,
    /// Its command line (argv, else program, else comm).
    pub command: String,
    /// ns it has run.
    pub elapsed: i64,
    /// The call it is in.
    pub call: Option<String>,
    /// ns in that call.
    pub call_elapsed: Option<i64>,
    /// The last path it looked up.
    pub last_path: Option<String>,
}

/// A command that failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    /// Trace id.
    pub trace_id: i64,
    /// OS pid.
    pub pid: i64,
    /// Its command line.
    pub command: String,
    /// `exit 2`, `signal 6`, `core`, ….
    pub how: String,
    /// ns from its end to the snapshot.
    pub ago: Option<i64>,
}

/// A directory whose lookups keep failing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// The directory.
    pub dir: String,
    /// The errno's name.
    pub errno: String,
    /// Failed lookups.
    pub failed: i64,
    /// Distinct paths among them.
    pub paths: i64,
}

/// One snapshot of the database: its query results and their rows.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// watch_status.sql.
    pub status_set: ResultSet,
    /// running_commands.sql.
    pub running_set: ResultSet,
    /// failed_commands.sql.
    pub failed_set: ResultSet,
    /// failed_lookups.sql.
    pub lookups_set: ResultSet,
    /// Each trace's head.
    pub status: Vec<Status>,
    /// The commands running now, in the order asked.
    pub running: Vec<Running>,
    /// The latest failed commands.
    pub failed: Vec<Failed>,
    /// The most repeated failing lookups.
    pub lookups: Vec<Lookup>,
}

/// What a snapshot covers.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Only this trace.
    pub trace: Option<i64>,
    /// The running commands' order.
    pub sort: Sort,
    /// How many running commands, at most.
    pub limit: i64,
    /// How many failed commands and failing lookups, at most.
    pub top: i64,
    /// Leave the failing lookups out (`lookups` empty): their query reads
    /// every lookup of the build, the slowest of the four on a big one, so
    /// the terminal view reads them less often than the rest.
    pub skip_lookups: bool,
}

/// Read one snapshot: the four queries of one commit of the follow (read
/// again while a commit comes between them, up to [`SNAPSHOT_TRIES`]
/// times and while a read takes less than [`SLOW_READ`]), so that the
/// head's counts and the tables agree.
pub fn snapshot(conn: &Connection, o: &Options) -> Result<Snapshot, Error> {
    // The four queries are four statements: a follow committing between
    // two would make the head count other processes than the table shows.
    // So they are read again until no commit came between the first and
    // the last (a report's connection may not open a transaction).
    let version = || -> Result<i64, Error> {
        conn.query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(crate::schema::sql_err("reading PRAGMA data_version".into()))
    };
    let mut tries = 0;
    loop {
        let (before, t0) = (version()?, std::time::Instant::now());
        let s = read_snapshot(conn, o)?;
        tries += 1;
        // A read slower than the follow's commits would never win: take it.
        let slow = t0.elapsed() >= SLOW_READ;
        if version()? == before || tries == SNAPSHOT_TRIES || slow {
            return Ok(s);
        }
    }
}

/// How often [`snapshot`] reads again before it takes what it read.
const SNAPSHOT_TRIES: u32 = 3;
/// A read this slow is not made again.
const SLOW_READ: std::time::Duration = std::time::Duration::from_millis(250);

fn read_snapshot(conn: &Connection, o: &Options) -> Result<Snapshot, Error> {
    let trace = ("trace", o.trace.map_or(Cell::Null, Cell::Int));
    let mut s = Snapshot {
        status_set: run(conn, "watch_status", std::slice::from_ref(&trace))?,
        running_set: run(
            conn,
            "running_commands",
            &[
                trace.clone(),
                ("sort", Cell::Text(o.sort.name().into())),
                ("limit", Cell::Int(o.limit)),
            ],
        )?,
        failed_set: run(
            conn,
            "failed_commands",
            &[trace.clone(), ("limit", Cell::Int(o.top))],
        )?,
        ..Snapshot::default()
    };
    if o.skip_lookups {
        s.status = status_rows(&s)?;
        return finish(s);
    }
    s.lookups_set = run(
        conn,
        "failed_lookups",
        &[trace, ("limit", Cell::Int(o.top))],
    )?;
    s.status = status_rows(&s)?;
    let r = RowReader::<LookupRow>::of_set(&s.lookups_set, "queries/failed_lookups.sql")?;
    s.lookups = r
        .all(&s.lookups_set)
        .map(|l| Lookup {
            dir: l.dir,
            errno: l.errno_name.unwrap_or_else(|| "?".into()),
            failed: l.failed,
            paths: l.paths,
        })
        .collect();
    finish(s)
}

fn status_rows(s: &Snapshot) -> Result<Vec<Status>, Error> {
    let r = RowReader::<StatusRow>::of_set(&s.status_set, "queries/watch_status.sql")?;
    Ok(r.all(&s.status_set).map(status_of).collect())
}

/// The running and failed commands' rows read from their sets.
fn finish(mut s: Snapshot) -> Result<Snapshot, Error> {
    let r = RowReader::<RunningRow>::of_set(&s.running_set, "queries/running_commands.sql")?;
    s.running = r.all(&s.running_set).map(running_of).collect();
    let r = RowReader::<FailedRow>::of_set(&s.failed_set, "queries/failed_commands.sql")?;
    s.failed = r.all(&s.failed_set).map(failed_of).collect();
    Ok(s)
}

fn status_of(r: StatusRow) -> Status {
    Status {
        trace_id: r.trace_id,
        path: r.path,
        following: r.following != 0,
        elapsed: r.elapsed.unwrap_or(0),
        processes: r.processes,
        running: r.running,
        finished: r.finished,
        failed: r.failed,
        records: r.records,
        size: r.size,
        decoded_bytes: r.decoded_bytes,
        lag_bytes: r.lag_bytes,
        dropped_records: r.dropped_records,
    }
}

fn running_of(r: RunningRow) -> Running {
    Running {
        trace_id: r.trace_id,
        pid: r.pid,
        comm: r.comm,
        command: r.command,
        elapsed: r.elapsed,
        call: r.call,
        call_elapsed: r.call_elapsed,
        last_path: r.last_path,
    }
}

fn failed_of(r: FailedRow) -> Failed {
    let how = match (r.exit_signal, r.exit_status, r.end_seen_by.as_deref()) {
        (Some(sig), _, _) => format!("signal {sig}"),
        (None, Some(st), _) => format!("exit {st}"),
        (None, None, Some(by)) => by.to_string(),
        (None, None, None) => "?".into(),
    };
    Failed {
        trace_id: r.trace_id,
        pid: r.pid,
        command: r.command,
        how,
        ago: r.ago,
    }
}

impl Status {
    /// `running, 12.000 s so far` or `ended after 12.000 s`.
    pub fn state(&self) -> String {
        match self.following {
            true => format!("running, {} so far", duration(self.elapsed)),
            false => format!("ended after {}", duration(self.elapsed)),
        }
    }

    /// `16 processes: 12 running, 4 finished (1 failed)`.
    pub fn processes_line(&self) -> String {
        format!(
            "{} processes: {} running, {} finished ({} failed)",
            self.processes, self.running, self.finished, self.failed
        )
    }

    /// `1199 records, 210966 of 210966 bytes read (0 behind)`.
    pub fn import_line(&self) -> String {
        format!(
            "{} records, {} of {} bytes read ({} behind)",
            self.records, self.decoded_bytes, self.size, self.lag_bytes
        )
    }

    /// The dropped-records warning, when the kernel flagged lost records.
    pub fn dropped_line(&self) -> Option<String> {
        (self.dropped_records > 0).then(|| {
            format!(
                "warning: {} records carry the dropped-events flag: the kernel lost records",
                self.dropped_records
            )
        })
    }
}

impl Snapshot {
    /// Every section as one JSON object, `running` rows with their level.
    pub fn write_json(&self, out: &mut dyn Write, th: &Thresholds) -> io::Result<()> {
        let mut running = self.running_set.clone();
        running.columns.push("level".into());
        for (row, r) in running.rows.iter_mut().zip(&self.running) {
            row.push(Cell::Text(th.level(r).name().into()));
        }
        let parts: [(&str, &ResultSet); 4] = [
            ("status", &self.status_set),
            ("running", &running),
            ("failed", &self.failed_set),
            ("failed_lookups", &self.lookups_set),
        ];
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

    /// The plain-text snapshot.
    pub fn write_text(&self, out: &mut dyn Write, th: &Thresholds) -> io::Result<()> {
        if self.status.is_empty() {
            writeln!(out, "no traces")?;
        }
        for s in &self.status {
            writeln!(out, "Trace {}: {}", s.trace_id, s.path)?;
            writeln!(out, "    build      {}", s.state())?;
            writeln!(out, "    processes  {}", s.processes_line())?;
            writeln!(out, "    import     {}", s.import_line())?;
            if let Some(w) = s.dropped_line() {
                writeln!(out, "    {w}")?;
            }
        }
        writeln!(out)?;
        match self.running.len() {
            0 => writeln!(out, "Running now: none")?,
            n => writeln!(out, "Running now ({n}):")?,
        }
        if !self.running.is_empty() {
            writeln!(
                out,
                "       {:>12} {:>8}  {:<10} {:>12}  command",
                "elapsed", "pid", "call", "in call"
            )?;
        }
        for r in &self.running {
            let mark = match th.level(r) {
                Level::Ok => "",
                Level::Warn => "!",
                Level::Alert => "!!",
            };
            writeln!(
                out,
                "    {mark:<2} {:>12} {:>8}  {:<10} {:>12}  {}",
                duration(r.elapsed),
                r.pid,
                r.call.as_deref().unwrap_or("-"),
                r.call_elapsed.map_or("-".into(), duration),
                vis(r.command.as_bytes())
            )?;
            if let Some(p) = &r.last_path {
                writeln!(out, "{:>50}last path {}", "", vis(p.as_bytes()))?;
            }
        }
        writeln!(out)?;
        match self.failed.len() {
            0 => writeln!(out, "Failed commands: none")?,
            _ => writeln!(out, "Failed commands, latest first:")?,
        }
        for f in &self.failed {
            writeln!(
                out,
                "    {:>8}  {:<10} {:>12} ago  {}",
                f.pid,
                f.how,
                f.ago.map_or("?".into(), duration),
                vis(f.command.as_bytes())
            )?;
        }
        writeln!(out)?;
        match self.lookups.len() {
            0 => writeln!(out, "Failing lookups: none")?,
            _ => writeln!(out, "Failing lookups, most repeated:")?,
        }
        for l in &self.lookups {
            writeln!(
                out,
                "    {:>8}  {:<8} {:>6} paths  {}",
                l.failed,
                l.errno,
                l.paths,
                vis(l.dir.as_bytes())
            )?;
        }
        Ok(())
    }
}
