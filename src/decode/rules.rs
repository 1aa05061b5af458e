//! The rules a record must keep: the shape of a record type's rule (its
//! [`Kind`] and payload length rule, declared per family in `family/`),
//! the checks that apply them, and the header facts every real record has
//! (a pid, a time between 1970 and 2100). Detection ranks dialects by
//! them, the decoder refuses a record that breaks them (it is damage: not
//! imported, and resynchronisation starts from it), and the payload
//! decoder decodes only the types a family defines.
//!
//! Nothing here reads a header: `header.rs` does, and hands the fields over.

use byteorder::ByteOrder;

use super::abi::Abi;
use super::bytes::{dispatch, ByteReader};
use super::dialects;
use super::header::{RawHeader, MAX_PAYLOAD};
use crate::record::Kind;

/// 1970-01-01 in ns: a machine whose clock was never set (no RTC, no
/// NTP yet) still writes times from the epoch on, and its trace is real.
const MIN_TS: i64 = 0;
/// 2100-01-01 in ns.
const MAX_TS: i64 = 4_102_444_800_000_000_000;
/// Longest path a NAMI record holds (MAXPATHLEN is 1024; NetBSD may prefix
/// an emulation root).
pub(crate) const MAX_PATH: usize = 4096;
/// Longest utrace(2) payload (KTR_USER_MAXLEN).
pub(crate) const MAX_USER: usize = 2048;
/// Largest sysctl MIB a record holds (CTL_MAXNAME ints).
pub(crate) const MAX_MIB: usize = 4 * 12;
/// The bound of a payload whose length only the decoder's limit bounds.
pub(crate) const ANY: usize = MAX_PAYLOAD as usize;

/// What one record type's payload must look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rule {
    /// The kind its payload decodes to, which names it.
    pub kind: Kind,
    /// Its payload length rule.
    pub len: Len,
}

/// A payload length rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Len {
    /// Exactly this many bytes.
    Exact(usize),
    /// One of these lengths.
    OneOf(&'static [usize]),
    /// From `.0` to `.1` bytes.
    Range(usize, usize),
    /// FreeBSD/Darwin CALL: an int16 argument count at 2, then that many
    /// `slot`-byte arguments from `base`.
    Narg {
        /// Offset of the first argument.
        base: usize,
        /// Bytes per argument.
        slot: usize,
    },
    /// NetBSD/OpenBSD CALL: an int32 code at 0 and an int32 byte count at 4
    /// (a multiple of the word size), then the arguments; OpenBSD appends
    /// the MIB to a sysctl call (`mib`).
    Argsize {
        /// The sysctl syscall's number, where the family appends its MIB
        /// (up to [`MAX_MIB`] bytes) to its CALL.
        mib: Option<i32>,
    },
    /// Text of up to `.1` bytes (at least `.0`), with no NUL but trailing ones.
    Text(usize, usize),
    /// A NUL-terminated name from `.0` (within 64 bytes), then data.
    Named(usize),
}

/// The rule of record type `typ` in `abi`'s family; `None` for a type the
/// family does not define.
#[inline]
pub(crate) fn rule(abi: &Abi, typ: u32) -> Option<Rule> {
    dialects::rule(abi, typ)
}

/// The rules of one ABI's record types, looked up once per file: the
/// decoder asks for a record's rule three or four times (header, payload,
/// opaque, payload decoding), and the family's table is a `match` that
/// builds the rule each time. Every type a family defines is below 32
/// ([`defined`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Table {
    rules: [Option<Rule>; 32],
    /// [`max_len`] of each type (0 where undefined).
    max: [usize; 32],
    /// [`opaque`] as a bit mask.
    opaque: u32,
}

impl Table {
    /// The rules of `abi`'s record types.
    pub(crate) fn new(abi: &Abi) -> Table {
        let mut t = Table {
            rules: [None; 32],
            max: [0; 32],
            opaque: 0,
        };
        for typ in 0..32u32 {
            let i = typ as usize;
            t.rules[i] = rule(abi, typ);
            t.max[i] = max_len(abi, typ).unwrap_or(0);
            if opaque(abi, typ) {
                t.opaque |= 1 << typ;
            }
        }
        t
    }

    /// [`rule`].
    #[inline]
    pub(crate) fn rule(&self, typ: u32) -> Option<Rule> {
        self.rules.get(typ as usize).copied().flatten()
    }

    /// [`opaque`].
    #[inline]
    pub(crate) fn opaque(&self, typ: u32) -> bool {
        typ < 32 && self.opaque & (1 << typ) != 0
    }

    /// [`header`].
    #[inline]
    pub(crate) fn header(&self, abi: &Abi, h: &RawHeader) -> Option<Breach> {
        header_in(abi, h, |typ| self.rule(typ).map(|_| self.max[typ as usize]))
    }

