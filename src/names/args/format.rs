//! Syscall arguments as kdump prints them by default: each word in hex
//! (`%#jx`, or signed decimal with `-d`), and for the calls kdump knows,
//! named constants from the traced system's headers (the tables of [`super`]):
//! `open(0x800a6b,0x601<O_WRONLY|O_CREAT|O_TRUNC>,0644<S_IRUSR|…>)`,
//! `openat(AT_FDCWD,…)`, `mmap(…,0x3<PROT_READ|PROT_WRITE>,0x1002<MAP_PRIVATE|MAP_ANON>,…)`,
//! `fcntl(0x3,F_SETFD,FD_CLOEXEC)`, `lseek(…,SEEK_SET)`, `wait4(…,0x1<WNOHANG>,…)`,
//! `kill(0x2a,SIGTERM)`, `sigprocmask(SIG_BLOCK,…)`, `socket(PF_INET,0x1<SOCK_STREAM>,…)`.
//! Calls are matched by name, so one rule serves every system; the words
//! a rule reads are found by position (the same in every BSD for these
//! calls; lseek's whence is its last word whatever padding precedes it).
//! How each value is printed is `values.rs`'s. Used by `kt2sql dump` and
//! by the reports that print a call's arguments (`tree -v`); nothing here
//! reads a record or a database: the callers hand over the words.

use std::io::Write as _;

use super::values::{atfd, filemode, flag_value, integer, mask, mask0, mask_names, mmap_flags};
use super::values::{open_flags, signal, socket_type};
use super::{self as t, ArgTables};
use crate::names::{by_name, Numbering};
use crate::record::Width;
use crate::text::{push_hex, TextSink as _};

/// The argument words of one call, printed left to right.
pub struct Words<'a> {
    words: &'a [u64],
    next: usize,
    width: Width,
    decimal: bool,
}

impl<'a> Words<'a> {
    /// The words of a call recorded with `width`-sized registers.
    pub fn new(words: &'a [u64], width: Width, decimal: bool) -> Self {
        Words {
            words,
            next: 0,
            width,
            decimal,
        }
    }

    fn left(&self) -> usize {
        self.words.len() - self.next
    }

    /// The next word as the C `int` kdump passes to its decoders.
    fn int(&mut self) -> Option<i32> {
        let w = *self.words.get(self.next)?;
        self.next += 1;
        Some(w as u32 as i32)
    }

    fn sep(&self, out: &mut Vec<u8>) {
        if self.next > 0 {
            out.push(b',');
        }
    }

    /// kdump's `print_number`: the next word as a number.
    pub fn number(&mut self, out: &mut Vec<u8>) {
        let Some(&w) = self.words.get(self.next) else {
            return;
        };
        self.sep(out);
        self.next += 1;
        match (self.decimal, self.width) {
            (true, Width::W32) => {
                let _ = write!(out, "{}", w as u32 as i32);
            }
            (true, Width::W64) => {
                let _ = write!(out, "{}", w as i64);
            }
            (false, Width::W32) => hexarg(u64::from(w as u32), out),
            (false, Width::W64) => hexarg(w, out),
        }
    }

    /// Every word not yet printed, as numbers.
    pub fn rest(&mut self, out: &mut Vec<u8>) {
        while self.left() > 0 {
            self.number(out);
        }
    }

    /// The next word through `show`, which writes its text.
    fn named(&mut self, out: &mut Vec<u8>, show: impl FnOnce(i32, bool, &mut Vec<u8>)) {
        if self.left() == 0 {
            return;
        }
        self.sep(out);
        let decimal = self.decimal;
        if let Some(v) = self.int() {
            show(v, decimal, out);
        }
    }
}

/// Print the words of a call named `name` that kdump translates, leaving
/// the rest in `w` for the caller to print as numbers.
pub fn translate(table: Numbering, name: &str, w: &mut Words<'_>, out: &mut Vec<u8>) {
    let Some(t) = t::for_table(table) else {
        return;
    };
    if AT_CALLS.contains(&name) {
        w.named(out, |v, d, o| atfd(t, v, d, o));
    }
    translate_named(name, table, t, w, out);
}

