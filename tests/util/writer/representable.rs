//! What a record looks like after a trip through a dialect: values cut to
//! their fields, clocks to µs where the header has a timeval, tid/cpu/drop
//! only where recorded, comm cut at NUL and MAXCOMLEN, and the model's
//! canonical form of a CALL's argument words and `extra` bytes.

use std::borrow::Cow;

use kt2sql::decode::{rules, Abi, Endianness, Family, Width};
use kt2sql::record::{Body, Call, Csw, Gio, IoDir, Psig, Record, Ret, Struct, User, MAX_ARGS};

use super::layout::{header_version, shape, type_code, F};

fn cut_nul(s: &[u8]) -> &[u8] {
    s.iter().position(|&c| c == 0).map_or(s, |i| &s[..i])
}

fn trim_nuls(s: &[u8]) -> Vec<u8> {
    let end = s.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
    s[..end].to_vec()
}

fn own(b: Vec<u8>) -> Cow<'static, [u8]> {
    Cow::Owned(b)
}

/// `r` as it decodes after being written for `abi` (index and offset are
/// kept; the test sets them); `None` if the family cannot express the body
/// or the record breaks its type's rules.
pub fn representable(abi: &Abi, r: &Record) -> Option<Record<'static>> {
    use Family::*;
    let fam = abi.family;
    type_code(fam, &r.body)?;
    let version = header_version(abi, r.version);
    // A record that breaks its type's rules is damage, not a record.
    if matches!(r.body, Body::Start) {
        if r.pid != -1 {
            return None;
        }
    } else {
        let (typ, bytes) = super::payload(abi, version, &r.body)?;
        if rules::payload(abi, typ, &bytes).is_some() || !rules::plausible(r.pid, r.ts) {
            return None;
        }
    }
    let s = shape(abi, version)?;
    let w = abi.width;
    // register_t as the kernel stores it: cut to the width, zero-/sign-extended
    let uword = |v: u64| if w == Width::W32 { v as u32 as u64 } else { v };
    let sword = |v: i64| {
        if w == Width::W32 {
            i64::from(v as i32)
        } else {
            v
        }
    };
    let field = |v: i64, (_, size): F| if size == 4 { i64::from(v as i32) } else { v };
    let sec = field(r.ts.div_euclid(1_000_000_000), s.sec);
    let ns = r.ts.rem_euclid(1_000_000_000);
    let ns = if s.nanos { ns } else { ns / 1000 * 1000 };
    let tid = match (s.tid, r.tid) {
        (Some(f), Some(t)) => Some(field(t, f)).filter(|&t| t > 0),
        _ => None,
    };
    let comm = cut_nul(&r.comm[..r.comm.len().min(s.comm_max)]).to_vec();
    let body = match &r.body {
        Body::Call(c) => {
            let ws = if fam == Darwin { 8 } else { w.bytes() };
            let slot = |a: u64| if fam == Darwin { a } else { uword(a) };
            let inline = usize::from(c.nargs).min(MAX_ARGS);
            let mut words: Vec<u64> = c.args[..inline].iter().map(|&a| slot(a)).collect();
            let mut stream: Vec<u8> = Vec::new();
            let mut extra = c.extra.to_vec();
            if matches!(fam, FreeBsd | Darwin) {
                // no argument count in the payload: every whole slot is an argument
                stream.append(&mut extra);
            } else if c.nargs as usize > MAX_ARGS {
                // argsize covers the words beyond MAX_ARGS that `extra` holds
                let more = (usize::from(c.nargs) - MAX_ARGS).min(extra.len() / ws);
                stream.extend(extra.drain(..more * ws));
            }
            let e = abi.endianness;
            let mut chunks = stream.chunks_exact(ws);
            for ch in chunks.by_ref() {
                let mut b = [0u8; 8];
                let v = if e == Endianness::Little {
                    b[..ws].copy_from_slice(ch);
                    u64::from_le_bytes(b)
                } else {
                    b[8 - ws..].copy_from_slice(ch);
                    u64::from_be_bytes(b)
                };
                words.push(v);
            }
            let mut tail = chunks.remainder().to_vec();
            let nargs = words.len();
            let mut args = [0u64; MAX_ARGS];
            let keep = nargs.min(MAX_ARGS);
            args[..keep].copy_from_slice(&words[..keep]);
            // words beyond MAX_ARGS go back into `extra`, in file order
            let mut rest = Vec::new();
            for &v in &words[keep..] {
                let bytes = if e == Endianness::Little {
                    v.to_le_bytes()[..ws].to_vec()
                } else {
                    v.to_be_bytes()[8 - ws..].to_vec()
                };
                rest.extend(bytes);
            }
            rest.append(&mut tail);
            rest.append(&mut extra);
            let code = if matches!(fam, FreeBsd | Darwin) {
                i32::from(c.code as i16)
            } else {
                c.code
            };
            Body::Call(Call {
                code,
                nargs: nargs as u16,
                args,
                extra: own(rest),
            })
        }
        Body::Ret(x) => Body::Ret(match fam {
            FreeBsd => Ret {
                code: i32::from(x.code as i16),
                retval: sword(x.retval),
                retval2: None,
                ..*x
            },
            NetBsd => Ret {
                code: i32::from(x.code as i16),
                retval: sword(x.retval),
                retval2: Some(sword(x.retval2.unwrap_or(0))),
                ..*x
            },
            OpenBsd => Ret {
                retval: if x.error == 0 { x.retval } else { 0 },
                retval2: None,
                ..*x
            },
            _ => Ret {
                code: i32::from(x.code as i16),
                retval: i64::from(x.retval as i32),
                retval2: None,
                ..*x
            },
        }),
        Body::Namei(p) => Body::Namei(own(trim_nuls(p))),
        Body::Emul(p) => Body::Emul(own(trim_nuls(p))),
        Body::Sysctl(p) => Body::Sysctl(own(trim_nuls(p))),
        Body::Gio(g) => Body::Gio(Gio {
            fd: g.fd,
            dir: match g.dir {
                IoDir::Other(0) => IoDir::Read,
                IoDir::Other(1) => IoDir::Write,
                d => d,
            },
            data: own(g.data.to_vec()),
        }),
        Body::Psig(p) => Body::Psig(Psig {
            action: uword(p.action),
            ..*p
        }),
        Body::Csw(c) => Body::Csw(Csw {
            out: c.out,
            user: c.user,
            wmesg: match (fam, &c.wmesg) {
                (FreeBsd, Some(m)) => Some(own(cut_nul(&m[..m.len().min(8)]).to_vec())),
                _ => None,
            },
        }),
        Body::User(u) => Body::User(User {
            id: u
                .id
                .as_ref()
                .map(|id| own(cut_nul(&id[..id.len().min(20)]).to_vec())),
            data: own(u.data.to_vec()),
        }),
        Body::Struct(st) => {
            let name = cut_nul(&st.name).to_vec();
            // bytes after a NUL inside the name become data
            let mut data = st
                .name
                .get(name.len() + 1..)
                .map(<[u8]>::to_vec)
                .unwrap_or_default();
            if name.len() < st.name.len() {
                data.push(0);
            }
            data.extend_from_slice(&st.data);
            Body::Struct(Struct {
                name: own(name),
                elem_size: st.elem_size.map(uword),
                data: own(data),
            })
        }
        Body::Fault { vaddr, fault_type } => Body::Fault {
            vaddr: uword(*vaddr),
            fault_type: *fault_type,
        },
        Body::PinSyscall {
            error,
            syscall,
            addr,
        } => Body::PinSyscall {
            error: *error,
            syscall: *syscall,
            addr: uword(*addr),
        },
        other => other.clone().into_owned(),
    };
    Some(Record {
        index: r.index,
        offset: r.offset,
        version,
        pid: i64::from(r.pid as i32),
        tid,
        comm: own(comm),
        ts: sec * 1_000_000_000 + ns,
        cpu: s.cpu.map(|_| r.cpu.unwrap_or(0)),
        dropped: fam == FreeBsd && r.dropped,
        body,
    })
}
