//! The follower itself: what it holds between commits, the commit of a
//! snapshot (its provisional rows written, then taken out again), the
//! end, and the growing file it reads. It decodes, models and encodes;
//! what it writes goes to the writer thread ([`super::writer`]), which
//! runs the statements of a commit in turn with the rows.

use std::cell::RefCell;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use crate::decode::Abi;
use crate::import::errors::{in_db, refused};
use crate::import::trace::{conclude, damage_summary, Concluded};
use crate::import::{Damage, TraceSummary};
use crate::load::encode::Encoder;
use crate::load::trace::set_trace_end;
use crate::load::{end_trace, fingerprint, TraceEnd};
use crate::process::rows::{
    CallRow, EventRow, ExecRow, IssueRow, NameiRow, ProcessRow, SyscallStatRow, ThreadRow,
};
use crate::process::{Model, Sink};
use crate::schema::{self, sql_err};
use crate::sink::trace::end_values;
use crate::sink::TraceContext;
use crate::Error;

use super::db::{clear_resume, file_id, write_resume, ResumeAt};
use super::tree::{Tracked, Tree};
use super::writer::{Target, ToWriter};
use super::{Ended, FollowSummary, LOOK_AHEAD_WAIT, MIN_GAP, POLL, WAL_CHECKPOINT_BYTES};

/// The follow's state, shared by the decoding loop and the reader (which
/// commits and decides to end while it waits for bytes).
pub(super) struct Follower<'c> {
    /// The writer thread, which holds the connection.
    pub(super) writer: ToWriter,
    pub(super) model: Model,
    pub(super) enc: Encoder<'c, Target>,
    pub(super) tctx: TraceContext,
    pub(super) abi: Abi,
    pub(super) trace: PathBuf,
    pub(super) db: PathBuf,
    /// The file followed, to tell when the path names another one.
    pub(super) id: Option<(u64, u64)>,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) idle: Option<Duration>,
    pub(super) settle: Duration,
    pub(super) t0: Instant,
    /// Records decoded.
    pub(super) records: u64,
    /// Where the last record decoded ends.
    pub(super) offset: u64,
    /// Records decoded at the last commit.
    pub(super) committed: u64,
    pub(super) commits: u64,
    pub(super) last_commit: Instant,
    /// When the file was last seen to grow.
    pub(super) last_growth: Instant,
    /// The file's size when last looked at.
    pub(super) seen_len: u64,
    pub(super) damage: Vec<Damage>,
    /// The rows of the last commit's snapshot, taken out at the start of
    /// the next transaction.
    pub(super) prov: Provisional,
    /// What the tree order needs of the rows written, and its nodes.
    pub(super) tree: Tree,
    /// Whether the indexes exist: they are created when the follower first
    /// catches up with the file (or at the end), not while it reads a
    /// file that was already long, which they would slow down.
    pub(super) indexed: bool,
    /// A resumed follow reading again what its last commit holds: where
    /// that commit stopped. Rows go nowhere until then.
    pub(super) resume: Option<ResumeAt>,
    pub(super) ended: Option<Ended>,
    pub(super) failed: Option<Error>,
}

/// The provisional rows written by a snapshot, by table key.
#[derive(Default)]
pub(super) struct Provisional {
    pub(super) process: Vec<i64>,
    pub(super) thread: Vec<i64>,
    pub(super) exec: Vec<i64>,
    pub(super) call: Vec<i64>,
    pub(super) namei: Vec<i64>,
    pub(super) event: Vec<i64>,
    /// The first `path_id` and `import_issue_id` the snapshot gave.
    pub(super) path_from: i64,
    pub(super) issue_from: i64,
}