by_name! {
    /// [`translate`] after the directory descriptor, by the call's name.
    fn translate_named(
        name,
        table: Numbering,
        t: &ArgTables,
        w: &mut Words<'_>,
        out: &mut Vec<u8>,
    );
    names TRANSLATED_NAMES;
    "open" | "openat" => {
        w.number(out);
        let mut creat = false;
        w.named(out, |v, _, o| {
            creat = flag_value(t.open_flags, "O_CREAT").is_some_and(|c| v as u32 & c == c);
            open_flags(t, v, o);
        });
        if creat {
            w.named(out, |v, _, o| filemode(t, v, o));
        } else if w.left() > 0 {
            // kdump leaves out the mode when O_CREAT is not set.
            let _ = w.int();
        }
    },
    "access" | "eaccess" | "faccessat" => {
        w.number(out);
        w.named(out, |v, _, o| mask(t.access, v, o));
    },
    "chmod" | "fchmod" | "lchmod" | "fchmodat" | "mkdir" | "mkdirat" | "mkfifo"
    | "mkfifoat" | "mknod" | "mknodat" => {
        w.number(out);
        w.named(out, |v, _, o| filemode(t, v, o));
    },
    "umask" => w.named(out, |v, _, o| filemode(t, v, o)),
    "wait4" | "__wait450" => {
        w.number(out);
        w.number(out);
        w.named(out, |v, _, o| mask0(t.wait_options, v, o));
    },
    "kill" => {
        w.number(out);
        w.named(out, |v, _, o| signal(table, v, o));
    },
    "sigaction" | "__sigaction14" | "__sigaction_sigtramp" => {
        w.named(out, |v, _, o| signal(table, v, o));
    },
    "sigprocmask" | "__sigprocmask14" => {
        w.named(out, |v, d, o| integer(t.sigprocmask_how, v, d, o));
    },
    "mmap" => {
        w.number(out);
        w.number(out);
        w.named(out, |v, _, o| mask(t.mmap_prot, v, o));
        w.named(out, |v, _, o| mmap_flags(t, v, o));
    },
    "mprotect" => {
        w.number(out);
        w.number(out);
        w.named(out, |v, _, o| mask(t.mmap_prot, v, o));
    },
    "fcntl" => fcntl(t, w, out),
    "lseek" => {
        while w.left() > 1 {
            w.number(out);
        }
        w.named(out, |v, d, o| integer(t.whence, v, d, o));
    },
    "socket" | "__socket30" | "socketpair" => {
        w.named(out, |v, d, o| integer(t.socket_domains, v, d, o));
        w.named(out, |v, _, o| socket_type(t, v, o));
    },
    _ => {},
}

/// Calls whose first word is a directory descriptor (AT_FDCWD).
pub(crate) const AT_CALLS: &[&str] = &[
    "faccessat",
    "fchmodat",
    "fchownat",
    "fstatat",
    "futimesat",
    "linkat",
    "mkdirat",
    "mkfifoat",
    "mknodat",
    "openat",
    "readlinkat",
    "renameat",
    "unlinkat",
    "utimensat",
];

/// kdump's `%#jx`: `0` for zero, `0x…` otherwise.
pub fn hexarg(a: u64, out: &mut Vec<u8>) {
    if a == 0 {
        out.push(b'0');
    } else {
        out.push_text("0x");
        push_hex(out, a);
    }
}

