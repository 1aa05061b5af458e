//! The follow behind `kt2sql watch TRACE DB`: `import::follow::run` on a
//! thread of its own, with the stop flag it shares with the view (`q`, and
//! Ctrl-C, SIGTERM or SIGHUP through the signal handler set here), what
//! the view says of it, and, for `--once`, the wait until it has read what
//! the file holds. It never draws and never writes the database itself.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use kt2sql::decode::Abi;
use kt2sql::import::follow::{self, Ended, FollowOptions, FollowSummary};
use kt2sql::import::ImportOptions;
use kt2sql::report;
use kt2sql::report::watch::{self, Options, Snapshot};

use super::anyhow_lite::Result;

/// Set by the signal handler: end the follow and the view.
static SIGNALLED: AtomicBool = AtomicBool::new(false);

/// How long the view has to end by itself after a signal once the follow
/// has finished the database, before the process ends without it.
const HANG_UP_GRACE: Duration = Duration::from_secs(2);

/// The exit code when the process had to end without the view (128 +
/// SIGHUP, the usual code of a program a closed terminal ended).
const EXIT_SIGNALLED: i32 = 129;

/// A follow running on its own thread.
pub struct Following {
    trace: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<std::result::Result<FollowSummary, kt2sql::Error>>>,
    /// Its result, once the thread has ended.
    result: Option<std::result::Result<FollowSummary, kt2sql::Error>>,
}