impl Follower<'_> {
    /// Called by the reader at the file's end: commit what is new, then
    /// whether to end the stream (`true`), else wait a little.
    pub(super) fn at_end(&mut self, read: u64) -> bool {
        if self.ended.is_some() || self.failed.is_some() {
            return true;
        }
        if let Some(r) = self.resume {
            self.failed = Some(refused(
                &self.trace,
                &format!(
                    "ends before byte {} that the database's last commit read: it was \
                     truncated or replaced; the database was left as it was",
                    r.offset
                ),
            ));
            return true;
        }
        if let Err(e) = self.look_at_file(read) {
            self.failed = Some(e);
            return true;
        }
        let due = self.records > self.committed && self.last_commit.elapsed() >= MIN_GAP;
        if !self.indexed || due {
            if let Err(e) = self.index().and_then(|()| self.commit()) {
                self.failed = Some(e);
                return true;
            }
        }
        let quiet = self.last_growth.elapsed();
        self.ended = if self.stop.load(Ordering::SeqCst) {
            Some(Ended::Stopped)
        } else if self.idle.is_some_and(|d| quiet >= d) {
            Some(Ended::Idle)
        } else if quiet >= self.settle && self.model.all_exited() {
            Some(Ended::Exited)
        } else {
            None
        };
        if self.ended.is_none() {
            std::thread::sleep(POLL);
        }
        self.ended.is_some()
    }

    /// Create the indexes if they are not there yet (inside the open
    /// transaction).
    pub(super) fn index(&mut self) -> Result<(), Error> {
        if !self.indexed {
            self.writer.send.run(schema::create_indexes)?;
            self.indexed = true;
        }
        Ok(())
    }

    /// Whether the path still names the file followed, at least as long as
    /// what was read of it.
    pub(super) fn look_at_file(&mut self, read: u64) -> Result<(), Error> {
        let meta = fs::metadata(&self.trace).map_err(|source| Error::Io {
            path: self.trace.clone(),
            source,
        })?;
        if self.id.is_some() && file_id(&meta) != self.id {
            return Err(refused(
                &self.trace,
                &format!(
                    "was replaced by another file while it was followed; the database \
                     keeps what was read of the first ({read} bytes)"
                ),
            ));
        }
        if meta.len() < read {
            return Err(refused(
                &self.trace,
                &format!(
                    "was truncated to {} bytes while it was followed, after {read} bytes \
                     were read; the database keeps those",
                    meta.len()
                ),
            ));
        }
        if meta.len() != self.seen_len {
            self.seen_len = meta.len();
            self.last_growth = Instant::now();
        }
        Ok(())
    }

    /// Write the snapshot's provisional rows and the trace row, commit,
    /// and open the next transaction with them taken out again: sent to
    /// the writer, which does it once the rows before are written.
    pub(super) fn commit(&mut self) -> Result<(), Error> {
        self.enc.flush()?;
        let mut paths = self.enc.paths().clone();
        self.prov.path_from = paths.next_id();
        // Issues are numbered from 1 in a follow's own database.
        self.prov.issue_from = self.enc.issues() + 1;
        let send = &self.writer.send;
        let mut snap = Encoder::new(&mut paths, self.tctx, Target::snapshot(send, false));
        let mark = self.tree.mark();
        let mut rec = Recording {
            inner: &mut Tracked {
                inner: &mut snap,
                tree: &mut self.tree,
            },
            prov: &mut self.prov,
        };
        let totals = self.model.snapshot(&mut rec)?;
        snap.flush()?;
        let issues = self.enc.issues() + snap.issues();
        drop(snap);
        let skipped: u64 = self
            .damage
            .iter()
            .filter_map(|d| d.resumed_at.map(|to| to - d.offset))
            .sum();
        let end = end_values(
            issues,
            &TraceEnd {
                totals: &totals,
                decoded_bytes: self.offset.saturating_sub(skipped),
                size: self.seen_len.max(self.offset),
                damage: damage_summary(&self.damage),
                seconds: self.t0.elapsed().as_secs_f64(),
                following: true,
            },
        );
        let tree = self.tree.changes();
        self.tree.rewind(mark);
        let resume = ResumeAt {
            records: self.records,
            damage: self.damage.len(),
            offset: self.offset,
        };
        let prov = std::mem::take(&mut self.prov);
        let (trace_id, db) = (self.tctx.trace_id, self.db.clone());
        self.writer.send.run(move |conn| {
            set_trace_end(conn, trace_id, &end)?;
            tree.write(conn)?;
            write_resume(conn, resume)?;
            conn.execute_batch("COMMIT")
                .map_err(sql_err("committing".into()))?;
            checkpoint(conn, &db);
            conn.execute_batch("BEGIN")
                .map_err(sql_err("starting a transaction".into()))?;
            take_out(conn, &prov, trace_id)
        })?;
        self.commits += 1;
        self.committed = self.records;
        self.last_commit = Instant::now();
        Ok(())
    }

    /// In a resumed follow, once the records and damage its last commit
    /// had are read again (the model is deterministic: it is then in the
    /// state it was in at that commit): take that commit's provisional rows
    /// out, found by taking its snapshot again, and write from here on. The
    /// rows committed before stay as they are.
    pub(super) fn reached(&mut self) -> Result<(), Error> {
        let Some(r) = self.resume else {
            return Ok(());
        };
        if (r.records, r.damage) != (self.records, self.damage.len()) {
            return Ok(());
        }
        self.enc.flush()?;
        let mut paths = self.enc.paths().clone();
        let mut prov = Provisional {
            path_from: paths.next_id(),
            // Issues are numbered from 1 in a follow's own database.
            issue_from: self.enc.issues() + 1,
            ..Provisional::default()
        };
        let target = Target::snapshot(&self.writer.send, true);
        let mut snap = Encoder::new(&mut paths, self.tctx, target);
        self.model.snapshot(&mut Recording {
            inner: &mut snap,
            prov: &mut prov,
        })?;
        snap.flush()?;
        drop(snap);
        let trace_id = self.tctx.trace_id;
        self.writer.send.run(move |conn| {
            take_out(conn, &prov, trace_id)?;
            conn.execute("DELETE FROM tree_node", [])
                .map_err(sql_err("writing table tree_node".into()))?;
            Ok(())
        })?;
        self.tree.clear_written();
        self.enc.target_mut().discard = false;
        self.resume = None;
        self.committed = self.records;
        self.last_commit = Instant::now();
        Ok(())
    }

    /// The end: the model finished as in a one-shot import, the trace row
    /// completed (`following = 0`), the last commit; the database left as
    /// a plain (rollback-journal) file when no reader holds it.
    pub(super) fn finish(
        self,
        abs: &Path,
        read: u64,
        strict: bool,
        resumed: bool,
    ) -> Result<FollowSummary, Error> {
        let Follower {
            writer,
            model,
            mut enc,
            tctx,
            abi,
            trace,
            db,
            t0,
            damage,
            commits,
            ended,
            failed,
            mut tree,
            indexed,
            ..
        } = self;
        let ctx = |e: Error| in_db(e, &db);
        let finished = model.finish(&mut Tracked {
            inner: &mut enc,
            tree: &mut tree,
        });
        let finished = finished.and_then(|t| enc.flush().map(|()| t));
        let issues = enc.issues();
        drop(enc);
        // Everything sent is written: the rest is done here.
        let conn = &writer.close().map_err(ctx)?;
        let totals = finished.map_err(ctx)?;
        let size = fs::metadata(&trace).map_or(read, |m| m.len());
        let decoded = crate::import::pipeline::Decoded {
            totals,
            damage,
            read,
            issues,
        };
        let Concluded {
            totals,
            damage,
            read,
            issues,
            size,
            decoded_bytes,
            summary,
        } = conclude(&trace, abi, size, decoded, strict)?;
        end_trace(
            conn,
            tctx.trace_id,
            issues,
            &TraceEnd {
                totals: &totals,
                decoded_bytes,
                size,
                damage: summary,
                seconds: t0.elapsed().as_secs_f64(),
                following: false,
            },
        )
        .map_err(ctx)?;
        let fp = match failed {
            None => fingerprint::of_file(&trace, size)?,
            Some(_) => None,
        };
        conn.execute(
            "UPDATE trace SET fingerprint = ?1 WHERE trace_id = ?2",
            rusqlite::params![fp, tctx.trace_id],
        )
        .map_err(sql_err("completing the trace row".into()))
        .map_err(ctx)?;
        if !indexed {
            schema::create_indexes(conn).map_err(ctx)?;
        }
        tree.changes().write(conn).map_err(ctx)?;
        clear_resume(conn).map_err(ctx)?;
        conn.execute_batch("COMMIT")
            .map_err(sql_err("committing".into()))
            .map_err(ctx)?;
        // A plain database file again; a reader still holding it keeps
        // it in WAL mode, which is as good.
        let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        let _ = conn.query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()));
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(FollowSummary {
            trace: TraceSummary {
                path: abs.to_owned(),
                trace_id: tctx.trace_id,
                dialect: abi.to_string(),
                size,
                decoded_bytes: read,
                totals,
                issues,
                damage,
                same_as: None,
            },
            ended: ended.unwrap_or(Ended::Stopped),
            resumed,
            commits: commits + 1,
        })
    }
}

