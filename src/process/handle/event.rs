//! Every record that is not CALL, RET or NAMI becomes an event row: its
//! decoded fields spread over the event table's generic columns (fd, dir,
//! len, addr, signo, error, code, name, data), attached to the call pending on its
//! thread. GIO data bytes are kept only when asked for.

use crate::names;
use crate::process::rows::{EventRow, Sink};
use crate::process::state::{Proc, TraceState};
use crate::record::{Body, IoDir, Record};

impl TraceState {
    /// Any record that is not CALL, RET or NAMI, as an event row.
    pub fn event<S: Sink>(
        &mut self,
        p: &Proc,
        key: i64,
        rec: &Record<'_>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let th = p.threads.get(&key);
        let call_id = th.and_then(|t| t.pending.last()).map(|c| c.call_id);
        let thread_id = th.and_then(|t| t.id);
        self.event_row(Some(p.row.id), thread_id, call_id, rec, sink)
    }

    /// Write `rec` as an event row.
    pub fn event_row<S: Sink>(
        &mut self,
        process_id: Option<i64>,
        thread_id: Option<i64>,
        call_id: Option<i64>,
        rec: &Record<'_>,
        sink: &mut S,
    ) -> Result<(), S::Error> {
        let mut e = EventRow {
            id: TraceState::next(&mut self.ids.event),
            process_id,
            thread_id,
            call_id,
            ts: rec.ts,
            offset: rec.offset,
            kind: rec.body.label(),
            fd: None,
            dir: None,
            len: None,
            addr: None,
            signo: None,
            error: None,
            code: None,
            name: None,
            data: None,
        };
        let owned_mib: Vec<u8>;
        match &rec.body {
            Body::Gio(g) => {
                e.fd = Some(g.fd.into());
                e.dir = Some(match g.dir {
                    IoDir::Read => "read",
                    IoDir::Write => "write",
                    IoDir::Other(_) => "other",
                });
                e.len = Some(g.data.len() as i64);
                e.data = self.keep_io_data.then_some(&*g.data);
            }
            Body::Psig(s) => {
                e.signo = Some(s.signo.into());
                e.code = Some(s.code.into());
                e.name = names::signal_name(self.names, s.signo.into()).map(str::as_bytes);
            }
            Body::Csw(c) => {
                e.dir = Some(if c.out { "out" } else { "in" });
                e.code = Some(i64::from(c.user));
                e.name = c.wmesg.as_deref();
            }
            Body::User(u) => {
                e.name = u.id.as_deref();
                e.len = Some(u.data.len() as i64);
                e.data = Some(&u.data);
            }
            Body::Struct(s) => {
                e.name = Some(&s.name);
                e.len = Some(s.data.len() as i64);
                e.data = Some(&s.data);
            }
            Body::Namei(b) | Body::Emul(b) | Body::Sysctl(b) => e.name = Some(b),
            Body::ExecArgs(b) | Body::ExecEnv(b) => {
                e.len = Some(b.len() as i64);
                e.data = Some(b);
            }
            Body::ProcCtor { sv_flags } => e.code = Some((*sv_flags).into()),
            Body::CapFail { cap_type, data } => {
                e.code = Some((*cap_type).into());
                e.len = Some(data.len() as i64);
                e.data = Some(data);
            }
            Body::Fault { vaddr, fault_type } => {
                e.code = Some((*fault_type).into());
                e.addr = Some(*vaddr as i64);
            }
            Body::FaultEnd { result } => e.code = Some((*result).into()),
            Body::ExecFd { fd, dtype } => {
                e.fd = Some((*fd).into());
                e.code = Some((*dtype).into());
            }
            Body::Mib(m) => {
                owned_mib = m
                    .iter()
                    .map(i32::to_string)
                    .collect::<Vec<_>>()
                    .join(".")
                    .into_bytes();
                e.name = Some(&owned_mib);
            }
            Body::Pledge {
                error,
                syscall,
                code,
            } => {
                e.code = Some(*code as i64);
                e.error = Some((*error).into());
                e.name = names::syscall_name(self.names, (*syscall).into()).map(str::as_bytes);
            }
            Body::PinSyscall {
                error,
                syscall,
                addr,
            } => {
                e.addr = Some(*addr as i64);
                e.error = Some((*error).into());
                e.name = names::syscall_name(self.names, (*syscall).into()).map(str::as_bytes);
            }
            Body::Unknown { typ, data } => {
                e.code = Some((*typ).into());
                e.len = Some(data.len() as i64);
                e.data = Some(data);
            }
            Body::Start | Body::ProcDtor | Body::Call(_) | Body::Ret(_) => {}
        }
        self.totals.events += 1;
        sink.event(&e)
    }
}
