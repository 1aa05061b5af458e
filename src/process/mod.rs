//! process: records → rows. Replays a decoded trace to rebuild what ran:
//! process lifetimes (a reused pid is a new one), fork edges from the
//! parent's RET, exec images, calls paired with their returns per thread,
//! path lookups made absolute through each process's cwd and fd table, and
//! everything else as events. Emits rows to a [`Sink`]; knows nothing of
//! SQLite.
//!
//! A forked child's records often come before the parent's fork RET that
//! names it. While any fork-family call is outstanding, records of a pid
//! never seen before are held back (bounded) until a fork RET names it —
//! then it is linked, inherits cwd and fds, and its records are replayed —
//! or until no fork can claim it, when it becomes a root process.

mod event;
mod handle;
pub mod path;
pub mod rows;
mod state;
pub mod syscall;

use std::collections::VecDeque;

use foldhash::{HashMap, HashMapExt};

pub use rows::*;

use crate::decode::Abi;
use crate::record::{Body, Record};
use handle::{th_id, Action};
use state::{Ctx, Proc};

/// Records held back for not-yet-linked children, in all.
const MAX_DEFERRED_RECORDS: usize = 1_000_000;

/// How to build the model.
#[derive(Debug, Clone, Default)]
pub struct ModelOptions {
    /// Working directory of the first process (the trace does not record it).
    pub start_cwd: Option<Vec<u8>>,
    /// Keep GIO data bytes in event rows.
    pub keep_io_data: bool,
    /// First ids to assign.
    pub ids: IdBase,
}

/// The process model of one trace.
pub struct Model {
    ctx: Ctx,
    live: HashMap<i64, Proc>,
    deferred: HashMap<i64, Vec<Record<'static>>>,
    deferred_order: VecDeque<i64>,
    deferred_records: usize,
    /// The trace is FreeBSD's: a PROCDTOR follows a process's end, and
    /// belongs to it.
    has_dtor: bool,
    start_cwd: Option<Vec<u8>>,
    damaged: bool,
}

impl Model {
    /// A model for a trace of `abi`.
    pub fn new(abi: Abi, opts: ModelOptions) -> Model {
        Model {
            ctx: Ctx::new(abi.name_table(), abi.family, opts.keep_io_data, opts.ids),
            live: HashMap::new(),
            deferred: HashMap::new(),
            deferred_order: VecDeque::new(),
            deferred_records: 0,
            has_dtor: abi.family == crate::decode::Family::FreeBsd,
            start_cwd: opts.start_cwd.map(|c| path::resolve(None, &c)),
            damaged: false,
        }
    }

    /// Take one record.
    pub fn record<S: Sink>(&mut self, rec: &Record<'_>, sink: &mut S) -> Result<(), S::Error> {
        let t = &mut self.ctx.totals;
        t.records += 1;
        *t.by_type.entry(rec.body.label()).or_default() += 1;
        t.first_ts.get_or_insert(rec.ts);
        t.last_ts = Some(rec.ts);
        if matches!(rec.body, Body::Start) {
            return self.ctx.event_row(None, None, None, rec, sink);
        }
        self.route(rec, sink)?;
        self.release_unclaimed(sink)
    }

    /// The bytes from `offset` could not be used (`why`): records resumed
    /// at `resumed_at`, or never (the tail is lost; processes still running
    /// are then marked cut). `file_len` is the file's size.
    pub fn damage<S: Sink>(
        &mut self,
        offset: u64,
        resumed_at: Option<u64>,
        why: &str,
        file_len: u64,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        match resumed_at {
            Some(to) => self.ctx.issue(sink, Severity::DataLoss, "skipped", Some(offset), None, || {
                format!("bytes {offset}..{to} ({} bytes) skipped: {why}; records resume at byte {to}", to - offset)
            }),
            None => {
                self.damaged = true;
                let left = file_len.saturating_sub(offset);
                self.ctx.issue(sink, Severity::DataLoss, "truncated", Some(offset), None, || {
                    format!("decoding stopped at byte {offset}: {why}; the last {left} bytes are not imported")
                })
            }
        }
    }

