//! One record as a kdump-style text line (`kdump -H -T` columns): pid, tid,
//! command, absolute time, type label, decoded body. Every recorded string
//! is escaped with [`crate::text`]. Continuation lines (I/O data, exec
//! arguments) start with whitespace, as kdump's do.

use std::fmt::Write as _;

use crate::decode::abi::{Abi, TimeUnit};
use crate::record::{Body, Call, IoDir, Psig, Record, Ret};
use crate::tables::{self, NameTable};
use crate::text::{quoted, vis};

/// Formats records of one trace.
pub struct TextFormatter {
    abi: Abi,
    names: NameTable,
}

/// Bytes of I/O data shown per GIO record before "…".
const GIO_SHOW: usize = 4096;

impl TextFormatter {
    /// A formatter for records of `abi`.
    pub fn new(abi: Abi) -> Self {
        TextFormatter {
            abi,
            names: abi.name_table(),
        }
    }

    /// The syscall name, or `#N` when the table has none.
    pub fn syscall(&self, code: i32) -> String {
        match tables::syscall_name(self.names, code.into()) {
            Some(n) => n.to_string(),
            None => format!("#{code}"),
        }
    }

    /// Append the line(s) for `r` to `out`, each ending in a newline.
    pub fn record(&self, r: &Record<'_>, out: &mut String) {
        let unit = self
            .abi
            .layout(r.version.into())
            .map_or(TimeUnit::Nano, |l| l.unit);
        let prefix = format!(
            "{:>6} {:>6} {:<8} {} ",
            r.pid,
            r.tid.unwrap_or(0),
            vis(&r.comm),
            timestamp(r.ts, unit)
        );
        if r.dropped {
            let _ = writeln!(out, "{prefix}Events dropped.");
        }
        let label = match &r.body {
            Body::Unknown { typ, .. } => format!("UNKNOWN({typ})"),
            b => b.label().to_string(),
        };
        let _ = write!(out, "{prefix}{label:<4}  ");
        self.body(&r.body, out);
        out.push('\n');
    }

    fn body(&self, body: &Body<'_>, out: &mut String) {
        match body {
            Body::Start => {}
            Body::Call(c) => self.call(c, out),
            Body::Ret(r) => self.ret(r, out),
            Body::Namei(p) | Body::Emul(p) | Body::Sysctl(p) => out.push_str(&quoted(p)),
            Body::Gio(g) => {
                let dir = match g.dir {
                    IoDir::Read => "read".to_string(),
                    IoDir::Write => "wrote".to_string(),
                    IoDir::Other(n) => format!("rw={n}"),
                };
                let n = g.data.len();
                let _ = write!(out, "fd {} {dir} {n} byte{}", g.fd, plural(n));
                data_block(&g.data, out);
            }
            Body::Psig(p) => self.psig(p, out),
            Body::Csw(c) => {
                out.push_str(if c.out { "stop" } else { "resume" });
                out.push_str(if c.user { " user" } else { " kernel" });
                if let Some(w) = &c.wmesg {
                    let _ = write!(out, " {}", quoted(w));
                }
            }
            Body::User(u) => {
                if let Some(id) = &u.id {
                    let _ = write!(out, "{}: ", vis(id));
                }
                let _ = write!(out, "{} byte{}", u.data.len(), plural(u.data.len()));
                data_block(&u.data, out);
            }
            Body::Struct(s) => {
                let _ = write!(out, "struct {} {} bytes", vis(&s.name), s.data.len());
                if let Some(sz) = s.elem_size {
                    let _ = write!(out, " (elements of {sz})");
                }
            }
            Body::ProcCtor { sv_flags } => {
                let _ = write!(out, "sv_flags {sv_flags:#x} ({})", abi_name(*sv_flags));
            }
            Body::ProcDtor => {}
            Body::CapFail { cap_type, data } => {
                let _ = write!(out, "type {cap_type}, {} bytes", data.len());
            }
            Body::Fault { vaddr, fault_type } => {
                let _ = write!(out, "{vaddr:#x} {fault_type:#x}");
            }
            Body::FaultEnd { result } => {
                let _ = write!(out, "{result}");
            }
            Body::ExecArgs(a) | Body::ExecEnv(a) => {
                for (i, s) in a.split(|&c| c == 0).filter(|s| !s.is_empty()).enumerate() {
                    let _ = write!(out, "\n\t[{i}] = {}", quoted(s));
                }
            }
            Body::ExecFd { fd, dtype } => {
                let _ = write!(out, "fd {fd} dtype {dtype}");
            }
            Body::Mib(m) => {
                let parts: Vec<String> = m.iter().map(|v| v.to_string()).collect();
                out.push_str(&parts.join("."));
            }
            Body::Pledge {
                error,
                syscall,
                code,
            } => {
                let _ = write!(out, "{}, promise {code:#x}, ", self.syscall(*syscall));
                self.errno(*error, out);
            }
            Body::PinSyscall {
                error,
                syscall,
                addr,
            } => {
                let _ = write!(out, "{}, addr {addr:#x}, ", self.syscall(*syscall));
                self.errno(*error, out);
            }
            Body::Unknown { data, .. } => {
                let _ = write!(out, "{} byte{}", data.len(), plural(data.len()));
                data_block(data, out);
            }
        }
    }

