//! One record as a JSON object on one line. Common keys: `offset`, `index`,
//! `type` (the kdump label), `pid`, `tid` (null when not recorded), `comm`,
//! `ts` (ns since the epoch), `cpu`, `dropped`; then the type's own fields.
//! Byte strings are JSON strings; where the bytes are not UTF-8 a
//! `<key>_hex` field carries them exactly.

use crate::json::Obj;
use crate::names::{self, Numbering};
use crate::record::{Body, IoDir, Record};
use crate::text::json_str;

/// Append `r` as one JSON line (with its newline) to `out`.
pub fn record(r: &Record<'_>, names: Numbering, out: &mut Vec<u8>) {
    let mut o = Obj::new(out);
    o.int("offset", r.offset)
        .int("index", r.index)
        .str("type", r.body.label())
        .int("pid", r.pid)
        .opt("tid", r.tid)
        .bytes("comm", &r.comm)
        .int("ts", r.ts)
        .opt("cpu", r.cpu)
        .raw("dropped", if r.dropped { "true" } else { "false" });
    body(&r.body, names, &mut o);
    o.end();
    out.push(b'\n');
}

fn body(b: &Body<'_>, names: Numbering, o: &mut Obj<'_, Vec<u8>>) {
    let sys = |code: i32| names::syscall_name(names, code.into());
    match b {
        Body::Start | Body::ProcDtor => {}
        Body::Call(c) => {
            o.name("syscall", sys(c.code)).int("code", c.code);
            o.ints("args", c.args());
            if !c.extra.is_empty() {
                o.hex("extra", &c.extra);
            }
        }
        Body::Ret(r) => {
            o.name("syscall", sys(r.code))
                .int("code", r.code)
                .int("retval", r.retval)
                .opt("retval2", r.retval2)
                .opt("error", (r.error != 0).then_some(r.error))
                .name(
                    "errname",
                    match r.error {
                        -1 => Some("RESTART"),
                        -2 => Some("JUSTRETURN"),
                        e => names::errno_name(names, e.into()).map(|(n, _)| n),
                    },
                );
        }
        Body::Namei(p) => {
            o.bytes("path", p);
        }
        Body::Emul(p) => {
            o.bytes("name", p);
        }
        Body::Sysctl(p) => {
            o.bytes("mib", p);
        }
        Body::Gio(g) => {
            let dir: std::borrow::Cow<'_, str> = match g.dir {
                IoDir::Read => "read".into(),
                IoDir::Write => "write".into(),
                IoDir::Other(n) => n.to_string().into(),
            };
            o.int("fd", g.fd)
                .str("dir", &dir)
                .int("len", g.data.len())
                .bytes("data", &g.data);
        }
        Body::Psig(p) => {
            o.int("signo", p.signo)
                .name("signame", names::signal_name(names, p.signo.into()))
                .int("action", p.action)
                .int("code", p.code)
                .int("mask", p.mask);
        }
        Body::Csw(c) => {
            o.raw("out", bool_str(c.out)).raw("user", bool_str(c.user));
            if let Some(w) = &c.wmesg {
                o.bytes("wmesg", w);
            }
        }
        Body::User(u) => {
            if let Some(id) = &u.id {
                o.bytes("id", id);
            }
            o.int("len", u.data.len()).hex("data", &u.data);
        }
        Body::Struct(s) => {
            o.bytes("struct", &s.name)
                .opt("elem_size", s.elem_size)
                .int("len", s.data.len())
                .hex("data", &s.data);
        }
        Body::ProcCtor { sv_flags } => {
            o.int("sv_flags", sv_flags);
        }
        Body::CapFail { cap_type, data } => {
            o.int("cap_type", cap_type).hex("data", data);
        }
        Body::Fault { vaddr, fault_type } => {
            o.int("vaddr", vaddr).int("fault_type", fault_type);
        }
        Body::FaultEnd { result } => {
            o.int("result", result);
        }
        Body::ExecArgs(a) | Body::ExecEnv(a) => {
            let mut list = String::from("[");
            for (i, s) in a.split(|&c| c == 0).filter(|s| !s.is_empty()).enumerate() {
                if i > 0 {
                    list.push(',');
                }
                json_str(&mut list, s);
            }
            list.push(']');
            o.raw("strings", &list);
        }
        Body::ExecFd { fd, dtype } => {
            o.int("fd", fd).int("dtype", dtype);
        }
        Body::Mib(m) => {
            let parts: Vec<String> = m.iter().map(i32::to_string).collect();
            o.raw("mib", &format!("[{}]", parts.join(",")));
        }
        Body::Pledge {
            error,
            syscall,
            code,
        } => {
            o.name("syscall", sys(*syscall))
                .int("code", syscall)
                .int("error", error)
                .int("promise", code);
        }
        Body::PinSyscall {
            error,
            syscall,
            addr,
        } => {
            o.name("syscall", sys(*syscall))
                .int("code", syscall)
                .int("error", error)
                .int("addr", addr);
        }
        Body::Unknown { typ, data } => {
            o.int("raw_type", typ).hex("data", data);
        }
    }
}

fn bool_str(b: bool) -> &'static str {
    if b {
        "true"
    } else {
        "false"
    }
}
