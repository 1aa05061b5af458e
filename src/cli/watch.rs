//! `kt2sql watch [TRACE] DB`: a live view of a build. With DB alone, the
//! database another process (`kt2sql import --follow`) keeps current; with
//! a TRACE before it, this process follows the trace into DB itself, on a
//! thread of its own ([`Following`], `import::follow::run`), while the view
//! reads the database that thread writes. On a terminal, a full-screen view
//! drawn with ratatui over crossterm, read again at most once a second:
//! each trace's state and import progress, the commands running now
//! (highlighted past the thresholds of [`watch::Thresholds`]), the latest
//! failed commands and the most repeated failing lookups; `q` quits (and
//! ends the follow of a TRACE, leaving the database complete), `s` (or
//! `e`, `c`, `p`) changes the order. With `--once`, or when stdout is not
//! a terminal, one snapshot as text or `--format json` (with a TRACE: once
//! the follow has read what the file holds now; the follow then ends).
//! What a snapshot holds is [`kt2sql::report::watch`]'s; this module only
//! draws it and runs the follow's thread.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Direction, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell as TCell, Paragraph, Row, Table, Wrap};
use ratatui::Frame;
use rusqlite::Connection;

use kt2sql::decode::Abi;
use kt2sql::report;
use kt2sql::report::stats::duration;
use kt2sql::report::watch::{self, Level, Options, Snapshot, Sort, Thresholds};

use super::anyhow_lite::Result;
use super::args::{Format, FormatArg, Formats, Trace};
use super::report::emit;
use super::watch_follow::Following;

/// `kt2sql watch`.
#[derive(Debug, clap::Args)]
#[command(override_usage = "kt2sql watch [OPTIONS] DB\n       kt2sql watch [OPTIONS] TRACE DB")]
pub struct WatchArgs {
    /// The database to show (opened read-only). With a TRACE before it,
    /// follow that trace into DB first, as `kt2sql import --follow TRACE
    /// DB` does, in this process: q (or Ctrl-C) then ends both, leaving DB
    /// complete.
    #[arg(required = true, value_name = "[TRACE] DB", num_args = 1..=2)]
    pub paths: Vec<PathBuf>,
    /// With a TRACE: the working directory of the traced command when
    /// tracing began (an absolute path on the traced machine), as for
    /// import.
    #[arg(long = "start-dir", short = 'd', value_name = "DIR")]
    pub start_dir: Option<PathBuf>,
    /// With a TRACE: end the follow after this many seconds without new
    /// bytes (it ends by itself when every traced process has exited and
    /// the file stops growing).
    #[arg(long, value_name = "SECONDS")]
    pub idle: Option<f64>,
    /// With a TRACE: decode as this dialect instead of detecting it.
    #[arg(long, value_name = "ABI")]
    pub dialect: Option<Abi>,
    #[command(flatten)]
    pub trace: Trace,
    /// Print one snapshot and exit (the default when stdout is not a
    /// terminal). With a TRACE: the snapshot once the follow has read what
    /// the file holds now; the follow then ends, leaving DB complete.
    #[arg(long)]
    pub once: bool,
    /// Seconds between two reads of the database (at least 1).
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    pub interval: f64,
    /// Highlight a running command (yellow; `!` in text) once it has run
    /// this many seconds, unless it is waiting for its children.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub warn: f64,
    /// Highlight it in red (`!!` in text) past this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    pub alert: f64,
    /// The order of the running commands: elapsed (longest first), call
    /// (longest in its current call first) or pid.
    #[arg(long, value_name = "ORDER", default_value = "elapsed",
          value_parser = ["elapsed", "call", "pid"])]
    pub sort: String,
    /// How many running commands to show at most.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub limit: i64,
    /// How many failed commands and failing lookup directories to show.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: i64,
    #[command(flatten)]
    pub format: FormatArg<WatchFormats>,
}

