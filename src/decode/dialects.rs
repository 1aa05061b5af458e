//! The dialect registry: every system family the decoder reads, the
//! dialect names of `--dialect` and what each family's code is. Adding a
//! dialect means an entry here, its family's file under `family/` (header
//! layouts, where a header keeps its version and type, record rules,
//! payloads and the signs of a wrong reading) and, for a new numbering,
//! its name tables (`names/`); [`Abi::all`], parsing, display and the
//! usage text follow from [`DIALECTS`].
//!
//! Nothing here reads bytes or holds layout data.

use byteorder::ByteOrder;

use super::abi::{Abi, HeaderLayout};
use super::bytes::ByteReader;
use super::family::{darwin, freebsd, netbsd, openbsd};
use super::header::{plain_type, RawHeader};
use super::rules::Rule;
use crate::names::Numbering;
use crate::record::Body;

/// The system family: decides record types, payload layouts and name tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// FreeBSD, unversioned (v0) and versioned (v1) headers, mixed per record.
    FreeBsd,
    /// NetBSD, header versions 0, 1 and 2, decided per record.
    NetBsd,
    /// OpenBSD with the type-first header and the START record (~2011 on).
    OpenBsd,
    /// OpenBSD 4.0 … ~5.0 interim header (`size_t len` first, type after comm).
    OpenBsdMid,
    /// OpenBSD ≤ 3.9: the classic 4.4BSD header with OpenBSD payloads.
    OpenBsdOld,
    /// Darwin / Mac OS X ≤ 10.4: the classic 4.4BSD header, 64-bit argument slots.
    Darwin,
}

/// One name `--dialect` accepts before the byte order: a family and the
/// header version of its first record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// The name, e.g. `freebsd-v1`, `openbsd-mid`.
    pub name: &'static str,
    /// Its family.
    pub family: Family,
    /// Header version (FreeBSD 0/1, NetBSD 0/1/2; 0 elsewhere).
    pub version: u8,
}

const fn d(name: &'static str, family: Family, version: u8) -> Dialect {
    Dialect {
        name,
        family,
        version,
    }
}

/// Every dialect, in the order detection tries them.
pub const DIALECTS: &[Dialect] = &[
    d("freebsd-v0", Family::FreeBsd, 0),
    d("freebsd-v1", Family::FreeBsd, 1),
    d("netbsd-v0", Family::NetBsd, 0),
    d("netbsd-v1", Family::NetBsd, 1),
    d("netbsd-v2", Family::NetBsd, 2),
    d("openbsd", Family::OpenBsd, 0),
    d("openbsd-mid", Family::OpenBsdMid, 0),
    d("openbsd-old", Family::OpenBsdOld, 0),
    d("darwin", Family::Darwin, 0),
];

impl Family {
    /// Short system name: `freebsd`, `netbsd`, `openbsd`, `darwin`.
    pub fn system(self) -> &'static str {
        match self {
            Family::FreeBsd => "freebsd",
            Family::NetBsd => "netbsd",
            Family::OpenBsd | Family::OpenBsdMid | Family::OpenBsdOld => "openbsd",
            Family::Darwin => "darwin",
        }
    }

    /// The syscall/errno/signal name table of this family.
    pub fn name_table(self) -> Numbering {
        match self {
            Family::FreeBsd => Numbering::FreeBsd,
            Family::NetBsd => Numbering::NetBsd,
            Family::OpenBsd => Numbering::OpenBsd,
            Family::OpenBsdMid | Family::OpenBsdOld => Numbering::OpenBsdPre55,
            Family::Darwin => Numbering::Darwin,
        }
    }

    /// The record types this family defines, as a bit mask (bit `t` for
    /// type `t`): [`rule`] for a resynchronisation's first test at every
    /// byte.
    #[inline(always)]
    pub(crate) fn types(self) -> u32 {
        match self {
            Family::FreeBsd => freebsd::TYPES,
            Family::NetBsd => netbsd::TYPES,
            Family::OpenBsd => openbsd::TYPES,
            Family::OpenBsdMid | Family::OpenBsdOld => openbsd::TYPES_OLD,
            Family::Darwin => darwin::TYPES,
        }
    }
}