    /// [`payload`].
    #[inline]
    pub(crate) fn payload(&self, abi: &Abi, typ: u32, p: &[u8]) -> Option<Breach> {
        dispatch!(abi.endianness, payload_in(abi, self.rule(typ), typ, p))
    }
}

/// Whether `abi`'s family defines record type `typ`: [`rule`] as a bit
/// mask, for a resynchronisation's first test at every byte.
#[inline(always)]
pub(crate) fn defined(abi: &Abi, typ: u32) -> bool {
    typ < 32 && abi.family.types() & (1 << typ) != 0
}

/// The name of record type `typ` in `abi`'s family, as damage messages
/// give it: the label of its kind.
pub(crate) fn label(abi: &Abi, typ: u32) -> &'static str {
    rule(abi, typ).map_or("?", |r| r.kind.label())
}

/// Whether record type `typ` is opaque: its rule allows a range of
/// lengths the payload itself does not pin (GIO data, USER, a struct), so
/// a wrong length can only be seen from the records it swallows.
pub(crate) fn opaque(abi: &Abi, typ: u32) -> bool {
    matches!(
        rule(abi, typ).map(|r| r.len),
        Some(Len::Range(_, hi)) if hi > 64
    ) || matches!(rule(abi, typ).map(|r| r.len), Some(Len::Named(_)))
}

/// The largest payload a record of type `typ` may have, if the type is
/// defined: checked before the payload is read, so a damaged length does
/// not make the decoder read (and buffer) megabytes first.
pub(crate) fn max_len(abi: &Abi, typ: u32) -> Option<usize> {
    let ws = abi.width.bytes();
    Some(match rule(abi, typ)?.len {
        Len::Exact(n) => n,
        Len::OneOf(l) => l.iter().copied().max().unwrap_or(0),
        Len::Range(_, hi) | Len::Text(_, hi) => hi,
        // An int16 count of slots; an int32 byte count; a name and data.
        Len::Narg { base, slot } => base + slot * i16::MAX as usize,
        Len::Argsize { .. } => MAX_PAYLOAD as usize,
        Len::Named(_) => MAX_PAYLOAD as usize + ws,
    })
}

/// How a record breaks its rules. Small and `Copy`: a resynchronisation
/// asks at every byte of a damaged stretch; the text is made only when
/// shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breach {
    /// An OpenBSD START record with a pid or a payload.
    Start,
    /// A type the family does not define.
    Undefined(u32, &'static str),
    /// A pid no process has.
    Pid(i64),
    /// A time before 1970 or after 2100.
    Time,
    /// A payload longer than its type allows.
    TooLong(&'static str, u64, usize),
    /// A payload length its rule does not allow: label, length, rule.
    Length(&'static str, usize, Want),
    /// A record whose length runs into the record found at this offset.
    Overlaps(&'static str, u64),
}

/// What a payload rule wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// This many bytes.
    Bytes(usize),
    /// One of these lengths.
    OneOf(&'static [usize]),
    /// From .0 to .1 bytes.
    Range(usize, usize),
    /// .0 bytes for .1 arguments.
    Args(usize, i64),
    /// .0 bytes for .1 bytes of arguments.
    Argsize(usize, i64),
    /// A non-negative argument count (or a word-aligned argument size).
    Count,
    /// Text with no NUL inside.
    NoNul,
    /// A NUL-terminated struct name.
    Name,
}

impl std::fmt::Display for Breach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Breach::Start => write!(f, "START record with a pid or payload"),
            Breach::Undefined(typ, sys) => write!(f, "record type {typ} is not defined by {sys}"),
            Breach::Pid(pid) => write!(f, "pid out of range ({pid})"),
            Breach::Time => write!(f, "timestamp outside 1970-2100"),
            Breach::TooLong(label, len, max) => {
                write!(f, "{label} payload of {len} bytes, at most {max} allowed")
            }
            Breach::Length(label, len, want) => {
                write!(f, "{label} payload of {len} bytes, its rule wants ")?;
                match want {
                    Want::Bytes(k) => write!(f, "{k} bytes"),
                    Want::OneOf(ks) => write!(f, "one of {ks:?} bytes"),
                    Want::Range(lo, hi) => write!(f, "{lo} to {hi} bytes"),
                    Want::Args(k, n) => write!(f, "{k} bytes for {n} arguments"),
                    Want::Argsize(k, n) => write!(f, "{k} bytes for {n} bytes of arguments"),
                    Want::Count => write!(f, "a valid argument count"),
                    Want::NoNul => write!(f, "text without a NUL inside"),
                    Want::Name => write!(f, "a NUL-terminated struct name"),
                }
            }
            Breach::Overlaps(label, at) => write!(
                f,
                "{label} record runs into the records that start at byte {at}"
            ),
        }
    }
}

