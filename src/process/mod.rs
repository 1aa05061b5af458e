//! process: records → rows. Replays a decoded trace to rebuild what ran:
//! process lifetimes, fork edges, exec images, calls paired with their
//! returns per thread, path lookups made absolute through each process's
//! cwd and fd table, and everything else as events. Emits rows to a
//! [`Sink`]; knows nothing of SQLite.
//!
//! The rules follow what the kernels write (`docs/process-model.md`, "What each kernel writes"):
//! - A lifetime begins only when something announces it: a fork-family RET
//!   naming the pid in its parent, a child-side `RET fork 0` or FreeBSD
//!   PROCCTOR / NetBSD EMUL after the pid's last lifetime ended, Mac OS X's
//!   `RET vfork <own pid>` (the vfork child's first record), or a
//!   posix_spawn whose image the pid runs. Records a dying process still
//!   writes (its core file's NAMI, other threads' RETs after `exit`,
//!   FreeBSD's PROCDTOR, a new thread's `RET fork 0`) stay in its lifetime.
//! - A lifetime ends at FreeBSD's PROCDTOR, or when its parent's wait RET
//!   returns its pid (under `ktrace -t cn` nothing else shows a kill), or
//!   when a new lifetime of its pid is announced, or at the end of the trace.
//! - A forked child's records often come before the parent's fork RET that
//!   names it. While a fork or spawn is outstanding (or a fork's RET was
//!   lost), records of a pid never seen before are held back, bounded in
//!   bytes, until something claims the pid: the fork RET, a posix_spawn
//!   whose program the pid runs, or the parent's wait RET returning it.
//!   Then it is linked, inherits cwd and fds, and its records are replayed;
//!   a pid nothing claims becomes a root process.
//!
//! Parts: this file routes records to lifetimes and ends them; `claim.rs`
//! links a new pid to its parent; `handle/` applies one record to its
//! process (the handlers are methods of the trace-wide [`state`]);
//! `syscall.rs` says what each call does; `live.rs` keeps the live
//! lifetimes within a memory bound, writing idle ones to the file of
//! `spill/`; `rows.rs` is the contract with the loader (every table
//! declared once) and `vocab.rs` the fixed strings its rows carry.

mod claim;
mod handle;
mod live;
pub mod path;
pub mod rows;
mod spill;
mod state;
pub mod syscall;
pub mod vocab;

use std::collections::VecDeque;

use foldhash::HashMap;

pub use rows::*;

use crate::decode::Abi;
use crate::record::{Body, Kind, Record};
use claim::{file_name, Link, Spawn};
use handle::{th_id, Action};
use live::{Failure, Live};
use state::{Proc, TraceState};

/// Bytes of records held back for pids no fork has claimed yet, in all.
/// Past it the oldest held pid becomes a root process.
const MAX_HELD_BYTES: usize = 64 << 20;

/// How to build the model.
#[derive(Debug, Clone, Default)]
pub struct ModelOptions {
    /// Working directory of every process with no parent in the trace (the
    /// trace does not record it).
    pub start_cwd: Option<Vec<u8>>,
    /// Keep GIO data bytes in event rows.
    pub keep_io_data: bool,
    /// First ids to assign.
    pub ids: IdBase,
    /// Live processes kept in memory before idle ones are spilled to a
    /// temporary file (`None`: [`live::IN_MEMORY`]).
    pub live_in_memory: Option<usize>,
}

/// The process model of one trace. A clone is a snapshot of the state:
/// [`Model::snapshot`] ends one to write the rows of what is running.
#[derive(Clone)]
pub struct Model {
    ctx: TraceState,
    /// Live lifetimes by pid.
    live: Live,
    held: Held,
    /// Successful posix_spawns whose child has not appeared yet.
    spawns: Vec<Spawn>,
    start_cwd: Option<Vec<u8>>,
    /// Whether `-d` gave the working directory of the root processes.
    start_cwd_given: bool,
    damaged: bool,
    /// Records by kind, in the order of [`Kind::ALL`]: counted here and
    /// put into [`Totals::by_type`] at the end (a map keyed by label,
    /// updated per record, compared strings for every record).
    by_kind: [i64; Kind::ALL.len()],
}

/// Records of pids not claimed yet, oldest pid first.
#[derive(Default, Clone)]
struct Held {
    by_pid: HashMap<i64, Vec<Record<'static>>>,
    order: VecDeque<i64>,
    bytes: usize,
}

impl Model {
    /// A model for a trace of `abi`.
    pub fn new(abi: Abi, opts: ModelOptions) -> Model {
        Model {
            ctx: TraceState::new(abi.name_table(), opts.keep_io_data, opts.ids),
            live: Live::new(opts.live_in_memory.unwrap_or(live::IN_MEMORY)),
            held: Held::default(),
            spawns: Vec::new(),
            start_cwd_given: opts.start_cwd.is_some(),
            start_cwd: opts.start_cwd.map(|c| path::resolve(None, &c)),
            damaged: false,
            by_kind: [0; Kind::ALL.len()],
        }
    }

