//! Record payloads: one function per record kind, shared across families
//! where the layouts agree (formats doc section 3). Which types a family
//! defines and how long their payloads are is `rules`' table: the decoder
//! hands over only records that keep it, and a type it does not define is
//! `Body::Unknown`. A payload still too short for its kind's fixed part
//! (never, for a checked record) becomes `Body::Unknown` with its bytes
//! kept, so no input can make decoding panic.

use std::borrow::Cow;

use super::abi::{Abi, Family, Width};
use byteorder::ByteOrder;

use super::bytes::{cut_nul, dispatch, trim_nuls, Reader};
use super::rules;
use crate::record::{Body, Call, Csw, Gio, IoDir, Psig, Ret, Struct, User, MAX_ARGS};

/// Decode a payload of record type `typ` (flags removed; START handled by the caller).
#[inline]
pub(crate) fn decode<'a>(abi: &Abi, typ: u32, p: &'a [u8]) -> Body<'a> {
    dispatch!(abi.endianness, decode_in(abi, typ, p))
}

#[inline]
fn decode_in<'a, B: ByteOrder>(abi: &Abi, typ: u32, p: &'a [u8]) -> Body<'a> {
    let b = Reader::<B>::new(p);
    if rules::rule(abi, typ).is_none() {
        return unknown(typ, b);
    }
    match abi.family {
        Family::FreeBsd => freebsd(abi, typ, b),
        Family::NetBsd => netbsd(abi, typ, b),
        Family::OpenBsd => openbsd(abi, typ, b),
        Family::OpenBsdMid | Family::OpenBsdOld => openbsd_old(abi, typ, b),
        Family::Darwin => darwin(abi, typ, b),
    }
}

/// The value of `$e`, an `Option`; `None` means the payload is too short
/// for its kind's fixed part, and the enclosing table returns `$short()`
/// (the payload kept as `Body::Unknown`). The tables return a `Body`, not
/// an `Option<Body>`, so each kind is built once, where the record holds
/// it: an `Option` around the 128-byte `Body` cost copies on every record.
macro_rules! need {
    ($e:expr, $short:ident) => {
        match $e {
            Some(v) => v,
            None => return $short(),
        }
    };
}

/// A payload kept undecoded: a type the family does not define, or one too
/// short for its kind.
#[inline]
fn unknown<'a, B>(typ: u32, b: Reader<'a, B>) -> Body<'a> {
    Body::Unknown {
        typ,
        data: Cow::Borrowed(b.b),
    }
}

#[inline]
fn freebsd<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: Reader<'a, B>) -> Body<'a> {
    let w = abi.width;
    let ws = w.bytes();
    let short = || unknown(typ, b);
    match typ {
        1 => {
            // code int16, narg int16, (LP64: pad), args
            let argoff = if w == Width::W64 { 8 } else { 4 };
            let code = i32::from(need!(b.i16(0), short));
            Body::Call(need!(call(b, code, argoff, usize::MAX, ws, w), short))
        }
        2 => Body::Ret(Ret {
            code: i32::from(need!(b.i16(0), short)),
            error: need!(b.i32(4), short),
            retval: need!(b.sword(8, w), short),
            retval2: None,
        }),
        3 => Body::Namei(Cow::Borrowed(trim_nuls(b.b))),
        4 => Body::Gio(need!(gio(b), short)),
        5 => Body::Psig(Psig {
            signo: need!(b.i32(0), short),
            action: need!(b.word(ws, w), short),
            code: need!(b.i32(2 * ws), short),
            mask: need!(b.u32(2 * ws + 4), short),
        }),
        6 => Body::Csw(need!(csw(b, b.b.len() >= 16), short)),
        7 => Body::User(User {
            id: None,
            data: Cow::Borrowed(b.b),
        }),
        8 => strukt(b.b, None),
        9 => Body::Sysctl(Cow::Borrowed(trim_nuls(b.b))),
        10 => Body::ProcCtor {
            sv_flags: need!(b.u32(0), short),
        },
        11 => Body::ProcDtor,
        12 => Body::CapFail {
            cap_type: need!(b.i32(0), short),
            data: Cow::Borrowed(b.rest(4)),
        },
        13 => Body::Fault {
            vaddr: need!(b.word(0, w), short),
            fault_type: need!(b.i32(ws), short),
        },
        14 => Body::FaultEnd {
            result: need!(b.i32(0), short),
        },
        15 => strukt(b.rest(ws), Some(need!(b.word(0, w), short))),
        16 => Body::ExecArgs(Cow::Borrowed(b.b)),
        17 => Body::ExecEnv(Cow::Borrowed(b.b)),
        _ => short(),
    }
}

