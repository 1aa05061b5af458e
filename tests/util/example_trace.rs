//! The example trace shipped as `example/build.ktrace`: what
//! `ktrace -i -t cn make` records on FreeBSD 14 amd64 for a two-file build.
//! ktrace execs make (after a failed PATH lookup); make reads its Makefile,
//! creates `obj` and chdirs into it, then vforks a shell per job: two
//! compiles (cc probes headers, some missing, and writes its object through
//! `openat` and `rename`), a link (cc vforks ld), and one job that fails.
//! `tools/make_example.rs` writes it with the test-only writer; a test
//! checks the shipped file is exactly that.

#![allow(dead_code)]

use std::borrow::Cow;

use kt2sql::record::{Body, Call, Psig, Record, Ret, Struct, MAX_ARGS};

const AT_FDCWD: u64 = 0xffff_ff9c;
const O_CREAT_WRONLY: u64 = 0x601;
const SIGCHLD: i32 = 20;

/// FreeBSD 14 syscall numbers used below.
pub mod sys {
    pub const EXIT: i32 = 1;
    pub const READ: i32 = 3;
    pub const WRITE: i32 = 4;
    pub const OPEN: i32 = 5;
    pub const CLOSE: i32 = 6;
    pub const WAIT4: i32 = 7;
    pub const CHDIR: i32 = 12;
    pub const ACCESS: i32 = 33;
    pub const KTRACE: i32 = 45;
    pub const EXECVE: i32 = 59;
    pub const VFORK: i32 = 66;
    pub const RENAME: i32 = 128;
    pub const MKDIR: i32 = 136;
    pub const OPENAT: i32 = 499;
    pub const FSTATAT: i32 = 552;
}

/// Builds the record list, one process step at a time.
pub struct Script {
    recs: Vec<Record<'static>>,
    ts: i64,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            recs: Vec::new(),
            ts: 1_763_700_000_000_000_000,
        }
    }
}

