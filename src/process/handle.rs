//! Handling one record of a live process: pairing CALL with RET per thread,
//! resolving NAMI paths against the cwd or an `*at` call's directory fd,
//! applying a call's effect (cwd, fd table, exec, exit) when it returns;
//! every other record goes to `event.rs`.

use super::path::resolve;
use super::rows::{CallRow, ExecRow, NameiRow, Resolution, Severity, Sink, Unpaired};
use super::state::{Ctx, Pending, Proc, Thread};
use super::syscall::{dirfd_arg, effect, fatal_by_default, fcntl_dups, Effect, AT_FDCWD};
use crate::record::{Body, Call, Record, Ret};
use crate::tables;

/// What the caller must do after a record, outside the process's borrow.
#[derive(Debug)]
pub enum Action {
    /// Nothing.
    None,
    /// A fork returned a child pid.
    Forked {
        /// Child pid.
        child: i64,
        /// The fork-family syscall.
        syscall: &'static str,
        /// The parent's call.
        call_id: i64,
        /// Time of the parent's RET.
        ts: i64,
        /// File offset of the parent's RET.
        offset: u64,
    },
    /// A posix_spawn returned: its child pid is not in the record.
    Spawned {
        /// The parent's call.
        call_id: i64,
        /// Time of the parent's RET.
        ts: i64,
        /// File offset of the parent's RET.
        offset: u64,
    },
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
                "dropped-events",
                Some(rec.offset),
                Some(id),
                || format!("events of pid {pid} were dropped by the kernel before this record"),
            )?;
        }
        let key = rec.tid.unwrap_or(0);
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
                    p.row.exit_ts = Some(rec.ts);
                    p.row.exit_seen = true;
                    p.exiting = true;
                }
                self.event(p, key, rec, sink).map(|_| Action::None)
            }
            Body::ProcDtor => {
                p.row.exit_seen = true;
                p.row.exit_ts.get_or_insert(rec.ts);
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
        let tid_row = th_id(p, key);
        let (pid, pid_row) = (p.row.pid, p.row.id);
        let th = p.threads.get_mut(&key).expect("thread exists");
        if !th.pending.is_empty() {
            if rec.tid.is_some() {
                // One call at a time per thread: the old one lost its RET.
                let stale = std::mem::take(&mut th.pending);
                for mut old in stale {
                    self.issue(
                        sink,
                        Severity::Warning,
                        "superseded-call",
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
                    let why = Unpaired::Superseded;
                    self.finish_call(p, tid_row, &mut old, None, why, sink)?;
                }
            } else if th.pending.iter().any(|o| o.code == c.code) {
                self.issue(sink, Severity::Warning, "ambiguous-pairing", Some(rec.offset), Some(pid_row), || {
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
        };
        match eff {
            Effect::Exit | Effect::ThreadExit => {
                let why = if eff == Effect::Exit {
                    p.row.exit_status = pending.int_arg(0);
                    p.row.exit_ts = Some(rec.ts);
                    p.row.exit_seen = true;
                    p.exiting = true;
                    Unpaired::Exit
                } else {
                    Unpaired::ThreadExit
                };
                self.finish_call(p, tid_row, &mut pending, None, why, sink)
            }
            _ => {
                if matches!(eff, Effect::Fork | Effect::Spawn) {
                    self.forks_pending += 1;
                }
                p.threads
                    .get_mut(&key)
                    .expect("thread exists")
                    .pending
                    .push(pending);
                Ok(())
            }
        }
    }

    fn on_ret<S: Sink>(
        &mut self,
        p: &mut Proc,
        key: i64,
        rec: &Record<'_>,
        r: &Ret,
        sink: &mut S,
    ) -> Result<Action, S::Error> {
        let tid_row = th_id(p, key);
        let th = p.threads.get_mut(&key).expect("thread exists");
        let pos = if rec.tid.is_some() {
            // One pending call per thread: it is this RET's, or lost its own.
            match th.pending.last() {
                Some(last) if last.code == r.code => Some(th.pending.len() - 1),
                Some(_) => {
                    let mut old = th.pending.pop().expect("non-empty");
                    let why = Unpaired::Superseded;
                    self.finish_call(p, tid_row, &mut old, None, why, sink)?;
                    None
                }
                None => None,
            }
        } else {
            // No thread ids: the oldest outstanding call with this number.
            th.pending.iter().position(|c| c.code == r.code)
        };
        let Some(pos) = pos else {
            return self
                .lone_ret(p, tid_row, rec, r, sink)
                .map(|_| Action::None);
        };
        let mut call = p
            .threads
            .get_mut(&key)
            .expect("thread exists")
            .pending
            .remove(pos);
        let why = Unpaired::EndOfTrace;
        self.finish_call(p, tid_row, &mut call, Some((rec, r)), why, sink)?;
        self.effect_of(p, key, rec, r, &call, sink)
    }

    /// A RET with no CALL: expected for a forked child's first RET, the
    /// tracer's ktrace RET and a new OpenBSD thread's `__tfork` RET.
    fn lone_ret<S: Sink>(
        &mut self,
        p: &mut Proc,
        tid_row: Option<i64>,
        rec: &Record<'_>,
        r: &Ret,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let name = tables::syscall_name(self.names, r.code.into());
        let expected = matches!(name, Some("ktrace" | "__tfork" | "thr_new" | "_lwp_create"))
            || (r.retval == 0 && name.is_some_and(|n| effect(n) == Effect::Fork));
        if !expected {
            let pid = p.row.pid;
            self.issue(
                sink,
                Severity::Info,
                "return-without-call",
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
        let ok = Some(r.succeeded());
        self.tally_call(p, r.code, name, None, ok, Vec::new());
        sink.call(&CallRow {
            id: Ctx::next(&mut self.ids.call),
            process_id: p.row.id,
            thread_id: tid_row,
            code: r.code,
            syscall: name,
            args: &[],
            ts: None,
            ret_ts: Some(rec.ts),
            retval: Some(r.retval),
            error: Some(r.error),
            call_offset: None,
            ret_offset: Some(rec.offset),
            unpaired: Some(Unpaired::NoCall),
        })
    }

    /// Write a call row of `p`: returned (`ret` given) or abandoned for
    /// `why`; count it in `p`'s counters and the trace's syscall_stat.
    pub fn finish_call<S: Sink>(
        &mut self,
        p: &mut Proc,
        thread_id: Option<i64>,
        c: &mut Pending,
        ret: Option<(&Record<'_>, &Ret)>,
        why: Unpaired,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        if matches!(c.effect, Effect::Fork | Effect::Spawn) {
            self.forks_pending = self.forks_pending.saturating_sub(1);
        }
        self.totals.calls += 1;
        let dur = ret.map(|(rec, _)| rec.ts - c.ts);
        let lookups = std::mem::take(&mut c.lookups);
        let ok = ret.map(|(_, r)| r.succeeded());
        self.tally_call(p, c.code, c.name, dur, ok, lookups);
        sink.call(&CallRow {
            id: c.call_id,
            process_id: p.row.id,
            thread_id,
            code: c.code,
            syscall: c.name,
            args: c.args(),
            ts: Some(c.ts),
            ret_ts: ret.map(|(rec, _)| rec.ts),
            retval: ret.map(|(_, r)| r.retval),
            error: ret.map(|(_, r)| r.error),
            call_offset: Some(c.offset),
            ret_offset: ret.map(|(rec, _)| rec.offset),
            unpaired: if ret.is_some() { None } else { Some(why) },
        })
    }

    /// What a returned call does to the process.
    fn effect_of<S: Sink>(
        &mut self,
        p: &mut Proc,
        key: i64,
        rec: &Record<'_>,
        r: &Ret,
        c: &Pending,
        sink: &mut S,
    ) -> Result<Action, S::Error> {
        let ok = r.succeeded();
        if c.effect == Effect::Exec {
            self.exec_row(p, rec, c, ok, sink)?;
            if ok {
                // The new image has one thread: the others' calls are gone.
                let others: Vec<i64> = p.threads.keys().copied().filter(|&k| k != key).collect();
                for k in others {
                    let tid_row = th_id(p, k);
                    let gone = std::mem::take(&mut p.threads.get_mut(&k).expect("thread").pending);
                    for mut g in gone {
                        let why = Unpaired::ProcessGone;
                        self.finish_call(p, tid_row, &mut g, None, why, sink)?;
                    }
                }
            }
            return Ok(Action::None);
        }
        if !ok {
            return Ok(Action::None);
        }
        let fd = |v: Option<i64>| v.and_then(|v| i32::try_from(v).ok());
        let ret_fd = i32::try_from(r.retval).ok();
        match c.effect {
            Effect::Fork if r.retval > 0 => {
                return Ok(Action::Forked {
                    child: r.retval,
                    syscall: c.name.unwrap_or("fork"),
                    call_id: c.call_id,
                    ts: rec.ts,
                    offset: rec.offset,
                })
            }
            Effect::Spawn => {
                return Ok(Action::Spawned {
                    call_id: c.call_id,
                    ts: rec.ts,
                    offset: rec.offset,
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

    fn exec_row<S: Sink>(
        &mut self,
        p: &mut Proc,
        rec: &Record<'_>,
        c: &Pending,
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
        let (path, resolved) = match &c.first_path {
            Some((raw, res, _)) => (Some(raw.as_slice()), Some(res.as_slice())),
            None => (None, None),
        };
        sink.exec(&ExecRow {
            id,
            process_id: p.row.id,
            seq: p.exec_seq,
            image: ok.then_some(p.image),
            ts: rec.ts,
            call_id: Some(c.call_id),
            path,
            resolved,
            comm: &rec.comm,
            argv: c.argv.as_deref(),
            envp: c.envp.as_deref(),
            success: ok,
            cwd: p.cwd.as_deref(),
        })
    }

    /// The inherited image of a new process (exec row 0).
    pub fn inherited_image<S: Sink>(
        &mut self,
        p: &mut Proc,
        ts: i64,
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
            path: None,
            resolved: None,
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
            path: raw,
            resolved: &resolved,
            resolution: how,
        };
        sink.namei(&row)?;
        if let Some(c) = call {
            c.namei += 1;
            if seq == 0 && matches!(c.effect, Effect::Exec | Effect::Chdir | Effect::Open) {
                c.first_path = Some((raw.to_vec(), resolved.clone(), absolute));
            }
            if absolute {
                c.lookups.push(resolved);
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
