//! Handling one record of a live process: pairing CALL with RET per thread,
//! resolving NAMI paths against the cwd or an `*at` call's directory fd,
//! applying a call's effect (cwd, fd table, exec, exit) when it returns, and
//! noticing what ends a lifetime; every other record goes to `event.rs`.
//! What needs more than the one process (a fork's child, a reaped child) is
//! handed back to the model as an [`Action`].

use super::path::resolve;
use super::rows::{
    CallRow, End, ExecRow, IssueKind, NameiRow, Resolution, Severity, Sink, Unpaired,
};
use super::state::{AwaitingExec, Ctx, ForkCall, Pending, Proc, Thread};
use super::syscall::{dirfd_arg, effect, fatal_by_default, fcntl_dups, outcome, Effect, AT_FDCWD};
use crate::record::{Body, Call, Record, Ret};
use crate::tables;

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

impl Ctx {
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
            p.row.first_comm = rec.comm.to_vec();
        }
        p.row.records += 1;
        p.row.last_ts = rec.ts;
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
            id: has_tid.then(|| Ctx::next(&mut self.ids.thread)),
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

    fn on_call<S: Sink>(
        &mut self,
        p: &mut Proc,
        key: i64,
        rec: &Record<'_>,
        c: &Call<'_>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let name = tables::syscall_name(self.names, c.code.into());
        let eff = name.map_or(Effect::None, effect);
        let (pid, pid_row) = (p.row.pid, p.row.id);
        let th = p.threads.get_mut(&key).expect("thread exists");
        if !th.pending.is_empty() {
            if rec.tid.is_some() {
                // One call at a time per thread: the old one lost its RET.
                let stale = std::mem::take(&mut th.pending);
                for old in stale {
                    self.issue(
                        sink,
                        Severity::Warning,
                        IssueKind::SupersededCall,
                        Some(old.offset),
                        Some(pid_row),
                        || {
                            format!(
                            "pid {pid}: {} at offset {} got no RET before the thread's next CALL",
                            old.name.unwrap_or("syscall"),
                            old.offset
                        )
                        },
                    )?;
                    self.abandon(p, key, old, rec, sink)?;
                }
            } else if let Some(i) = th
                .pending
                .iter()
                .position(|o| o.effect == Effect::Exec && o.exec_evidence)
            {
                // No thread ids, but the new image already runs: the
                // exec's RET was lost.
                let old = th.pending.remove(i);
                self.abandon(p, key, old, rec, sink)?;
            } else if th.pending.iter().any(|o| o.code == c.code) {
                self.issue(sink, Severity::Warning, IssueKind::AmbiguousPairing, Some(rec.offset), Some(pid_row), || {
                    format!(
                        "pid {pid}: two {} calls outstanding at once and no thread ids to tell them apart",
                        name.unwrap_or("syscall")
                    )
                })?;
            }
        }
        let call_id = Ctx::next(&mut self.ids.call);
        let mut pending = Pending {
            call_id,
            code: c.code,
            name,
            effect: eff,
            nargs: usize::from(c.nargs),
            args: c.args,
            ts: rec.ts,
            offset: rec.offset,
            namei: 0,
            lookups: Vec::new(),
            first_path: None,
            argv: None,
            envp: None,
            image_id: p.image_id,
            exec_evidence: false,
        };
        match eff {
            Effect::Exit | Effect::ThreadExit => {
                let why = if eff == Effect::Exit {
                    p.row.exit_status = pending.int_arg(0);
                    p.end(End::Exit, rec.ts);
                    Unpaired::Exit
                } else {
                    Unpaired::ThreadExit
                };
                let tid_row = th_id(p, key);
                self.finish_call(p, tid_row, &mut pending, None, Some(why), sink)
            }
            _ => {
                if matches!(eff, Effect::Fork | Effect::Spawn) {
                    self.fork_calls.push(ForkCall {
                        pid,
                        process_id: pid_row,
                        call_id,
                        name: name.unwrap_or("fork"),
                        ts: rec.ts,
                        offset: rec.offset,
                        image_id: p.image_id,
                    });
                }
                let th = p.threads.get_mut(&key).expect("thread exists");
                // Almost always the only call pending on its thread: room
                // for one, not the four of Vec's first growth (issue #12:
                // 2 M processes each waiting in a call).
                th.pending.reserve_exact(1);
                th.pending.push(pending);
                Ok(())
            }
        }
    }

    /// A pending call of thread `key` will get no RET: `at` came first. An
    /// exec that had passed its point of no return succeeded all the same
    /// (its RET was lost): its image starts at `at`.
    fn abandon<S: Sink>(
        &mut self,
        p: &mut Proc,
        key: i64,
        mut old: Pending,
        at: &Record<'_>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let tid_row = th_id(p, key);
        let why = Some(Unpaired::Superseded);
        self.finish_call(p, tid_row, &mut old, None, why, sink)?;
        if old.effect == Effect::Exec && old.exec_evidence {
            let (pid, id) = (p.row.pid, p.row.id);
            self.issue(
                sink,
                Severity::Info,
                IssueKind::ExecInferred,
                Some(at.offset),
                Some(id),
                || {
                    format!(
                        "pid {pid}: the exec at offset {} got no RET, but the new image's records follow: it succeeded",
                        old.offset
                    )
                },
            )?;
            self.exec_row(p, &old, at.ts, Some(&at.comm), true, sink)?;
            self.only_thread_left(p, key, sink)?;
        }
        Ok(())
    }

    fn on_ret<S: Sink>(
        &mut self,
        p: &mut Proc,
        key: i64,
        rec: &Record<'_>,
        r: &Ret,
        sink: &mut S,
    ) -> Result<Action, S::Error> {
        let th = p.threads.get_mut(&key).expect("thread exists");
        let pos = if rec.tid.is_some() {
            // One pending call per thread: it is this RET's, or lost its own.
            match th.pending.last() {
                Some(last) if last.code == r.code => Some(th.pending.len() - 1),
                Some(_) => {
                    let old = th.pending.pop().expect("non-empty");
                    self.abandon(p, key, old, rec, sink)?;
                    None
                }
                None => None,
            }
        } else {
            // No thread ids: the oldest outstanding call with this number.
            th.pending.iter().position(|c| c.code == r.code)
        };
        let Some(pos) = pos else {
            if let Some(action) = self.vfork_exec(p, key, rec, r, sink)? {
                return Ok(action);
            }
            return self.lone_ret(p, key, rec, r, sink);
        };
        let mut call = p
            .threads
            .get_mut(&key)
            .expect("thread exists")
            .pending
            .remove(pos);
        let tid_row = th_id(p, key);
        let ret = Return::of(rec, r);
        self.finish_call(p, tid_row, &mut call, Some(ret), None, sink)?;
        self.effect_of(p, key, rec, ret, &call, sink)
    }

    /// Mac OS X vfork (xnu-792 `vfork_return()`): the child ran on the
    /// parent's thread and its execve has no RET; the parent's vfork
    /// returns through that execve, as `RET execve <child>` under the
    /// parent's pid, while its own last pending call is the vfork.
    fn vfork_exec<S: Sink>(
        &mut self,
        p: &mut Proc,
        key: i64,
        rec: &Record<'_>,
        r: &Ret,
        sink: &mut S,
    ) -> Result<Option<Action>, S::Error> {
        let name = tables::syscall_name(self.names, r.code.into());
        if rec.tid.is_some() || r.error != 0 || r.retval <= 0 || r.retval == p.row.pid {
            return Ok(None);
        }
        if name.map(effect) != Some(Effect::Exec) {
            return Ok(None);
        }
        let th = p.threads.get_mut(&key).expect("thread exists");
        let Some(pos) = th.pending.iter().rposition(|c| c.name == Some("vfork")) else {
            return Ok(None);
        };
        let mut call = th.pending.remove(pos);
        let fork = self.fork_call(call.call_id, p);
        let ret = Return::of(rec, r);
        let tid_row = th_id(p, key);
        self.finish_call(p, tid_row, &mut call, Some(ret), None, sink)?;
        Ok(Some(Action::VforkExec {
            child: r.retval,
            call: fork,
            ret,
        }))
    }

    /// The registered fork call `call_id` of `p` (or one made up from `p`).
    fn fork_call(&self, call_id: i64, p: &Proc) -> ForkCall {
        self.fork_calls
            .iter()
            .find(|f| f.call_id == call_id)
            .cloned()
            .unwrap_or(ForkCall {
                pid: p.row.pid,
                process_id: p.row.id,
                call_id,
                name: "fork",
                ts: p.row.last_ts,
                offset: 0,
                image_id: p.image_id,
            })
    }

    /// A RET with no CALL: expected for a forked child's first RET, the
    /// tracer's ktrace RET and a new thread's first RET. A parent's fork RET
    /// whose CALL is missing still names its child.
    fn lone_ret<S: Sink>(
        &mut self,
        p: &mut Proc,
        key: i64,
        rec: &Record<'_>,
        r: &Ret,
        sink: &mut S,
    ) -> Result<Action, S::Error> {
        let tid_row = th_id(p, key);
        let name = tables::syscall_name(self.names, r.code.into());
        let forks = name.is_some_and(|n| effect(n) == Effect::Fork);
        // A child-side fork RET is 0; Mac OS X's vfork child returns its own pid.
        let child_side = forks && (r.retval == 0 || r.retval == p.row.pid);
        let expected =
            child_side || matches!(name, Some("ktrace" | "__tfork" | "thr_new" | "_lwp_create"));
        if !expected {
            let pid = p.row.pid;
            self.issue(
                sink,
                Severity::Info,
                IssueKind::ReturnWithoutCall,
                Some(rec.offset),
                Some(p.row.id),
                || {
                    format!(
                        "pid {pid}: RET {} has no CALL in the trace",
                        name.unwrap_or("syscall")
                    )
                },
            )?;
        }
        self.totals.calls += 1;
        let (ok, errno) = outcome(name, r.error, r.retval);
        self.tally_call(p, r.code, name, None, Some(ok), Vec::new());
        let id = Ctx::next(&mut self.ids.call);
        sink.call(&CallRow {
            id,
            process_id: p.row.id,
            thread_id: tid_row,
            code: r.code,
            syscall: name,
            args: &[],
            ts: None,
            ret_ts: Some(rec.ts),
            retval: Some(r.retval),
            error: Some(r.error),
            success: Some(ok),
            errno,
            call_offset: None,
            ret_offset: Some(rec.offset),
            unpaired: Some(Unpaired::NoCall),
        })?;
        if forks && ok && !child_side && r.retval > 0 {
            let call = ForkCall {
                pid: p.row.pid,
                process_id: p.row.id,
                call_id: id,
                name: name.unwrap_or("fork"),
                ts: rec.ts,
                offset: rec.offset,
                image_id: p.image_id,
            };
            return Ok(Action::Forked {
                child: r.retval,
                call,
                ts: rec.ts,
                offset: rec.offset,
            });
        }
        Ok(Action::None)
    }

    /// Write a call row of `p`: returned (`ret` given) or abandoned
    /// (`unpaired` says why); count it in `p`'s counters and the trace's
    /// syscall_stat. A fork whose RET never came is kept as a lost fork,
    /// whose child the parent's wait can still claim.
    pub fn finish_call<S: Sink>(
        &mut self,
        p: &mut Proc,
        thread_id: Option<i64>,
        c: &mut Pending,
        ret: Option<Return>,
        unpaired: Option<Unpaired>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        if matches!(c.effect, Effect::Fork | Effect::Spawn) {
            if let Some(i) = self.fork_calls.iter().position(|f| f.call_id == c.call_id) {
                let f = self.fork_calls.swap_remove(i);
                if ret.is_none() && c.effect == Effect::Fork {
                    self.lost_forks.push(f);
                }
            }
        }
        self.totals.calls += 1;
        let dur = ret.map(|r| r.ts - c.ts);
        let lookups = std::mem::take(&mut c.lookups);
        let out = ret.map(|r| outcome(c.name, r.error, r.retval));
        self.tally_call(p, c.code, c.name, dur, out.map(|o| o.0), lookups);
        sink.call(&CallRow {
            id: c.call_id,
            process_id: p.row.id,
            thread_id,
            code: c.code,
            syscall: c.name,
            args: c.args(),
            ts: Some(c.ts),
            ret_ts: ret.map(|r| r.ts),
            retval: ret.map(|r| r.retval),
            error: ret.map(|r| r.error),
            success: out.map(|o| o.0),
            errno: out.and_then(|o| o.1),
            call_offset: Some(c.offset),
            ret_offset: ret.map(|r| r.offset),
            unpaired,
        })
    }

    /// What a returned call does to the process.
    fn effect_of<S: Sink>(
        &mut self,
        p: &mut Proc,
        key: i64,
        rec: &Record<'_>,
        ret: Return,
        c: &Pending,
        sink: &mut S,
    ) -> Result<Action, S::Error> {
        let (ok, _) = outcome(c.name, ret.error, ret.retval);
        if c.effect == Effect::Exec {
            self.exec_row(p, c, rec.ts, Some(&rec.comm), ok, sink)?;
            if ok {
                self.only_thread_left(p, key, sink)?;
            }
            return Ok(Action::None);
        }
        if !ok {
            return Ok(Action::None);
        }
        let fd = |v: Option<i64>| v.and_then(|v| i32::try_from(v).ok());
        let ret_fd = i32::try_from(ret.retval).ok();
        match c.effect {
            Effect::Fork if ret.retval > 0 => {
                let call = ForkCall {
                    pid: p.row.pid,
                    process_id: p.row.id,
                    call_id: c.call_id,
                    name: c.name.unwrap_or("fork"),
                    ts: c.ts,
                    offset: c.offset,
                    image_id: c.image_id,
                };
                return Ok(Action::Forked {
                    child: ret.retval,
                    call,
                    ts: ret.ts,
                    offset: ret.offset,
                });
            }
            Effect::Spawn => {
                let call = ForkCall {
                    pid: p.row.pid,
                    process_id: p.row.id,
                    call_id: c.call_id,
                    name: c.name.unwrap_or("posix_spawn"),
                    ts: c.ts,
                    offset: c.offset,
                    image_id: c.image_id,
                };
                let image = c.first_path.as_ref().map(|f| (f.0.clone(), f.1.clone()));
                return Ok(Action::Spawned {
                    call,
                    image,
                    ts: ret.ts,
                    offset: ret.offset,
                });
            }
            Effect::Wait if ret.retval > 0 => {
                return Ok(Action::Reaped {
                    child: ret.retval,
                    ts: ret.ts,
                    offset: ret.offset,
                })
            }
            Effect::Chdir => {
                p.cwd = c.first_path.as_ref().filter(|f| f.2).map(|f| f.1.clone());
            }
            Effect::Fchdir => p.cwd = fd(c.int_arg(0)).and_then(|f| p.fds.get(&f).cloned()),
            Effect::Open => {
                if let Some(nfd) = ret_fd {
                    match c.first_path.as_ref().filter(|f| f.2) {
                        Some(f) => p.fds.insert(nfd, f.1.clone()),
                        None => p.fds.remove(&nfd),
                    };
                }
            }
            Effect::Dup => copy_fd(p, fd(c.int_arg(0)), ret_fd),
            Effect::Dup2 => copy_fd(p, fd(c.int_arg(0)), fd(c.int_arg(1))),
            Effect::Fcntl if c.int_arg(1).is_some_and(|cmd| fcntl_dups(self.family, cmd)) => {
                copy_fd(p, fd(c.int_arg(0)), ret_fd)
            }
            Effect::Close => {
                if let Some(f) = fd(c.int_arg(0)) {
                    p.fds.remove(&f);
                }
            }
            Effect::Closefrom => {
                if let Some(lo) = fd(c.int_arg(0)) {
                    p.fds.retain(|&f, _| f < lo);
                }
            }
            _ => {}
        }
        Ok(Action::None)
    }

    /// A new image has one thread: the other threads' calls are gone.
    fn only_thread_left<S: Sink>(
        &mut self,
        p: &mut Proc,
        key: i64,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let others: Vec<i64> = p.threads.keys().copied().filter(|&k| k != key).collect();
        for k in others {
            let tid_row = th_id(p, k);
            let gone = std::mem::take(&mut p.threads.get_mut(&k).expect("thread").pending);
            for mut g in gone {
                let why = Some(Unpaired::ProcessGone);
                self.finish_call(p, tid_row, &mut g, None, why, sink)?;
            }
        }
        Ok(())
    }

    /// The exec row of call `c` of `p`, which took effect at `ts`; a
    /// successful one starts a new image named `comm` (None: the name is
    /// not known yet, and the row waits for the next record of `p`).
    pub fn exec_row<S: Sink>(
        &mut self,
        p: &mut Proc,
        c: &Pending,
        ts: i64,
        comm: Option<&[u8]>,
        ok: bool,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        p.exec_seq += 1;
        self.totals.execs += 1;
        let id = Ctx::next(&mut self.ids.exec);
        if ok {
            p.image += 1;
            p.image_id = id;
        }
        let Some(comm) = comm else {
            p.awaiting_comm = Some(Box::new(AwaitingExec {
                id,
                seq: p.exec_seq,
                image: p.image,
                ts,
                call_id: c.call_id,
                path: c.first_path.as_ref().map(|f| (f.0.clone(), f.1.clone())),
                argv: c.argv.clone(),
                envp: c.envp.clone(),
                cwd: p.cwd.clone(),
            }));
            return Ok(());
        };
        let (path, resolved) = match &c.first_path {
            Some((raw, res, _)) => (Some(raw.as_slice()), Some(res.as_slice())),
            None => (None, None),
        };
        sink.exec(&ExecRow {
            id,
            process_id: p.row.id,
            seq: p.exec_seq,
            image: ok.then_some(p.image),
            ts,
            call_id: Some(c.call_id),
            path,
            resolved,
            comm,
            argv: c.argv.as_deref(),
            envp: c.envp.as_deref(),
            success: ok,
            cwd: p.cwd.as_deref(),
        })
    }

    /// Write the exec row that waited for its command name.
    pub fn write_awaiting<S: Sink>(
        &mut self,
        p: &mut Proc,
        comm: &[u8],
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let Some(a) = p.awaiting_comm.take() else {
            return Ok(());
        };
        sink.exec(&ExecRow {
            id: a.id,
            process_id: p.row.id,
            seq: a.seq,
            image: Some(a.image),
            ts: a.ts,
            call_id: Some(a.call_id),
            path: a.path.as_ref().map(|f| f.0.as_slice()),
            resolved: a.path.as_ref().map(|f| f.1.as_slice()),
            comm,
            argv: a.argv.as_deref(),
            envp: a.envp.as_deref(),
            success: true,
            cwd: a.cwd.as_deref(),
        })
    }

    /// The inherited image of a new process (exec row 0): a copy of its
    /// parent's, or for a posix_spawn child the program spawned (`image`).
    pub fn inherited_image<S: Sink>(
        &mut self,
        p: &mut Proc,
        ts: i64,
        image: Option<&(Vec<u8>, Vec<u8>)>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        self.totals.execs += 1;
        p.image_id = Ctx::next(&mut self.ids.exec);
        sink.exec(&ExecRow {
            id: p.image_id,
            process_id: p.row.id,
            seq: 0,
            image: Some(0),
            ts,
            call_id: None,
            path: image.map(|i| i.0.as_slice()),
            resolved: image.map(|i| i.1.as_slice()),
            comm: &p.comm,
            argv: None,
            envp: None,
            success: true,
            cwd: p.cwd.as_deref(),
        })
    }

    fn on_namei<S: Sink>(
        &mut self,
        p: &mut Proc,
        key: i64,
        rec: &Record<'_>,
        raw: &[u8],
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let th = p.threads.get_mut(&key).expect("thread exists");
        let call = th.pending.last_mut();
        // A NAMI no call of its thread made is the core file a dying
        // process looks up (coredump(): OpenBSD 5.9 writes `PSIG SIGABRT`,
        // then `NAMI "pg.core"`, same pid). It belongs to this lifetime.
        let coredump = call.is_none();
        let seq = call.as_ref().map_or(0, |c| c.namei);
        let dirfd = call.as_ref().and_then(|c| {
            c.name
                .and_then(|n| dirfd_arg(n, seq))
                .and_then(|i| c.int_arg(i))
        });
        let (base, how): (Option<&[u8]>, Resolution) = if raw.first() == Some(&b'/') {
            (None, Resolution::Absolute)
        } else {
            match dirfd {
                Some(d) if d != AT_FDCWD => match i32::try_from(d).ok().and_then(|f| p.fds.get(&f))
                {
                    Some(dir) => (Some(dir), Resolution::Dirfd),
                    None => (None, Resolution::Unknown),
                },
                _ => match &p.cwd {
                    Some(cwd) => (Some(cwd), Resolution::Cwd),
                    None => (None, Resolution::Unknown),
                },
            }
        };
        let resolved = resolve(base, raw);
        let call_id = call.as_ref().map(|c| c.call_id);
        let exec_id = call.as_ref().map_or(p.image_id, |c| c.image_id);
        let absolute = how != Resolution::Unknown;
        p.row.lookups += 1;
        if !absolute {
            p.row.unresolved_lookups += 1;
        }
        self.totals.namei += 1;
        let row = NameiRow {
            id: Ctx::next(&mut self.ids.namei),
            call_id,
            process_id: p.row.id,
            seq: seq as i64,
            ts: rec.ts,
            offset: rec.offset,
            comm: &rec.comm,
            exec_id,
            coredump,
            path: raw,
            resolved: &resolved,
            resolution: how,
        };
        sink.namei(&row)?;
        if let Some(c) = call {
            c.namei += 1;
            if seq == 0
                && matches!(
                    c.effect,
                    Effect::Exec | Effect::Spawn | Effect::Chdir | Effect::Open
                )
            {
                c.first_path = Some((raw.to_vec(), resolved.clone(), absolute));
            }
            if absolute {
                c.lookups.push(self.file_key(&resolved));
            }
        } else {
            p.end(End::Core, rec.ts);
            if absolute {
                p.files.insert(self.file_key(&resolved));
            }
        }
        Ok(())
    }
}

/// The thread row id of thread `key` in `p`.
pub fn th_id(p: &Proc, key: i64) -> Option<i64> {
    p.threads.get(&key).and_then(|t| t.id)
}

fn copy_fd(p: &mut Proc, from: Option<i32>, to: Option<i32>) {
    let Some(to) = to else { return };
    match from.and_then(|f| p.fds.get(&f).cloned()) {
        Some(path) => p.fds.insert(to, path),
        None => p.fds.remove(&to),
    };
}