    /// Take one record.
    pub fn record<S: Sink>(&mut self, rec: &Record<'_>, sink: &mut S) -> Result<(), S::Error> {
        let t = &mut self.ctx.totals;
        t.records += 1;
        self.by_kind[rec.body.kind() as usize] += 1;
        t.first_ts.get_or_insert(rec.ts);
        t.last_ts = Some(rec.ts);
        if matches!(rec.body, Body::Start) {
            return self.ctx.event_row(None, None, None, rec, sink);
        }
        self.route(rec, sink)?;
        self.release_unclaimed(sink)?;
        self.report_spill_failure(sink)
    }

    /// A failure of the file idle processes are spilled to, once.
    fn report_spill_failure<S: Sink>(&mut self, sink: &mut S) -> Result<(), S::Error> {
        let Some(f) = self.live.failure.take() else {
            return Ok(());
        };
        match f {
            Failure::Write(e) => {
                self.ctx.issue(sink, Severity::Warning, IssueKind::SpillFailed, None, None, || {
                    format!("idle live processes could not be written to a temporary file ({e}): they stay in memory")
                })?;
            }
            Failure::Read { pid, error } => {
                let who = pid.map_or_else(|| "a live process".to_string(), |p| format!("pid {p}"));
                self.ctx.issue(sink, Severity::DataLoss, IssueKind::SpillFailed, None, None, || {
                    format!("{who}: its state, written to a temporary file to save memory, could not be read back ({error}): its process row and pending calls are lost; its later records start a new lifetime")
                })?;
            }
        }
        Ok(())
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
            Some(to) => self.ctx.issue(sink, Severity::DataLoss, IssueKind::Skipped, Some(offset), None, || {
                format!("bytes {offset}..{to} ({} bytes) skipped: {why}; records resume at byte {to}", to - offset)
            }),
            None => {
                self.damaged = true;
                let left = file_len.saturating_sub(offset);
                self.ctx.issue(sink, Severity::DataLoss, IssueKind::Truncated, Some(offset), None, || {
                    format!("decoding stopped at byte {offset}: {why}; the last {left} bytes are not imported")
                })
            }
        }
    }

    /// End of the trace: close every process and return the totals.
    pub fn finish<S: Sink>(self, sink: &mut S) -> Result<Totals, S::Error> {
        self.end(Unpaired::EndOfTrace, sink)
    }

    /// The rows [`Model::finish`] would write now, for a snapshot of a
    /// trace still being written (`import --follow`), from a copy of the
    /// state (this model goes on): the same rows but that a call still in
    /// flight is [`Unpaired::Running`] rather than cut by the end of the
    /// trace, and a running process is never `cut_by_damage`. Ids given
    /// here are given again by the next snapshot or the end.
    pub fn snapshot<S: Sink>(&self, sink: &mut S) -> Result<Totals, S::Error> {
        self.clone().end(Unpaired::Running, sink)
    }

    /// Whether every process seen has exited and no record waits for its
    /// parent: a followed build may be over.
    pub fn all_exited(&self) -> bool {
        self.ctx.totals.processes > 0
            && self.held.order.is_empty()
            && self.live.all(|p| p.row.exit_seen)
    }

    /// Close every process (their pending calls `why`) and return the totals.
    fn end<S: Sink>(mut self, why: Unpaired, sink: &mut S) -> Result<Totals, S::Error> {
        while let Some(&pid) = self.held.order.front() {
            self.release(pid, "the trace ended", sink)?;
        }
        let mut order = self.live.end_order();
        while let Some(p) = order.next(&mut self.live) {
            self.close_proc(p, why, sink)?;
        }
        self.report_spill_failure(sink)?;
        self.ctx.totals.files = self.ctx.files.len() as i64;
        for (kind, &n) in Kind::ALL.iter().zip(&self.by_kind) {
            if n > 0 {
                *self.ctx.totals.by_type.entry(kind.label()).or_default() += n;
            }
        }
        self.unresolved_issue(sink)?;
        self.ctx.write_syscall_stats(sink)?;
        self.ctx.summarise_capped(sink)?;
        Ok(self.ctx.totals)
    }

    /// One warning with the count of lookups left relative, and what
    /// resolves them.
    fn unresolved_issue<S: Sink>(&mut self, sink: &mut S) -> Result<(), S::Error> {
        let t = &self.ctx.totals;
        let (n, all) = (t.unresolved, t.namei);
        if n == 0 {
            return Ok(());
        }
        let fix = if self.start_cwd_given {
            "their base (a directory fd, or the working directory of a process \
             already running when tracing began) is not in the trace"
        } else {
            "the directory the traced command started in is not in the trace; \
             import again with -d DIR (that directory, on the traced machine) to \
             resolve those relative to it"
        };
        self.ctx.issue(
            sink,
            Severity::Warning,
            IssueKind::UnresolvedLookups,
            None,
            None,
            || {
                format!(
                    "{n} of {all} lookups stayed relative: {fix} \
                 (kt2sql files --unresolved lists them)"
                )
            },
        )
    }

    fn route<S: Sink>(&mut self, rec: &Record<'_>, sink: &mut S) -> Result<(), S::Error> {
        let pid = rec.pid;
        if self.held.by_pid.contains_key(&pid) {
            return self.hold(rec, sink);
        }
        let vfork_child = is_vfork_child(&self.ctx, rec);
        if let Some(p) = self.live.get(pid) {
            let begins = vfork_child || (p.exiting && starts_lifetime(&self.ctx, p, rec));
            if !begins {
                return self.apply(pid, rec, sink);
            }
            // The pid's lifetime is over and a new one begins.
            if !p.exiting {
                let id = p.row.id;
                self.ctx.issue(sink, Severity::Warning, IssueKind::PidReused, Some(rec.offset), Some(id), || {
                    format!("pid {pid} began a new lifetime before its previous one was seen to end")
                })?;
            }
            self.close(pid, Unpaired::ProcessGone, sink)?;
        }
        // Mac OS X vfork: the child's first record is its own `RET vfork`,
        // written on the thread of the parent whose vfork is pending.
        if vfork_child {
            let parent = self
                .ctx
                .fork_calls
                .iter()
                .filter(|f| f.name == syscall::VFORK && f.pid != pid)
                .max_by_key(|f| f.offset)
                .cloned();
            if let Some(call) = parent {
                let comm = rec.comm.to_vec();
                self.link(pid, Link::of(&call, rec.ts, rec.offset), comm, sink)?;
                return self.apply(pid, rec, sink);
            }
        }
        // A posix_spawn child: the first new pid running the spawned program.
        if let Some(i) = self.spawn_for(std::slice::from_ref(rec)) {
            let s = self.spawns.remove(i);
            self.link(pid, s.link, rec.comm.to_vec(), sink)?;
            return self.apply(pid, rec, sink);
        }
        if self.outstanding() {
            return self.hold(rec, sink);
        }
        self.new_root(pid, rec, sink)?;
        self.apply(pid, rec, sink)
    }

    /// Forks, spawns or lost fork RETs that may yet claim a new pid.
    fn outstanding(&self) -> bool {
        !self.ctx.fork_calls.is_empty()
            || !self.ctx.lost_forks.is_empty()
            || !self.spawns.is_empty()
    }

    fn hold<S: Sink>(&mut self, rec: &Record<'_>, sink: &mut S) -> Result<(), S::Error> {
        let queue = self.held.by_pid.entry(rec.pid).or_insert_with(|| {
            self.held.order.push_back(rec.pid);
            Vec::new()
        });
        queue.push(rec.clone().into_owned());
        self.held.bytes += held_size(rec);
        if let Some(i) = self.spawn_for(&self.held.by_pid[&rec.pid]) {
            // Its first records show a posix_spawn child already returned.
            let s = self.spawns.remove(i);
            let comm = self.held.by_pid[&rec.pid][0].comm.to_vec();
            return self.link(rec.pid, s.link, comm, sink);
        }
        while self.held.bytes > MAX_HELD_BYTES {
            let Some(&oldest) = self.held.order.front() else {
                break;
            };
            self.release(oldest, "too many records waited for their parent", sink)?;
        }
        Ok(())
    }

    fn apply<S: Sink>(&mut self, pid: i64, rec: &Record<'_>, sink: &mut S) -> Result<(), S::Error> {
        let p = self.live.get_mut(pid).expect("live process");
        let action = self.ctx.apply(p, rec, sink)?;
        // FreeBSD's PROCDTOR is the last record of a lifetime: write it now,
        // so memory holds only running processes.
        let dead = p.dead;
        match action {
            Action::None => {}
            Action::Forked {
                child,
                call,
                ts,
                offset,
            } => self.fork(child, Link::of(&call, ts, offset), sink)?,
            Action::Spawned {
                call,
                image,
                ts,
                offset,
            } => self.spawned(call, image, ts, offset, sink)?,
            Action::Reaped { child, ts, offset } => self.reap(pid, child, ts, offset, sink)?,
            Action::VforkExec { child, call, ret } => self.vfork_exec(child, call, ret, sink)?,
        }
        if dead {
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
        let mut p = Proc::new(
            TraceState::next(&mut self.ctx.ids.process),
            pid,
            &rec.comm,
            rec.ts,
        );
        // A process with no parent in the trace started where the traced
        // command did, as far as anything says (ktcompose's R6: its truth
        // starts every root there, e.g. each block of a repeated trace).
        p.cwd = self.start_cwd.clone();
        self.ctx.totals.processes += 1;
        self.ctx.inherited_image(&mut p, rec.ts, None, sink)?;
        self.live.insert(pid, Box::new(p));
        Ok(())
    }

    /// Held-back pids nothing can claim any more become roots.
    fn release_unclaimed<S: Sink>(&mut self, sink: &mut S) -> Result<(), S::Error> {
        while !self.outstanding() {
            let Some(&pid) = self.held.order.front() else {
                break;
            };
            self.release(pid, "no fork in the trace returned its pid", sink)?;
        }
        Ok(())
    }

    fn release<S: Sink>(&mut self, pid: i64, why: &str, sink: &mut S) -> Result<(), S::Error> {
        let Some(queue) = self.held.by_pid.get(&pid) else {
            self.held.order.retain(|&d| d != pid);
            return Ok(());
        };
        let first = queue[0].clone();
        self.ctx.issue(sink, Severity::Warning, IssueKind::UnknownParent, Some(first.offset), None, || {
            format!("pid {pid} appeared while forks were outstanding, but {why}: imported as a process already running")
        })?;
        if self.live.contains(pid) {
            self.close(pid, Unpaired::ProcessGone, sink)?;
        }
        self.new_root(pid, &first, sink)?;
        self.replay(pid, sink)
    }

    /// End the live lifetime of `pid`: abandon its pending calls with
    /// `why` (or "process gone" if it had exited) and write its rows.
    fn close<S: Sink>(&mut self, pid: i64, why: Unpaired, sink: &mut S) -> Result<(), S::Error> {
        match self.live.remove(pid) {
            Some(p) => self.close_proc(p, why, sink),
            None => Ok(()),
        }
    }

    /// [`Model::close`] for a lifetime taken out of the live map.
    fn close_proc<S: Sink>(
        &mut self,
        mut p: Box<Proc>,
        why: Unpaired,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        if p.awaiting_comm.is_some() {
            // No record of the new image followed: name it by its program.
            let comm = p.awaiting_comm.as_ref().and_then(|a| a.path.as_ref());
            let comm = comm.map_or_else(|| p.comm.clone(), |f| file_name(&f.1).to_vec());
            self.ctx.write_awaiting(&mut p, &comm, sink)?;
        }
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
                    .finish_call(&mut p, tid_row, &mut c, None, Some(why), sink)?;
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
        let id = p.row.id;
        self.ctx.lost_forks.retain(|f| f.process_id != id);
        self.spawns.retain(|s| s.link.parent_id != id);
        p.row.last_comm = p.comm.clone();
        self.ctx.tally_process(&mut p);
        sink.process(&p.row)
    }
}