/// The layout of a header of version `version` in `abi`; `None` when the
/// family has no such header.
#[inline]
pub(crate) fn layout(abi: &Abi, version: u16) -> Option<&'static HeaderLayout> {
    match abi.family {
        Family::FreeBsd => freebsd::layout(abi, version),
        Family::NetBsd => netbsd::layout(abi, version),
        Family::OpenBsd | Family::OpenBsdMid | Family::OpenBsdOld => openbsd::layout(abi, version),
        Family::Darwin => darwin::layout(abi, version),
    }
}

/// The header version the record `b` begins says: `None` for a family
/// with one header shape (the version is not in the record), `Some(None)`
/// when `b` is too short to say.
#[inline]
pub(crate) fn header_version<B: ByteOrder>(
    abi: &Abi,
    b: &ByteReader<'_, B>,
) -> Option<Option<u16>> {
    match abi.family {
        Family::FreeBsd => Some(freebsd::header_version(b)),
        Family::NetBsd => Some(netbsd::header_version(abi, b)),
        Family::OpenBsd | Family::OpenBsdMid | Family::OpenBsdOld | Family::Darwin => None,
    }
}

/// The header `b`'s record type (flag bits removed), whether it is a
/// START record and whether events were dropped before it (KTR_DROP),
/// read with `layout`; `None` when `b` is too short.
#[inline]
pub(crate) fn record_type<B: ByteOrder>(
    abi: &Abi,
    layout: &HeaderLayout,
    b: &ByteReader<'_, B>,
) -> Option<(u32, bool, bool)> {
    match abi.family {
        Family::FreeBsd => freebsd::record_type(b),
        Family::NetBsd => netbsd::record_type(abi, b),
        Family::OpenBsd => openbsd::record_type(b),
        Family::OpenBsdMid | Family::OpenBsdOld | Family::Darwin => plain_type(layout, b),
    }
}

/// Signs that a record which keeps its rules was read with the wrong
/// dialect, particular to `abi`'s family (detection adds them to a fit's
/// cost); `first` says it opens the file.
pub(crate) fn doubts(abi: &Abi, h: &RawHeader, first: bool) -> u32 {
    match abi.family {
        Family::FreeBsd => freebsd::doubts(h),
        Family::OpenBsd => openbsd::doubts(first),
        Family::NetBsd | Family::OpenBsdMid | Family::OpenBsdOld | Family::Darwin => 0,
    }
}

/// The rule of record type `typ` in `abi`'s family; `None` for a type the
/// family does not define.
#[inline]
pub(crate) fn rule(abi: &Abi, typ: u32) -> Option<Rule> {
    match abi.family {
        Family::FreeBsd => freebsd::rule(abi, typ),
        Family::NetBsd => netbsd::rule(abi, typ),
        Family::OpenBsd | Family::OpenBsdMid | Family::OpenBsdOld => openbsd::rule(abi, typ),
        Family::Darwin => darwin::rule(abi, typ),
    }
}

/// The payload of a record of type `typ` that keeps its rule.
#[inline]
pub(crate) fn decode<'a, B: ByteOrder>(abi: &Abi, typ: u32, b: ByteReader<'a, B>) -> Body<'a> {
    match abi.family {
        Family::FreeBsd => freebsd::decode(abi, typ, b),
        Family::NetBsd => netbsd::decode(abi, typ, b),
        Family::OpenBsd => openbsd::decode_new(abi, typ, b),
        Family::OpenBsdMid | Family::OpenBsdOld => openbsd::decode_old(abi, typ, b),
        Family::Darwin => darwin::decode(abi, typ, b),
    }
}