/// `watch --format`.
#[derive(Debug)]
pub enum WatchFormats {}

impl Formats for WatchFormats {
    const TAKES: &'static [Format] = &[Format::Text, Format::Json];
    const HELP: &'static str = "Format of a snapshot printed with --once or to a pipe";
}

/// Run `kt2sql watch`.
pub fn run(args: WatchArgs) -> Result<ExitCode> {
    let sort = match args.sort.as_str() {
        "call" => Sort::Call,
        "pid" => Sort::Pid,
        _ => Sort::Elapsed,
    };
    if !(args.interval >= 1.0 && args.interval.is_finite()) {
        return Err("--interval: give 1 second or more".into());
    }
    let seconds = |s: f64, what: &str| -> Result<i64> {
        match s >= 0.0 && s.is_finite() {
            true => Ok((s * 1e9) as i64),
            false => Err(format!("{what}: give a number of seconds, 0 or more").into()),
        }
    };
    let th = Thresholds {
        warn_ns: seconds(args.warn, "--warn")?,
        alert_ns: seconds(args.alert, "--alert")?,
    };
    let opts = Options {
        trace: args.trace.id,
        sort,
        limit: args.limit.max(1),
        top: args.top.max(0),
        skip_lookups: false,
    };
    let (trace, db) = match args.paths.as_slice() {
        [db] => (None, db.clone()),
        [trace, db] => (Some(trace.clone()), db.clone()),
        _ => unreachable!("clap takes one or two paths"),
    };
    if trace.is_none() {
        for (given, what) in [
            (args.start_dir.is_some(), "-d"),
            (args.idle.is_some(), "--idle"),
            (args.dialect.is_some(), "--dialect"),
        ] {
            if given {
                return Err(format!(
                    "{what} goes with a TRACE to follow: kt2sql watch {what} … TRACE DB"
                )
                .into());
            }
        }
    }
    let tty = io::IsTerminal::is_terminal(&io::stdout());
    let once = args.once || !tty || args.format.given;
    let Some(trace) = trace else {
        if once {
            let conn = report::open(&db)?;
            let snap = watch::snapshot(&conn, &opts)?;
            return print(&snap, args.format.format, &th);
        }
        view(&db, opts, th, Duration::from_secs_f64(args.interval), None)?;
        return Ok(ExitCode::SUCCESS);
    };
    let mut follow = Following::start(
        &trace,
        &db,
        args.start_dir.as_deref(),
        args.idle,
        args.dialect,
    )?;
    if once {
        let snap = follow.caught_up(&db, &opts);
        let ended = follow.finish();
        let snap = match (snap, ended) {
            (_, Err(e)) => return Err(e.into()),
            (snap, Ok(_)) => snap?,
        };
        return print(&snap, args.format.format, &th);
    }
    let shown = view(
        &db,
        opts,
        th,
        Duration::from_secs_f64(args.interval),
        Some(&mut follow),
    );
    if !follow.ended() {
        eprintln!(
            "kt2sql: ending the follow of {} (the database is completed)",
            kt2sql::text::path(&trace)
        );
    }
    let ended = follow.finish();
    shown?;
    let done = ended?;
    eprintln!("kt2sql: {}", super::watch_follow::ended_line(&trace, &done));
    Ok(ExitCode::SUCCESS)
}

/// One snapshot on stdout.
fn print(snap: &Snapshot, format: Format, th: &Thresholds) -> Result<ExitCode> {
    emit(|out| match format {
        Format::Json => snap.write_json(out, th),
        _ => snap.write_text(out, th),
    })
}

