//! Record payloads: one function per record kind, shared across families
//! where the layouts agree, and a per-family table from type code to kind
//! (formats doc section 3). A payload too short for its kind's fixed part,
//! or a type the family does not define, becomes `Body::Unknown` with its
//! bytes kept: framing is decided by the header alone.

use std::borrow::Cow;

use super::abi::{Abi, Family, Width};
use byteorder::ByteOrder;

use super::bytes::{cut_nul, dispatch, trim_nuls, Bytes};
use crate::model::{Body, Call, Csw, Gio, IoDir, Psig, Ret, Struct, User, MAX_ARGS};

/// Decode a payload of record type `typ` (flags removed; START handled by the caller).
#[inline]
pub fn decode<'a>(abi: &Abi, typ: u32, p: &'a [u8]) -> Body<'a> {
    dispatch!(abi.endianness, decode_in(abi, typ, p))
}

#[inline]
fn decode_in<'a, B: ByteOrder>(abi: &Abi, typ: u32, p: &'a [u8]) -> Body<'a> {
    let b = Bytes::<B>::new(p);
    let body = match abi.family {
        Family::FreeBsd => freebsd(abi, typ, b),
        Family::NetBsd => netbsd(abi, typ, b),
        Family::OpenBsd => openbsd(abi, typ, b),
        Family::OpenBsdMid | Family::OpenBsdOld => openbsd_old(abi, typ, b),
        Family::Darwin => darwin(abi, typ, b),
    };
    body.unwrap_or(Body::Unknown {
        typ,
        data: Cow::Borrowed(p),
    })
}

#[inline]
fn freebsd<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: Bytes<'a, B>) -> Option<Body<'a>> {
    let w = abi.width;
    let ws = w.bytes();
    Some(match typ {
        1 => {
            // code int16, narg int16, (LP64: pad), args
            let argoff = if w == Width::W64 { 8 } else { 4 };
            Body::Call(call(b, i32::from(b.i16(0)?), argoff, usize::MAX, ws, w)?)
        }
        2 => Body::Ret(Ret {
            code: i32::from(b.i16(0)?),
            error: b.i32(4)?,
            retval: b.sword(8, w)?,
            retval2: None,
        }),
        3 => Body::Namei(Cow::Borrowed(trim_nuls(b.b))),
        4 => gio(b)?,
        5 => Body::Psig(Psig {
            signo: b.i32(0)?,
            action: b.word(ws, w)?,
            code: b.i32(2 * ws)?,
            mask: b.u32(2 * ws + 4)?,
        }),
        6 => csw(b, b.b.len() >= 16)?,
        7 => Body::User(User {
            id: None,
            data: Cow::Borrowed(b.b),
        }),
        8 => strukt(b.b, None),
        9 => Body::Sysctl(Cow::Borrowed(trim_nuls(b.b))),
        10 => Body::ProcCtor {
            sv_flags: b.u32(0)?,
        },
        11 => Body::ProcDtor,
        12 => Body::CapFail {
            cap_type: b.i32(0)?,
            data: Cow::Borrowed(b.rest(4)),
        },
        13 => Body::Fault {
            vaddr: b.word(0, w)?,
            fault_type: b.i32(ws)?,
        },
        14 => Body::FaultEnd { result: b.i32(0)? },
        15 => strukt(b.rest(ws), Some(b.word(0, w)?)),
        16 => Body::ExecArgs(Cow::Borrowed(b.b)),
        17 => Body::ExecEnv(Cow::Borrowed(b.b)),
        _ => return None,
    })
}

#[inline]
fn netbsd<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: Bytes<'a, B>) -> Option<Body<'a>> {
    let w = abi.width;
    let ws = w.bytes();
    Some(match typ {
        1 => Body::Call(call_argsize(b, w)?),
        2 => Body::Ret(Ret {
            code: i32::from(b.i16(0)?),
            error: b.i32(4)?,
            retval: b.sword(8, w)?,
            retval2: Some(b.sword(8 + ws, w)?),
        }),
        3 => Body::Namei(Cow::Borrowed(trim_nuls(b.b))),
        4 => gio(b)?,
        5 => Body::Psig(Psig {
            signo: b.i32(0)?,
            action: b.word(ws, w)?,
            mask: b.u32(2 * ws)?,
            code: b.i32(2 * ws + 16)?,
        }),
        6 => csw(b, false)?,
        7 => Body::Emul(Cow::Borrowed(trim_nuls(b.b))),
        8 => user_with_id(b)?,
        10 => Body::ExecArgs(Cow::Borrowed(b.b)),
        11 => Body::ExecEnv(Cow::Borrowed(b.b)),
        14 => Body::Mib(b.b.chunks_exact(4).map(|c| B::read_i32(c)).collect()),
        15 => Body::ExecFd {
            fd: b.i32(0)?,
            dtype: b.u32(4)?,
        },
        _ => return None,
    })
}

#[inline]
fn openbsd<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: Bytes<'a, B>) -> Option<Body<'a>> {
    let w = abi.width;
    let ws = w.bytes();
    Some(match typ {
        1 => Body::Call(call_argsize(b, w)?),
        2 => {
            // Only successful returns carry a value; lseek's is always 64-bit.
            let retval = match b.b.len() {
                0..=7 => return None,
                8..=11 => 0,
                12..=15 => i64::from(b.i32(8)?),
                _ => b.u64(8)? as i64,
            };
            Body::Ret(Ret {
                code: b.i32(0)?,
                error: b.i32(4)?,
                retval,
                retval2: None,
            })
        }
        3 => Body::Namei(Cow::Borrowed(trim_nuls(b.b))),
        4 => gio(b)?,
        5 => Body::Psig(Psig {
            signo: b.i32(0)?,
            action: b.word(ws, w)?,
            mask: b.u32(2 * ws)?,
            code: b.i32(2 * ws + 4)?,
        }),
        6 => csw(b, false)?,
        7 => Body::Emul(Cow::Borrowed(trim_nuls(b.b))),
        8 => strukt(b.b, None),
        9 => user_with_id(b)?,
        10 => Body::ExecArgs(Cow::Borrowed(b.b)),
        11 => Body::ExecEnv(Cow::Borrowed(b.b)),
        12 => Body::Pledge {
            error: b.i32(0)?,
            syscall: b.i32(4)?,
            code: b.u64(8)?,
        },
        13 => Body::PinSyscall {
            error: b.i32(0)?,
            syscall: b.i32(4)?,
            addr: b.word(8, w)?,
        },
        _ => return None,
    })
}

