//! One record as a JSON object on one line. Common keys: `offset`, `index`,
//! `type` (the kdump label), `pid`, `tid` (null when not recorded), `comm`,
//! `ts` (ns since the epoch), `cpu`, `dropped`; then the type's own fields.
//! Byte strings are JSON strings; where the bytes are not UTF-8 a
//! `<key>_hex` field carries them exactly.
//!
//! Written by [`Line`], not [`crate::json::Obj`]: the same text, but its
//! keys are literals with nothing to escape, each copied whole with its
//! quotes, colon and comma (a copy of a size known when compiled, where
//! `Obj` checks and copies each key at run time: most of the instructions
//! of a record without I/O data, `bench/NOTES.md`).

use crate::json::Int;
use crate::json::{json_plain, json_str, push_json_str_list};
use crate::names::{self, Numbering};
use crate::record::{Body, IoDir, Record};
use crate::text::{hex_into, push_uint, TextSink as _};

/// Append `r` as one JSON line (with its newline) to `out`.
pub fn record(r: &Record<'_>, names: Numbering, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"offset\":");
    push_uint(out, r.offset);
    let mut o = Line { out };
    o.int("index", r.index)
        .str("type", r.body.label())
        .int("pid", r.pid)
        .opt("tid", r.tid)
        .bytes("comm", &r.comm)
        .int("ts", r.ts)
        .opt("cpu", r.cpu)
        .raw("dropped", bool_str(r.dropped));
    body(&r.body, names, &mut o);
    o.out.extend_from_slice(b"}\n");
}

/// The fields after the first of one JSON object, appended to `out`.
/// Every key is a literal of plain ASCII (checked in debug builds, as the
/// tests run them).
struct Line<'o> {
    out: &'o mut Vec<u8>,
}

impl Line<'_> {
    /// `,"k":`, three copies of sizes known where this is inlined.
    #[inline(always)]
    fn key(&mut self, k: &'static str) {
        debug_assert!(json_plain(k.as_bytes()), "{k}");
        self.out.extend_from_slice(b",\"");
        self.out.extend_from_slice(k.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    /// A number.
    #[inline(always)]
    fn int(&mut self, k: &'static str, v: impl Int) -> &mut Self {
        self.key(k);
        v.push(self.out);
        self
    }

    /// A number, or `null`.
    #[inline(always)]
    fn opt(&mut self, k: &'static str, v: Option<impl Int>) -> &mut Self {
        match v {
            Some(v) => self.int(k, v),
            None => self.raw(k, "null"),
        }
    }

    /// JSON text the caller has written.
    #[inline(always)]
    fn raw(&mut self, k: &'static str, v: &str) -> &mut Self {
        self.key(k);
        self.out.extend_from_slice(v.as_bytes());
        self
    }

    /// A string with nothing to escape: a name from kt2sql's own tables
    /// (record types, syscalls, errnos, signals) or digits, copied without
    /// a check (made in debug builds, as the tests run them, and by
    /// `names_are_plain` for every name of every table).
    #[inline(always)]
    fn str(&mut self, k: &'static str, v: &str) -> &mut Self {
        debug_assert!(json_plain(v.as_bytes()), "{v}");
        self.key(k);
        self.out.push(b'"');
        self.out.extend_from_slice(v.as_bytes());
        self.out.push(b'"');
        self
    }

    /// A string, or `null`.
    #[inline(always)]
    fn name(&mut self, k: &'static str, v: Option<&str>) -> &mut Self {
        match v {
            Some(s) => self.str(k, s),
            None => self.raw(k, "null"),
        }
    }

    /// `"k": [v, …]` for numbers.
    fn ints(&mut self, k: &'static str, v: &[u64]) -> &mut Self {
        self.key(k);
        self.out.push(b'[');
        for (i, n) in v.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            push_uint(self.out, *n);
        }
        self.out.push(b']');
        self
    }

    /// A byte string, plus `<k>_hex` when it is not UTF-8.
    #[inline(always)]
    fn bytes(&mut self, k: &'static str, v: &[u8]) -> &mut Self {
        self.key(k);
        if !json_str(self.out, v) {
            self.hex(k, v);
        }
        self
    }

    /// `<k>_hex`: the exact bytes of field `k`.
    #[inline(always)]
    fn hex(&mut self, k: &'static str, v: &[u8]) -> &mut Self {
        debug_assert!(json_plain(k.as_bytes()), "{k}");
        self.out.extend_from_slice(b",\"");
        self.out.extend_from_slice(k.as_bytes());
        self.out.extend_from_slice(b"_hex\":\"");
        hex_into(self.out, v);
        self.out.push_ascii(b"\"");
        self
    }
}

fn body(b: &Body<'_>, names: Numbering, o: &mut Line<'_>) {
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
            o.key("strings");
            push_json_str_list(o.out, a.split(|&c| c == 0).filter(|s| !s.is_empty()));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Line::str`] copies names without escaping them: every name of
    /// every table, and every record type's label, has nothing to escape.
    #[test]
    fn names_are_plain() {
        use crate::names::{errno_name, signal_name, syscall_name};
        for t in [
            Numbering::FreeBsd,
            Numbering::NetBsd,
            Numbering::OpenBsd,
            Numbering::OpenBsdPre55,
            Numbering::Darwin,
        ] {
            for n in -4..2048 {
                let names = [
                    syscall_name(t, n),
                    errno_name(t, n).map(|(name, _)| name),
                    signal_name(t, n),
                ];
                for name in names.into_iter().flatten() {
                    assert!(json_plain(name.as_bytes()), "{t:?} {n} {name}");
                }
            }
        }
        for kind in crate::record::Kind::ALL {
            assert!(json_plain(kind.label().as_bytes()), "{kind:?}");
        }
    }
}