/// Mac OS X's vfork child announces itself: `RET vfork <its own pid>`.
fn is_vfork_child(ctx: &TraceState, rec: &Record<'_>) -> bool {
    let Body::Ret(r) = &rec.body else {
        return false;
    };
    r.error == 0
        && r.retval == rec.pid
        && crate::names::syscall_name(ctx.names, r.code.into()) == Some(syscall::VFORK)
}

/// Whether `rec`, in a pid whose lifetime `p` has ended, is the first
/// record of a new lifetime: a child-side fork RET (0, with no fork of its
/// own pending on that thread), or the start of a process image that
/// FreeBSD (PROCCTOR) and NetBSD (EMUL) write for a new child. Anything else
/// a dying process still writes.
fn starts_lifetime(ctx: &TraceState, p: &Proc, rec: &Record<'_>) -> bool {
    match &rec.body {
        Body::ProcCtor { .. } | Body::Emul(_) => true,
        Body::Ret(r) => {
            let forks = ctx.is_fork(r.code);
            let own = p
                .threads
                .get(&rec.tid.unwrap_or(0))
                .is_some_and(|t| t.pending.iter().any(|c| c.code == r.code));
            forks && r.retval == 0 && !own
        }
        _ => false,
    }
}

/// What a held record costs in memory, about.
pub(crate) fn held_size(rec: &Record<'_>) -> usize {
    let payload = match &rec.body {
        Body::Namei(b) | Body::Emul(b) | Body::Sysctl(b) | Body::ExecArgs(b) | Body::ExecEnv(b) => {
            b.len()
        }
        Body::Gio(g) => g.data.len(),
        Body::Struct(s) => s.name.len() + s.data.len(),
        Body::User(u) => u.data.len() + u.id.as_ref().map_or(0, |i| i.len()),
        Body::CapFail { data, .. } => data.len(),
        Body::Mib(m) => 4 * m.len(),
        _ => 0,
    };
    std::mem::size_of::<Record<'static>>() + rec.comm.len() + payload
}
