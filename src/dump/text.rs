//! One record as kdump prints it: `PID [TID] COMM [TIMES] TYPE  body`
//! with the columns and number formats of FreeBSD's kdump(1) and the
//! options that shape them ([`TextOptions`]: `-H -T -E -R -d -n -S -s -m`).
//! Arguments are translated as kdump does by default ([`args`]).
//! Every recorded string is escaped with [`crate::text`]; continuation
//! lines (I/O data, exec arguments) start with whitespace, as kdump's do.

use std::io::Write as _;

use crate::decode::abi::{Abi, TimeUnit, Width};
use crate::names::args::format::{self as args, hexarg};
use crate::names::{self, Numbering};
use crate::record::{Body, Call, IoDir, Psig, Record, Ret};
use crate::text::{
    push_int, push_retval, push_uint_padded, quoted, vis, vis_into, Digits, TextSink as _,
};

use super::data;

/// kdump's options that change the text of a record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextOptions {
    /// `-H`: a thread id column after the pid.
    pub threads: bool,
    /// `-T`: absolute time of each record.
    pub absolute: bool,
    /// `-E`: time since the first record.
    pub elapsed: bool,
    /// `-R`: time since the previous record.
    pub relative: bool,
    /// `-d`: numbers in decimal.
    pub decimal: bool,
    /// `-n`: no translations (flags, errno text, names of constants).
    pub raw: bool,
    /// `-S`: the syscall number after its name.
    pub syscall_numbers: bool,
    /// `-s`: no I/O data.
    pub no_data: bool,
    /// `-m MAX`: at most this many bytes of I/O data (0: all).
    pub max_data: usize,
}

/// Formats records of one trace (keeps the times `-E` and `-R` count from).
pub struct TextFormatter {
    abi: Abi,
    names: Numbering,
    opts: TextOptions,
    first_ts: Option<i64>,
    prev_ts: Option<i64>,
}

impl TextFormatter {
    /// A formatter for records of `abi`.
    pub fn new(abi: Abi, opts: TextOptions) -> Self {
        TextFormatter {
            abi,
            names: abi.name_table(),
            opts,
            first_ts: None,
            prev_ts: None,
        }
    }

    /// The syscall name (`name[N]` with `-S`), or `[N]` when the table has none.
    pub fn syscall(&self, code: i32) -> String {
        let mut s = Vec::new();
        self.push_syscall(code, &mut s);
        String::from_utf8_lossy(&s).into_owned()
    }

    /// Append what [`Self::syscall`] returns.
    fn push_syscall(&self, code: i32, out: &mut Vec<u8>) {
        match names::syscall_name(self.names, code.into()) {
            Some(n) => {
                out.push_text(n);
                if self.opts.syscall_numbers {
                    out.push(b'[');
                    push_int(out, code.into());
                    out.push(b']');
                }
            }
            None => {
                out.push(b'[');
                push_int(out, code.into());
                out.push(b']');
            }
        }
    }

    /// Append the line(s) for `r` to `out`, each ending in a newline.
    /// Process constructor/destructor records print nothing, as in kdump.
    /// The columns are written straight into `out`, without the formatter
    /// (a record line is short; there are millions).
    pub fn record(&mut self, r: &Record<'_>, out: &mut Vec<u8>) {
        let start = out.len();
        pad_int(out, r.pid, 6);
        out.push(b' ');
        if self.opts.threads {
            pad_int(out, r.tid.filter(|&t| t > 0).unwrap_or(0), 6);
            out.push(b' ');
        }
        let comm = out.len();
        vis_into(out, &r.comm, false);
        pad_to(out, comm, 8);
        out.push(b' ');
        let who_len = out.len() - start;
        if r.dropped {
            let who = out[start..].to_vec();
            out.push_text("Events dropped.\n");
            out.extend_from_slice(&who);
        }
        if matches!(r.body, Body::ProcCtor { .. } | Body::ProcDtor) {
            // The dropped line stays; the record's own is taken back.
            out.truncate(out.len() - who_len);
            return;
        }
        self.times(r, out);
        match &r.body {
            Body::Unknown { typ, .. } => {
                out.push_text("UNKNOWN(");
                push_int(out, i64::from(*typ));
                out.push(b')');
            }
            b => pad_str(out, b.label(), 4),
        }
        out.push_text("  ");
        self.body(&r.body, out);
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
    }