    /// End of the trace: close every process and return the totals.
    pub fn finish<S: Sink>(mut self, sink: &mut S) -> Result<Totals, S::Error> {
        while let Some(pid) = self.deferred_order.pop_front() {
            self.release(pid, "the trace ended", sink)?;
        }
        let mut pids: Vec<(i64, i64)> = self.live.iter().map(|(&pid, p)| (p.row.id, pid)).collect();
        pids.sort();
        for (_, pid) in pids {
            self.close(pid, Unpaired::EndOfTrace, sink)?;
        }
        self.ctx.totals.files = self.ctx.files.len() as i64;
        self.ctx.write_syscall_stats(sink)?;
        self.ctx.summarise_capped(sink)?;
        Ok(self.ctx.totals)
    }

    fn route<S: Sink>(&mut self, rec: &Record<'_>, sink: &mut S) -> Result<(), S::Error> {
        let pid = rec.pid;
        if let Some(queue) = self.deferred.get_mut(&pid) {
            queue.push(rec.clone().into_owned());
            self.deferred_records += 1;
            if self.deferred_records > MAX_DEFERRED_RECORDS {
                if let Some(oldest) = self.deferred_order.pop_front() {
                    self.release(oldest, "too many records waited for their parent", sink)?;
                }
            }
            return Ok(());
        }
        if self.live.get(&pid).is_some_and(|p| p.exiting) {
            // Only its PROCDTOR follows an end: anything else is a new process
            // with the same pid (the PROCDTOR was lost).
            if !matches!(rec.body, Body::ProcDtor) {
                self.close(pid, Unpaired::ProcessGone, sink)?;
            }
        }
        if !self.live.contains_key(&pid) {
            if self.ctx.forks_pending > 0 || !self.deferred.is_empty() {
                self.deferred.insert(pid, vec![rec.clone().into_owned()]);
                self.deferred_order.push_back(pid);
                self.deferred_records += 1;
                return Ok(());
            }
            self.new_root(pid, rec, sink)?;
        }
        self.apply(pid, rec, sink)
    }

    fn apply<S: Sink>(&mut self, pid: i64, rec: &Record<'_>, sink: &mut S) -> Result<(), S::Error> {
        let p = self.live.get_mut(&pid).expect("live process");
        let action = self.ctx.apply(p, rec, sink)?;
        // Its end: write it now, so memory holds only running processes. On
        // FreeBSD the PROCDTOR that follows the exit is the end.
        let ended = p.dead || (p.exiting && !self.has_dtor);
        match action {
            Action::None => {}
            Action::Forked {
                child,
                syscall,
                call_id,
                ts,
                offset,
            } => self.fork(pid, child, syscall, (call_id, ts, offset), sink)?,
            Action::Spawned {
                call_id,
                ts,
                offset,
            } => {
                if let Some(child) = self.deferred_order.front().copied() {
                    self.fork(pid, child, "posix_spawn", (call_id, ts, offset), sink)?;
                }
            }
        }
        if ended {
            self.close(pid, Unpaired::ProcessGone, sink)?;
        }
        Ok(())
    }

    fn new_root<S: Sink>(
        &mut self,
        pid: i64,
        rec: &Record<'_>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let mut p = Proc::new(Ctx::next(&mut self.ctx.ids.process), pid, &rec.comm, rec.ts);
        p.cwd = self.start_cwd.take();
        self.ctx.totals.processes += 1;
        self.ctx.inherited_image(&mut p, rec.ts, sink)?;
        self.live.insert(pid, p);
        Ok(())
    }

