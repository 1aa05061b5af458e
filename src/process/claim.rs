//! Claiming a new pid: how a lifetime is linked to its parent. The parent's
//! fork RET names the child (usual); Mac OS X's vfork child names itself
//! with `RET vfork <own pid>`; a posix_spawn child is the first new pid
//! running the spawned program; and the parent's wait RET returning a pid
//! is the edge where the fork RET was lost, and corrects a spawn's guess.

use super::handle::{th_id, Return};
use super::rows::{End, IssueKind, ProcessRow, Severity, Sink, Unpaired};
use super::state::{ForkCall, Proc, TraceState};
use super::syscall::Effect;
use super::{held_size, Model};
use crate::record::{Body, Record};

/// A posix_spawn that returned before its child's first record.
#[derive(Clone)]
pub(super) struct Spawn {
    pub(super) link: Link,
    /// File offset of the spawn's CALL: its child's records come after it.
    call_offset: u64,
    /// The command name the child will carry (the program's file name).
    comm: Option<Vec<u8>>,
}

/// How a new lifetime hangs under its parent.
#[derive(Debug, Clone)]
pub(super) struct Link {
    /// The parent's pid and lifetime.
    parent_pid: i64,
    pub(super) parent_id: i64,
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
    pub(super) fn of(call: &ForkCall, ts: i64, offset: u64) -> Link {
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
    /// A fork RET named `child`.
    pub(super) fn fork<S: Sink>(
        &mut self,
        child: i64,
        link: Link,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        if let Some(old) = self.live.get_mut(child) {
            if old.row.fork_call_id.is_some() && old.row.fork_call_id == link.call_id {
                // Mac OS X: the vfork child that exited without exec was
                // linked at its own `RET vfork`; this is the parent's.
                return Ok(());
            }
            if old.row.parent_id.is_none() && !old.exiting {
                // Its records came first and nothing held them: adopt it.
                let cwd = self.live.get(link.parent_pid).and_then(|pp| pp.cwd.clone());
                let old = self.live.get_mut(child).expect("live");
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
            .get(link.parent_pid)
            .map(|pp| pp.comm.clone())
            .unwrap_or_default();
        self.link(child, link, comm, sink)
    }

    /// Start the lifetime of `child` under `link`'s parent, with `comm`: it
    /// inherits the parent's cwd and fds; records held for it are replayed.
    pub(super) fn link<S: Sink>(
        &mut self,
        child: i64,
        link: Link,
        comm: Vec<u8>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let mut p = Proc::new(
            TraceState::next(&mut self.ctx.ids.process),
            child,
            &comm,
            link.ts,
        );
        if let Some(pp) = self.live.get(link.parent_pid) {
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
    pub(super) fn replay<S: Sink>(&mut self, pid: i64, sink: &mut S) -> Result<(), S::Error> {
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
    pub(super) fn spawned<S: Sink>(
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
    pub(super) fn reap<S: Sink>(
        &mut self,
        parent: i64,
        child: i64,
        ts: i64,
        offset: u64,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let Some(pp) = self.live.get(parent) else {
            return Ok(());
        };
        let (parent_id, parent_image) = (pp.row.id, pp.image_id);
        let held_at = self.held.by_pid.get(&child).map(|q| (q[0].offset, q[0].ts));
        let claimed = self.live.get(child).map(|c| c.row.parent_id);
        if held_at.is_some() || claimed == Some(None) {
            // Nothing linked it: take the parent's lost fork before it, or
            // its unclaimed spawn, or hang it where it first appeared.
            let first = held_at.or_else(|| self.live.get(child).map(|c| (0, c.row.first_ts)));
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
                    self.live
                        .get(parent)
                        .map(|p| p.comm.clone())
                        .unwrap_or_default()
                };
                self.link(child, link, comm, sink)?;
            } else if let Some(c) = self.live.get_mut(child) {
                set_parent(&mut c.row, &link);
            }
        }
        let Some(c) = self.live.get_mut(child) else {
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
        let c = self.live.get_mut(child).expect("live");
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
    pub(super) fn vfork_exec<S: Sink>(
        &mut self,
        child: i64,
        call: ForkCall,
        ret: Return,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let linked = self
            .live
            .get(child)
            .is_some_and(|c| c.row.fork_call_id == Some(call.call_id));
        if !linked {
            // Its `RET vfork` was not seen: the parent's RET is the edge.
            self.fork(child, Link::of(&call, ret.ts, ret.offset), sink)?;
        }
        let Some(c) = self.live.get_mut(child) else {
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
        self.ctx.exec_row(c, &exec, ret.ts, None, true, true, sink)
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

impl Model {
    /// The unclaimed spawn whose child a new pid's first records show.
    pub(super) fn spawn_for(&self, first: &[Record<'_>]) -> Option<usize> {
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
fn spawn_child(ctx: &TraceState, first: &[Record<'_>], want: &Option<Vec<u8>>) -> Option<bool> {
    for rec in first {
        match &rec.body {
            Body::Emul(_) => continue,
            Body::Ret(r) if r.retval == 0 && ctx.is_fork(r.code) => return Some(false),
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
pub(super) fn file_name(path: &[u8]) -> &[u8] {
    path.rsplit(|&b| b == b'/').next().unwrap_or(path)
}