#[inline]
fn netbsd<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: Reader<'a, B>) -> Body<'a> {
    let w = abi.width;
    let ws = w.bytes();
    let short = || unknown(typ, b);
    match typ {
        1 => Body::Call(need!(call_argsize(b, w), short)),
        2 => Body::Ret(Ret {
            code: i32::from(need!(b.i16(0), short)),
            error: need!(b.i32(4), short),
            retval: need!(b.sword(8, w), short),
            retval2: Some(need!(b.sword(8 + ws, w), short)),
        }),
        3 => Body::Namei(Cow::Borrowed(trim_nuls(b.b))),
        4 => Body::Gio(need!(gio(b), short)),
        5 => Body::Psig(Psig {
            signo: need!(b.i32(0), short),
            action: need!(b.word(ws, w), short),
            mask: need!(b.u32(2 * ws), short),
            code: need!(b.i32(2 * ws + 16), short),
        }),
        6 => Body::Csw(need!(csw(b, false), short)),
        7 => Body::Emul(Cow::Borrowed(trim_nuls(b.b))),
        8 => Body::User(need!(user_with_id(b), short)),
        10 => Body::ExecArgs(Cow::Borrowed(b.b)),
        11 => Body::ExecEnv(Cow::Borrowed(b.b)),
        14 => Body::Mib(b.b.chunks_exact(4).map(|c| B::read_i32(c)).collect()),
        15 => Body::ExecFd {
            fd: need!(b.i32(0), short),
            dtype: need!(b.u32(4), short),
        },
        _ => short(),
    }
}

#[inline]
fn openbsd<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: Reader<'a, B>) -> Body<'a> {
    let w = abi.width;
    let ws = w.bytes();
    let short = || unknown(typ, b);
    match typ {
        1 => Body::Call(need!(call_argsize(b, w), short)),
        2 => {
            // Only successful returns carry a value; lseek's is always 64-bit.
            let retval = match b.b.len() {
                0..=7 => return short(),
                8..=11 => 0,
                12..=15 => i64::from(need!(b.i32(8), short)),
                _ => need!(b.u64(8), short) as i64,
            };
            Body::Ret(Ret {
                code: need!(b.i32(0), short),
                error: need!(b.i32(4), short),
                retval,
                retval2: None,
            })
        }
        3 => Body::Namei(Cow::Borrowed(trim_nuls(b.b))),
        4 => Body::Gio(need!(gio(b), short)),
        5 => Body::Psig(Psig {
            signo: need!(b.i32(0), short),
            action: need!(b.word(ws, w), short),
            mask: need!(b.u32(2 * ws), short),
            code: need!(b.i32(2 * ws + 4), short),
        }),
        6 => Body::Csw(need!(csw(b, false), short)),
        7 => Body::Emul(Cow::Borrowed(trim_nuls(b.b))),
        8 => strukt(b.b, None),
        9 => Body::User(need!(user_with_id(b), short)),
        10 => Body::ExecArgs(Cow::Borrowed(b.b)),
        11 => Body::ExecEnv(Cow::Borrowed(b.b)),
        12 => Body::Pledge {
            error: need!(b.i32(0), short),
            syscall: need!(b.i32(4), short),
            code: need!(b.u64(8), short),
        },
        13 => Body::PinSyscall {
            error: need!(b.i32(0), short),
            syscall: need!(b.i32(4), short),
            addr: need!(b.word(8, w), short),
        },
        _ => short(),
    }
}

