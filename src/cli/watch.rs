//! `kt2sql watch DB`: a live view of a build while `kt2sql import --follow`
//! keeps its database current. On a terminal, a full-screen view drawn with
//! ratatui over crossterm, read again at most once a second: each trace's
//! state and import progress, the commands running now (highlighted past
//! the thresholds of [`watch::Thresholds`]), the latest failed commands
//! and the most repeated failing lookups; `q` quits, `s` (or `e`, `c`,
//! `p`) changes the order. With `--once`, or when stdout is not a
//! terminal, one snapshot as text or `--format json`. What a snapshot
//! holds is [`kt2sql::report::watch`]'s; this module only draws it.
//!
//! The view needs only the database's path: the follow that keeps it
//! current can be another process, or a thread beside [`view`].

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Direction, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell as TCell, Paragraph, Row, Table};
use ratatui::Frame;
use rusqlite::Connection;

use kt2sql::report;
use kt2sql::report::stats::duration;
use kt2sql::report::watch::{self, Level, Options, Snapshot, Sort, Thresholds};

use super::anyhow_lite::Result;
use super::args::{Db, Format, FormatArg, Formats, Trace};
use super::report::emit;

/// `kt2sql watch`.
#[derive(Debug, clap::Args)]
pub struct WatchArgs {
    #[command(flatten)]
    pub db: Db,
    #[command(flatten)]
    pub trace: Trace,
    /// Print one snapshot and exit (the default when stdout is not a
    /// terminal).
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
    };
    let tty = io::IsTerminal::is_terminal(&io::stdout());
    if args.once || !tty || args.format.given {
        let conn = report::open(&args.db.path)?;
        let snap = watch::snapshot(&conn, &opts)?;
        return emit(|out| match args.format.format {
            Format::Json => snap.write_json(out, &th),
            _ => snap.write_text(out, &th),
        });
    }
    view(
        &args.db.path,
        opts,
        th,
        Duration::from_secs_f64(args.interval),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The full-screen view of the database at `path` until `q`.
pub fn view(path: &Path, opts: Options, th: Thresholds, every: Duration) -> Result<()> {
    let conn = open_when_there(path)?;
    let mut terminal = ratatui::try_init()?;
    let result = view_loop(&mut terminal, &conn, path.to_path_buf(), opts, th, every);
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
}

fn view_loop(
    terminal: &mut ratatui::DefaultTerminal,
    conn: &Connection,
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
    };
    loop {
        st.read(conn);
        terminal.draw(|f| draw(f, &st))?;
        let next = Instant::now() + every;
        // Keys until the next read; a key that changes the order reads now.
        loop {
            let left = next.saturating_duration_since(Instant::now());
            if left.is_zero() || !event::poll(left)? {
                break;
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
                self.snap = s;
                self.error = None;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }
}

fn draw(f: &mut Frame<'_>, st: &State) {
    let heads = st.snap.status.len().max(1) as u16;
    let areas = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(heads * 2 + 2),
            Constraint::Min(6),
            Constraint::Length(st.opts.top.clamp(1, 10) as u16 + 3),
            Constraint::Length(1),
        ])
        .split(f.area());
    f.render_widget(head(st), areas[0]);
    f.render_widget(running_table(st), areas[1]);
    let bottom = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Percentage(55), Constraint::Percentage(45)])
        .split(areas[2]);
    f.render_widget(failed_table(st), bottom[0]);
    f.render_widget(lookups_table(st), bottom[1]);
    let keys = format!(
        "q quit   s next order   e/c/p by elapsed/call/pid   order: {}   highlight past {} / {}",
        st.opts.sort.name(),
        duration(st.th.warn_ns),
        duration(st.th.alert_ns)
    );
    f.render_widget(
        Paragraph::new(keys).style(Style::default().add_modifier(Modifier::DIM)),
        areas[3],
    );
}

fn head(st: &State) -> Paragraph<'static> {
    let mut lines: Vec<Line<'static>> = Vec::new();
    if st.snap.status.is_empty() {
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
    if let Some(e) = &st.error {
        lines.push(Line::styled(
            format!("cannot read the database: {e}"),
            Style::default().fg(Color::Red),
        ));
    }
    Paragraph::new(lines).block(
        Block::default()
            .borders(Borders::ALL)
            .title(format!(" kt2sql watch {} ", st.path.display())),
    )
}

fn running_table(st: &State) -> Table<'static> {
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
                TCell::from(r.last_path.clone().unwrap_or_default()),
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
            Constraint::Length(12),
            Constraint::Length(8),
            Constraint::Length(12),
            Constraint::Length(12),
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
            Constraint::Length(8),
            Constraint::Length(10),
            Constraint::Length(16),
            Constraint::Min(10),
        ],
    )
    .block(
        Block::default()
            .borders(Borders::ALL)
            .title(" failed commands, latest first "),
    )
}

fn lookups_table(st: &State) -> Table<'static> {
    let rows: Vec<Row<'static>> = st
        .snap
        .lookups
        .iter()
        .map(|l| Row::new(vec![l.failed.to_string(), l.errno.clone(), l.dir.clone()]))
        .collect();
    Table::new(
        rows,
        [
            Constraint::Length(8),
            Constraint::Length(8),
            Constraint::Min(10),
        ],
    )
    .block(
        Block::default()
            .borders(Borders::ALL)
            .title(" failing lookups, most repeated "),
    )
}