/// The full-screen view of the database at `path` until `q` (or until
/// `follow`'s stop flag is set by a signal). With `follow`, the database
/// may not exist yet (the follow creates it once the trace holds its first
/// records) and is opened again when the follow replaces it (a resumed
/// follow imports the trace again into a fresh file).
pub fn view(
    path: &Path,
    opts: Options,
    th: Thresholds,
    every: Duration,
    follow: Option<&mut Following>,
) -> Result<()> {
    let db = match follow {
        None => Some(open_when_there(path)?),
        Some(_) => None,
    };
    let mut terminal = ratatui::try_init()?;
    let result = view_loop(
        &mut terminal,
        db,
        follow,
        path.to_path_buf(),
        opts,
        th,
        every,
    );
    ratatui::try_restore()?;
    result
}

/// Open the database, waiting up to 10 s for it to appear (the follow
/// started just before may not have created it yet).
fn open_when_there(path: &Path) -> Result<report::Database> {
    let until = Instant::now() + Duration::from_secs(10);
    while !path.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(report::open(path)?)
}

/// What the view keeps between two reads.
struct State {
    path: PathBuf,
    opts: Options,
    th: Thresholds,
    snap: Snapshot,
    /// Records per trace at the last read, and when, for records/s.
    last: HashMap<i64, (i64, Instant)>,
    rate: HashMap<i64, f64>,
    error: Option<String>,
    /// With a TRACE: what its follow is doing, and whether that is an
    /// error.
    follow: Option<(String, bool)>,
}

/// The view reads the failing lookups (the slowest query on a big build)
/// once in this many reads.
const LOOKUPS_EVERY: u64 = 10;

/// The longest wait for a key: how soon a signal ending the follow is
/// seen.
const KEY_POLL: Duration = Duration::from_millis(200);

fn view_loop(
    terminal: &mut ratatui::DefaultTerminal,
    mut db: Option<report::Database>,
    mut follow: Option<&mut Following>,
    path: PathBuf,
    opts: Options,
    th: Thresholds,
    every: Duration,
) -> Result<()> {
    let mut st = State {
        path,
        opts,
        th,
        snap: Snapshot::default(),
        last: HashMap::new(),
        rate: HashMap::new(),
        error: None,
        follow: None,
    };
    let (mut opened, mut reads) = (None, 0u64);
    loop {
        // The failing lookups every tenth read (and on the first).
        st.opts.skip_lookups = reads % LOOKUPS_EVERY != 0;
        if let Some(f) = follow.as_deref_mut() {
            f.poll();
            st.follow = Some(f.note());
            // The follow creates the database, or replaces one it resumes.
            let id = file_id(&st.path);
            if id.is_some() && id != opened {
                if let Ok(d) = report::open(&st.path) {
                    (db, opened) = (Some(d), id);
                }
            }
        }
        match &db {
            Some(conn) => st.read(conn),
            None => st.error = None,
        }
        reads += 1;
        terminal.draw(|f| draw(f, &st))?;
        let next = Instant::now() + every;
        // Keys until the next read; a key that changes the order reads now.
        loop {
            if follow.as_deref().is_some_and(Following::signalled) {
                return Ok(());
            }
            let left = next.saturating_duration_since(Instant::now());
            if left.is_zero() || !event::poll(left.min(KEY_POLL))? {
                if left.is_zero() {
                    break;
                }
                continue;
            }
            let Event::Key(k) = event::read()? else {
                continue;
            };
            if k.kind != KeyEventKind::Press {
                continue;
            }
            let sort = match k.code {
                KeyCode::Char('q') | KeyCode::Esc => return Ok(()),
                KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => return Ok(()),
                KeyCode::Char('s') => st.opts.sort.next(),
                KeyCode::Char('e') => Sort::Elapsed,
                KeyCode::Char('c') => Sort::Call,
                KeyCode::Char('p') => Sort::Pid,
                _ => continue,
            };
            if sort != st.opts.sort {
                st.opts.sort = sort;
                break;
            }
        }
    }
}

/// What tells the file at `path` from another put in its place.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let t = m
            .created()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        Some((t.as_secs(), t.subsec_nanos().into()))
    }
}

