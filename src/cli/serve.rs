//! `kt2sql serve`: a database in the browser through Datasette, read-only,
//! with the configuration `kt2sql::report::datasette` generates and the
//! pictures (timeline, build graph, charts) as pages; or `--write-config
//! DIR`, the same files for people who run Datasette themselves. Owns
//! finding and running `datasette` and `dot`; the text of every file is the
//! library's.

use std::io::Write;
use std::net::{IpAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kt2sql::report::{self, charts, datasette, timeline, Scope};

use super::anyhow_lite::Result;
use super::args::Db;

/// The one line that says how to install Datasette.
pub const INSTALL_HINT: &str = "datasette is not installed (or not on PATH): install it with \
     `pipx install datasette` or `python3 -m pip install 'datasette>=0.65,<1'`";

/// `kt2sql serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub db: Db,
    /// Write the Datasette configuration into DIR instead of serving
    /// (metadata.json, templates/pages/ and the pictures in static/), to
    /// run `datasette` yourself with the command DIR/serve.sh holds. DIR
    /// must not exist or be empty.
    #[arg(long, value_name = "DIR")]
    pub write_config: Option<PathBuf>,
    /// The address to listen on. Other machines can reach the build only
    /// when this is not a loopback address.
    #[arg(long, short = 'H', value_name = "ADDR", default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// The port to listen on (default: a free one).
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub port: u16,
    /// Stop SQL typed into the form, and the query of a table's page,
    /// when it runs longer than this (milliseconds).
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub time_limit: u64,
    /// Stop a canned query when it runs longer than this (milliseconds):
    /// kt2sql's reports take longer on a big build.
    #[arg(long, value_name = "MS", default_value_t = 120_000)]
    pub query_time_limit: u64,
}

impl ServeArgs {
    fn limits(&self) -> datasette::TimeLimits {
        datasette::TimeLimits {
            sql: self.time_limit,
            canned: self.query_time_limit,
        }
    }
}

