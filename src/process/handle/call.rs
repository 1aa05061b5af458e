//! CALL and RET: pairing them per thread (or per process where the header
//! has no thread id), writing the call row, and what a returned call does
//! to its process (cwd, fd table, exec) or asks of the model ([`Action`]).

use super::{th_id, Action, Return};
use crate::names;
use crate::process::rows::{CallRow, End, IssueKind, NameiRow, Severity, Sink, Unpaired};
use crate::process::state::{ForkCall, Pending, Proc, TraceState};
use crate::process::syscall::{
    creates_thread, effect, outcome, returns_uncalled, seen_retval, Effect, VFORK,
};
use crate::record::{Call, Record, Ret};

impl TraceState {
    pub(super) fn on_call<S: Sink>(
        &mut self,
        p: &mut Proc,
        key: i64,
        rec: &Record<'_>,
        c: &Call<'_>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let name = names::syscall_name(self.names, c.code.into());
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
        let call_id = TraceState::next(&mut self.ids.call);
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
            held: Vec::new(),
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
                    let (ts, offset) = (rec.ts, rec.offset);
                    let call = ForkCall::new(p, call_id, name.unwrap_or("fork"), ts, offset);
                    self.fork_calls.push(call);
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
            self.exec_row(p, &old, at.ts, Some(&at.comm), true, false, sink)?;
            self.only_thread_left(p, key, sink)?;
        }
        Ok(())
    }

    pub(super) fn on_ret<S: Sink>(
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
        let name = names::syscall_name(self.names, r.code.into());
        if rec.tid.is_some() || r.error != 0 || r.retval <= 0 || r.retval == p.row.pid {
            return Ok(None);
        }
        if name.map(effect) != Some(Effect::Exec) {
            return Ok(None);
        }
        let th = p.threads.get_mut(&key).expect("thread exists");
        let Some(pos) = th.pending.iter().rposition(|c| c.name == Some(VFORK)) else {
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
            .unwrap_or_else(|| ForkCall::new(p, call_id, "fork", p.row.last_ts, 0))
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
        let name = names::syscall_name(self.names, r.code.into());
        let forks = self.is_fork(r.code);
        // A child-side fork RET is 0; Mac OS X's vfork child returns its own pid.
        let child_side = forks && (r.retval == 0 || r.retval == p.row.pid);
        let expected = child_side || name.is_some_and(returns_uncalled);
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
        // A child's first RET (a fork's in the new process, a thread
        // creation's in the new thread) is recorded but is no call of its.
        let child_return = child_side || name.is_some_and(creates_thread);
        let (ok, errno) = outcome(name, r.error, r.retval);
        if child_return {
            self.tally_child_return(r.code, name);
        } else {
            self.totals.calls += 1;
            self.tally_call(p, r.code, name, None, Some(ok), Vec::new());
        }
        let id = TraceState::next(&mut self.ids.call);
        sink.call(&CallRow {
            id,
            process_id: p.row.id,
            thread_id: tid_row,
            code: r.code,
            syscall: name,
            args: &[],
            ts: None,
            ret_ts: Some(rec.ts),
            retval: Some(seen_retval(r.error, r.retval)),
            error: Some(r.error),
            success: Some(ok),
            errno,
            call_offset: None,
            ret_offset: Some(rec.offset),
            unpaired: Some(if child_return {
                Unpaired::ChildReturn
            } else {
                Unpaired::NoCall
            }),
        })?;
        if forks && ok && !child_side && r.retval > 0 {
            let call = ForkCall::new(p, id, name.unwrap_or("fork"), rec.ts, rec.offset);
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
        // An exec superseded past its point of no return succeeded though
        // its RET was lost ([`Self::abandon`] starts its image): so did its
        // lookups. It still counts as a call without a return.
        let inferred = ret.is_none()
            && unpaired == Some(Unpaired::Superseded)
            && c.effect == Effect::Exec
            && c.exec_evidence;
        let success = out.map(|o| o.0).or(inferred.then_some(true));
        self.tally_call(p, c.code, c.name, dur, success, lookups);
        if inferred {
            self.syscalls.get_mut(&c.code).expect("tallied").no_return += 1;
        }
        // Its lookups waited for this: whether the call succeeded.
        for (seq, h) in std::mem::take(&mut c.held).into_iter().enumerate() {
            sink.namei(&NameiRow {
                id: TraceState::next(&mut self.ids.namei),
                call_id: Some(c.call_id),
                process_id: p.row.id,
                seq: seq as i64,
                ts: h.ts,
                offset: h.offset,
                comm: &h.comm,
                exec_id: c.image_id,
                coredump: false,
                path: &h.path,
                resolved: &h.resolved,
                resolution: h.resolution,
                access: h.access,
                success,
            })?;
        }
        sink.call(&CallRow {
            id: c.call_id,
            process_id: p.row.id,
            thread_id,
            code: c.code,
            syscall: c.name,
            args: c.args(),
            ts: Some(c.ts),
            ret_ts: ret.map(|r| r.ts),
            retval: ret.map(|r| seen_retval(r.error, r.retval)),
            error: ret.map(|r| r.error),
            success,
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
            self.exec_row(p, c, rec.ts, Some(&rec.comm), ok, true, sink)?;
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
                let call = ForkCall::of(p, c, "fork");
                return Ok(Action::Forked {
                    child: ret.retval,
                    call,
                    ts: ret.ts,
                    offset: ret.offset,
                });
            }
            Effect::Spawn => {
                let call = ForkCall::of(p, c, "posix_spawn");
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
            Effect::Fcntl
                if c.int_arg(1)
                    .is_some_and(|cmd| self.fd_effects.fcntl_dups(cmd)) =>
            {
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
}

fn copy_fd(p: &mut Proc, from: Option<i32>, to: Option<i32>) {
    let Some(to) = to else { return };
    match from.and_then(|f| p.fds.get(&f).cloned()) {
        Some(path) => p.fds.insert(to, path),
        None => p.fds.remove(&to),
    };
}
