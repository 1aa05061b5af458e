//! process: records → rows. Replays a decoded trace to rebuild what ran:
//! process lifetimes, fork edges, exec images, calls paired with their
//! returns per thread, path lookups made absolute through each process's
//! cwd and fd table, and everything else as events. Emits rows to a
//! [`Sink`]; knows nothing of SQLite.
//!
//! The rules follow what the kernels write (`shared/docs/kernel-behaviour.md`):
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
use handle::{th_id, Action, Return};
use state::{Ctx, ForkCall, Proc};
use syscall::{effect, Effect};

/// Bytes of records held back for pids no fork has claimed yet, in all.
/// Past it the oldest held pid becomes a root process.
const MAX_HELD_BYTES: usize = 64 << 20;

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
    /// Live lifetimes by pid, boxed: a map of millions of processes (issue
    /// #12) would otherwise keep room for a whole `Proc` in every free slot.
    live: HashMap<i64, Box<Proc>>,
    held: Held,
    /// Successful posix_spawns whose child has not appeared yet.
    spawns: Vec<Spawn>,
    start_cwd: Option<Vec<u8>>,
    damaged: bool,
}

/// Records of pids not claimed yet, oldest pid first.
#[derive(Default)]
struct Held {
    by_pid: HashMap<i64, Vec<Record<'static>>>,
    order: VecDeque<i64>,
    bytes: usize,
}

/// A posix_spawn that returned before its child's first record.
struct Spawn {
    link: Link,
    /// File offset of the spawn's CALL: its child's records come after it.
    call_offset: u64,
    /// The command name the child will carry (the program's file name).
    comm: Option<Vec<u8>>,
}

/// How a new lifetime hangs under its parent.
#[derive(Debug, Clone)]
struct Link {
    /// The parent's pid and lifetime.
    parent_pid: i64,
    parent_id: i64,
    /// The parent's image at the fork (`exec_id`).
    image_id: i64,
    /// The fork-family call, when known.
    syscall: Option<&'static str>,
    call_id: Option<i64>,
    /// Where the child hangs in time and file order (the fork RET).
    ts: i64,
    offset: u64,
    /// A posix_spawn child's program (as passed, resolved).
    image: Option<(Vec<u8>, Vec<u8>)>,
}

impl Link {
    fn of(call: &ForkCall, ts: i64, offset: u64) -> Link {
        Link {
            parent_pid: call.pid,
            parent_id: call.process_id,
            image_id: call.image_id,
            syscall: Some(call.name),
            call_id: Some(call.call_id),
            ts,
            offset,
            image: None,
        }
    }
}