/// Run `kt2sql serve`.
pub fn run(a: ServeArgs) -> Result<ExitCode> {
    let conn = report::open(&a.db.path)?;
    let following = following(&conn);
    let name = db_name(&a.db.path);
    if let Some(dir) = &a.write_config {
        fresh_dir(dir)?;
        write_config(&conn, &name, a.limits(), dir)?;
        let serve = command_line(&a, dir, following, a.port);
        std::fs::write(
            dir.join("serve.sh"),
            format!("#!/bin/sh\nexec {}\n", shell_words(&serve)),
        )?;
        eprintln!(
            "kt2sql: wrote the Datasette configuration into {}; run: sh {}/serve.sh",
            dir.display(),
            dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let Some(datasette) = find_program("datasette") else {
        return Err(INSTALL_HINT.into());
    };
    let dir = tempfile::Builder::new().prefix("kt2sql-serve").tempdir()?;
    write_config(&conn, &name, a.limits(), dir.path())?;
    drop(conn);
    let port = match a.port {
        0 => TcpListener::bind((a.host, 0))?.local_addr()?.port(),
        p => p,
    };
    let args = command_line(&a, dir.path(), following, port);
    // Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops Datasette, then the
    // configuration is removed with `dir`.
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    let mut child = Command::new(datasette)
        .args(&args[1..])
        .stdin(Stdio::null())
        .spawn()?;
    let host = match a.host {
        IpAddr::V6(h) => format!("[{h}]"),
        IpAddr::V4(h) => h.to_string(),
    };
    println!("http://{host}:{port}/{name}");
    std::io::stdout().flush()?;
    let mode = match following {
        true => "read-only, still growing",
        false => "read-only, immutable",
    };
    eprintln!(
        "kt2sql: serving {} ({mode}); Ctrl-C stops",
        a.db.path.display()
    );
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(match status.success() {
                true => ExitCode::SUCCESS,
                false => ExitCode::from(2),
            });
        }
        if stop.load(Ordering::SeqCst) {
            let _ = child.kill();
            child.wait()?;
            return Ok(ExitCode::SUCCESS);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The `datasette serve` command line (program first) for the database
/// of `a` with the configuration in `dir`: `--immutable` for a finished
/// database; a growing one is opened read-only as it is.
fn command_line(a: &ServeArgs, dir: &Path, following: bool, port: u16) -> Vec<String> {
    let db = std::path::absolute(&a.db.path)
        .unwrap_or_else(|_| a.db.path.clone())
        .display()
        .to_string();
    let mut v: Vec<String> = vec!["datasette".into(), "serve".into()];
    if following {
        v.push(db);
    } else {
        v.extend(["--immutable".into(), db]);
    }
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let d = dir.display();
    v.extend([
        "--metadata".into(),
        format!("{d}/metadata.json"),
        "--template-dir".into(),
        format!("{d}/templates"),
        "--static".into(),
        format!("{}:{d}/static", datasette::STATIC_MOUNT),
        "--plugins-dir".into(),
        format!("{d}/plugins"),
        "--setting".into(),
        "sql_time_limit_ms".into(),
        a.limits().server().to_string(),
        "--host".into(),
        a.host.to_string(),
        "--port".into(),
        port.to_string(),
    ]);
    v
}

/// Whether an import is still writing the database (`trace.following`
/// is 1 on a trace); a database without the column is finished.
fn following(conn: &rusqlite::Connection) -> bool {
    conn.query_row("SELECT count(*) FROM trace WHERE following = 1", [], |r| {
        r.get::<_, i64>(0)
    })
    .is_ok_and(|n| n > 0)
}

/// The database's name in Datasette: its file stem.
fn db_name(path: &Path) -> String {
    path.file_stem()
        .map_or_else(|| "db".into(), |s| s.to_string_lossy().into_owned())
}

/// Refuse a DIR that holds anything: the configuration is written whole
/// into an empty directory, never over other files.
fn fresh_dir(dir: &Path) -> Result<()> {
    match std::fs::read_dir(dir).map(|mut entries| entries.next().is_some()) {
        Ok(true) => Err(format!(
            "{}: the directory is not empty; give a new or empty directory to --write-config",
            dir.display()
        )
        .into()),
        Ok(false) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(std::fs::create_dir_all(dir)?),
        Err(e) => Err(format!("{}: {e}", dir.display()).into()),
    }
}

/// Write metadata.json, the time limits' plugin, the pages and their
/// pictures into `dir`.
fn write_config(
    conn: &report::Database,
    name: &str,
    limits: datasette::TimeLimits,
    dir: &Path,
) -> Result<()> {
    let (pages, statics) = (dir.join("templates/pages"), dir.join("static"));
    std::fs::create_dir_all(&pages)?;
    std::fs::create_dir_all(&statics)?;
    std::fs::create_dir_all(dir.join("plugins"))?;
    let meta = serde_json::to_string_pretty(&datasette::metadata(name, limits))?;
    std::fs::write(dir.join("metadata.json"), meta)?;
    std::fs::write(
        dir.join("plugins").join(datasette::PLUGIN_FILE),
        datasette::PLUGIN,
    )?;
    let scope = Scope::default();
    let mut timeline = Vec::new();
    let opts = timeline::Options {
        scope,
        ..Default::default()
    };
    let timeline = match conn.in_temp(|c| timeline::svg::write(c, &opts, &mut timeline)) {
        Ok(_) => String::from_utf8_lossy(&timeline).into_owned(),
        Err(e) => format!("<p>No timeline: {}</p>", datasette::escape(&e.to_string())),
    };
    let graph = graph(conn, dir)?;
    let syscalls = charts::syscalls(conn, None, 30)?;
    let running = charts::parallelism(conn, None)?;
    for (file, svg) in [
        ("timeline.svg", &timeline),
        ("syscalls.svg", &syscalls),
        ("parallelism.svg", &running),
    ] {
        std::fs::write(statics.join(file), svg)?;
    }
    let link = |f: &str| {
        format!(
            "<p><a href=\"/{}/{f}\">{f}</a> (the picture alone)</p>",
            datasette::STATIC_MOUNT
        )
    };
    let bodies = [
        (
            "timeline",
            match timeline.len() > INLINE_BYTES {
                false => format!("{}{}", datasette::inline_svg(&timeline), link("timeline.svg")),
                true => format!(
                    "<p><img src=\"/{}/timeline.svg\" alt=\"the timeline\" style=\"max-width: 100%\"></p>{}",
                    datasette::STATIC_MOUNT,
                    link("timeline.svg")
                ),
            },
        ),
        ("graph", graph),
        (
            "charts",
            format!(
                "{}{}",
                datasette::inline_svg(&syscalls),
                datasette::inline_svg(&running)
            ),
        ),
    ];
    for ((page, title), (_, body)) in datasette::PAGES.iter().zip(bodies) {
        std::fs::write(
            pages.join(format!("{page}.html")),
            datasette::page(name, title, &body),
        )?;
    }
    Ok(())
}

/// The largest picture written into its page (bytes); a bigger one (the
/// timeline of a big build) is an image the browser fetches, so the page
/// itself comes at once.
const INLINE_BYTES: usize = 2 << 20;

/// The largest DOT text (lines) drawn: Graphviz takes minutes over
/// thousands of nodes, and nobody reads such a picture.
const GRAPH_LINES: usize = 600;

/// The build graph's page body: the commands and their files drawn by
/// Graphviz's `dot` (only the command -> command edges when that is too
/// big), or why there is no picture.
fn graph(conn: &report::Database, dir: &Path) -> Result<String> {
    let mut dot = Vec::new();
    let filters = report::graph::Filters::default();
    for commands in [false, true] {
        dot.clear();
        if let Err(e) =
            report::graph::write_dot(conn, Scope::default(), commands, &filters, &mut dot)
        {
            return Ok(format!(
                "<p>No graph: {}</p>",
                datasette::escape(&e.to_string())
            ));
        }
        if dot.iter().filter(|b| **b == b'\n').count() <= GRAPH_LINES {
            break;
        }
    }
    let how = "<p>Draw it yourself: <code>kt2sql graph DB | dot -Tsvg &gt; graph.svg</code>.</p>";
    if dot.iter().filter(|b| **b == b'\n').count() > GRAPH_LINES {
        return Ok(format!(
            "<p>The graph is too big to draw here (more than {GRAPH_LINES} lines of DOT).</p>{how}"
        ));
    }
    let Some(program) = find_program("dot") else {
        eprintln!("kt2sql: note: Graphviz's dot is not installed: the graph page has no picture");
        return Ok(format!(
            "<p>No picture: Graphviz (<code>dot</code>) is not installed.</p>{how}"
        ));
    };
    let svg = match render_dot(&program, &dot) {
        Ok(svg) => svg,
        Err(e) => {
            return Ok(format!(
                "<p>No picture: dot failed: {}</p>{how}",
                datasette::escape(&e)
            ))
        }
    };
    std::fs::write(dir.join("static/graph.svg"), &svg)?;
    Ok(datasette::inline_svg(&svg))
}

/// `dot -Tsvg` of `dot`, given a minute.
fn render_dot(program: &Path, dot: &[u8]) -> std::result::Result<String, String> {
    let tmp = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    std::fs::write(tmp.path(), dot).map_err(|e| e.to_string())?;
    let out = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    let mut child = Command::new(program)
        .arg("-Tsvg")
        .arg("-o")
        .arg(out.path())
        .arg(tmp.path())
        .stdin(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(s) if s.success() => break,
            Some(s) => return Err(format!("exit status {s}")),
            None if start.elapsed() > Duration::from_secs(60) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("it took more than a minute".into());
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    std::fs::read_to_string(out.path()).map_err(|e| e.to_string())
}

/// The program `name` on PATH.
fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// `words` for sh(1): each in single quotes, a quote in one as `'\''`.
fn shell_words(words: &[String]) -> String {
    let quoted: Vec<String> = words
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
        .collect();
    quoted.join(" ")
}