    /// kdump's `-T`, `-E`, `-R` columns, in that order.
    fn times(&mut self, r: &Record<'_>, out: &mut Vec<u8>) {
        let unit = self
            .abi
            .layout(r.version.into())
            .map_or(TimeUnit::Nano, |l| l.unit);
        let first = *self.first_ts.get_or_insert(r.ts);
        let prev = self.prev_ts.replace(r.ts).unwrap_or(r.ts);
        if self.opts.absolute {
            let _ = write!(out, "{} ", timestamp(r.ts, unit));
        }
        if self.opts.elapsed {
            let _ = write!(out, "{} ", span(i128::from(r.ts) - i128::from(first), unit));
        }
        if self.opts.relative {
            let _ = write!(out, "{} ", span(i128::from(r.ts) - i128::from(prev), unit));
        }
    }

    fn body(&self, body: &Body<'_>, out: &mut Vec<u8>) {
        match body {
            Body::Start | Body::ProcCtor { .. } | Body::ProcDtor => {}
            Body::Call(c) => self.call(c, out),
            Body::Ret(r) => self.ret(r, out),
            Body::Namei(p) | Body::Emul(p) | Body::Sysctl(p) => {
                // What `quoted` returns, without its allocation.
                out.push(b'"');
                vis_into(out, p, true);
                out.push(b'"');
            }
            Body::Gio(g) => {
                let dir: std::borrow::Cow<'_, str> = match g.dir {
                    IoDir::Read => "read".into(),
                    IoDir::Write => "wrote".into(),
                    IoDir::Other(n) => format!("rw={n}").into(),
                };
                let n = g.data.len();
                out.push_text("fd ");
                push_int(out, i64::from(g.fd));
                out.push(b' ');
                out.push_text(&dir);
                out.push(b' ');
                push_int(out, n as i64);
                out.push_text(" byte");
                out.push_text(plural(n));
                out.push(b'\n');
                if !self.opts.no_data {
                    let max = match self.opts.max_data {
                        0 => n,
                        m => m.min(n),
                    };
                    data::block(&g.data[..max], out);
                }
            }
            Body::Psig(p) => self.psig(p, out),
            Body::Csw(c) => {
                out.push_text(if c.out { "stop" } else { "resume" });
                out.push_text(if c.user { " user" } else { " kernel" });
                if let Some(w) = &c.wmesg {
                    let _ = write!(out, " {}", quoted(w));
                }
            }
            Body::User(u) => {
                if let Some(id) = &u.id {
                    let _ = write!(out, "{}: ", vis(id));
                }
                // kdump: the length, then each byte.
                let _ = write!(out, "{} ", u.data.len());
                for b in u.data.iter() {
                    if self.opts.decimal {
                        let _ = write!(out, " {b}");
                    } else {
                        let _ = write!(out, " {b:02x}");
                    }
                }
            }
            Body::Struct(s) => {
                let _ = write!(out, "struct {} {} bytes", vis(&s.name), s.data.len());
                if let Some(sz) = s.elem_size {
                    let _ = write!(out, " (elements of {sz})");
                }
            }
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
                out.push_text(&parts.join("."));
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
                let _ = writeln!(out, "{} byte{}", data.len(), plural(data.len()));
                if !self.opts.no_data {
                    data::block(data, out);
                }
            }
        }
    }

    fn call(&self, c: &Call<'_>, out: &mut Vec<u8>) {
        self.push_syscall(c.code, out);
        if c.nargs == 0 {
            return;
        }
        let width = self.abi.width;
        let mut words = args::Words::new(c.args(), width, self.opts.decimal);
        out.push(b'(');
        if !self.opts.raw {
            if let Some(name) = names::syscall_name(self.names, c.code.into()) {
                args::translate(self.names, name, &mut words, out);
            }
        }
        words.rest(out);
        if usize::from(c.nargs) > c.args().len() {
            out.push_text(",…");
        }
        out.push(b')');
    }

    fn ret(&self, r: &Ret, out: &mut Vec<u8>) {
        self.push_syscall(r.code, out);
        out.push(b' ');
        let word = |v: i64| match self.abi.width {
            Width::W32 => u64::from(v as u32),
            Width::W64 => v as u64,
        };
        match r.error {
            0 => {
                if !self.opts.raw {
                    push_retval(out, r.retval, self.abi.width.bits());
                } else if self.opts.decimal {
                    push_int(out, r.retval);
                } else {
                    hexarg(word(r.retval), out);
                }
                if let Some(r1) = r.retval2.filter(|&v| v != 0) {
                    let _ = write!(out, ", {r1}");
                }
            }
            -1 => out.push_text("RESTART"),
            -2 => out.push_text("JUSTRETURN"),
            e => {
                out.push_text("-1 ");
                self.errno(e, out);
            }
        }
    }

    fn errno(&self, e: i32, out: &mut Vec<u8>) {
        out.push_text("errno ");
        push_int(out, e.into());
        if self.opts.raw {
            return;
        }
        if let Some((_, text)) = names::errno_name(self.names, e.into()) {
            out.push(b' ');
            out.push_text(text);
        }
    }

    fn psig(&self, p: &Psig, out: &mut Vec<u8>) {
        match names::signal_name(self.names, p.signo.into()) {
            Some(n) => out.push_text(n),
            None => {
                let _ = write!(out, "SIG {}", p.signo);
            }
        }
        match p.action {
            0 => out.push_text(" SIG_DFL"),
            1 => out.push_text(" SIG_IGN"),
            a => {
                let _ = write!(out, " caught handler={a:#x} mask={:#x}", p.mask);
            }
        }
        let _ = write!(out, " code={}", p.code);
    }
}

