//! Record payloads: the entry point, and the decoding of the kinds whose
//! layout several families share (docs/dialects.md, "Record types and payloads"); each family's
//! own table of payloads is in its file under `family/`, beside the rules
//! of its record types. The decoder hands over only records that keep
//! their rules, and a type the family does not define is `Body::Unknown`. A payload still too short for its kind's fixed part
//! (never, for a checked record) becomes `Body::Unknown` with its bytes
//! kept, so no input can make decoding panic.

use std::borrow::Cow;

use super::abi::{Abi, Width};
use byteorder::ByteOrder;

use super::bytes::{cut_nul, dispatch, ByteReader};
use super::{dialects, rules};
use crate::record::{Body, Call, Csw, Gio, IoDir, Ret, Struct, User, MAX_ARGS};

/// Decode a payload of record type `typ` (flags removed; START handled by the caller).
#[inline]
pub(crate) fn decode<'a>(abi: &Abi, typ: u32, p: &'a [u8]) -> Body<'a> {
    dispatch!(abi.endianness, decode_in(abi, typ, p))
}

#[inline]
fn decode_in<'a, B: ByteOrder>(abi: &Abi, typ: u32, p: &'a [u8]) -> Body<'a> {
    let b = ByteReader::<B>::new(p);
    if !rules::defined(abi, typ) {
        return unknown(typ, b);
    }
    dialects::decode(abi, typ, b)
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
pub(crate) use need;

/// A payload kept undecoded: a type the family does not define, or one too
/// short for its kind.
#[inline]
pub(crate) fn unknown<'a, B>(typ: u32, b: ByteReader<'a, B>) -> Body<'a> {
    Body::Unknown {
        typ,
        data: Cow::Borrowed(b.b),
    }
}

/// A CALL whose arguments are every whole `slot`-sized word from `argoff`
/// (at most `limit` bytes of them); the rest goes to `extra`.
/// Always inlined: CALL is the commonest record, and a call here returned
/// its 128-byte `Call` through memory that was copied again at once.
#[inline(always)]
pub(crate) fn call<'a, B: ByteOrder>(
    b: ByteReader<'a, B>,
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
        *a = ByteReader::<B>::new(c).word(0, w).unwrap_or(0);
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
pub(crate) fn call_argsize<B: ByteOrder>(b: ByteReader<'_, B>, w: Width) -> Option<Call<'_>> {
    let argsize = usize::try_from(b.i32(4)?).unwrap_or(0);
    call(b, b.i32(0)?, 8, argsize, w.bytes(), w)
}

/// 4.4BSD SYSRET: int16 code, int16 eosys (garbage on Darwin), int error, int retval.
#[inline]
pub(crate) fn ret44<B: ByteOrder>(b: ByteReader<'_, B>) -> Option<Ret> {
    Some(Ret {
        code: i32::from(b.i16(0)?),
        error: b.i32(4)?,
        retval: i64::from(b.i32(8)?),
        retval2: None,
    })
}

#[inline]
pub(crate) fn gio<B: ByteOrder>(b: ByteReader<'_, B>) -> Option<Gio<'_>> {
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
pub(crate) fn csw<B: ByteOrder>(b: ByteReader<'_, B>, with_wmesg: bool) -> Option<Csw<'_>> {
    Some(Csw {
        out: b.i32(0)? != 0,
        user: b.i32(4)? != 0,
        wmesg: with_wmesg.then(|| Cow::Borrowed(cut_nul(b.rest(8)))),
    })
}

#[inline]
pub(crate) fn strukt(p: &[u8], elem_size: Option<u64>) -> Body<'_> {
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
pub(crate) fn user_with_id<B: ByteOrder>(b: ByteReader<'_, B>) -> Option<User<'_>> {
    let id = b.b.get(..20)?;
    Some(User {
        id: Some(Cow::Borrowed(cut_nul(id))),
        data: Cow::Borrowed(b.rest(20)),
    })
}
