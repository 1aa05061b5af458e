//! Logical records to feed the writer: a realistic session per family (what
//! a traced `ls` looks like: the start marker, the tracer's `RET ktrace`,
//! execve with NAMI, open/read/sysctl/stat, exit) and one record of every
//! body kind with edge values. Random records are in `arb.rs`.

use std::borrow::Cow;

use kt2sql::decode::{Abi, Family, Width};
use kt2sql::record::{Body, Call, Csw, Gio, IoDir, Psig, Record, Ret, Struct, User, MAX_ARGS};

use super::writer::representable;

/// 2024-01-01T00:00:00Z in ns.
pub const T0: i64 = 1_704_067_200_000_000_000;

/// A record with the given header fields (index/offset 0).
pub fn rec(
    pid: i64,
    tid: Option<i64>,
    comm: &str,
    ts: i64,
    body: Body<'static>,
) -> Record<'static> {
    Record {
        index: 0,
        offset: 0,
        version: 0,
        pid,
        tid,
        comm: Cow::Owned(comm.as_bytes().to_vec()),
        ts,
        cpu: None,
        dropped: false,
        body,
    }
}

pub fn call(code: i32, args: &[u64]) -> Body<'static> {
    let mut a = [0u64; MAX_ARGS];
    let n = args.len().min(MAX_ARGS);
    a[..n].copy_from_slice(&args[..n]);
    Body::Call(Call {
        code,
        nargs: args.len() as u16,
        args: a,
        extra: Cow::Borrowed(&[]),
    })
}

pub fn ret(code: i32, error: i32, retval: i64) -> Body<'static> {
    Body::Ret(Ret {
        code,
        error,
        retval,
        retval2: None,
    })
}

fn bytes(s: &[u8]) -> Cow<'static, [u8]> {
    Cow::Owned(s.to_vec())
}

/// `n` processes (pids 100 on) that each make one call and never exit,
/// a microsecond apart: the shape of bench/hostile.sh's millions of
/// forked processes, smaller. FreeBSD v1 records (`freebsd-v1:le:64`).
pub fn sleepers(n: i64) -> Vec<Record<'static>> {
    let mut rs = Vec::new();
    let mut t = T0;
    for pid in 100..100 + n {
        for body in [Body::ProcCtor { sv_flags: 0 }, call(20, &[])] {
            t += 1000;
            let mut r = rec(pid, Some(pid + 1_000_000), "sleeper", t, body);
            r.version = 1;
            rs.push(r);
        }
    }
    rs
}

/// A shell (pid 2) that forks `n` children one after another (pids 100
/// on), each closing a file and exiting while the shell waits: a build's
/// shape reduced to its count of processes. FreeBSD 14 records
/// ([`super::example_trace::Script`]).
pub fn forks(n: i64) -> Vec<Record<'static>> {
    use super::example_trace::{sys, Script};
    const FORK: i32 = 2;
    let mut s = Script::default();
    s.ctor(2, "sh");
    for pid in 100..100 + n {
        s.call(2, "sh", FORK, &[]);
        s.ctor(pid, "sh");
        s.ret(pid, "sh", FORK, 0, 0);
        s.ret(2, "sh", FORK, 0, pid);
        s.call(pid, "sh", sys::CLOSE, &[3]);
        s.ret(pid, "sh", sys::CLOSE, 0, 0);
        s.exit(pid, "sh", 0);
        s.call(2, "sh", sys::WAIT4, &[pid as u64, 0x7fff_fff0, 0, 0]);
        s.ret(2, "sh", sys::WAIT4, 0, pid);
    }
    s.records()
}