/// A sink that passes rows on and keeps the keys of those it passed: the
/// snapshot's provisional rows.
pub(super) struct Recording<'s, S> {
    pub(super) inner: &'s mut S,
    pub(super) prov: &'s mut Provisional,
}

impl<S: Sink> Sink for Recording<'_, S> {
    type Error = S::Error;
    fn process(&mut self, row: &ProcessRow) -> Result<(), S::Error> {
        self.prov.process.push(row.id);
        self.inner.process(row)
    }
    fn thread(&mut self, row: &ThreadRow) -> Result<(), S::Error> {
        self.prov.thread.push(row.id);
        self.inner.thread(row)
    }
    fn exec(&mut self, row: &ExecRow<'_>) -> Result<(), S::Error> {
        self.prov.exec.push(row.id);
        self.inner.exec(row)
    }
    fn call(&mut self, row: &CallRow<'_>) -> Result<(), S::Error> {
        self.prov.call.push(row.id);
        self.inner.call(row)
    }
    fn namei(&mut self, row: &NameiRow<'_>) -> Result<(), S::Error> {
        self.prov.namei.push(row.id);
        self.inner.namei(row)
    }
    fn event(&mut self, row: &EventRow<'_>) -> Result<(), S::Error> {
        self.prov.event.push(row.id);
        self.inner.event(row)
    }
    fn issue(&mut self, row: &IssueRow) -> Result<(), S::Error> {
        self.inner.issue(row)
    }
    fn syscall_stat(&mut self, row: &SyscallStatRow) -> Result<(), S::Error> {
        self.inner.syscall_stat(row)
    }
}