impl Model {
    /// A model for a trace of `abi`.
    pub fn new(abi: Abi, opts: ModelOptions) -> Model {
        Model {
            ctx: Ctx::new(abi.name_table(), abi.family, opts.keep_io_data, opts.ids),
            live: HashMap::new(),
            held: Held::default(),
            spawns: Vec::new(),
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
    pub fn finish<S: Sink>(mut self, sink: &mut S) -> Result<Totals, S::Error> {
        while let Some(&pid) = self.held.order.front() {
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
        if self.held.by_pid.contains_key(&pid) {
            return self.hold(rec, sink);
        }
        let vfork_child = is_vfork_child(&self.ctx, rec);
        if let Some(p) = self.live.get(&pid) {
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
                .filter(|f| f.name == "vfork" && f.pid != pid)
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
        let p = self.live.get_mut(&pid).expect("live process");
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
        let mut p = Proc::new(Ctx::next(&mut self.ctx.ids.process), pid, &rec.comm, rec.ts);
        p.cwd = self.start_cwd.take();
        self.ctx.totals.processes += 1;
        self.ctx.inherited_image(&mut p, rec.ts, None, sink)?;
        self.live.insert(pid, Box::new(p));
        Ok(())
    }

    /// A fork RET named `child`.
    fn fork<S: Sink>(&mut self, child: i64, link: Link, sink: &mut S) -> Result<(), S::Error> {
        if let Some(old) = self.live.get_mut(&child) {
            if old.row.fork_call_id.is_some() && old.row.fork_call_id == link.call_id {
                // Mac OS X: the vfork child that exited without exec was
                // linked at its own `RET vfork`; this is the parent's.
                return Ok(());
            }
            if old.row.parent_id.is_none() && !old.exiting {
                // Its records came first and nothing held them: adopt it.
                let cwd = self
                    .live
                    .get(&link.parent_pid)
                    .and_then(|pp| pp.cwd.clone());
                let old = self.live.get_mut(&child).expect("live");
                set_parent(&mut old.row, &link);
                old.cwd = old.cwd.take().or(cwd);
                return Ok(());
            }
            if !old.exiting {
                let id = old.row.id;
                self.ctx.issue(
                    sink,
                    Severity::Warning,
                    IssueKind::PidReused,
                    None,
                    Some(id),
                    || {
                        format!(
                            "pid {child} forked again before its previous lifetime was seen to end"
                        )
                    },
                )?;
            }
            self.close(child, Unpaired::ProcessGone, sink)?;
        }
        let comm = self
            .live
            .get(&link.parent_pid)
            .map(|pp| pp.comm.clone())
            .unwrap_or_default();
        self.link(child, link, comm, sink)
    }

    /// Start the lifetime of `child` under `link`'s parent, with `comm`: it
    /// inherits the parent's cwd and fds; records held for it are replayed.
    fn link<S: Sink>(
        &mut self,
        child: i64,
        link: Link,
        comm: Vec<u8>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let mut p = Proc::new(Ctx::next(&mut self.ctx.ids.process), child, &comm, link.ts);
        if let Some(pp) = self.live.get(&link.parent_pid) {
            p.cwd = pp.cwd.clone();
            p.fds = pp.fds.clone();
        }
        set_parent(&mut p.row, &link);
        self.ctx.totals.processes += 1;
        self.ctx
            .inherited_image(&mut p, link.ts, link.image.as_ref(), sink)?;
        self.live.insert(child, Box::new(p));
        self.replay(child, sink)
    }

    /// Replay the records held for `pid`, now that it is live.
    fn replay<S: Sink>(&mut self, pid: i64, sink: &mut S) -> Result<(), S::Error> {
        let Some(queue) = self.held.by_pid.remove(&pid) else {
            return Ok(());
        };
        self.held.order.retain(|&d| d != pid);
        self.held.bytes -= queue.iter().map(held_size).sum::<usize>();
        for r in &queue {
            self.route(r, sink)?;
        }
        Ok(())
    }

    /// A posix_spawn of `call` succeeded: its child is the first pid after
    /// the CALL whose command name is the program's (NetBSD loads the image
    /// in the parent, so the child's first record already carries it).
    fn spawned<S: Sink>(
        &mut self,
        call: ForkCall,
        image: Option<(Vec<u8>, Vec<u8>)>,
        ts: i64,
        offset: u64,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let comm = image.as_ref().map(|i| file_name(&i.1).to_vec());
        let mut link = Link::of(&call, ts, offset);
        link.image = image;
        let found = self.held.order.iter().copied().find(|pid| {
            let first = &self.held.by_pid[pid];
            first[0].offset > call.offset && spawn_child(&self.ctx, first, &comm) == Some(true)
        });
        match found {
            Some(child) => {
                let comm = self.held.by_pid[&child][0].comm.to_vec();
                self.link(child, link, comm, sink)
            }
            None => {
                let call_offset = call.offset;
                self.spawns.push(Spawn {
                    link,
                    call_offset,
                    comm,
                });
                Ok(())
            }
        }
    }

    /// `parent`'s wait RET returned `child`: that lifetime is over, and it
    /// was `parent`'s child (the evidence for an edge whose fork RET was
    /// lost, and the check of a posix_spawn's guess).
    fn reap<S: Sink>(
        &mut self,
        parent: i64,
        child: i64,
        ts: i64,
        offset: u64,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let Some(pp) = self.live.get(&parent) else {
            return Ok(());
        };
        let (parent_id, parent_image) = (pp.row.id, pp.image_id);
        let held_at = self.held.by_pid.get(&child).map(|q| (q[0].offset, q[0].ts));
        let claimed = self.live.get(&child).map(|c| c.row.parent_id);
        if held_at.is_some() || claimed == Some(None) {
            // Nothing linked it: take the parent's lost fork before it, or
            // its unclaimed spawn, or hang it where it first appeared.
            let first = held_at.or_else(|| self.live.get(&child).map(|c| (0, c.row.first_ts)));
            let (at, first_ts) = first.unwrap_or((offset, ts));
            let link = self.lost_link(parent, parent_id, parent_image, at, first_ts);
            let how = link.syscall.unwrap_or("fork");
            self.ctx.issue(sink, Severity::Info, IssueKind::ForkInferred, Some(offset), Some(parent_id), || {
                format!("pid {child}: no {how} RET in pid {parent} names it; its wait RET at offset {offset} does: linked as its child")
            })?;
            if held_at.is_some() {
                let comm = self.held.by_pid[&child][0].comm.to_vec();
                let comm = if link.image.is_some() {
                    comm
                } else {
                    self.live[&parent].comm.clone()
                };
                self.link(child, link, comm, sink)?;
            } else if let Some(c) = self.live.get_mut(&child) {
                set_parent(&mut c.row, &link);
            }
        }
        let Some(c) = self.live.get_mut(&child) else {
            return Ok(());
        };
        if c.row.parent_id != Some(parent_id) {
            let id = c.row.id;
            c.row.parent_id = Some(parent_id);
            c.row.parent_exec_id = Some(parent_image);
            self.ctx.issue(sink, Severity::Warning, IssueKind::ParentCorrected, Some(offset), Some(id), || {
                format!("pid {child} was linked to another parent, but pid {parent}'s wait RET at offset {offset} reaped it: re-linked to pid {parent}")
            })?;
        }
        let c = self.live.get_mut(&child).expect("live");
        if c.row.end_seen_by.is_none() {
            c.end(End::Wait, ts);
            let id = c.row.id;
            self.ctx.issue(sink, Severity::Info, IssueKind::EndInferred, Some(offset), Some(id), || {
                format!("pid {child}: no record shows its end; pid {parent}'s wait RET at offset {offset} reaped it")
            })?;
        }
        self.close(child, Unpaired::ProcessGone, sink)
    }

    /// The edge for a child of `parent` that first appeared at `at`: the
    /// parent's last lost fork before it (its RET would have come after
    /// the CALL, with no other fork of that thread between), or its
    /// unclaimed spawn, or nothing but the parent.
    fn lost_link(&mut self, parent: i64, parent_id: i64, image_id: i64, at: u64, ts: i64) -> Link {
        let lost = &mut self.ctx.lost_forks;
        let i = lost
            .iter()
            .enumerate()
            .filter(|(_, f)| f.process_id == parent_id && f.offset < at)
            .max_by_key(|(_, f)| f.offset)
            .map(|(i, _)| i);
        if let Some(i) = i {
            let f = lost.swap_remove(i);
            return Link::of(&f, f.ts, f.offset);
        }
        if let Some(i) = self
            .spawns
            .iter()
            .position(|s| s.link.parent_id == parent_id)
        {
            return self.spawns.remove(i).link;
        }
        Link {
            parent_pid: parent,
            parent_id,
            image_id,
            syscall: None,
            call_id: None,
            ts,
            offset: at,
            image: None,
        }
    }

    /// Mac OS X vfork: `child`'s pending execve succeeded when its parent's
    /// vfork returned through `ret`.
    fn vfork_exec<S: Sink>(
        &mut self,
        child: i64,
        call: ForkCall,
        ret: Return,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let linked = self
            .live
            .get(&child)
            .is_some_and(|c| c.row.fork_call_id == Some(call.call_id));
        if !linked {
            // Its `RET vfork` was not seen: the parent's RET is the edge.
            self.fork(child, Link::of(&call, ret.ts, ret.offset), sink)?;
        }
        let Some(c) = self.live.get_mut(&child) else {
            return Ok(());
        };
        let found = c.threads.iter_mut().find_map(|(&k, t)| {
            let i = t.pending.iter().rposition(|p| p.effect == Effect::Exec)?;
            Some((k, t.pending.remove(i)))
        });
        let Some((key, mut exec)) = found else {
            return Ok(());
        };
        let tid_row = th_id(c, key);
        let why = Some(Unpaired::VforkParent);
        self.ctx
            .finish_call(c, tid_row, &mut exec, Some(ret), why, sink)?;
        self.ctx.exec_row(c, &exec, ret.ts, None, true, sink)
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
        if self.live.contains_key(&pid) {
            self.close(pid, Unpaired::ProcessGone, sink)?;
        }
        self.new_root(pid, &first, sink)?;
        self.replay(pid, sink)
    }

    /// End the live lifetime of `pid`: abandon its pending calls with
    /// `why` (or "process gone" if it had exited) and write its rows.
    fn close<S: Sink>(&mut self, pid: i64, why: Unpaired, sink: &mut S) -> Result<(), S::Error> {
        let Some(mut p) = self.live.remove(&pid) else {
            return Ok(());
        };
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

/// Fill a child's row with its edge to the parent.
fn set_parent(row: &mut ProcessRow, link: &Link) {
    row.parent_id = Some(link.parent_id);
    row.parent_exec_id = Some(link.image_id);
    row.running_at_start = false;
    row.fork_syscall = link.syscall.map(str::to_string);
    row.fork_call_id = link.call_id;
    row.fork_ts = Some(link.ts);
    row.fork_offset = Some(link.offset);
}

/// Mac OS X's vfork child announces itself: `RET vfork <its own pid>`.
fn is_vfork_child(ctx: &Ctx, rec: &Record<'_>) -> bool {
    let Body::Ret(r) = &rec.body else {
        return false;
    };
    r.error == 0
        && r.retval == rec.pid
        && crate::tables::syscall_name(ctx.names, r.code.into()) == Some("vfork")
}

/// Whether `rec`, in a pid whose lifetime `p` has ended, is the first
/// record of a new lifetime: a child-side fork RET (0, with no fork of its
/// own pending on that thread), or the start of a process image that
/// FreeBSD (PROCCTOR) and NetBSD (EMUL) write for a new child. Anything else
/// a dying process still writes.
fn starts_lifetime(ctx: &Ctx, p: &Proc, rec: &Record<'_>) -> bool {
    match &rec.body {
        Body::ProcCtor { .. } | Body::Emul(_) => true,
        Body::Ret(r) => {
            let forks = crate::tables::syscall_name(ctx.names, r.code.into())
                .is_some_and(|n| effect(n) == Effect::Fork);
            let own = p
                .threads
                .get(&rec.tid.unwrap_or(0))
                .is_some_and(|t| t.pending.iter().any(|c| c.code == r.code));
            forks && r.retval == 0 && !own
        }
        _ => false,
    }
}

impl Model {
    /// The unclaimed spawn whose child a new pid's first records show.
    fn spawn_for(&self, first: &[Record<'_>]) -> Option<usize> {
        self.spawns.iter().position(|s| {
            first[0].offset > s.call_offset && spawn_child(&self.ctx, first, &s.comm) == Some(true)
        })
    }
}

/// Whether a new pid's first records are those of a posix_spawn child of
/// the program named `want`; None while they cannot tell yet. A spawn child
/// carries the program's name from its first record (NetBSD loads the image
/// in the parent) and writes no RET for the spawn, where a fork child
/// writes `RET fork 0` right after its first EMUL, under its parent's name.
fn spawn_child(ctx: &Ctx, first: &[Record<'_>], want: &Option<Vec<u8>>) -> Option<bool> {
    for rec in first {
        match &rec.body {
            Body::Emul(_) => continue,
            Body::Ret(r) if r.retval == 0 => {
                let forks = crate::tables::syscall_name(ctx.names, r.code.into())
                    .is_some_and(|n| effect(n) == Effect::Fork);
                if forks {
                    return Some(false);
                }
            }
            _ => {}
        }
        return Some(comm_fits(want, &first[0].comm));
    }
    None
}

/// Whether a child's first `comm` is what running the program named
/// `want` gives (the kernel keeps the first MAXCOMLEN bytes of its name).
fn comm_fits(want: &Option<Vec<u8>>, comm: &[u8]) -> bool {
    match want {
        None => true,
        Some(w) => {
            !comm.is_empty() && w.starts_with(comm) && (comm.len() == w.len() || comm.len() >= 16)
        }
    }
}

/// The last component of a path.
fn file_name(path: &[u8]) -> &[u8] {
    path.rsplit(|&b| b == b'/').next().unwrap_or(path)
}

/// What a held record costs in memory, about.
fn held_size(rec: &Record<'_>) -> usize {
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
