//! OpenBSD in its three header eras: the type-first header with the START
//! record (~2011 on, [`Family::OpenBsd`]), the interim 4.0 … ~5.0 header
//! ([`Family::OpenBsdMid`]) and the classic 4.4BSD header of 3.9 and
//! before ([`Family::OpenBsdOld`]). Their header layouts, record types and
//! payloads (docs/dialects.md, "Headers" and "Record types and payloads") live together so a type's
//! rule and its decoding cannot drift apart.
//!
//! Nothing here reads a whole header (`header.rs` does, asking here for
//! a type-first record's type) or knows another system.

use std::borrow::Cow;

use byteorder::ByteOrder;

use crate::decode::abi::{f, Abi, HeaderLayout, TimeUnit, Variant, Width};
use crate::decode::bytes::{trim_nuls, ByteReader};
use crate::decode::dialects::Family;
use crate::decode::payload::{call_argsize, csw, gio, need, ret44, strukt, unknown, user_with_id};
use crate::decode::rules::{Len, Rule, ANY, MAX_PATH, MAX_USER};
use crate::record::{Body, Kind, Psig, Ret};

/// The layout of `abi`'s header (one shape per era, width and variant).
pub(crate) fn layout(abi: &Abi, _version: u16) -> Option<&'static HeaderLayout> {
    use Family::*;
    use Variant::*;
    use Width::*;
    Some(match (abi.family, abi.width, abi.variant) {
        (OpenBsd, W64, Standard) => &NEW_LP64,
        (OpenBsd, W32, Standard) => &NEW_I386,
        (OpenBsd, W32, Comm17) => &NEW_I386_COMM17,
        (OpenBsd, W32, Time32) => &NEW_I386_T32,
        (OpenBsdMid, W32, Standard) => &MID_I386,
        (OpenBsdMid, W64, Standard) => &MID_LP64,
        (OpenBsdOld, W32, Standard) => &super::darwin::BSD44_ILP32,
        (OpenBsdOld, W64, Standard) => &super::darwin::BSD44_LP64,
        _ => return None,
    })
}

/// The sysctl syscall, whose CALL carries the MIB after the arguments.
const SYSCTL: i32 = 202;

/// The START record's type, stored big-endian on every architecture.
const START: [u8; 4] = *b"KTR\0";

/// The type of the type-first header `b`, and whether it is a START
/// record (type 0 then); no flags.
#[inline]
pub(crate) fn record_type<B: ByteOrder>(b: &ByteReader<'_, B>) -> Option<(u32, bool, bool)> {
    if b.b.get(0..4)? == START {
        Some((0, true, false))
    } else {
        Some((b.u32(0)?, false, false))
    }
}

/// A wrong reading's sign: kdump refuses a type-first file that does not
/// begin with START.
pub(crate) fn doubts(first: bool) -> u32 {
    if first {
        2
    } else {
        0
    }
}

/// The record types of the type-first era (1..=13), as a bit mask.
pub(crate) const TYPES: u32 = 0x3ffe;
/// The record types before it (1..=9), as a bit mask.
pub(crate) const TYPES_OLD: u32 = 0x3fe;