/// A short realistic trace for `abi`: the first record is what that system
/// writes first (PROCCTOR, EMUL, START; the tracer's RET ktrace on Darwin).
pub fn realistic(abi: &Abi) -> Vec<Record<'static>> {
    let fam = abi.family;
    let w64 = abi.width == Width::W64;
    let pid = 4242;
    let tid = match fam {
        Family::FreeBsd => Some(100_123),
        Family::NetBsd => Some(pid),
        Family::OpenBsd => Some(549_797),
        _ => None,
    };
    let jret = if abi.version >= 1 || fam == Family::OpenBsd {
        -2
    } else {
        0
    };
    let ptr = if w64 { 0x7fff_ffff_e4d0 } else { 0xbfbf_e4d0 };
    let mut b: Vec<(&str, Body<'static>)> = Vec::new();
    let old = "ktrace";
    match fam {
        Family::FreeBsd => b.push((
            old,
            Body::ProcCtor {
                sv_flags: if w64 { 0x10209 } else { 0x4109 },
            },
        )),
        Family::NetBsd => b.push((old, Body::Emul(bytes(b"netbsd")))),
        Family::OpenBsd => b.push(("", Body::Start)),
        Family::OpenBsdMid | Family::OpenBsdOld => b.push((old, Body::Emul(bytes(b"native")))),
        Family::Darwin => {}
    }
    b.push((old, ret(45, 0, 0)));
    b.push((old, call(59, &[ptr, ptr + 0x40, ptr + 0x60])));
    b.push((old, Body::Namei(bytes(b"/bin/ls"))));
    match fam {
        Family::FreeBsd => b.push((
            "ls",
            Body::ProcCtor {
                sv_flags: if w64 { 0x10209 } else { 0x4109 },
            },
        )),
        Family::NetBsd => b.push(("ls", Body::Emul(bytes(b"netbsd")))),
        Family::OpenBsd => b.push((old, Body::ExecArgs(bytes(b"ls\0-l\0")))),
        _ => {}
    }
    b.push(("ls", ret(59, jret, 0)));
    b.push(("ls", call(5, &[ptr, 0x100000, 0])));
    b.push(("ls", Body::Namei(bytes(b"/etc/libmap.conf"))));
    b.push(("ls", ret(5, 0, 3)));
    b.push(("ls", call(3, &[3, ptr, 4096])));
    let data = b"# libmap.conf\n".to_vec();
    b.push((
        "ls",
        Body::Gio(Gio {
            fd: 3,
            dir: IoDir::Read,
            data: bytes(&data),
        }),
    ));
    b.push(("ls", ret(3, 0, data.len() as i64)));
    b.push(("ls", call(5, &[ptr, 0, 0])));
    b.push(("ls", Body::Namei(bytes(b"/nonexistent"))));
    b.push(("ls", ret(5, 2, 0)));
    let mut sysctl = call(202, &[ptr, 2, ptr + 8, ptr + 16, 0, 0]);
    if fam == Family::OpenBsd {
        if let Body::Call(c) = &mut sysctl {
            c.extra = bytes(&[1, 0, 0, 0, 65, 0, 0, 0]); // MIB {1, 65}
        }
    }
    b.push(("ls", sysctl));
    if fam == Family::FreeBsd {
        b.push(("ls", Body::Sysctl(bytes(b"kern.osreldate"))));
    }
    b.push(("ls", ret(202, 0, 0)));
    if matches!(fam, Family::FreeBsd | Family::OpenBsd) {
        b.push((
            "ls",
            call(if fam == Family::FreeBsd { 551 } else { 53 }, &[3, ptr]),
        ));
        let st = Struct {
            name: bytes(b"stat"),
            elem_size: None,
            data: bytes(&[7u8; 120]),
        };
        b.push(("ls", Body::Struct(st)));
        b.push((
            "ls",
            ret(if fam == Family::FreeBsd { 551 } else { 53 }, 0, 0),
        ));
    }
    b.push(("ls", call(4, &[1, ptr, 3])));
    b.push((
        "ls",
        Body::Gio(Gio {
            fd: 1,
            dir: IoDir::Write,
            data: bytes(b"a\nb\n"),
        }),
    ));
    b.push(("ls", ret(4, 0, 4)));
    b.push((
        "ls",
        Body::Psig(Psig {
            signo: 13,
            action: 0,
            code: 0,
            mask: 0,
        }),
    ));
    b.push(("ls", call(1, &[0])));
    if fam == Family::FreeBsd {
        b.push(("ls", Body::ProcDtor));
    }
    let mut ts = T0 + 123_456_789;
    b.into_iter()
        .map(|(comm, body)| {
            ts += 17_321;
            let start = matches!(body, Body::Start);
            let mut r = rec(
                if start { -1 } else { pid },
                if start { None } else { tid },
                comm,
                ts,
                body,
            );
            r.version = abi.version;
            r.cpu = (fam == Family::FreeBsd && abi.version == 1).then_some(1);
            if let Body::Ret(x) = &mut r.body {
                x.retval2 = (fam == Family::NetBsd).then_some(0);
            }
            representable(abi, &r).expect("realistic records are representable")
        })
        .collect()
}