/// The trace file as a stream that waits where the file ends for now:
/// there it hands over to the follower ([`Follower::at_end`]), which
/// commits and says when the stream ends.
pub(super) struct Growing<'c> {
    pub(super) file: File,
    pub(super) read: u64,
    /// Waiting at the end (after detection read what was there).
    pub(super) following: bool,
    pub(super) state: Option<Rc<RefCell<Follower<'c>>>>,
    /// Set by the decoder while it only looks past a whole record
    /// ([`crate::decode::Decoder::look_ahead_flag`]).
    pub(super) looking_ahead: Arc<AtomicBool>,
}

impl Read for Growing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.file.read(buf)?;
            self.read += n as u64;
            if n > 0 || buf.is_empty() || !self.following {
                return Ok(n);
            }
            let Some(state) = &self.state else {
                return Ok(0);
            };
            let mut state = state.borrow_mut();
            if state.at_end(self.read) {
                return Ok(0);
            }
            // Only a look past a whole record: after a quiet spell, what
            // there is will do (the last record is not held back).
            if self.looking_ahead.load(Ordering::SeqCst)
                && state.last_growth.elapsed() >= LOOK_AHEAD_WAIT
            {
                return Err(io::ErrorKind::WouldBlock.into());
            }
        }
    }
}

/// Truncate a big WAL when the readers let it (never waits for them).
fn checkpoint(conn: &Connection, db: &Path) {
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    if fs::metadata(&wal).is_ok_and(|m| m.len() > WAL_CHECKPOINT_BYTES) {
        let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }
}

/// Delete a snapshot's provisional rows `p` (inside the new transaction:
/// readers still see them until the next commit).
fn take_out(conn: &Connection, p: &Provisional, trace_id: i64) -> Result<(), Error> {
    let ctx = || sql_err("taking out the rows of the last snapshot".into());
    for (table, key, ids) in [
        ("process", "process_id", &p.process),
        ("thread", "thread_id", &p.thread),
        ("exec", "exec_id", &p.exec),
        ("call", "call_id", &p.call),
        ("namei", "namei_id", &p.namei),
        ("event", "event_id", &p.event),
    ] {
        if ids.is_empty() {
            continue;
        }
        let mut del = conn
            .prepare_cached(&format!("DELETE FROM {table} WHERE {key} = ?1"))
            .map_err(ctx())?;
        for id in ids {
            del.execute([id]).map_err(ctx())?;
        }
    }
    conn.execute(
        "DELETE FROM import_issue WHERE import_issue_id >= ?1",
        [p.issue_from.max(1)],
    )
    .map_err(ctx())?;
    if p.path_from > 0 {
        conn.execute("DELETE FROM path WHERE path_id >= ?1", [p.path_from])
            .map_err(ctx())?;
    }
    conn.execute("DELETE FROM syscall_stat WHERE trace_id = ?1", [trace_id])
        .map_err(ctx())?;
    Ok(())
}