/// The rule of record type `typ`; `None` for a type the era does not define.
#[inline]
pub(crate) fn rule(abi: &Abi, typ: u32) -> Option<Rule> {
    let ws = abi.width.bytes();
    let r = |kind, len| Some(Rule { kind, len });
    let new = abi.family == Family::OpenBsd;
    match typ {
        // The MIB follows a sysctl CALL in the type-first era.
        1 => r(
            Kind::Call,
            Len::Argsize {
                mib: new.then_some(SYSCTL),
            },
        ),
        // Only a successful return has a value; lseek's is 64-bit; older
        // kernels always wrote one.
        2 if new => r(
            Kind::Ret,
            Len::OneOf(if ws == 8 { &[8, 16] } else { &[8, 12, 16] }),
        ),
        // The 4.4BSD SYSRET: int32 retval even on LP64.
        2 => r(Kind::Ret, Len::Exact(12)),
        3 => r(Kind::Namei, Len::Text(0, MAX_PATH)),
        4 => r(Kind::Gio, Len::Range(8, ANY)),
        5 => r(Kind::Psig, Len::Range(2 * ws + 8, 512)),
        6 => r(Kind::Csw, Len::Exact(8)),
        7 => r(Kind::Emul, Len::Text(1, 32)),
        8 => r(Kind::Struct, Len::Named(0)),
        9 => r(Kind::User, Len::Range(20, 20 + MAX_USER)),
        10 if new => r(Kind::ExecArgs, Len::Range(0, ANY)),
        11 if new => r(Kind::ExecEnv, Len::Range(0, ANY)),
        12 if new => r(Kind::Pledge, Len::Exact(16)),
        13 if new => r(Kind::PinSyscall, Len::Exact(8 + ws)),
        _ => None,
    }
}

/// The payload of a type-first era record of type `typ` that keeps its rule.
#[inline]
pub(crate) fn decode_new<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: ByteReader<'a, B>) -> Body<'a> {
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

/// Before the type-first header: NetBSD-style CALL, 4.4BSD RET with an
/// int32 retval even on LP64, EMUL at 7.
#[inline]
pub(crate) fn decode_old<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: ByteReader<'a, B>) -> Body<'a> {
    let short = || unknown(typ, b);
    match typ {
        2 => Body::Ret(need!(ret44(b), short)),
        1 | 3..=9 => decode_new(abi, typ, b),
        _ => short(),
    }
}

// Header layouts (docs/dialects.md, "Headers"). Field names follow sys/ktrace.h;
// the classic 4.4BSD header of OpenBSD ≤ 3.9 is Darwin's (`darwin.rs`).

/// Type-first header, amd64: 64 bytes [V].
const NEW_LP64: HeaderLayout = HeaderLayout {
    size: 64,
    typ: f(0, 4),
    pid: f(4, 4),
    tid: Some(f(8, 4)),
    sec: f(16, 8),
    frac: f(24, 8),
    unit: TimeUnit::Nano,
    comm: (32, 24),
    comm_max: 23,
    len: f(56, 8),
    cpu: None,
};
/// Type-first header, i386, 64-bit time_t, 24-byte comm: 52 bytes [U].
const NEW_I386: HeaderLayout = HeaderLayout {
    size: 52,
    sec: f(12, 8),
    frac: f(20, 4),
    comm: (24, 24),
    len: f(48, 4),
    ..NEW_LP64
};
/// Type-first header, i386, 64-bit time_t, 17-byte comm: 48 bytes [U].
const NEW_I386_COMM17: HeaderLayout = HeaderLayout {
    size: 48,
    comm: (24, 17),
    comm_max: 16,
    len: f(44, 4),
    ..NEW_I386
};
/// Type-first header, i386, 32-bit time_t: 44 bytes [U].
const NEW_I386_T32: HeaderLayout = HeaderLayout {
    size: 44,
    sec: f(12, 4),
    frac: f(16, 4),
    comm: (20, 17),
    comm_max: 16,
    len: f(40, 4),
    ..NEW_I386
};

/// 4.0 … ~5.0 interim header, i386: 40 bytes [U].
const MID_I386: HeaderLayout = HeaderLayout {
    size: 40,
    len: f(0, 4),
    pid: f(4, 4),
    tid: None,
    comm: (8, 17),
    comm_max: 16,
    typ: f(26, 2),
    sec: f(28, 4),
    frac: f(32, 4),
    unit: TimeUnit::Micro,
    cpu: None,
};
/// 4.0 … ~5.0 interim header, amd64: 56 bytes [U].
const MID_LP64: HeaderLayout = HeaderLayout {
    size: 56,
    len: f(0, 8),
    pid: f(8, 4),
    comm: (12, 17),
    typ: f(30, 2),
    sec: f(32, 8),
    frac: f(40, 8),
    ..MID_I386
};