    /// `parent` forked `child`: a new lifetime that inherits cwd and fds.
    /// `ret` is the parent's fork call, and the time and offset of its RET.
    fn fork<S: Sink>(
        &mut self,
        parent: i64,
        child: i64,
        syscall: &'static str,
        ret: (i64, i64, u64),
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let (call_id, ts, offset) = ret;
        let (parent_id, image_id, comm, cwd, fds) = {
            let pp = &self.live[&parent];
            let fds = pp.fds.clone();
            (pp.row.id, pp.image_id, pp.comm.clone(), pp.cwd.clone(), fds)
        };
        let link = |row: &mut ProcessRow| {
            row.parent_id = Some(parent_id);
            row.parent_exec_id = Some(image_id);
            row.running_at_start = false;
            row.fork_syscall = Some(syscall.to_string());
            row.fork_call_id = Some(call_id);
            row.fork_ts = Some(ts);
            row.fork_offset = Some(offset);
        };
        if let Some(old) = self.live.get_mut(&child) {
            if old.row.parent_id.is_none() && !old.dead && !old.exiting {
                // Its parent's CALL was not seen (dropped): adopt it.
                link(&mut old.row);
                old.cwd = old.cwd.take().or(cwd);
                return Ok(());
            }
            if !old.dead && !old.exiting {
                let (pid, id) = (child, old.row.id);
                self.ctx.issue(
                    sink,
                    Severity::Warning,
                    "pid-reused",
                    None,
                    Some(id),
                    || {
                        format!(
                            "pid {pid} forked again before its previous lifetime was seen to end"
                        )
                    },
                )?;
            }
            self.close(child, Unpaired::ProcessGone, sink)?;
        }
        let mut p = Proc::new(Ctx::next(&mut self.ctx.ids.process), child, &comm, ts);
        link(&mut p.row);
        p.cwd = cwd;
        p.fds = fds;
        self.ctx.totals.processes += 1;
        self.ctx.inherited_image(&mut p, ts, sink)?;
        self.live.insert(child, p);
        if let Some(queue) = self.deferred.remove(&child) {
            self.deferred_order.retain(|&d| d != child);
            self.deferred_records -= queue.len();
            for r in &queue {
                self.route(r, sink)?;
            }
        }
        Ok(())
    }

    /// Held-back pids no outstanding fork can claim become roots.
    fn release_unclaimed<S: Sink>(&mut self, sink: &mut S) -> Result<(), S::Error> {
        while self.ctx.forks_pending == 0 {
            let Some(pid) = self.deferred_order.pop_front() else {
                break;
            };
            self.release(pid, "no fork in the trace returned its pid", sink)?;
        }
        Ok(())
    }

    fn release<S: Sink>(&mut self, pid: i64, why: &str, sink: &mut S) -> Result<(), S::Error> {
        self.deferred_order.retain(|&d| d != pid);
        let Some(queue) = self.deferred.remove(&pid) else {
            return Ok(());
        };
        self.deferred_records -= queue.len();
        let first = &queue[0];
        self.ctx.issue(sink, Severity::Warning, "unknown-parent", Some(first.offset), None, || {
            format!("pid {pid} appeared while forks were outstanding, but {why}: imported as a process already running")
        })?;
        if self.live.contains_key(&pid) {
            self.close(pid, Unpaired::ProcessGone, sink)?;
        }
        self.new_root(pid, first, sink)?;
        for r in &queue {
            self.route(r, sink)?;
        }
        Ok(())
    }

    /// End the live lifetime of `pid`: abandon its pending calls with
    /// `why` (or "process gone" if it had exited) and write its rows.
    fn close<S: Sink>(&mut self, pid: i64, why: Unpaired, sink: &mut S) -> Result<(), S::Error> {
        let Some(mut p) = self.live.remove(&pid) else {
            return Ok(());
        };
        let why = if p.row.exit_seen {
            Unpaired::ProcessGone
        } else {
            why
        };
        if why == Unpaired::EndOfTrace && self.damaged && !p.row.exit_seen {
            p.row.cut_by_damage = true;
        }
        let mut keys: Vec<i64> = p.threads.keys().copied().collect();
        keys.sort();
        for k in keys {
            let tid_row = th_id(&p, k);
            let th = p.threads.get_mut(&k).expect("thread");
            for mut c in std::mem::take(&mut th.pending) {
                self.ctx
                    .finish_call(&mut p, tid_row, &mut c, None, why, sink)?;
            }
            let th = &p.threads[&k];
            if let Some(id) = th.id {
                self.ctx.totals.threads += 1;
                sink.thread(&ThreadRow {
                    id,
                    process_id: p.row.id,
                    tid: th.tid,
                    first_ts: th.first_ts,
                    last_ts: th.last_ts,
                    records: th.records,
                })?;
            }
        }
        p.row.last_comm = p.comm.clone();
        self.ctx.tally_process(&mut p);
        sink.process(&p.row)
    }
}