impl Script {
    /// The records so far.
    pub fn records(self) -> Vec<Record<'static>> {
        self.recs
    }

    pub fn push(&mut self, pid: i64, comm: &str, body: Body<'static>) {
        self.ts += 7_431; // a few µs between records
        self.recs.push(Record {
            index: self.recs.len() as u64,
            offset: 0,
            version: 1,
            pid,
            tid: Some(100_000 + pid),
            comm: Cow::Owned(comm.as_bytes().to_vec()),
            ts: self.ts,
            cpu: Some((pid % 4) as i32),
            dropped: false,
            body,
        });
    }
    pub fn call(&mut self, pid: i64, comm: &str, code: i32, args: &[u64]) {
        let mut a = [0u64; MAX_ARGS];
        a[..args.len()].copy_from_slice(args);
        let call = Call {
            code,
            nargs: args.len() as u16,
            args: a,
            extra: Cow::Borrowed(&[]),
        };
        self.push(pid, comm, Body::Call(call));
    }
    pub fn ret(&mut self, pid: i64, comm: &str, code: i32, error: i32, retval: i64) {
        let r = Ret {
            code,
            error,
            retval,
            retval2: None,
        };
        self.push(pid, comm, Body::Ret(r));
    }
    pub fn nami(&mut self, pid: i64, comm: &str, path: &str) {
        self.push(pid, comm, Body::Namei(Cow::Owned(path.as_bytes().to_vec())));
    }
    /// A path call: CALL, NAMI, RET returning `Ok(value)` or `Err(errno)`.
    pub fn path_call(
        &mut self,
        pid: i64,
        comm: &str,
        code: i32,
        args: &[u64],
        path: &str,
        result: Result<i64, i32>,
    ) {
        self.call(pid, comm, code, args);
        self.nami(pid, comm, path);
        match result {
            Ok(v) => self.ret(pid, comm, code, 0, v),
            Err(e) => self.ret(pid, comm, code, e, 0),
        }
    }
    pub fn ctor(&mut self, pid: i64, comm: &str) {
        self.push(pid, comm, Body::ProcCtor { sv_flags: 0x9f0209 });
    }
    /// execve of `path`: NAMI, runtime linker, PROCCTOR under the new name, RET.
    pub fn exec(&mut self, pid: i64, old: &str, path: &str, new: &str) {
        self.call(
            pid,
            old,
            sys::EXECVE,
            &[0x8_2000_1000, 0x8_2000_1100, 0x8_2000_1200],
        );
        self.nami(pid, old, path);
        self.nami(pid, old, "/libexec/ld-elf.so.1");
        self.ctor(pid, new);
        self.ret(pid, new, sys::EXECVE, -2, 0);
        self.path_call(
            pid,
            new,
            sys::OPEN,
            &[0x1000, 0x100000],
            "/lib/libc.so.7",
            Ok(3),
        );
        self.call(pid, new, sys::CLOSE, &[3]);
        self.ret(pid, new, sys::CLOSE, 0, 0);
    }
    pub fn exit(&mut self, pid: i64, comm: &str, status: u64) {
        self.call(pid, comm, sys::EXIT, &[status]);
        self.push(pid, comm, Body::ProcDtor);
    }
    /// make vforks `child`, which runs `body`; make's RET comes after the child's exec.
    fn vfork_job(&mut self, child: i64, job: impl FnOnce(&mut Script, i64)) {
        self.call(MAKE, "make", sys::VFORK, &[]);
        self.ctor(child, "make");
        self.ret(child, "make", 2, 0, 0);
        self.exec(child, "make", "/bin/sh", "sh");
        self.ret(MAKE, "make", sys::VFORK, 0, child);
        job(self, child);
        self.push(
            MAKE,
            "make",
            Body::Psig(Psig {
                signo: SIGCHLD,
                action: 0x1_0040_2000,
                code: 1,
                mask: 0,
            }),
        );
        self.call(
            MAKE,
            "make",
            sys::WAIT4,
            &[u64::MAX >> 32, 0x7ffffff0, 0, 0],
        );
        self.ret(MAKE, "make", sys::WAIT4, 0, child);
    }
}

const MAKE: i64 = 2310;

/// The shell of a job execs the compiler directly (`sh -c 'exec cc …'`).
fn compile(s: &mut Script, pid: i64, src: &str, obj: &str) {
    s.exec(pid, "sh", "/usr/bin/cc", "cc");
    s.path_call(
        pid,
        "cc",
        sys::OPEN,
        &[0x1000, 0],
        &format!("../src/{src}"),
        Ok(3),
    );
    s.push(
        pid,
        "cc",
        Body::Struct(Struct {
            name: Cow::Borrowed(b"stat"),
            elem_size: None,
            data: Cow::Owned(vec![0; 224]),
        }),
    );
    for (hdr, err) in [
        ("/usr/local/include/stdio.h", 2),
        ("/usr/include/stdio.h", 0),
        ("/usr/include/missing.h", 2),
    ] {
        s.path_call(
            pid,
            "cc",
            sys::OPEN,
            &[0x1000, 0],
            hdr,
            if err == 0 { Ok(4) } else { Err(err) },
        );
        if err == 0 {
            s.call(pid, "cc", sys::CLOSE, &[4]);
            s.ret(pid, "cc", sys::CLOSE, 0, 0);
        }
    }
    s.path_call(
        pid,
        "cc",
        sys::OPENAT,
        &[AT_FDCWD, 0x1000, O_CREAT_WRONLY, 0o644],
        &format!("{obj}.tmp"),
        Ok(4),
    );
    s.call(pid, "cc", sys::WRITE, &[4, 0x8_0000_0000, 1832]);
    s.ret(pid, "cc", sys::WRITE, 0, 1832);
    s.call(pid, "cc", sys::RENAME, &[0x1000, 0x1100]);
    s.nami(pid, "cc", &format!("{obj}.tmp"));
    s.nami(pid, "cc", obj);
    s.ret(pid, "cc", sys::RENAME, 0, 0);
    s.exit(pid, "cc", 0);
}

