//! NetBSD: its header layouts, record types and payloads (docs/dialects.md,
//! "Headers" and "Record types and payloads"), together so a type's rule and its decoding cannot
//! drift apart. NetBSD header versions 0, 1 and 2 are decided per record,
//! by the version beside the type.
//!
//! Nothing here reads a whole header (`header.rs` does, asking here for a
//! record's version and type) or knows another family.

use std::borrow::Cow;

use byteorder::ByteOrder;

use crate::decode::abi::{f, Abi, Endianness, HeaderLayout, TimeUnit, Variant, Width};
use crate::decode::bytes::{trim_nuls, ByteReader};
use crate::decode::payload::{call_argsize, csw, gio, need, unknown, user_with_id};
use crate::decode::rules::{Len, Rule, ANY, MAX_MIB, MAX_PATH, MAX_USER};
use crate::record::{Body, Kind, Psig, Ret};

/// The layout of a header of version `version` in `abi`.
pub(crate) fn layout(abi: &Abi, version: u16) -> Option<&'static HeaderLayout> {
    use Variant::*;
    use Width::*;
    Some(match (version, abi.width, abi.variant) {
        (0, W32, Standard | Time64) => &V0_ILP32,
        (1, W32, Standard | Time64) => &V1_ILP32,
        (2, W32, Standard) => &V2_I386,
        (2, W32, Time64) => &V2_ILP32_T64,
        (0, W64, Standard) => &V0_LP64,
        (1, W64, Standard) => &V1_LP64,
        (2, W64, Standard) => &V2_LP64,
        _ => return None,
    })
}

/// The header version of the record `b` begins: an int16 after the
/// int16 type on little-endian machines, before it on big-endian ones
/// (docs/dialects.md, "Headers"); `None` when `b` is too short.
#[inline]
pub(crate) fn header_version<B: ByteOrder>(abi: &Abi, b: &ByteReader<'_, B>) -> Option<u16> {
    b.u16(if abi.endianness == Endianness::Little {
        6
    } else {
        4
    })
}

/// The type of the header `b` (the other half of [`header_version`]'s
/// pair); no flags, no START record.
#[inline]
pub(crate) fn record_type<B: ByteOrder>(
    abi: &Abi,
    b: &ByteReader<'_, B>,
) -> Option<(u32, bool, bool)> {
    let off = if abi.endianness == Endianness::Little {
        4
    } else {
        6
    };
    Some((u32::from(b.u16(off)?), false, false))
}

/// The record types NetBSD defines (1..=15), as a bit mask.
pub(crate) const TYPES: u32 = 0xfffe;

/// The rule of record type `typ`; `None` for a type NetBSD does not define.
#[inline]
pub(crate) fn rule(abi: &Abi, typ: u32) -> Option<Rule> {
    let ws = abi.width.bytes();
    let r = |kind, len| Some(Rule { kind, len });
    match typ {
        1 => r(Kind::Call, Len::Argsize { mib: None }),
        2 => r(Kind::Ret, Len::Exact(8 + 2 * ws)),
        3 => r(Kind::Namei, Len::Text(0, MAX_PATH)),
        4 => r(Kind::Gio, Len::Range(8, ANY)),
        // An optional siginfo_t follows.
        5 => r(Kind::Psig, Len::Range(2 * ws + 20, 512)),
        6 => r(Kind::Csw, Len::Exact(8)),
        7 => r(Kind::Emul, Len::Text(1, 32)),
        // KTR_USER (kdump labels it MISC): a 20-byte id, then utrace data.
        8 => r(Kind::User, Len::Range(20, 20 + MAX_USER)),
        // MMSG, MOOL and SAU (historic Mach emulation and scheduler
        // activations) are kept undecoded.
        9 => r(Kind::Unknown, Len::Range(24, ANY)),
        10 => r(Kind::ExecArgs, Len::Range(0, ANY)),
        11 => r(Kind::ExecEnv, Len::Range(0, ANY)),
        12 => r(Kind::Unknown, Len::Range(2 * ws, ANY)),
        13 => r(Kind::Unknown, Len::Range(12 + 2 * ws, ANY)),
        14 => r(Kind::Mib, Len::Range(0, MAX_MIB * 2)),
        15 => r(Kind::ExecFd, Len::Exact(8)),
        _ => None,
    }
}

/// The payload of a record of type `typ` that keeps its rule.
#[inline]
pub(crate) fn decode<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: ByteReader<'a, B>) -> Body<'a> {
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

// Header layouts (docs/dialects.md, "Headers"). Field names follow sys/ktrace.h.

/// Header version 0, ILP32: 44 bytes, timeval, pointer junk [V].
const V0_ILP32: HeaderLayout = HeaderLayout {
    size: 44,
    len: f(0, 4),
    typ: f(4, 2), // LE offset; `record_type` swaps type/version for big-endian
    pid: f(8, 4),
    tid: None,
    comm: (12, 17),
    comm_max: 16,
    sec: f(32, 4),
    frac: f(36, 4),
    unit: TimeUnit::Micro,
    cpu: None,
};
/// Header version 1, ILP32: 44 bytes, 32-bit timespec, lid [S].
const V1_ILP32: HeaderLayout = HeaderLayout {
    tid: Some(f(40, 4)),
    unit: TimeUnit::Nano,
    ..V0_ILP32
};
/// Header version 2, i386: 48 bytes, 64-bit tv_sec [S].
const V2_I386: HeaderLayout = HeaderLayout {
    size: 48,
    sec: f(32, 8),
    frac: f(40, 4),
    tid: Some(f(44, 4)),
    unit: TimeUnit::Nano,
    ..V0_ILP32
};
/// Header version 2, ILP32 with 8-aligned int64: 56 bytes [U].
const V2_ILP32_T64: HeaderLayout = HeaderLayout {
    size: 56,
    tid: Some(f(48, 4)),
    ..V2_I386
};
/// Header version 0, LP64: 56 bytes [S].
const V0_LP64: HeaderLayout = HeaderLayout {
    size: 56,
    sec: f(32, 4),
    frac: f(40, 8),
    ..V0_ILP32
};
/// Header version 1, LP64: 56 bytes [S].
const V1_LP64: HeaderLayout = HeaderLayout {
    tid: Some(f(48, 4)),
    unit: TimeUnit::Nano,
    ..V0_LP64
};
/// Header version 2, LP64: 56 bytes [V].
const V2_LP64: HeaderLayout = HeaderLayout {
    sec: f(32, 8),
    ..V1_LP64
};