/// The dialect names, space-separated, for usage texts.
pub fn names() -> String {
    DIALECTS
        .iter()
        .map(|d| d.name)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::super::payload;
    use super::super::rules::{self, Len};
    use super::*;

    /// The shortest payload `rule` allows, zeroed where it can be.
    fn keeping(rule: &Rule) -> Vec<u8> {
        match rule.len {
            Len::Exact(n) => vec![0; n],
            Len::OneOf(ks) => vec![0; ks[0]],
            Len::Range(lo, _) => vec![0; lo],
            // No arguments.
            Len::Narg { base, .. } => vec![0; base],
            Len::Argsize { .. } => vec![0; 8],
            Len::Text(lo, _) => vec![b'a'; lo],
            Len::Named(at) => {
                let mut p = vec![0; at];
                p.extend_from_slice(b"stat\0");
                p
            }
        }
    }

    #[test]
    fn every_rule_decodes_to_its_kind() {
        for abi in Abi::all() {
            for typ in 0..64 {
                let Some(rule) = rule(&abi, typ) else {
                    continue;
                };
                let p = keeping(&rule);
                assert_eq!(rules::payload(&abi, typ, &p), None, "{abi} type {typ}");
                let body = payload::decode(&abi, typ, &p);
                assert_eq!(body.kind(), rule.kind, "{abi} type {typ}: {body:?}");
            }
        }
    }

    #[test]
    fn damage_is_named_by_the_kind_the_type_decodes_to() {
        // NetBSD's KTR_USER (type 8) is a USER record, whatever kdump calls it.
        let abi: Abi = "netbsd-v2:le:64".parse().unwrap();
        let why = rules::payload(&abi, 8, &[0; 10]).unwrap().to_string();
        assert!(why.starts_with("USER payload of 10 bytes"), "{why}");
        let abi: Abi = "freebsd-v1:le:64".parse().unwrap();
        let why = rules::payload(&abi, 10, &[0; 3]).unwrap().to_string();
        assert!(why.starts_with("PROCCTOR payload of 3 bytes"), "{why}");
    }

    #[test]
    fn the_usage_names_every_dialect() {
        assert_eq!(
            super::super::abi::usage(),
            "expected LAYOUT:ORDER:BITS[:VARIANT], e.g. freebsd-v0:le:32 \
             (dialects: freebsd-v0 freebsd-v1 netbsd-v0 netbsd-v1 netbsd-v2 \
             openbsd openbsd-mid openbsd-old darwin; orders: le be; bits: 32 64; \
             variants: time64 comm17 time32)"
        );
    }

    #[test]
    fn every_abi_round_trips_through_its_name() {
        for abi in Abi::all() {
            let text = abi.to_string();
            assert_eq!(text.parse::<Abi>(), Ok(abi), "{text}");
        }
    }

    #[test]
    fn layouts_fit_their_header_size() {
        for abi in Abi::all() {
            for v in 0..=2 {
                let Some(l) = abi.layout(v) else { continue };
                let mut fields = vec![l.len, l.typ, l.pid, l.sec, l.frac];
                fields.extend(l.tid);
                fields.extend(l.cpu);
                for fld in fields {
                    assert!(fld.off + fld.size <= l.size, "{abi} v{v}: {fld:?}");
                }
                assert!(l.comm.0 + l.comm.1 <= l.size);
                assert!(l.comm_max < l.comm.1 || l.comm_max == l.comm.1 - 1);
            }
        }
    }

    #[test]
    fn verified_header_sizes() {
        let size = |s: &str| s.parse::<Abi>().unwrap().primary_layout().unwrap().size;
        assert_eq!(size("freebsd-v0:le:32"), 44);
        assert_eq!(size("freebsd-v0:le:64"), 56);
        assert_eq!(size("freebsd-v1:le:64"), 64);
        assert_eq!(size("netbsd-v0:le:32"), 44);
        assert_eq!(size("netbsd-v2:le:64"), 56);
        assert_eq!(size("openbsd:le:64"), 64);
        assert_eq!(size("darwin:be:32"), 44);
    }

    #[test]
    fn bad_names_are_explained() {
        let err = "freebsd-v7:le:32".parse::<Abi>().unwrap_err();
        assert!(err.contains("unknown dialect"), "{err}");
        assert!("openbsd:le:64:time32".parse::<Abi>().is_err());
    }
}