impl State {
    /// Read a snapshot; a failed read keeps the last one and says why.
    fn read(&mut self, conn: &Connection) {
        match watch::snapshot(conn, &self.opts) {
            Ok(s) => {
                let now = Instant::now();
                for t in &s.status {
                    if let Some((n, at)) = self.last.get(&t.trace_id) {
                        let dt = now.duration_since(*at).as_secs_f64();
                        if dt > 0.0 {
                            self.rate
                                .insert(t.trace_id, (t.records - n).max(0) as f64 / dt);
                        }
                    }
                    self.last.insert(t.trace_id, (t.records, now));
                }
                let lookups = std::mem::take(&mut self.snap.lookups);
                self.snap = s;
                if self.opts.skip_lookups {
                    self.snap.lookups = lookups;
                }
                self.error = None;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }
}

fn draw(f: &mut Frame<'_>, st: &State) {
    let width = f.area().width;
    let (head_lines, head_height) = head(st, width);
    let areas = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(head_height),
            Constraint::Min(6),
            Constraint::Length(st.opts.top.clamp(1, 10) as u16 + 3),
            Constraint::Length(1),
        ])
        .split(f.area());
    f.render_widget(head_lines, areas[0]);
    f.render_widget(running_table(st, areas[1].width), areas[1]);
    let bottom = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Percentage(58), Constraint::Percentage(42)])
        .split(areas[2]);
    f.render_widget(failed_table(st), bottom[0]);
    f.render_widget(lookups_table(st, bottom[1].width), bottom[1]);
    let order = st.opts.sort.name();
    let (warn, alert) = (duration(st.th.warn_ns), duration(st.th.alert_ns));
    let keys = match width >= 100 {
        true => format!(
            "q quit   s next order   e/c/p by elapsed/call/pid   order: {order}   \
             highlight past {warn} / {alert}"
        ),
        false => format!("q quit  s/e/c/p order: {order}  highlight {warn} / {alert}"),
    };
    f.render_widget(
        Paragraph::new(keys).style(Style::default().add_modifier(Modifier::DIM)),
        areas[3],
    );
}

/// The head, and its height on a screen `width` columns wide (its lines
/// wrap rather than lose their ends).
fn head(st: &State, width: u16) -> (Paragraph<'static>, u16) {
    let mut lines: Vec<Line<'static>> = Vec::new();
    if st.snap.status.is_empty() && st.follow.is_none() {
        lines.push(Line::from("no traces yet"));
    }
    for s in &st.snap.status {
        let state_style = match s.following {
            true => Style::default().fg(Color::Green),
            false => Style::default().add_modifier(Modifier::BOLD),
        };
        lines.push(Line::from(vec![
            format!("trace {}: ", s.trace_id).into(),
            ratatui::text::Span::styled(s.state(), state_style),
            format!("   {}", s.processes_line()).into(),
        ]));
        let rate = st
            .rate
            .get(&s.trace_id)
            .map_or(String::new(), |r| format!(", {r:.0} records/s"));
        let mut second = vec![format!("    {}{rate}", s.import_line()).into()];
        if let Some(w) = s.dropped_line() {
            second.push(ratatui::text::Span::styled(
                format!("   {w}"),
                Style::default().fg(Color::Red),
            ));
        }
        lines.push(Line::from(second));
    }
    if let Some((note, bad)) = &st.follow {
        let style = match bad {
            true => Style::default().fg(Color::Red),
            false => Style::default(),
        };
        lines.push(Line::styled(note.clone(), style));
    }
    if let Some(e) = &st.error {
        lines.push(Line::styled(
            format!("cannot read the database: {e}"),
            Style::default().fg(Color::Red),
        ));
    }
    let inner = usize::from(width.saturating_sub(2).max(1));
    let rows: usize = lines.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
    let height = u16::try_from(rows + 2).unwrap_or(u16::MAX);
    let p = Paragraph::new(lines).wrap(Wrap { trim: false }).block(
        Block::default()
            .borders(Borders::ALL)
            .title(format!(" kt2sql watch {} ", st.path.display())),
    );
    (p, height)
}

