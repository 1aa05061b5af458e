//! FreeBSD: its header layouts, record types and payloads (docs/dialects.md,
//! "Headers" and "Record types and payloads"), together so a type's rule and its decoding cannot
//! drift apart. FreeBSD mixes unversioned (v0) and versioned (v1) headers
//! record by record: the flag bits on the type say which one a record has.
//!
//! Nothing here reads a whole header (`header.rs` does, asking here for a
//! record's version and type) or knows another family.

use std::borrow::Cow;

use byteorder::ByteOrder;

use crate::decode::abi::{f, Abi, HeaderLayout, TimeUnit, Variant, Width};
use crate::decode::bytes::{trim_nuls, ByteReader};
use crate::decode::header::RawHeader;
use crate::decode::payload::{call, csw, gio, need, strukt, unknown};
use crate::decode::rules::{Len, Rule, ANY, MAX_PATH, MAX_USER};
use crate::record::{Body, Kind, Psig, Ret, User};

/// The layout of a header of version `version` in `abi`.
pub(crate) fn layout(abi: &Abi, version: u16) -> Option<&'static HeaderLayout> {
    use Variant::*;
    use Width::*;
    Some(match (version, abi.width, abi.variant) {
        (0, W32, Standard) => &V0_I386,
        (0, W64, Standard) => &V0_LP64,
        (0, W32, Time64) => &V0_ILP32_T64,
        (1, W32, Standard) => &V1_I386,
        (1, W64, Standard) => &V1_LP64,
        (1, W32, Time64) => &V1_ILP32_T64,
        _ => return None,
    })
}

/// `KTR_DROP`, on the type: events were dropped before this record.
const DROP: u16 = 0x8000;
/// `KTR_VERSIONED`, on the type: the record has a versioned header, its
/// version after the type.
const VERSIONED: u16 = 0x4000;

/// The header version of the record `b` begins: 0 unless the type says
/// it is versioned; `None` when `b` is too short to say.
#[inline]
pub(crate) fn header_version<B: ByteOrder>(b: &ByteReader<'_, B>) -> Option<u16> {
    let t = b.u16(4)?;
    if t & VERSIONED == 0 {
        Some(0)
    } else {
        b.u16(6)
    }
}

/// The type of the header `b` without its flag bits, no START record, and
/// whether `KTR_DROP` is set (the type sits at 4 in every version).
#[inline]
pub(crate) fn record_type<B: ByteOrder>(b: &ByteReader<'_, B>) -> Option<(u32, bool, bool)> {
    let t = b.u16(4)?;
    Some((u32::from(t & !(DROP | VERSIONED)), false, t & DROP != 0))
}

/// A wrong reading's sign: FreeBSD's thread ids start at 100000.
pub(crate) fn doubts(h: &RawHeader) -> u32 {
    u32::from(h.tid.is_some_and(|t| t < 100_000))
}

/// The record types FreeBSD defines (1..=17), as a bit mask.
pub(crate) const TYPES: u32 = 0x3_fffe;

/// The rule of record type `typ`; `None` for a type FreeBSD does not define.
#[inline]
pub(crate) fn rule(abi: &Abi, typ: u32) -> Option<Rule> {
    let ws = abi.width.bytes();
    let r = |kind, len| Some(Rule { kind, len });
    match typ {
        1 => r(
            Kind::Call,
            Len::Narg {
                base: if abi.width == Width::W64 { 8 } else { 4 },
                slot: ws,
            },
        ),
        2 => r(Kind::Ret, Len::Exact(8 + ws)),
        3 => r(Kind::Namei, Len::Text(0, MAX_PATH)),
        4 => r(Kind::Gio, Len::Range(8, ANY)),
        5 => r(Kind::Psig, Len::Exact(if ws == 8 { 40 } else { 28 })),
        6 => r(Kind::Csw, Len::OneOf(&[8, 16])),
        7 => r(Kind::User, Len::Range(0, MAX_USER)),
        8 => r(Kind::Struct, Len::Named(0)),
        9 => r(Kind::Sysctl, Len::Text(1, MAX_PATH)),
        10 => r(Kind::ProcCtor, Len::Exact(4)),
        11 => r(Kind::ProcDtor, Len::Exact(0)),
        12 => r(Kind::CapFail, Len::Range(4, MAX_PATH)),
        13 => r(Kind::Fault, Len::Range(ws + 4, 16)),
        14 => r(Kind::FaultEnd, Len::Exact(4)),
        // KTR_STRUCT_ARRAY: the element size, then a struct.
        15 => r(Kind::Struct, Len::Named(ws)),
        16 => r(Kind::ExecArgs, Len::Range(0, ANY)),
        17 => r(Kind::ExecEnv, Len::Range(0, ANY)),
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

// Header layouts (docs/dialects.md, "Headers"). Field names follow sys/ktrace.h.

/// `ktr_header_v0`, i386: 44 bytes [V].
const V0_I386: HeaderLayout = HeaderLayout {
    size: 44,
    len: f(0, 4),
    typ: f(4, 2),
    pid: f(8, 4),
    tid: Some(f(40, 4)),
    comm: (12, 20),
    comm_max: 19,
    sec: f(32, 4),
    frac: f(36, 4),
    unit: TimeUnit::Micro,
    cpu: None,
};
/// `ktr_header_v0`, LP64: 56 bytes [V].
const V0_LP64: HeaderLayout = HeaderLayout {
    size: 56,
    sec: f(32, 8),
    frac: f(40, 8),
    tid: Some(f(48, 8)),
    ..V0_I386
};
/// `ktr_header_v0`, ILP32 with 64-bit time_t: 56 bytes [U].
const V0_ILP32_T64: HeaderLayout = HeaderLayout {
    size: 56,
    sec: f(32, 8),
    frac: f(40, 4),
    tid: Some(f(48, 4)),
    ..V0_I386
};
/// Versioned header (version 1), i386: 48 bytes [S].
const V1_I386: HeaderLayout = HeaderLayout {
    size: 48,
    unit: TimeUnit::Nano,
    cpu: Some(f(44, 4)),
    ..V0_I386
};
/// Versioned header (version 1), LP64: 64 bytes [V].
const V1_LP64: HeaderLayout = HeaderLayout {
    size: 64,
    unit: TimeUnit::Nano,
    cpu: Some(f(56, 4)),
    ..V0_LP64
};
/// Versioned header (version 1), ILP32 with 64-bit time_t: 56 bytes [U].
const V1_ILP32_T64: HeaderLayout = HeaderLayout {
    size: 56,
    unit: TimeUnit::Nano,
    cpu: Some(f(52, 4)),
    ..V0_ILP32_T64
};
