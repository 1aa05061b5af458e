//! Handling one record of a live process: pairing CALL with RET per thread,
//! resolving NAMI paths against the cwd or an `*at` call's directory fd,
//! applying a call's effect (cwd, fd table, exec, exit) when it returns, and
//! noticing what ends a lifetime; every other record is an event row. One
//! home for every record handler: `call.rs` (CALL, RET), `exec.rs` (exec
//! rows), `namei.rs` (NAMI), `event.rs` (the rest).
//! What needs more than the one process (a fork's child, a reaped child) is
//! handed back to the model as an [`Action`].

use super::rows::{End, IssueKind, Severity, Sink};
use super::state::{ForkCall, Proc, Thread, TraceState};
use super::syscall::{fatal_by_default, Effect};
use crate::record::{Body, Record, Ret};

mod call;
mod event;
mod exec;
mod namei;

/// What the caller must do after a record, outside the process's borrow.
#[derive(Debug)]
pub enum Action {
    /// Nothing.
    None,
    /// A fork returned a child pid to its parent.
    Forked {
        /// Child pid.
        child: i64,
        /// The parent's call (its CALL, or a RET without one).
        call: ForkCall,
        /// Time of the parent's RET.
        ts: i64,
        /// File offset of the parent's RET.
        offset: u64,
    },
    /// A posix_spawn succeeded: its child pid is not in the record.
    Spawned {
        /// The parent's call.
        call: ForkCall,
        /// The program it started (as passed, resolved), when looked up.
        image: Option<(Vec<u8>, Vec<u8>)>,
        /// Time of the parent's RET.
        ts: i64,
        /// File offset of the parent's RET.
        offset: u64,
    },
    /// A wait RET returned a child's pid: that lifetime is over.
    Reaped {
        /// The child's pid.
        child: i64,
        /// Time of the RET.
        ts: i64,
        /// File offset of the RET.
        offset: u64,
    },
    /// Mac OS X vfork: the parent's `RET execve <child>` is its vfork
    /// returning, and the child's pending execve succeeding.
    VforkExec {
        /// The child's pid.
        child: i64,
        /// The parent's vfork call.
        call: ForkCall,
        /// The RET.
        ret: Return,
    },
}

/// The return half of a call.
#[derive(Debug, Clone, Copy)]
pub struct Return {
    /// RET time.
    pub ts: i64,
    /// RET file offset.
    pub offset: u64,
    /// Return value.
    pub retval: i64,
    /// Error field.
    pub error: i32,
}

impl Return {
    fn of(rec: &Record<'_>, r: &Ret) -> Return {
        Return {
            ts: rec.ts,
            offset: rec.offset,
            retval: r.retval,
            error: r.error,
        }
    }
}

impl TraceState {
    /// Apply one record to its (live) process.
    pub fn apply<S: Sink>(
        &mut self,
        p: &mut Proc,
        rec: &Record<'_>,
        sink: &mut S,
    ) -> Result<Action, S::Error> {
        if !p.seen {
            p.seen = true;
            p.row.first_ts = rec.ts;
            p.row.last_ts = rec.ts;
            p.row.first_comm = rec.comm.to_vec();
        }
        p.row.records += 1;
        // The earliest and latest times, not the first and last records':
        // NetBSD writes a fork child's EMUL before its `RET fork 0` but
        // stamps it later (issue #16: the timeline's process intervals).
        p.row.first_ts = p.row.first_ts.min(rec.ts);
        p.row.last_ts = p.row.last_ts.max(rec.ts);
        if p.awaiting_comm.is_some() {
            self.write_awaiting(p, &rec.comm, sink)?;
        }
        let key = rec.tid.unwrap_or(0);
        // An exec past its point of no return shows itself before its RET:
        // FreeBSD writes PROCCTOR, NetBSD EMUL, and the comm changes.
        let image_starts = matches!(rec.body, Body::ProcCtor { .. } | Body::Emul(_));
        if image_starts || *rec.comm != *p.comm {
            if let Some(c) = p.threads.get_mut(&key).and_then(|t| t.pending.last_mut()) {
                c.exec_evidence |= c.effect == Effect::Exec;
            }
        }
        if *rec.comm != *p.comm {
            p.comm = rec.comm.to_vec();
        }
        if rec.dropped {
            p.row.dropped_events += 1;
            self.totals.dropped += 1;
            let (pid, id) = (p.row.pid, p.row.id);
            self.issue(
                sink,
                Severity::DataLoss,
                IssueKind::DroppedEvents,
                Some(rec.offset),
                Some(id),
                || format!("events of pid {pid} were dropped by the kernel before this record"),
            )?;
        }
        let has_tid = rec.tid.is_some();
        let th = p.threads.entry(key).or_insert_with(|| Thread {
            id: has_tid.then(|| TraceState::next(&mut self.ids.thread)),
            tid: key,
            first_ts: rec.ts,
            last_ts: rec.ts,
            records: 0,
            pending: Vec::new(),
        });
        th.records += 1;
        th.last_ts = rec.ts;
        match &rec.body {
            Body::Call(c) => self.on_call(p, key, rec, c, sink).map(|_| Action::None),
            Body::Ret(r) => self.on_ret(p, key, rec, r, sink),
            Body::Namei(path) => self.on_namei(p, key, rec, path, sink).map(|_| Action::None),
            Body::ExecArgs(a) | Body::ExecEnv(a) => {
                let is_args = matches!(rec.body, Body::ExecArgs(_));
                let th = p.threads.get_mut(&key).expect("thread exists");
                match th.pending.last_mut().filter(|c| c.effect == Effect::Exec) {
                    Some(c) => {
                        let slot = if is_args { &mut c.argv } else { &mut c.envp };
                        slot.get_or_insert_with(Vec::new).extend_from_slice(a);
                        Ok(Action::None)
                    }
                    None => self.event(p, key, rec, sink).map(|_| Action::None),
                }
            }
            Body::Psig(s) => {
                if s.action == 0 && fatal_by_default(s.signo) && !p.exiting {
                    p.row.exit_signal = Some(s.signo.into());
                    p.end(End::Signal, rec.ts);
                }
                self.event(p, key, rec, sink).map(|_| Action::None)
            }
            Body::ProcDtor => {
                p.end(End::Procdtor, rec.ts);
                p.dead = true;
                self.event(p, key, rec, sink).map(|_| Action::None)
            }
            _ => self.event(p, key, rec, sink).map(|_| Action::None),
        }
    }
}

/// The thread row id of thread `key` in `p`.
pub fn th_id(p: &Proc, key: i64) -> Option<i64> {
    p.threads.get(&key).and_then(|t| t.id)
}