/// The records of the example trace, in file order.
pub fn script() -> Vec<Record<'static>> {
    let mut s = Script {
        recs: Vec::new(),
        ts: 1_763_700_000_000_000_000,
    };
    // ktrace: traced from its ktrace(2) call on, execs make via PATH.
    s.ctor(MAKE, "ktrace");
    s.ret(MAKE, "ktrace", sys::KTRACE, 0, 0);
    s.call(
        MAKE,
        "ktrace",
        sys::EXECVE,
        &[0x8_2000_1000, 0x8_2000_1100, 0x8_2000_1200],
    );
    s.nami(MAKE, "ktrace", "/usr/local/bin/make");
    s.ret(MAKE, "ktrace", sys::EXECVE, 2, 0);
    s.exec(MAKE, "ktrace", "/usr/bin/make", "make");
    // make reads the Makefile, makes obj/ and works there.
    s.path_call(MAKE, "make", sys::OPEN, &[0x1000, 0], "Makefile", Ok(3));
    s.call(MAKE, "make", sys::READ, &[3, 0x8_0000_0000, 4096]);
    s.ret(MAKE, "make", sys::READ, 0, 211);
    s.call(MAKE, "make", sys::CLOSE, &[3]);
    s.ret(MAKE, "make", sys::CLOSE, 0, 0);
    s.path_call(
        MAKE,
        "make",
        sys::FSTATAT,
        &[AT_FDCWD, 0x1000, 0x7fff_0000, 0],
        "obj",
        Err(2),
    );
    s.path_call(MAKE, "make", sys::MKDIR, &[0x1000, 0o755], "obj", Ok(0));
    s.path_call(MAKE, "make", sys::CHDIR, &[0x1000], "obj", Ok(0));
    s.vfork_job(2311, |s, pid| compile(s, pid, "main.c", "main.o"));
    s.vfork_job(2312, |s, pid| compile(s, pid, "util.c", "util.o"));
    s.vfork_job(2313, |s, pid| {
        s.exec(pid, "sh", "/usr/bin/cc", "cc");
        s.call(pid, "cc", sys::VFORK, &[]);
        s.ctor(2314, "cc");
        s.ret(2314, "cc", 2, 0, 0);
        s.exec(2314, "cc", "/usr/bin/ld", "ld");
        s.ret(pid, "cc", sys::VFORK, 0, 2314);
        for o in ["main.o", "util.o"] {
            s.path_call(2314, "ld", sys::OPEN, &[0x1000, 0], o, Ok(3));
        }
        s.path_call(
            2314,
            "ld",
            sys::ACCESS,
            &[0x1000, 4],
            "/usr/lib/libc.so",
            Ok(0),
        );
        s.path_call(
            2314,
            "ld",
            sys::OPEN,
            &[0x1000, O_CREAT_WRONLY],
            "prog",
            Ok(5),
        );
        s.exit(2314, "ld", 0);
        s.call(pid, "cc", sys::WAIT4, &[2314, 0x7ffffff0, 0, 0]);
        s.ret(pid, "cc", sys::WAIT4, 0, 2314);
        s.exit(pid, "cc", 0);
    });
    s.vfork_job(2315, |s, pid| {
        // `./check.sh` is not there: the job fails.
        s.path_call(pid, "sh", sys::CHDIR, &[0x1000], "../tests", Ok(0));
        s.call(pid, "sh", sys::EXECVE, &[0x1000, 0x1100, 0x1200]);
        s.nami(pid, "sh", "./check.sh");
        s.ret(pid, "sh", sys::EXECVE, 2, 0);
        s.exit(pid, "sh", 127);
    });
    s.exit(MAKE, "make", 2);
    s.recs
}
