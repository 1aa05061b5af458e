//! Payload bytes of each body kind per family (formats doc section 3).

use kt2sql::decode::{Abi, Endianness, Family};
use kt2sql::record::{Body, IoDir, MAX_ARGS};

use super::layout::type_code;
use super::put;

/// Little builder for payload bytes in the file's order.
struct Out {
    e: Endianness,
    w: usize,
    b: Vec<u8>,
}

impl Out {
    fn n(&mut self, v: u64, size: usize) -> &mut Self {
        let at = self.b.len();
        self.b.resize(at + size, 0);
        put(&mut self.b, self.e, (at, size), v);
        self
    }
    fn i16(&mut self, v: i32) -> &mut Self {
        self.n(v as u16 as u64, 2)
    }
    fn i32(&mut self, v: i32) -> &mut Self {
        self.n(v as u32 as u64, 4)
    }
    fn word(&mut self, v: u64) -> &mut Self {
        self.n(v, self.w)
    }
    fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.b.extend_from_slice(b);
        self
    }
    fn zeros(&mut self, n: usize) -> &mut Self {
        self.b.resize(self.b.len() + n, 0);
        self
    }
    /// Pad with zeros to `n` bytes in all.
    fn to(&mut self, n: usize) -> &mut Self {
        let l = self.b.len().max(n);
        self.b.resize(l, 0);
        self
    }
}

/// (type code, payload bytes) of one body.
pub fn payload(abi: &Abi, version: u8, body: &Body) -> Option<(u32, Vec<u8>)> {
    use Family::*;
    let fam = abi.family;
    let typ = type_code(fam, body)?;
    let w = abi.width.bytes();
    let mut o = Out {
        e: abi.endianness,
        w,
        b: Vec::new(),
    };
    let obsd = matches!(fam, OpenBsd | OpenBsdMid | OpenBsdOld);
    match body {
        Body::Start | Body::ProcDtor => {}
        Body::Call(c) => {
            let inline = &c.args[..usize::from(c.nargs).min(MAX_ARGS)];
            match fam {
                // code int16, narg int16, (LP64 pad), register_t args
                FreeBsd => {
                    o.i16(c.code)
                        .i16(i32::from(c.nargs))
                        .zeros(if w == 8 { 4 } else { 0 });
                    inline.iter().for_each(|&a| {
                        o.word(a);
                    });
                }
                // Darwin: 64-bit slots after 4 bytes
                Darwin => {
                    o.i16(c.code).i16(i32::from(c.nargs));
                    inline.iter().for_each(|&a| {
                        o.n(a, 8);
                    });
                }
                // int code, int argsize (bytes), register_t args
                _ => {
                    o.i32(c.code).i32(i32::from(c.nargs) * w as i32);
                    inline.iter().for_each(|&a| {
                        o.word(a);
                    });
                }
            }
            o.raw(&c.extra);
        }
        Body::Ret(r) => match fam {
            FreeBsd => {
                o.i16(r.code).zeros(2).i32(r.error).word(r.retval as u64);
            }
            NetBsd => {
                o.i16(r.code).zeros(2).i32(r.error).word(r.retval as u64);
                o.word(r.retval2.unwrap_or(0) as u64);
            }
            OpenBsd => {
                o.i32(r.code).i32(r.error);
                if r.error == 0 {
                    // lseek-style 64-bit value where a register cannot hold it
                    let fits = w == 8 || i32::try_from(r.retval).is_ok();
                    o.n(r.retval as u64, if fits { w } else { 8 });
                }
            }
            OpenBsdMid | OpenBsdOld | Darwin => {
                let eosys = if fam == Darwin { 0xd058u32 as i32 } else { 0 };
                o.i16(r.code).i16(eosys).i32(r.error).i32(r.retval as i32);
            }
        },
        Body::Namei(p) => {
            o.raw(p);
            if fam == NetBsd && version == 2 {
                o.zeros(1);
            }
        }
        Body::Emul(n) | Body::ExecArgs(n) | Body::ExecEnv(n) => {
            o.raw(n);
        }
        Body::Sysctl(n) => {
            o.raw(n).zeros(1);
        }
        Body::Gio(g) => {
            let dir = match g.dir {
                IoDir::Read => 0,
                IoDir::Write => 1,
                IoDir::Other(d) => d,
            };
            o.i32(g.fd).i32(dir).raw(&g.data);
        }
        Body::Psig(p) => match fam {
            // signo, action, code, sigset_t(16) -> 28 / 40
            FreeBsd => {
                o.i32(p.signo)
                    .to(w)
                    .word(p.action)
                    .i32(p.code)
                    .n(u64::from(p.mask), 4)
                    .to(if w == 8 { 40 } else { 28 });
            }
            // signo, action, sigset_t(16), code -> 28 / 40
            NetBsd => {
                o.i32(p.signo)
                    .to(w)
                    .word(p.action)
                    .n(u64::from(p.mask), 4)
                    .zeros(12)
                    .i32(p.code)
                    .to(if w == 8 { 40 } else { 28 });
            }
            // signo, action, int mask, int code, siginfo_t -> 144 / 160
            _ if obsd => {
                o.i32(p.signo)
                    .to(w)
                    .word(p.action)
                    .n(u64::from(p.mask), 4)
                    .i32(p.code)
                    .to(if w == 8 { 160 } else { 144 });
            }
            // Darwin: signo, action, code, mask (uint32) -> 16
            _ => {
                o.i32(p.signo)
                    .word(p.action)
                    .i32(p.code)
                    .n(u64::from(p.mask), 4);
            }
        },
        Body::Csw(c) => {
            o.i32(c.out as i32).i32(c.user as i32);
            if let (FreeBsd, Some(m)) = (fam, &c.wmesg) {
                o.raw(&m[..m.len().min(8)]).to(16);
            }
        }
        Body::User(u) => {
            if let Some(id) = &u.id {
                o.raw(&id[..id.len().min(20)]).to(20);
            }
            o.raw(&u.data);
        }
        Body::Struct(s) => {
            if let Some(n) = s.elem_size {
                o.word(n);
            }
            o.raw(&s.name).zeros(1).raw(&s.data);
        }
        Body::ProcCtor { sv_flags } => {
            o.n(u64::from(*sv_flags), 4);
        }
        Body::CapFail { cap_type, data } => {
            o.i32(*cap_type).raw(data);
        }
        Body::Fault { vaddr, fault_type } => {
            o.word(*vaddr).i32(*fault_type).to(2 * w);
        }
        Body::FaultEnd { result } => {
            o.i32(*result);
        }
        Body::ExecFd { fd, dtype } => {
            o.i32(*fd).n(u64::from(*dtype), 4);
        }
        Body::Mib(m) => m.iter().for_each(|&v| {
            o.i32(v);
        }),
        Body::Pledge {
            error,
            syscall,
            code,
        } => {
            o.i32(*error).i32(*syscall).n(*code, 8);
        }
        Body::PinSyscall {
            error,
            syscall,
            addr,
        } => {
            o.i32(*error).i32(*syscall).word(*addr);
        }
        Body::Unknown { data, .. } => {
            o.raw(data);
        }
    }
    Some((typ, o.b))
}
