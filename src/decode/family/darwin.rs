//! Darwin / Mac OS X ≤ 10.4: its header layout (the classic 4.4BSD header,
//! which OpenBSD ≤ 3.9 shares), record types and payloads (docs/dialects.md,
//! "Headers" and "Record types and payloads"), together so a type's rule and its decoding cannot
//! drift apart.
//!
//! Nothing here reads a header or knows another family.

use std::borrow::Cow;

use byteorder::ByteOrder;

use crate::decode::abi::{f, Abi, HeaderLayout, TimeUnit, Variant, Width};
use crate::decode::bytes::{trim_nuls, ByteReader};
use crate::decode::payload::{call, csw, gio, need, ret44, unknown};
use crate::decode::rules::{Len, Rule, ANY, MAX_PATH, MAX_USER};
use crate::record::{Body, Kind, Psig, User};

/// The layout of `abi`'s header (one shape per width).
pub(crate) fn layout(abi: &Abi, _version: u16) -> Option<&'static HeaderLayout> {
    match (abi.width, abi.variant) {
        (Width::W32, Variant::Standard) => Some(&BSD44_ILP32),
        (Width::W64, Variant::Standard) => Some(&BSD44_LP64),
        _ => None,
    }
}

/// The record types Darwin defines (1..=7), as a bit mask.
pub(crate) const TYPES: u32 = 0xfe;

/// The rule of record type `typ`; `None` for a type Darwin does not define.
#[inline]
pub(crate) fn rule(abi: &Abi, typ: u32) -> Option<Rule> {
    let ws = abi.width.bytes();
    let r = |kind, len| Some(Rule { kind, len });
    match typ {
        1 => r(Kind::Call, Len::Narg { base: 4, slot: 8 }),
        2 => r(Kind::Ret, Len::Exact(12)),
        3 => r(Kind::Namei, Len::Text(0, MAX_PATH)),
        4 => r(Kind::Gio, Len::Range(8, ANY)),
        5 => r(Kind::Psig, Len::Exact(12 + ws)),
        6 => r(Kind::Csw, Len::Exact(8)),
        7 => r(Kind::User, Len::Range(0, MAX_USER)),
        _ => None,
    }
}

/// The payload of a record of type `typ` that keeps its rule: 4.4BSD
/// payloads, but CALL arguments in 64-bit slots.
#[inline]
pub(crate) fn decode<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: ByteReader<'a, B>) -> Body<'a> {
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

// Header layouts (docs/dialects.md, "Headers"). Field names follow sys/ktrace.h.

/// Classic 4.4BSD header (Darwin ≤ 10.4, OpenBSD ≤ 3.9), ILP32: 44 bytes [V].
pub(crate) const BSD44_ILP32: HeaderLayout = HeaderLayout {
    size: 44,
    len: f(0, 4),
    typ: f(4, 2),
    pid: f(8, 4),
    tid: None,
    comm: (12, 17),
    comm_max: 16,
    sec: f(32, 4),
    frac: f(36, 4),
    unit: TimeUnit::Micro,
    cpu: None,
};
/// Classic 4.4BSD header, LP64: 56 bytes [U].
pub(crate) const BSD44_LP64: HeaderLayout = HeaderLayout {
    size: 56,
    sec: f(32, 8),
    frac: f(40, 8),
    ..BSD44_ILP32
};