/// fcntl: the command by name; its argument only for commands that take
/// one, F_SETFL's as open flags, F_SETFD's as FD_CLOEXEC.
fn fcntl(t: &ArgTables, w: &mut Words<'_>, out: &mut Vec<u8>) {
    w.number(out);
    let mut cmd = None;
    w.named(out, |v, d, o| {
        cmd = t
            .fcntl_cmds
            .iter()
            .find(|&&(_, x)| x == i64::from(v))
            .map(|&(n, _)| n);
        integer(t.fcntl_cmds, v, d, o);
    });
    match cmd {
        Some("F_SETFL") => w.named(out, |v, _, o| {
            hexarg(u64::from(v as u32), o);
            o.push(b'<');
            let flags: Vec<(&str, i64)> = t
                .open_flags
                .iter()
                .filter(|(n, x)| *x != 0 && !matches!(*n, "O_WRONLY" | "O_RDWR" | "O_ACCMODE"))
                .copied()
                .collect();
            let rem = mask_names(&flags, v as u32, &mut false, o);
            o.push(b'>');
            if rem != 0 {
                let _ = write!(o, "<invalid>{rem}");
            }
        }),
        Some("F_SETFD") => w.named(out, |v, d, o| {
            match t.fd_flags.iter().find(|&&(_, x)| x == i64::from(v)) {
                Some((n, _)) => o.push_text(n),
                None if d => {
                    let _ = write!(o, "{v}");
                }
                None => hexarg(u64::from(v as u32), o),
            }
        }),
        // Commands without an argument: kdump prints none.
        Some(n) if n.starts_with("F_GET") && n != "F_GETLK" => {
            let _ = w.int();
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `name(args)` as the text formatter prints it.
    fn call(table: Numbering, name: &str, args: &[u64], width: Width, decimal: bool) -> String {
        let mut out = format!("{name}(").into_bytes();
        let mut w = Words::new(args, width, decimal);
        translate(table, name, &mut w, &mut out);
        w.rest(&mut out);
        out.push(b')');
        String::from_utf8(out).unwrap()
    }

    fn fbsd(name: &str, args: &[u64]) -> String {
        call(Numbering::FreeBsd, name, args, Width::W64, false)
    }

    #[test]
    fn open_flags_and_mode() {
        assert_eq!(
            fbsd("open", &[0x1000, 0x601, 0o644]),
            "open(0x1000,0x601<O_WRONLY|O_CREAT|O_TRUNC>,0644<S_IRUSR|S_IWUSR|S_IRGRP|S_IROTH>)"
        );
        // Without O_CREAT kdump leaves the mode out.
        assert_eq!(
            fbsd("open", &[0x1000, 0x100000, 0x7f]),
            "open(0x1000,0x100000<O_RDONLY|O_CLOEXEC>)"
        );
        assert_eq!(
            fbsd("openat", &[(-100i64) as u64, 0x1000, 0x20000, 0]),
            "openat(AT_FDCWD,0x1000,0x20000<O_RDONLY|O_DIRECTORY>)"
        );
        // A 32-bit trace records AT_FDCWD as a 32-bit word.
        assert_eq!(
            call(
                Numbering::FreeBsd,
                "openat",
                &[0xffff_ff9c, 0x1000, 0x2, 0],
                Width::W32,
                false
            ),
            "openat(AT_FDCWD,0x1000,0x2<O_RDWR>)"
        );
        assert_eq!(
            fbsd("openat", &[3, 0x1000, 0x0, 0]),
            "openat(0x3,0x1000,0<O_RDONLY>)"
        );
        assert_eq!(
            fbsd("chmod", &[0x1000, 0o755]),
            "chmod(0x1000,0755<S_IRWXU|S_IRGRP|S_IXGRP|S_IROTH|S_IXOTH>)"
        );
        assert_eq!(fbsd("umask", &[0]), "umask(0)");
    }

    #[test]
    fn unnamed_bits_are_invalid() {
        assert_eq!(
            fbsd("mprotect", &[0x1000, 0x2000, 0x9]),
            "mprotect(0x1000,0x2000,0x9<PROT_READ><invalid>8)"
        );
        assert_eq!(fbsd("lseek", &[3, 0, 9]), "lseek(0x3,0,<invalid=0x9>)");
        assert_eq!(
            call(Numbering::FreeBsd, "lseek", &[3, 0, 9], Width::W64, true),
            "lseek(3,0,<invalid=9>)"
        );
    }

    #[test]
    fn memory_calls() {
        assert_eq!(
            fbsd("mmap", &[0, 0x21000, 3, 0x1002, u64::MAX, 0]),
            "mmap(0,0x21000,0x3<PROT_READ|PROT_WRITE>,0x1002<MAP_PRIVATE|MAP_ANON>,0xffffffffffffffff,0)"
        );
        assert_eq!(
            fbsd("mmap", &[0, 0x200000, 3, 0x1500_1002, u64::MAX, 0]),
            "mmap(0,0x200000,0x3<PROT_READ|PROT_WRITE>,0x15001002<MAP_PRIVATE|MAP_ANON|MAP_ALIGNED(21)>,0xffffffffffffffff,0)"
        );
        assert_eq!(
            fbsd("mmap", &[0, 0x200000, 3, 0x0100_1002, u64::MAX, 0]),
            "mmap(0,0x200000,0x3<PROT_READ|PROT_WRITE>,0x1001002<MAP_PRIVATE|MAP_ANON|MAP_ALIGNED_SUPER>,0xffffffffffffffff,0)"
        );
        assert_eq!(
            fbsd("mprotect", &[0x1000, 0x1000, 0]),
            "mprotect(0x1000,0x1000,0<PROT_NONE>)"
        );
    }

    #[test]
    fn fcntl_commands() {
        assert_eq!(fbsd("fcntl", &[3, 2, 1]), "fcntl(0x3,F_SETFD,FD_CLOEXEC)");
        assert_eq!(fbsd("fcntl", &[3, 3, 0x1234]), "fcntl(0x3,F_GETFL)");
        assert_eq!(
            fbsd("fcntl", &[3, 4, 4]),
            "fcntl(0x3,F_SETFL,0x4<O_NONBLOCK>)"
        );
        assert_eq!(
            fbsd("fcntl", &[3, 17, 10]),
            "fcntl(0x3,F_DUPFD_CLOEXEC,0xa)"
        );
    }

    #[test]
    fn whence_wait_signals_sockets() {
        // FreeBSD 6's lseek had a pad word: whence is the last word either way.
        assert_eq!(
            fbsd("lseek", &[3, 0, 0x10, 2]),
            "lseek(0x3,0,0x10,SEEK_END)"
        );
        assert_eq!(
            fbsd("wait4", &[0xffff_ffff, 0x1000, 1, 0]),
            "wait4(0xffffffff,0x1000,0x1<WNOHANG>,0)"
        );
        assert_eq!(fbsd("wait4", &[5, 0x1000, 0, 0]), "wait4(0x5,0x1000,0,0)");
        assert_eq!(fbsd("kill", &[0x2a, 15]), "kill(0x2a,SIGTERM)");
        assert_eq!(fbsd("kill", &[0x2a, 200]), "kill(0x2a,SIG 200)");
        assert_eq!(
            fbsd("sigaction", &[2, 0x1000, 0]),
            "sigaction(SIGINT,0x1000,0)"
        );
        assert_eq!(
            fbsd("sigprocmask", &[1, 0x1000, 0x2000]),
            "sigprocmask(SIG_BLOCK,0x1000,0x2000)"
        );
        assert_eq!(
            fbsd("socket", &[2, 0x1000_0001, 6]),
            "socket(PF_INET,0x10000001<SOCK_STREAM|SOCK_CLOEXEC>,0x6)"
        );
        assert_eq!(
            fbsd("socketpair", &[1, 2, 0, 0x1000]),
            "socketpair(PF_LOCAL,0x2<SOCK_DGRAM>,0,0x1000)"
        );
    }

    #[test]
    fn decimal_numbers() {
        assert_eq!(
            call(
                Numbering::FreeBsd,
                "read",
                &[3, 0x1000, u64::MAX],
                Width::W64,
                true
            ),
            "read(3,4096,-1)"
        );
        assert_eq!(
            call(Numbering::FreeBsd, "read", &[0xffff_ffff], Width::W32, true),
            "read(-1)"
        );
    }

    #[test]
    fn each_system_its_own_values() {
        // Mac OS X 10.4: O_CREAT is 0x200 as on FreeBSD, but WEXITED is 4
        // and there is no AT_FDCWD.
        let darwin = |n: &str, a: &[u64]| call(Numbering::Darwin, n, a, Width::W32, false);
        assert_eq!(
            darwin("wait4", &[1, 0, 4, 0]),
            "wait4(0x1,0,0x4<WEXITED>,0)"
        );
        assert_eq!(
            fbsd("wait4", &[1, 0, 4, 0]),
            "wait4(0x1,0,0x4<WCONTINUED>,0)"
        );
        assert_eq!(
            darwin("socket", &[30, 1, 0]),
            "socket(PF_INET6,0x1<SOCK_STREAM>,0)"
        );
        assert_eq!(
            fbsd("socket", &[28, 1, 0]),
            "socket(PF_INET6,0x1<SOCK_STREAM>,0)"
        );
        // OpenBSD: O_CLOEXEC is 0x10000, SOCK_CLOEXEC 0x8000, PF_INET6 24.
        let obsd = |n: &str, a: &[u64]| call(Numbering::OpenBsd, n, a, Width::W64, false);
        assert_eq!(
            obsd("open", &[0x1000, 0x10000]),
            "open(0x1000,0x10000<O_RDONLY|O_CLOEXEC>)"
        );
        assert_eq!(
            obsd("socket", &[24, 0x8001, 0]),
            "socket(PF_INET6,0x8001<SOCK_STREAM|SOCK_CLOEXEC>,0)"
        );
        assert_eq!(
            obsd("mmap", &[0, 0x4000, 0, 0x1002, u64::MAX, 0]),
            "mmap(0,0x4000,0<PROT_NONE>,0x1002<MAP_PRIVATE|MAP_ANON>,0xffffffffffffffff,0)"
        );
        // NetBSD: O_CLOEXEC 0x400000, WCONTINUED 0x10, wait4 is __wait450.
        let nbsd = |n: &str, a: &[u64]| call(Numbering::NetBsd, n, a, Width::W64, false);
        assert_eq!(
            nbsd("open", &[0x1000, 0x400000, 0]),
            "open(0x1000,0x400000<O_RDONLY|O_CLOEXEC>)"
        );
        assert_eq!(
            nbsd("__wait450", &[1, 0, 0x11, 0]),
            "__wait450(0x1,0,0x11<WNOHANG|WCONTINUED>,0)"
        );
    }
}