/// OpenBSD before the type-first header: NetBSD-style CALL, 4.4BSD RET
/// with an int32 retval even on LP64, EMUL at 7.
#[inline]
fn openbsd_old<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: Reader<'a, B>) -> Body<'a> {
    let short = || unknown(typ, b);
    match typ {
        2 => Body::Ret(need!(ret44(b), short)),
        1 | 3..=9 => openbsd(abi, typ, b),
        _ => short(),
    }
}

/// Darwin ≤ 10.4: 4.4BSD payloads, but CALL arguments in 64-bit slots.
#[inline]
fn darwin<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: Reader<'a, B>) -> Body<'a> {
    let w = abi.width;
    let ws = w.bytes();
    let short = || unknown(typ, b);
    match typ {
        1 => {
            let code = i32::from(need!(b.i16(0), short));
            Body::Call(need!(call(b, code, 4, usize::MAX, 8, Width::W64), short))
        }
        2 => Body::Ret(need!(ret44(b), short)),
        3 => Body::Namei(Cow::Borrowed(trim_nuls(b.b))),
        4 => Body::Gio(need!(gio(b), short)),
        5 => Body::Psig(Psig {
            signo: need!(b.i32(0), short),
            action: need!(b.word(4, w), short),
            code: need!(b.i32(4 + ws), short),
            mask: need!(b.u32(8 + ws), short),
        }),
        6 => Body::Csw(need!(csw(b, false), short)),
        7 => Body::User(User {
            id: None,
            data: Cow::Borrowed(b.b),
        }),
        _ => short(),
    }
}

/// A CALL whose arguments are every whole `slot`-sized word from `argoff`
/// (at most `limit` bytes of them); the rest goes to `extra`.
/// Always inlined: CALL is the commonest record, and a call here returned
/// its 128-byte `Call` through memory that was copied again at once.
#[inline(always)]
fn call<'a, B: ByteOrder>(
    b: Reader<'a, B>,
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
        *a = Reader::<B>::new(c).word(0, w).unwrap_or(0);
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
fn call_argsize<B: ByteOrder>(b: Reader<'_, B>, w: Width) -> Option<Call<'_>> {
    let argsize = usize::try_from(b.i32(4)?).unwrap_or(0);
    call(b, b.i32(0)?, 8, argsize, w.bytes(), w)
}

/// 4.4BSD SYSRET: int16 code, int16 eosys (garbage on Darwin), int error, int retval.
#[inline]
fn ret44<B: ByteOrder>(b: Reader<'_, B>) -> Option<Ret> {
    Some(Ret {
        code: i32::from(b.i16(0)?),
        error: b.i32(4)?,
        retval: i64::from(b.i32(8)?),
        retval2: None,
    })
}

#[inline]
fn gio<B: ByteOrder>(b: Reader<'_, B>) -> Option<Gio<'_>> {
    let dir = match b.i32(4)? {
        0 => IoDir::Read,
        1 => IoDir::Write,
        other => IoDir::Other(other),
    };
    Some(Gio {
        fd: b.i32(0)?,
        dir,
        data: Cow::Borrowed(b.rest(8)),
    })
}

#[inline]
fn csw<B: ByteOrder>(b: Reader<'_, B>, with_wmesg: bool) -> Option<Csw<'_>> {
    Some(Csw {
        out: b.i32(0)? != 0,
        user: b.i32(4)? != 0,
        wmesg: with_wmesg.then(|| Cow::Borrowed(cut_nul(b.rest(8)))),
    })
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
fn user_with_id<B: ByteOrder>(b: Reader<'_, B>) -> Option<User<'_>> {
    let id = b.b.get(..20)?;
    Some(User {
        id: Some(Cow::Borrowed(cut_nul(id))),
        data: Cow::Borrowed(b.rest(20)),
    })
}