impl Following {
    /// Start following `trace` into `db` (checked as `import --follow`
    /// checks its arguments); Ctrl-C, SIGTERM and SIGHUP set its stop flag.
    pub fn start(
        trace: &Path,
        db: &Path,
        start_dir: Option<&Path>,
        idle: Option<f64>,
        dialect: Option<Abi>,
    ) -> Result<Following> {
        if let Some(dir) = start_dir {
            if !dir.as_os_str().as_encoded_bytes().starts_with(b"/") {
                return Err(format!(
                    "-d {}: not an absolute path; -d names the directory the traced command \
                     started in, on the traced machine, so it must begin with /",
                    kt2sql::text::path(dir)
                )
                .into());
            }
        }
        let idle = match idle {
            Some(s) if !(s.is_finite() && s > 0.0) => {
                return Err(format!("--idle {s}: give a number of seconds above 0").into())
            }
            s => s.map(Duration::from_secs_f64),
        };
        let opts = FollowOptions {
            idle,
            import: ImportOptions {
                abi: dialect,
                start_cwd: start_dir.map(|d| d.as_os_str().as_encoded_bytes().to_vec()),
                ..ImportOptions::default()
            },
            ..FollowOptions::new(trace, db)
        };
        // `ktrace … &` started just before may not have created it yet.
        let until = Instant::now() + Duration::from_secs(10);
        while !trace.exists() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(100));
        }
        let stop = Arc::new(AtomicBool::new(false));
        // Fails only when a handler is already set (then it is this one).
        let _ = ctrlc::set_handler(|| SIGNALLED.store(true, Ordering::SeqCst));
        let (s, on_signal) = (stop.clone(), stop.clone());
        let done = Arc::new(AtomicBool::new(false));
        let finished = done.clone();
        std::thread::spawn(move || loop {
            if SIGNALLED.load(Ordering::SeqCst) {
                on_signal.store(true, Ordering::SeqCst);
                // The view ends on the stop flag, unless its terminal hung
                // up (SIGHUP: the window closed, `tmux kill-server`), where
                // crossterm's read of the closed terminal never returns.
                // Once the follow has finished the database, give the view
                // a moment to end by itself, then end the process.
                while !finished.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                }
                std::thread::sleep(HANG_UP_GRACE);
                std::process::exit(EXIT_SIGNALLED);
            }
            std::thread::sleep(Duration::from_millis(50));
        });
        let thread = std::thread::Builder::new()
            .name("follow".into())
            .spawn(move || {
                let result = follow::run(&opts, s);
                done.store(true, Ordering::SeqCst);
                result
            })?;
        Ok(Following {
            trace: trace.to_owned(),
            stop,
            thread: Some(thread),
            result: None,
        })
    }

    /// Take the thread's result if it has ended.
    pub fn poll(&mut self) {
        if self.thread.as_ref().is_some_and(JoinHandle::is_finished) {
            self.join();
        }
    }

    fn join(&mut self) {
        if let Some(t) = self.thread.take() {
            self.result = Some(t.join().unwrap_or_else(|_| {
                Err(kt2sql::Error::Refused {
                    path: self.trace.clone(),
                    reason: "the follow failed unexpectedly (a bug: please report it)".into(),
                })
            }));
        }
    }

    /// Whether the follow has ended (by itself, or with an error).
    pub fn ended(&self) -> bool {
        self.result.is_some()
    }

    /// Whether a signal asked to end.
    pub fn signalled(&self) -> bool {
        SIGNALLED.load(Ordering::SeqCst)
    }

    /// One line on the follow for the view's head, and whether it is an
    /// error.
    pub fn note(&self) -> (String, bool) {
        let trace = kt2sql::text::path(&self.trace);
        match &self.result {
            None => (format!("following {trace}   (q ends the follow)"), false),
            Some(Ok(done)) => (ended_line(&self.trace, done), false),
            Some(Err(e)) => (format!("the follow of {trace} failed: {e}"), true),
        }
    }

    /// Stop the follow (if it still runs) and wait for it to leave the
    /// database complete: its result.
    pub fn finish(mut self) -> std::result::Result<FollowSummary, kt2sql::Error> {
        self.stop.store(true, Ordering::SeqCst);
        self.join();
        self.result.take().expect("joined")
    }

    /// The snapshot of the database once the follow has read the file as
    /// far as it was written when this was called (or has ended, or has
    /// read nothing new for [`STALLED`]: a half-written last record): for
    /// `watch --once TRACE DB`.
    pub fn caught_up(&mut self, db: &Path, opts: &Options) -> Result<Snapshot> {
        let target = std::fs::metadata(&self.trace).map_or(0, |m| m.len()) as i64;
        let mut seen = (-1, Instant::now());
        let mut failing = None;
        loop {
            self.poll();
            if self.signalled() {
                return Err("interrupted".into());
            }
            if let Some(Err(_)) = &self.result {
                // finish() gives the error.
                return Ok(Snapshot::default());
            }
            let snap = match db.exists() {
                true => match report::open(db).and_then(|c| watch::snapshot(&c, opts)) {
                    Ok(snap) => {
                        failing = None;
                        Some(snap)
                    }
                    // The database may be there before its schema; an
                    // error that lasts is the answer.
                    Err(e) if failing.get_or_insert_with(Instant::now).elapsed() >= STALLED => {
                        return Err(e.into())
                    }
                    Err(_) => None,
                },
                false => None,
            };
            if let Some(snap) = snap {
                let read = snap.status.iter().map(|s| s.decoded_bytes).max();
                let read = read.unwrap_or(-1);
                if self.ended() || read >= target {
                    return Ok(snap);
                }
                if read != seen.0 {
                    seen = (read, Instant::now());
                } else if read > 0 && seen.1.elapsed() >= STALLED {
                    return Ok(snap);
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// How long `--once` waits on a follow that reads nothing new before the
/// file's end as it was (a last record still being written).
const STALLED: Duration = Duration::from_secs(3);

/// `followed TRACE until every traced process exited`.
pub fn ended_line(trace: &Path, done: &FollowSummary) -> String {
    let why = match done.ended {
        Ended::Exited => "every traced process exited",
        Ended::Idle => "no new bytes for the --idle time",
        Ended::Stopped => "stopped",
    };
    format!("followed {} until {why}", kt2sql::text::path(trace))
}