/// `s` in `width` characters at most: its end, after `…` (a path's end
/// is what tells it from the others).
fn tail(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width || width < 2 {
        return s.to_string();
    }
    let mut out = String::from("…");
    out.extend(s.chars().skip(n - (width - 1)));
    out
}

/// The running commands' columns: elapsed, pid, call, in call (fixed),
/// then the command and the last path sharing the rest.
const RUNNING_FIXED: [u16; 4] = [10, 7, 10, 10];

fn running_table(st: &State, width: u16) -> Table<'static> {
    // Borders and the five gaps between the six columns.
    let fixed: u16 = RUNNING_FIXED.iter().sum::<u16>() + 2 + 5;
    let path_width = usize::from(width.saturating_sub(fixed)) * 45 / 100;
    let rows: Vec<Row<'static>> = st
        .snap
        .running
        .iter()
        .map(|r| {
            let style = match st.th.level(r) {
                Level::Ok => Style::default(),
                Level::Warn => Style::default().fg(Color::Yellow),
                Level::Alert => Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
            };
            Row::new(vec![
                TCell::from(duration(r.elapsed)),
                TCell::from(r.pid.to_string()),
                TCell::from(r.call.clone().unwrap_or_else(|| "-".into())),
                TCell::from(r.call_elapsed.map_or("-".into(), duration)),
                TCell::from(r.command.clone()),
                TCell::from(tail(r.last_path.as_deref().unwrap_or_default(), path_width)),
            ])
            .style(style)
        })
        .collect();
    let title = format!(
        " running now: {} (by {}) ",
        st.snap.running.len(),
        st.opts.sort.name()
    );
    Table::new(
        rows,
        [
            Constraint::Length(RUNNING_FIXED[0]),
            Constraint::Length(RUNNING_FIXED[1]),
            Constraint::Length(RUNNING_FIXED[2]),
            Constraint::Length(RUNNING_FIXED[3]),
            Constraint::Percentage(55),
            Constraint::Percentage(45),
        ],
    )
    .header(
        Row::new(vec![
            "elapsed",
            "pid",
            "call",
            "in call",
            "command",
            "last path",
        ])
        .style(Style::default().add_modifier(Modifier::BOLD)),
    )
    .block(Block::default().borders(Borders::ALL).title(title))
}

fn failed_table(st: &State) -> Table<'static> {
    let rows: Vec<Row<'static>> = st
        .snap
        .failed
        .iter()
        .map(|f| {
            Row::new(vec![
                f.pid.to_string(),
                f.how.clone(),
                f.ago.map_or("?".into(), |a| format!("{} ago", duration(a))),
                f.command.clone(),
            ])
        })
        .collect();
    Table::new(
        rows,
        [
            Constraint::Length(7),
            Constraint::Length(9),
            Constraint::Length(14),
            Constraint::Min(10),
        ],
    )
    .block(
        Block::default()
            .borders(Borders::ALL)
            .title(" failed commands, latest first "),
    )
}

fn lookups_table(st: &State, width: u16) -> Table<'static> {
    // Borders, two columns of 7 and two gaps.
    let dir_width = usize::from(width.saturating_sub(2 + 7 + 7 + 2));
    let rows: Vec<Row<'static>> = st
        .snap
        .lookups
        .iter()
        .map(|l| {
            Row::new(vec![
                l.failed.to_string(),
                l.errno.clone(),
                tail(&l.dir, dir_width),
            ])
        })
        .collect();
    Table::new(
        rows,
        [
            Constraint::Length(7),
            Constraint::Length(7),
            Constraint::Min(10),
        ],
    )
    .block(
        Block::default()
            .borders(Borders::ALL)
            .title(" failing lookups, most repeated "),
    )
}