/// One record of every body kind any family has, with edge values; filter
/// with [`representable`] for a given ABI.
pub fn every_kind() -> Vec<Record<'static>> {
    let mut big = call(202, &[u64::MAX, 0xffff_ff9c, 1 << 40]);
    let mut many = call(477, &(1..=14).collect::<Vec<u64>>());
    if let Body::Call(c) = &mut many {
        // words 13 and 14 follow the inline ones, in the writer's order
        c.nargs = 14;
        c.extra = bytes(&[0; 16]);
    }
    if let Body::Call(c) = &mut big {
        c.extra = bytes(&[1, 0, 0, 0, 6, 0, 0, 0]); // an OpenBSD sysctl's MIB
    }
    let bodies: Vec<Body<'static>> = vec![
        Body::Start,
        call(1, &[]),
        big,
        many,
        Body::Ret(Ret {
            code: 478,
            error: 0,
            retval: -5,
            retval2: Some(0x1_0000_0001),
        }),
        Body::Ret(Ret {
            code: 7,
            error: 0,
            retval: 0x1_2345_6789,
            retval2: None,
        }),
        Body::Ret(Ret {
            code: 5,
            error: 13,
            retval: 0,
            retval2: None,
        }),
        Body::Ret(Ret {
            code: 59,
            error: -2,
            retval: 0,
            retval2: None,
        }),
        Body::Ret(Ret {
            code: -3,
            error: -1,
            retval: -1,
            retval2: Some(-1),
        }),
        Body::Namei(bytes(b"")),
        Body::Namei(bytes(b"/usr/lib/\xc3\xa9t\xe9 \"quoted\"")),
        Body::Emul(bytes(b"netbsd32")),
        Body::Gio(Gio {
            fd: 0,
            dir: IoDir::Write,
            data: bytes(&[0u8; 0]),
        }),
        Body::Gio(Gio {
            fd: -1,
            dir: IoDir::Other(7),
            data: bytes(&(0..=255).collect::<Vec<u8>>()),
        }),
        Body::Psig(Psig {
            signo: 11,
            action: 0x4000_1234,
            code: -6,
            mask: 0xdead_beef,
        }),
        Body::Csw(Csw {
            out: true,
            user: false,
            wmesg: None,
        }),
        Body::Csw(Csw {
            out: false,
            user: true,
            wmesg: Some(bytes(b"select")),
        }),
        Body::Csw(Csw {
            out: true,
            user: true,
            wmesg: Some(bytes(b"12345678")),
        }),
        Body::User(User {
            id: None,
            data: bytes(b"utrace data"),
        }),
        Body::User(User {
            id: Some(bytes(b"malloc")),
            data: bytes(&[1, 2, 3]),
        }),
        Body::User(User {
            id: Some(bytes(b"exactly-twenty-bytes")),
            data: bytes(b""),
        }),
        Body::Struct(Struct {
            name: bytes(b"stat"),
            elem_size: None,
            data: bytes(&[9u8; 96]),
        }),
        Body::Struct(Struct {
            name: bytes(b"kevent"),
            elem_size: Some(32),
            data: bytes(&[3u8; 64]),
        }),
        Body::Sysctl(bytes(b"kern.ostype")),
        Body::ProcCtor {
            sv_flags: 0x9f_0209,
        },
        Body::ProcDtor,
        Body::CapFail {
            cap_type: 1,
            data: bytes(&[0xaa; 36]),
        },
        Body::Fault {
            vaddr: 0x8_0000_1000,
            fault_type: 2,
        },
        Body::FaultEnd { result: 5 },
        Body::ExecArgs(bytes(b"./prog\0file\0")),
        Body::ExecEnv(bytes(b"HOME=/root\0")),
        Body::ExecFd { fd: 3, dtype: 1 },
        Body::Mib(vec![1, 65, -1]),
        Body::Pledge {
            error: 1,
            syscall: 5,
            code: 1 << 40,
        },
        Body::PinSyscall {
            error: 78,
            syscall: 59,
            addr: 0x7f7f_fffe_1000,
        },
        Body::Unknown {
            typ: 99,
            data: bytes(b"opaque"),
        },
        Body::Unknown {
            typ: 9,
            data: bytes(&[0; 24]),
        },
    ];
    let comms = [
        "ls",
        "",
        "a-nineteen-char-nam",
        "a-name-of-twenty-three!",
        "x\0stale",
    ];
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| {
            let ts = T0 + i as i64 * 1_000_001_999;
            let mut r = rec(
                1000 + i as i64,
                Some(100_000 + i as i64),
                comms[i % comms.len()],
                ts,
                body,
            );
            if matches!(r.body, Body::Start) {
                r.pid = -1; // as the kernel writes it
            }
            r.version = (i % 3) as u8;
            r.cpu = Some(i as i32 % 4);
            r.dropped = i % 5 == 0;
            r
        })
        .collect()
}

/// Labels of the body kinds each family can write (formats doc section 3;
/// NetBSD's historic MMSG, MOOL and SAU are kept undecoded, as UNKNOWN).
pub fn kinds_of(fam: Family) -> &'static [&'static str] {
    match fam {
        Family::FreeBsd => &[
            "CALL", "RET", "NAMI", "GIO", "PSIG", "CSW", "USER", "STRU", "SCTL", "PROCCTOR",
            "PROCDTOR", "CAP", "PFLT", "PRET", "ARGS", "ENV",
        ],
        Family::NetBsd => &[
            "CALL", "RET", "NAMI", "GIO", "PSIG", "CSW", "EMUL", "USER", "ARGS", "ENV", "MIB",
            "FD", "UNKNOWN",
        ],
        Family::OpenBsd => &[
            "STRT", "CALL", "RET", "NAMI", "GIO", "PSIG", "CSW", "EMUL", "STRU", "USER", "ARGS",
            "ENV", "PLDG", "PINS",
        ],
        Family::OpenBsdMid | Family::OpenBsdOld => &[
            "CALL", "RET", "NAMI", "GIO", "PSIG", "CSW", "EMUL", "STRU", "USER",
        ],
        Family::Darwin => &["CALL", "RET", "NAMI", "GIO", "PSIG", "CSW", "USER"],
    }
}
