//! `import --follow`: a trace still being written, imported into a
//! database that stays current while it grows and that readers may query
//! at any time ([`run`]).
//!
//! - The database is written in place in WAL mode (readers see the last
//!   commit, never a half-written one), its tables and views created at
//!   the start, its indexes when the follower first reaches the file's end
//!   (a file already long is read without them, as a one-shot import
//!   does; a build followed from its start has them at once). Rows are
//!   committed at least every
//!   [`COMMIT_EVERY`] while records arrive, and as soon as the decoder has
//!   caught up with the file's end. Big WAL files are checkpointed and
//!   truncated after a commit.
//! - Two threads, as in a one-shot import: the follower decodes, models
//!   and encodes, and sends batches of rows and each commit's statements
//!   ([`writer`]) to a thread that owns the connection and runs them in
//!   the order sent.
//! - The file is read through [`Growing`], a reader that waits where the
//!   file ends for now; while it waits, the follower commits and asks
//!   whether to end. So a half-written record at the end is waited for,
//!   and damage in the middle meets the same decoder, resynchronisation
//!   and model as a one-shot import.
//! - A snapshot is the rows of a one-shot import of the bytes decoded so
//!   far: the rows the model wrote already, plus "provisional rows": the
//!   rows ending a copy of the model would write now
//!   ([`Model::snapshot`]: running processes with no end, calls in flight
//!   `unpaired = 'running'`, the syscall sums, the end-of-trace issues).
//!   They are written with a copy of the path cache, and taken out again
//!   (by id) at the start of the next transaction, before any final row of
//!   it, so ids and path ids come out as in a one-shot import. The tree
//!   order is worked out in memory from the rows as they pass and only its
//!   changed nodes are written at each commit ([`tree`]).
//! - It ends when every traced process has exited and the file has not
//!   grown for [`FollowOptions::settle`], after [`FollowOptions::idle`]
//!   without new bytes, or when the stop flag is set (Ctrl-C): the model is
//!   then finished as in a one-shot import and the trace row's `following`
//!   set to 0. A file replaced or truncated under the follower ends it the
//!   same way, with an error naming it.
//! - Resuming after the follower was killed: each commit records in
//!   `meta` (`follow_resume`) the records and damaged stretches read and
//!   the byte offset. A database left by an unfinished follow of the same
//!   trace (`following = 1`, one trace, the same path, no other writer)
//!   is opened again; the file is decoded from its first byte with the
//!   rows going nowhere (the model is deterministic, so it and the path
//!   cache come back as they were) until that point, where the last
//!   commit's provisional rows are found by taking its snapshot again and
//!   taken out; from there rows are written. The rows committed before
//!   are never rewritten. A file that now ends before that point is an
//!   error, the database left as it was. A database without the mark is
//!   imported again from the first byte into a fresh file.
//!
//! The model keeps every live process in memory (nothing spilled), so that
//! a copy of it is cheap and whole; memory is set by the processes alive
//! at once.

use std::cell::RefCell;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::errors::{in_db, refused};
use super::trace::now;
use super::{Damage, ImportOptions, TraceSummary};
use crate::decode::growing::wait_for_start;
use crate::decode::Decoder;
use crate::load::encode::Encoder;
use crate::load::{next_ids, TraceStart};
use crate::process::{Model, ModelOptions};
use crate::record::{Body, Record};
use crate::sink::table::id_base;
use crate::sink::PathCache;
use crate::Error;

mod db;
mod follower;
mod tree;
mod writer;

use db::{begin, check_target, file_id, open_db, remove_db, reopen};
use follower::{Follower, Growing, Provisional};
use tree::{Tracked, Tree};
use writer::ToWriter;

/// Commits at least this often while records arrive.
pub const COMMIT_EVERY: Duration = Duration::from_millis(500);
/// Once the decoder has caught up, commit when the last commit is at least
/// this old (records trickling in do not make a commit each).
const MIN_GAP: Duration = Duration::from_millis(100);
/// How long to wait at the file's end before looking again.
const POLL: Duration = Duration::from_millis(50);
/// How long the file must stay the same before the last record in it is
/// taken without the next header to check its framing against
/// ([`Decoder::look_ahead_flag`]): while a build writes, the next record
/// comes within this; a build that stops (a command waiting, the last
/// exit) has its last record shown this long after it was written.
const LOOK_AHEAD_WAIT: Duration = Duration::from_millis(200);
/// How long the file must stay the same, every traced process gone,
/// before the follow ends by itself.
pub const SETTLE: Duration = Duration::from_secs(2);
/// A WAL bigger than this after a commit is checkpointed and truncated.
const WAL_CHECKPOINT_BYTES: u64 = 16 << 20;
/// Consecutive believable records after damage (as in a one-shot import).
const RESYNC_RUN: usize = 4;
/// How far outside the time seen a believable record may be.
const RESYNC_SLACK_NS: i64 = 86_400 * 1_000_000_000;