/// `{v:>width}`: `v` in decimal, right-aligned (`width` at most 8).
fn pad_int(out: &mut Vec<u8>, v: i64, width: usize) {
    if let Ok(v) = u64::try_from(v) {
        return push_uint_padded(out, v, width);
    }
    let mut digits = Digits::default();
    let digits = digits.int(v).as_bytes();
    // The digits right-aligned after eight spaces: one copy.
    let mut padded = [b' '; 8 + 20];
    let end = padded.len();
    padded[end - digits.len()..].copy_from_slice(digits);
    out.extend_from_slice(&padded[end - digits.len().max(width.min(8))..]);
}

/// `{s:<width}`: `s` left-aligned, padded to `width` characters.
fn pad_str(out: &mut Vec<u8>, s: &str, width: usize) {
    let start = out.len();
    out.push_text(s);
    pad_to(out, start, width);
}

/// Pad the text appended since `start` with spaces to `width` characters
/// (each byte that is not a UTF-8 continuation byte starts one).
fn pad_to(out: &mut Vec<u8>, start: usize, width: usize) {
    let chars = out[start..].iter().filter(|&&b| b & 0xc0 != 0x80).count();
    for _ in chars..width {
        out.push(b' ');
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

/// A time difference as kdump prints it: a `-` for a negative one (a record
/// out of time order), then `sec.usec` or `sec.nsec`.
fn span(d: i128, unit: TimeUnit) -> String {
    let sign = if d < 0 { "-" } else { "" };
    let d = d.unsigned_abs();
    let (sec, ns) = (d / 1_000_000_000, d % 1_000_000_000);
    match unit {
        TimeUnit::Micro => format!("{sign}{sec}.{:06}", ns / 1000),
        TimeUnit::Nano => format!("{sign}{sec}.{ns:09}"),
    }
}