    fn call(&self, c: &Call<'_>, out: &mut String) {
        out.push_str(&self.syscall(c.code));
        if c.nargs == 0 {
            return;
        }
        out.push('(');
        for (i, a) in c.args().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            hexarg(*a, out);
        }
        if usize::from(c.nargs) > c.args().len() {
            out.push_str(",…");
        }
        out.push(')');
    }

    fn ret(&self, r: &Ret, out: &mut String) {
        out.push_str(&self.syscall(r.code));
        out.push(' ');
        match r.error {
            0 => {
                let _ = write!(out, "{}", r.retval);
                if !(0..=9).contains(&r.retval) {
                    let _ = write!(out, "/{:#x}", r.retval);
                }
                if let Some(r1) = r.retval2.filter(|&v| v != 0) {
                    let _ = write!(out, ", {r1}");
                }
            }
            -1 => out.push_str("RESTART"),
            -2 => out.push_str("JUSTRETURN"),
            e => {
                out.push_str("-1 ");
                self.errno(e, out);
            }
        }
    }

    fn errno(&self, e: i32, out: &mut String) {
        let _ = write!(out, "errno {e}");
        if let Some((_, text)) = tables::errno_name(self.names, e.into()) {
            let _ = write!(out, " {text}");
        }
    }

    fn psig(&self, p: &Psig, out: &mut String) {
        match tables::signal_name(self.names, p.signo.into()) {
            Some(n) => out.push_str(n),
            None => {
                let _ = write!(out, "SIG{}", p.signo);
            }
        }
        match p.action {
            0 => out.push_str(" SIG_DFL"),
            1 => out.push_str(" SIG_IGN"),
            a => {
                let _ = write!(out, " caught handler={a:#x} mask={:#x}", p.mask);
            }
        }
        let _ = write!(out, " code={}", p.code);
    }
}

/// kdump's `%#lx`: `0` for zero, `0x…` otherwise.
fn hexarg(a: u64, out: &mut String) {
    if a == 0 {
        out.push('0');
    } else {
        let _ = write!(out, "{a:#x}");
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `sec.usec` (6 digits) or `sec.nsec` (9 digits), by the header's precision.
pub fn timestamp(ts: i64, unit: TimeUnit) -> String {
    let sec = ts.div_euclid(1_000_000_000);
    let ns = ts.rem_euclid(1_000_000_000);
    match unit {
        TimeUnit::Micro => format!("{sec}.{:06}", ns / 1000),
        TimeUnit::Nano => format!("{sec}.{ns:09}"),
    }
}

/// FreeBSD sysentvec ABI name from the low byte of sv_flags.
fn abi_name(sv_flags: u32) -> &'static str {
    let bits64 = sv_flags & 0x200 != 0;
    match (sv_flags & 0xff, bits64) {
        (9, true) => "FreeBSD 64-bit",
        (9, false) => "FreeBSD 32-bit",
        (3, true) => "Linux 64-bit",
        (3, false) => "Linux 32-bit",
        _ => "other ABI",
    }
}

/// I/O data under its record: text as quoted lines split after `\n`,
/// anything else as a hex dump, both cut at GIO_SHOW bytes.
fn data_block(data: &[u8], out: &mut String) {
    if data.is_empty() {
        return;
    }
    let shown = &data[..data.len().min(GIO_SHOW)];
    let printable = shown
        .iter()
        .filter(|&&c| c == b'\n' || c == b'\t' || (0x20..0x7f).contains(&c))
        .count();
    if printable * 10 >= shown.len() * 9 {
        for line in shown.split_inclusive(|&c| c == b'\n') {
            let _ = write!(out, "\n       {}", quoted(line));
        }
    } else {
        for (i, chunk) in shown.chunks(16).enumerate() {
            let _ = write!(out, "\n       {:#06x} ", i * 16);
            for pair in chunk.chunks(2) {
                for b in pair {
                    let _ = write!(out, "{b:02x}");
                }
                out.push(' ');
            }
            let pad = (16 - chunk.len()) / 2 * 5 + (chunk.len() % 2) * 3;
            out.push_str(&" ".repeat(pad));
            out.push_str(" |");
            for &b in chunk {
                out.push(if (0x20..0x7f).contains(&b) {
                    b as char
                } else {
                    '.'
                });
            }
            out.push('|');
        }
    }
    if data.len() > shown.len() {
        let _ = write!(out, "\n       … {} more bytes", data.len() - shown.len());
    }
}