/// What to follow and how.
#[derive(Debug, Clone)]
pub struct FollowOptions {
    /// The trace being written.
    pub trace: PathBuf,
    /// The database to write (new, or left by an unfinished follow of the
    /// same trace).
    pub db: PathBuf,
    /// Dialect, start directory, `--keep-io-data`, `--strict` (the mode is
    /// not used: see [`run`]).
    pub import: ImportOptions,
    /// End after this long without new bytes (`--idle`).
    pub idle: Option<Duration>,
    /// End this long after every traced process exited, if the file has
    /// not grown meanwhile.
    pub settle: Duration,
}

impl FollowOptions {
    /// Follow `trace` into `db` with the defaults.
    pub fn new(trace: &Path, db: &Path) -> Self {
        FollowOptions {
            trace: trace.to_owned(),
            db: db.to_owned(),
            import: ImportOptions::default(),
            idle: None,
            settle: SETTLE,
        }
    }
}

/// Why a follow ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Every traced process exited and the file stopped growing.
    Exited,
    /// No new bytes for the `--idle` time.
    Idle,
    /// The stop flag was set (Ctrl-C, SIGTERM).
    Stopped,
}

/// What a follow did.
#[derive(Debug, Clone)]
pub struct FollowSummary {
    /// The trace as imported in the end.
    pub trace: TraceSummary,
    /// Why it ended.
    pub ended: Ended,
    /// Whether it took over a database an unfinished follow left.
    pub resumed: bool,
    /// Commits made.
    pub commits: u64,
}

/// Follow `opts.trace` into `opts.db` until it ends (see the module's
/// doc): returns then, with a database whose rows are those of a one-shot
/// import of the file as read. The database must not exist, or be one an
/// unfinished follow of the same trace left (it is then imported again
/// from the first byte). Nothing is written before the file holds enough
/// to tell its dialect; `stop` set before then is [`Error::Interrupted`].
pub fn run(opts: &FollowOptions, stop: Arc<AtomicBool>) -> Result<FollowSummary, Error> {
    let (trace, db) = (&opts.trace, &opts.db);
    let abs = std::path::absolute(trace).unwrap_or_else(|_| trace.to_owned());
    if fs::canonicalize(db)
        .ok()
        .is_some_and(|d| fs::canonicalize(trace).ok() == Some(d))
    {
        return Err(refused(trace, "is also the output database"));
    }
    let io = |source| Error::Io {
        path: trace.to_owned(),
        source,
    };
    if !fs::metadata(trace).map_err(io)?.is_file() {
        return Err(refused(
            trace,
            "--follow reads a regular file, not a pipe or device",
        ));
    }
    let resumed = check_target(db, &abs)?;
    // Declared before the decoder, whose reader borrows it.
    let conn: Connection;
    let mut paths = PathCache::default();
    if !wait_for_start(trace, opts.import.abi, &stop).map_err(io)? {
        return Err(Error::Interrupted { path: db.clone() });
    }
    let file = File::open(trace).map_err(io)?;
    let id = file_id(&file.metadata().map_err(io)?);
    let growing = Growing {
        file,
        read: 0,
        following: false,
        state: None,
        looking_ahead: Arc::default(),
    };
    let mut dec = Decoder::new(growing, opts.import.abi, None).map_err(|source| Error::Decode {
        path: trace.to_owned(),
        source,
    })?;
    dec.rearm();
    dec.reader_mut().looking_ahead = dec.look_ahead_flag();
    let ctx = |e: Error| in_db(e, db);
    let abi = dec.abi();
    let start = TraceStart {
        path: abs.as_os_str().as_encoded_bytes(),
        size: 0,
        fingerprint: None,
        abi: Some(abi),
        start_cwd: opts.import.start_cwd.as_deref(),
        keep_io_data: opts.import.keep_io_data,
        imported_at: now(),
    };
    let (tctx, ids, resume, indexed) = match resumed.then(|| reopen(db, &start)).transpose()? {
        Some(Some((c, at, tctx, indexed))) => {
            conn = c;
            // A follow's database is new: its ids started at 1.
            let ids = id_base(|_| Ok::<_, Error>(1))?;
            (tctx, ids, Some(at), indexed)
        }
        _ => {
            if resumed {
                remove_db(db)?;
            }
            conn = open_db(db)?;
            let tctx = begin(&conn, &start).map_err(ctx)?;
            (tctx, next_ids(&conn).map_err(ctx)?, None, false)
        }
    };
    let model = Model::new(
        abi,
        ModelOptions {
            start_cwd: opts.import.start_cwd.clone(),
            keep_io_data: opts.import.keep_io_data,
            ids,
            live_in_memory: Some(usize::MAX),
        },
    );
    let (writer, target) = ToWriter::start(conn, db.clone(), resume.is_some())?;
    let state = Rc::new(RefCell::new(Follower {
        writer,
        model,
        enc: Encoder::new(&mut paths, tctx, target),
        tctx,
        abi,
        trace: trace.clone(),
        db: db.clone(),
        id,
        stop,
        idle: opts.idle,
        settle: opts.settle,
        t0: Instant::now(),
        records: 0,
        offset: 0,
        committed: 0,
        commits: 0,
        last_commit: Instant::now(),
        last_growth: Instant::now(),
        seen_len: 0,
        damage: Vec::new(),
        prov: Provisional::default(),
        tree: Tree::new(tctx.trace_id),
        indexed,
        resume,
        ended: None,
        failed: None,
    }));
    {
        let g = dec.reader_mut();
        g.state = Some(Rc::clone(&state));
        g.following = true;
    }
    let result = decode(&mut dec, &state, opts.import.strict);
    let read = dec.offset();
    drop(dec);
    let follower = Rc::try_unwrap(state)
        .ok()
        .expect("the reader is gone")
        .into_inner();
    if let Err(e) = result {
        // The writer's own error when it stopped first.
        follower.writer.close().map_err(ctx)?;
        return Err(ctx(e));
    }
    if follower.resume.is_some() {
        // Stopped before it got back to where it was: left as it was.
        follower.writer.close().map_err(ctx)?;
        return Err(follower
            .failed
            .unwrap_or(Error::Interrupted { path: db.clone() }));
    }
    follower.finish(&abs, read, opts.import.strict, resumed)
}