/// OpenBSD before the type-first header: NetBSD-style CALL, 4.4BSD RET
/// with an int32 retval even on LP64, EMUL at 7.
#[inline]
fn openbsd_old<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: Bytes<'a, B>) -> Option<Body<'a>> {
    match typ {
        2 => Some(Body::Ret(ret44(b)?)),
        1 | 3..=13 => openbsd(abi, typ, b),
        _ => None,
    }
}

/// Darwin ≤ 10.4: 4.4BSD payloads, but CALL arguments in 64-bit slots.
#[inline]
fn darwin<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: Bytes<'a, B>) -> Option<Body<'a>> {
    let w = abi.width;
    let ws = w.bytes();
    Some(match typ {
        1 => Body::Call(call(b, i32::from(b.i16(0)?), 4, usize::MAX, 8, Width::W64)?),
        2 => Body::Ret(ret44(b)?),
        3 => Body::Namei(Cow::Borrowed(trim_nuls(b.b))),
        4 => gio(b)?,
        5 => Body::Psig(Psig {
            signo: b.i32(0)?,
            action: b.word(4, w)?,
            code: b.i32(4 + ws)?,
            mask: b.u32(8 + ws)?,
        }),
        6 => csw(b, false)?,
        7 => Body::User(User {
            id: None,
            data: Cow::Borrowed(b.b),
        }),
        _ => return None,
    })
}

/// A CALL whose arguments are every whole `slot`-sized word from `argoff`
/// (at most `limit` bytes of them); the rest goes to `extra`.
/// Always inlined: CALL is the commonest record, and a call here returned
/// its 128-byte `Call` through memory that was copied again at once.
#[inline(always)]
fn call<'a, B: ByteOrder>(
    b: Bytes<'a, B>,
    code: i32,
    argoff: usize,
    limit: usize,
    slot: usize,
    w: Width,
) -> Option<Call<'a>> {
    let body = b.b.get(argoff..)?;
    let arg_bytes = body.len().min(limit) / slot * slot;
    let nwords = arg_bytes / slot;
    let inline = nwords.min(MAX_ARGS);
    let mut args = [0u64; MAX_ARGS];
    // Whole slots only, so no read can fail.
    let words = body.get(..inline * slot).unwrap_or(&[]);
    for (a, c) in args.iter_mut().zip(words.chunks_exact(slot)) {
        *a = Bytes::<B>::new(c).word(0, w).unwrap_or(0);
    }
    Some(Call {
        code,
        nargs: nwords.min(usize::from(u16::MAX)) as u16,
        args,
        extra: Cow::Borrowed(&body[inline * slot..]),
    })
}

/// NetBSD/OpenBSD CALL: int code, int argsize (bytes), args.
#[inline]
fn call_argsize<B: ByteOrder>(b: Bytes<'_, B>, w: Width) -> Option<Call<'_>> {
    let argsize = usize::try_from(b.i32(4)?).unwrap_or(0);
    call(b, b.i32(0)?, 8, argsize, w.bytes(), w)
}

/// 4.4BSD SYSRET: int16 code, int16 eosys (garbage on Darwin), int error, int retval.
#[inline]
fn ret44<B: ByteOrder>(b: Bytes<'_, B>) -> Option<Ret> {
    Some(Ret {
        code: i32::from(b.i16(0)?),
        error: b.i32(4)?,
        retval: i64::from(b.i32(8)?),
        retval2: None,
    })
}

#[inline]
fn gio<B: ByteOrder>(b: Bytes<'_, B>) -> Option<Body<'_>> {
    let dir = match b.i32(4)? {
        0 => IoDir::Read,
        1 => IoDir::Write,
        other => IoDir::Other(other),
    };
    Some(Body::Gio(Gio {
        fd: b.i32(0)?,
        dir,
        data: Cow::Borrowed(b.rest(8)),
    }))
}

#[inline]
fn csw<B: ByteOrder>(b: Bytes<'_, B>, with_wmesg: bool) -> Option<Body<'_>> {
    Some(Body::Csw(Csw {
        out: b.i32(0)? != 0,
        user: b.i32(4)? != 0,
        wmesg: with_wmesg.then(|| Cow::Borrowed(cut_nul(b.rest(8)))),
    }))
}

#[inline]
fn strukt(p: &[u8], elem_size: Option<u64>) -> Body<'_> {
    let name = cut_nul(p);
    let data = p.get(name.len() + 1..).unwrap_or(&[]);
    Body::Struct(Struct {
        name: Cow::Borrowed(name),
        elem_size,
        data: Cow::Borrowed(data),
    })
}

/// USER with a 20-byte NUL-padded label (OpenBSD, NetBSD).
#[inline]
fn user_with_id<B: ByteOrder>(b: Bytes<'_, B>) -> Option<Body<'_>> {
    let id = b.b.get(..20)?;
    Some(Body::User(User {
        id: Some(Cow::Borrowed(cut_nul(id))),
        data: Cow::Borrowed(b.rest(20)),
    }))
}