/// Whether a record of process `pid` at `ts` (ns since the epoch) can be
/// real: a pid above 0 that fits an int32, a time between 1970 and 2100.
pub fn plausible(pid: i64, ts: i64) -> bool {
    pid > 0 && pid <= i64::from(i32::MAX) && (MIN_TS..MAX_TS).contains(&ts)
}

/// How the header `h` cannot be a real record of `abi`, or `None` if it
/// can (its payload is checked by [`payload`]).
#[inline]
pub(crate) fn header(abi: &Abi, h: &RawHeader) -> Option<Breach> {
    header_in(abi, h, |typ| max_len(abi, typ))
}

/// [`header`], with the largest payload of a type from `max_len`.
#[inline]
fn header_in(
    abi: &Abi,
    h: &RawHeader,
    max_len: impl FnOnce(u32) -> Option<usize>,
) -> Option<Breach> {
    if h.start {
        return (h.pid != -1 || h.len != 0).then_some(Breach::Start);
    }
    let Some(max) = max_len(h.typ) else {
        return Some(Breach::Undefined(h.typ, abi.system_name()));
    };
    if !plausible(h.pid, MIN_TS) {
        return Some(Breach::Pid(h.pid));
    }
    if !plausible(1, h.ts) {
        return Some(Breach::Time);
    }
    if h.len > max as u64 {
        return Some(Breach::TooLong(label(abi, h.typ), h.len, max));
    }
    None
}

/// How the payload `p` breaks the rule of record type `typ` (flag bits
/// removed) in `abi`'s family, or `None` if it keeps it.
#[inline]
pub fn payload(abi: &Abi, typ: u32, p: &[u8]) -> Option<Breach> {
    dispatch!(abi.endianness, payload_in(abi, rule(abi, typ), typ, p))
}

/// [`payload`], given the type's rule.
#[inline]
fn payload_in<B: ByteOrder>(abi: &Abi, rule: Option<Rule>, typ: u32, p: &[u8]) -> Option<Breach> {
    let Some(rule) = rule else {
        return Some(Breach::Undefined(typ, abi.system_name()));
    };
    let b = ByteReader::<B>::new(p);
    let n = p.len();
    let ws = abi.width.bytes();
    let want: Option<Want> = match rule.len {
        Len::Exact(k) => (n != k).then_some(Want::Bytes(k)),
        Len::OneOf(ks) => (!ks.contains(&n)).then_some(Want::OneOf(ks)),
        Len::Range(lo, hi) => (!(lo..=hi).contains(&n)).then_some(Want::Range(lo, hi)),
        Len::Narg { base, slot } => match b.i16(2) {
            Some(k) if k >= 0 => {
                let need = base + k as usize * slot;
                (n != need).then_some(Want::Args(need, k.into()))
            }
            _ => Some(Want::Count),
        },
        Len::Argsize { mib } => match (b.i32(0), b.i32(4)) {
            (Some(code), Some(a)) if a >= 0 && a as usize % ws == 0 => {
                let args = 8 + a as usize;
                let extra = n.wrapping_sub(args);
                let ok = n == args
                    || (mib == Some(code) && n > args && extra <= MAX_MIB && extra % 4 == 0);
                (!ok).then_some(Want::Argsize(args, a.into()))
            }
            _ => Some(Want::Count),
        },
        Len::Text(lo, hi) => {
            if !(lo..=hi).contains(&n) {
                Some(Want::Range(lo, hi))
            } else if super::bytes::trim_nuls(p).contains(&0) {
                Some(Want::NoNul)
            } else {
                None
            }
        }
        Len::Named(at) => {
            let name = p.get(at..).map(|s| &s[..s.len().min(64)]);
            match name.and_then(|s| s.iter().position(|&c| c == 0)) {
                Some(end) if p[at..at + end].iter().all(|&c| (0x20..0x7f).contains(&c)) => None,
                _ => Some(Want::Name),
            }
        }
    };
    want.map(|w| Breach::Length(rule.kind.label(), n, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mask_and_the_table_agree() {
        for abi in Abi::all() {
            let table = Table::new(&abi);
            for typ in 0..64 {
                assert_eq!(defined(&abi, typ), rule(&abi, typ).is_some(), "{abi} {typ}");
                assert_eq!(table.rule(typ), rule(&abi, typ), "{abi} {typ}");
                assert_eq!(table.opaque(typ), opaque(&abi, typ), "{abi} {typ}");
            }
        }
    }
}