/// Feed every record to the model, as a one-shot import does (damage
/// skipped and recorded), until the reader ends the stream.
fn decode(
    dec: &mut Decoder<Growing<'_>>,
    state: &Rc<RefCell<Follower<'_>>>,
    strict: bool,
) -> Result<(), Error> {
    let mut span: Option<(i64, i64)> = None;
    state.borrow_mut().reached()?;
    loop {
        let (offset, why) = match dec.next_record() {
            Ok(Some(rec)) => {
                if !matches!(rec.body, Body::Start) {
                    span = Some(
                        span.map_or((rec.ts, rec.ts), |(a, b)| (a.min(rec.ts), b.max(rec.ts))),
                    );
                }
                let mut st = state.borrow_mut();
                let f = &mut *st;
                let mut sink = Tracked {
                    inner: &mut f.enc,
                    tree: &mut f.tree,
                };
                f.model.record(&rec, &mut sink)?;
                f.records += 1;
                f.offset = dec.offset();
                f.reached()?;
                if f.resume.is_none()
                    && f.records % 1024 == 0
                    && f.last_commit.elapsed() >= COMMIT_EVERY
                {
                    f.commit()?;
                }
                continue;
            }
            Ok(None) => return Ok(()),
            Err(e) => (e.offset, e.kind.to_string()),
        };
        let mut st = state.borrow_mut();
        let f = &mut *st;
        if strict {
            f.damage.push(Damage {
                offset,
                resumed_at: None,
                why,
            });
            return Ok(());
        }
        drop(st);
        let believable = |r: &Record<'_>| {
            span.is_none_or(|(a, b)| {
                matches!(r.body, Body::Start)
                    || (a - RESYNC_SLACK_NS..=b + RESYNC_SLACK_NS).contains(&r.ts)
            })
        };
        let resumed_at = dec.resync(offset, RESYNC_RUN, &believable);
        // The file's length as read (it may have been cut since).
        let len = dec.reader_mut().read;
        let mut st = state.borrow_mut();
        let f = &mut *st;
        let mut sink = Tracked {
            inner: &mut f.enc,
            tree: &mut f.tree,
        };
        f.model.damage(offset, resumed_at, &why, len, &mut sink)?;
        f.damage.push(Damage {
            offset,
            resumed_at,
            why,
        });
        if let Some(to) = resumed_at {
            f.offset = to;
            f.reached()?;
        } else {
            return Ok(());
        }
    }
}
