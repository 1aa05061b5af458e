//! The ABI of a trace file: which system wrote it (dialect family), its byte
//! order, its register width and, where a system had several header shapes
//! for one width, which one. Owns the header layouts as data: one
//! [`HeaderLayout`] table per (family, header version, width, variant),
//! following the offset tables of `shared/docs/ktrace-formats.md` section 2.
//!
//! Nothing here reads bytes; `header.rs` applies a layout to a buffer.

use std::fmt;
use std::str::FromStr;

use crate::tables::NameTable;

/// Byte order of the writing kernel (there is no marker in the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endianness {
    /// Little-endian (i386, amd64, Intel Macs).
    Little,
    /// Big-endian (PowerPC Macs, sparc64, …).
    Big,
}

/// Size of `register_t`/`long` in the writing kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Width {
    /// ILP32: 4-byte words.
    W32,
    /// LP64: 8-byte words.
    W64,
}

impl Width {
    /// Bytes per word.
    pub fn bytes(self) -> usize {
        match self {
            Width::W32 => 4,
            Width::W64 => 8,
        }
    }
    /// Bits per word.
    pub fn bits(self) -> u32 {
        self.bytes() as u32 * 8
    }
}

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

/// Header shape within a family and width, where one width had several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// The shape of the common ports (i386 for 32-bit, amd64 for 64-bit).
    Standard,
    /// ILP32 ports with a 64-bit, 8-aligned `time_t` (armv7, powerpc) [U].
    Time64,
    /// OpenBSD i386 type-first header with a 17-byte comm (48 bytes) [U].
    Comm17,
    /// OpenBSD i386 type-first header with a 32-bit `time_t` (44 bytes) [U].
    Time32,
}

/// Everything needed to decode a file: detected, or given with `--dialect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Abi {
    /// System family.
    pub family: Family,
    /// Header version of the first record (FreeBSD 0/1, NetBSD 0/1/2; 0 elsewhere).
    /// Records are still decoded by their own version.
    pub version: u8,
    /// Byte order.
    pub endianness: Endianness,
    /// Register width.
    pub width: Width,
    /// Header shape within the family and width.
    pub variant: Variant,
}

/// Where and how wide one integer header field is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// Byte offset within the header.
    pub off: usize,
    /// Size in bytes: 2, 4 or 8.
    pub size: usize,
}

const fn f(off: usize, size: usize) -> Field {
    Field { off, size }
}

/// Unit of the sub-second part of the header timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// `struct timeval`: microseconds.
    Micro,
    /// `struct timespec`: nanoseconds.
    Nano,
}

/// The byte layout of one record header (`struct ktr_header` of one era).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderLayout {
    /// Total header size; the payload starts right after it.
    pub size: usize,
    /// `ktr_len`: payload length.
    pub len: Field,
    /// `ktr_type`.
    pub typ: Field,
    /// `ktr_pid`.
    pub pid: Field,
    /// `ktr_tid` / `ktr_lid`, where the header has a real thread id.
    pub tid: Option<Field>,
    /// `ktr_comm`: offset and width of the array.
    pub comm: (usize, usize),
    /// Longest meaningful command name (MAXCOMLEN of that system).
    pub comm_max: usize,
    /// `tv_sec`.
    pub sec: Field,
    /// `tv_usec` / `tv_nsec`.
    pub frac: Field,
    /// Unit of `frac`.
    pub unit: TimeUnit,
    /// `ktr_cpu` (FreeBSD v1 only).
    pub cpu: Option<Field>,
}

impl Abi {
    /// The layout of a record with header version `version` (ignored by
    /// families with a single header shape). `None` when this ABI has no
    /// header of that version.
    #[inline]
    pub fn layout(&self, version: u16) -> Option<&'static HeaderLayout> {
        use Family::*;
        use Variant::*;
        use Width::*;
        let l = match (self.family, version, self.width, self.variant) {
            (FreeBsd, 0, W32, Standard) => &FBSD_V0_I386,
            (FreeBsd, 0, W64, Standard) => &FBSD_V0_LP64,
            (FreeBsd, 0, W32, Time64) => &FBSD_V0_ILP32_T64,
            (FreeBsd, 1, W32, Standard) => &FBSD_V1_I386,
            (FreeBsd, 1, W64, Standard) => &FBSD_V1_LP64,
            (FreeBsd, 1, W32, Time64) => &FBSD_V1_ILP32_T64,
            (NetBsd, 0, W32, Standard | Time64) => &NBSD_V0_ILP32,
            (NetBsd, 1, W32, Standard | Time64) => &NBSD_V1_ILP32,
            (NetBsd, 2, W32, Standard) => &NBSD_V2_I386,
            (NetBsd, 2, W32, Time64) => &NBSD_V2_ILP32_T64,
            (NetBsd, 0, W64, Standard) => &NBSD_V0_LP64,
            (NetBsd, 1, W64, Standard) => &NBSD_V1_LP64,
            (NetBsd, 2, W64, Standard) => &NBSD_V2_LP64,
            (OpenBsd, _, W64, Standard) => &OBSD_NEW_LP64,
            (OpenBsd, _, W32, Standard) => &OBSD_NEW_I386,
            (OpenBsd, _, W32, Comm17) => &OBSD_NEW_I386_COMM17,
            (OpenBsd, _, W32, Time32) => &OBSD_NEW_I386_T32,
            (OpenBsdMid, _, W32, Standard) => &OBSD_MID_I386,
            (OpenBsdMid, _, W64, Standard) => &OBSD_MID_LP64,
            (OpenBsdOld | Darwin, _, W32, Standard) => &BSD44_ILP32,
            (OpenBsdOld | Darwin, _, W64, Standard) => &BSD44_LP64,
            _ => return None,
        };
        Some(l)
    }

    /// The layout every record of this file is tried with first.
    #[inline]
    pub fn primary_layout(&self) -> Option<&'static HeaderLayout> {
        self.layout(u16::from(self.version))
    }

    /// Whether this combination of family, version, width and variant exists.
    pub fn is_valid(&self) -> bool {
        self.primary_layout().is_some()
            && match self.family {
                Family::FreeBsd => self.version <= 1,
                Family::NetBsd => self.version <= 2,
                _ => self.version == 0,
            }
    }

    /// Whether headers of this family carry a thread id.
    pub fn has_tid(&self) -> bool {
        self.primary_layout().is_some_and(|l| l.tid.is_some()) || self.family == Family::NetBsd
    }

    /// The syscall/errno/signal name table for this family.
    pub fn name_table(&self) -> NameTable {
        match self.family {
            Family::FreeBsd => NameTable::FreeBsd,
            Family::NetBsd => NameTable::NetBsd,
            Family::OpenBsd => NameTable::OpenBsd,
            Family::OpenBsdMid | Family::OpenBsdOld => NameTable::OpenBsdPre55,
            Family::Darwin => NameTable::Darwin,
        }
    }

    /// Every ABI the decoder knows, for detection and tests.
    pub fn all() -> Vec<Abi> {
        let mut out = Vec::new();
        let shapes: &[(Family, &[u8])] = &[
            (Family::FreeBsd, &[0, 1]),
            (Family::NetBsd, &[0, 1, 2]),
            (Family::OpenBsd, &[0]),
            (Family::OpenBsdMid, &[0]),
            (Family::OpenBsdOld, &[0]),
            (Family::Darwin, &[0]),
        ];
        for &(family, versions) in shapes {
            for &version in versions {
                for endianness in [Endianness::Little, Endianness::Big] {
                    for width in [Width::W32, Width::W64] {
                        for variant in [
                            Variant::Standard,
                            Variant::Time64,
                            Variant::Comm17,
                            Variant::Time32,
                        ] {
                            let abi = Abi {
                                family,
                                version,
                                endianness,
                                width,
                                variant,
                            };
                            if abi.is_valid() {
                                out.push(abi);
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The dialect name without order and width: `freebsd-v1`, `darwin`, …
    pub fn dialect_name(&self) -> String {
        match self.family {
            Family::FreeBsd => format!("freebsd-v{}", self.version),
            Family::NetBsd => format!("netbsd-v{}", self.version),
            Family::OpenBsd => "openbsd".into(),
            Family::OpenBsdMid => "openbsd-mid".into(),
            Family::OpenBsdOld => "openbsd-old".into(),
            Family::Darwin => "darwin".into(),
        }
    }

    /// Short system name: `freebsd`, `netbsd`, `openbsd`, `darwin`.
    pub fn system_name(&self) -> &'static str {
        match self.family {
            Family::FreeBsd => "freebsd",
            Family::NetBsd => "netbsd",
            Family::OpenBsd | Family::OpenBsdMid | Family::OpenBsdOld => "openbsd",
            Family::Darwin => "darwin",
        }
    }
}

/// `LAYOUT:ORDER:BITS[:VARIANT]`, e.g. `freebsd-v0:le:32`, `netbsd-v2:be:32:time64`.
impl fmt::Display for Abi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let order = match self.endianness {
            Endianness::Little => "le",
            Endianness::Big => "be",
        };
        write!(f, "{}:{}:{}", self.dialect_name(), order, self.width.bits())?;
        match self.variant {
            Variant::Standard => Ok(()),
            Variant::Time64 => write!(f, ":time64"),
            Variant::Comm17 => write!(f, ":comm17"),
            Variant::Time32 => write!(f, ":time32"),
        }
    }
}

impl FromStr for Abi {
    type Err = String;

    fn from_str(s: &str) -> Result<Abi, String> {
        let usage = "expected LAYOUT:ORDER:BITS[:VARIANT], e.g. freebsd-v0:le:32 \
                     (dialects: freebsd-v0 freebsd-v1 netbsd-v0 netbsd-v1 netbsd-v2 \
                     openbsd openbsd-mid openbsd-old darwin; orders: le be; bits: 32 64; \
                     variants: time64 comm17 time32)";
        let parts: Vec<&str> = s.split(':').collect();
        if parts.len() < 3 || parts.len() > 4 {
            return Err(format!("invalid dialect '{s}': {usage}"));
        }
        let (family, version) = match parts[0] {
            "freebsd-v0" => (Family::FreeBsd, 0),
            "freebsd-v1" => (Family::FreeBsd, 1),
            "netbsd-v0" => (Family::NetBsd, 0),
            "netbsd-v1" => (Family::NetBsd, 1),
            "netbsd-v2" => (Family::NetBsd, 2),
            "openbsd" => (Family::OpenBsd, 0),
            "openbsd-mid" => (Family::OpenBsdMid, 0),
            "openbsd-old" => (Family::OpenBsdOld, 0),
            "darwin" => (Family::Darwin, 0),
            other => return Err(format!("unknown dialect '{other}': {usage}")),
        };
        let endianness = match parts[1] {
            "le" => Endianness::Little,
            "be" => Endianness::Big,
            other => return Err(format!("unknown byte order '{other}': {usage}")),
        };
        let width = match parts[2] {
            "32" => Width::W32,
            "64" => Width::W64,
            other => return Err(format!("unknown word size '{other}': {usage}")),
        };
        let variant = match parts.get(3).copied() {
            None | Some("standard") => Variant::Standard,
            Some("time64") => Variant::Time64,
            Some("comm17") => Variant::Comm17,
            Some("time32") => Variant::Time32,
            Some(other) => return Err(format!("unknown variant '{other}': {usage}")),
        };
        let abi = Abi {
            family,
            version,
            endianness,
            width,
            variant,
        };
        if abi.is_valid() {
            Ok(abi)
        } else {
            Err(format!(
                "'{s}' names no header layout kt2sql knows: {usage}"
            ))
        }
    }
}

// ---------------------------------------------------------------------------
// Layout tables (formats doc section 2). Field names follow sys/ktrace.h.

/// FreeBSD `ktr_header_v0`, i386: 44 bytes [V].
const FBSD_V0_I386: HeaderLayout = HeaderLayout {
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
/// FreeBSD `ktr_header_v0`, LP64: 56 bytes [V].
const FBSD_V0_LP64: HeaderLayout = HeaderLayout {
    size: 56,
    sec: f(32, 8),
    frac: f(40, 8),
    tid: Some(f(48, 8)),
    ..FBSD_V0_I386
};
/// FreeBSD `ktr_header_v0`, ILP32 with 64-bit time_t: 56 bytes [U].
const FBSD_V0_ILP32_T64: HeaderLayout = HeaderLayout {
    size: 56,
    sec: f(32, 8),
    frac: f(40, 4),
    tid: Some(f(48, 4)),
    ..FBSD_V0_I386
};
/// FreeBSD versioned header (version 1), i386: 48 bytes [S].
const FBSD_V1_I386: HeaderLayout = HeaderLayout {
    size: 48,
    unit: TimeUnit::Nano,
    cpu: Some(f(44, 4)),
    ..FBSD_V0_I386
};
/// FreeBSD versioned header (version 1), LP64: 64 bytes [V].
const FBSD_V1_LP64: HeaderLayout = HeaderLayout {
    size: 64,
    unit: TimeUnit::Nano,
    cpu: Some(f(56, 4)),
    ..FBSD_V0_LP64
};
/// FreeBSD versioned header (version 1), ILP32 with 64-bit time_t: 56 bytes [U].
const FBSD_V1_ILP32_T64: HeaderLayout = HeaderLayout {
    size: 56,
    unit: TimeUnit::Nano,
    cpu: Some(f(52, 4)),
    ..FBSD_V0_ILP32_T64
};

/// NetBSD header version 0, ILP32: 44 bytes, timeval, pointer junk [V].
const NBSD_V0_ILP32: HeaderLayout = HeaderLayout {
    size: 44,
    len: f(0, 4),
    typ: f(4, 2), // LE offset; header.rs swaps type/version for big-endian
    pid: f(8, 4),
    tid: None,
    comm: (12, 17),
    comm_max: 16,
    sec: f(32, 4),
    frac: f(36, 4),
    unit: TimeUnit::Micro,
    cpu: None,
};
/// NetBSD header version 1, ILP32: 44 bytes, 32-bit timespec, lid [S].
const NBSD_V1_ILP32: HeaderLayout = HeaderLayout {
    tid: Some(f(40, 4)),
    unit: TimeUnit::Nano,
    ..NBSD_V0_ILP32
};
/// NetBSD header version 2, i386: 48 bytes, 64-bit tv_sec [S].
const NBSD_V2_I386: HeaderLayout = HeaderLayout {
    size: 48,
    sec: f(32, 8),
    frac: f(40, 4),
    tid: Some(f(44, 4)),
    unit: TimeUnit::Nano,
    ..NBSD_V0_ILP32
};
/// NetBSD header version 2, ILP32 with 8-aligned int64: 56 bytes [U].
const NBSD_V2_ILP32_T64: HeaderLayout = HeaderLayout {
    size: 56,
    tid: Some(f(48, 4)),
    ..NBSD_V2_I386
};
/// NetBSD header version 0, LP64: 56 bytes [S].
const NBSD_V0_LP64: HeaderLayout = HeaderLayout {
    size: 56,
    sec: f(32, 4),
    frac: f(40, 8),
    ..NBSD_V0_ILP32
};
/// NetBSD header version 1, LP64: 56 bytes [S].
const NBSD_V1_LP64: HeaderLayout = HeaderLayout {
    tid: Some(f(48, 4)),
    unit: TimeUnit::Nano,
    ..NBSD_V0_LP64
};
/// NetBSD header version 2, LP64: 56 bytes [V].
const NBSD_V2_LP64: HeaderLayout = HeaderLayout {
    sec: f(32, 8),
    ..NBSD_V1_LP64
};

/// OpenBSD type-first header, amd64: 64 bytes [V].
const OBSD_NEW_LP64: HeaderLayout = HeaderLayout {
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
/// OpenBSD type-first header, i386, 64-bit time_t, 24-byte comm: 52 bytes [U].
const OBSD_NEW_I386: HeaderLayout = HeaderLayout {
    size: 52,
    sec: f(12, 8),
    frac: f(20, 4),
    comm: (24, 24),
    len: f(48, 4),
    ..OBSD_NEW_LP64
};
/// OpenBSD type-first header, i386, 64-bit time_t, 17-byte comm: 48 bytes [U].
const OBSD_NEW_I386_COMM17: HeaderLayout = HeaderLayout {
    size: 48,
    comm: (24, 17),
    comm_max: 16,
    len: f(44, 4),
    ..OBSD_NEW_I386
};
/// OpenBSD type-first header, i386, 32-bit time_t: 44 bytes [U].
const OBSD_NEW_I386_T32: HeaderLayout = HeaderLayout {
    size: 44,
    sec: f(12, 4),
    frac: f(16, 4),
    comm: (20, 17),
    comm_max: 16,
    len: f(40, 4),
    ..OBSD_NEW_I386
};

/// OpenBSD 4.0 … ~5.0 interim header, i386: 40 bytes [U].
const OBSD_MID_I386: HeaderLayout = HeaderLayout {
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
/// OpenBSD 4.0 … ~5.0 interim header, amd64: 56 bytes [U].
const OBSD_MID_LP64: HeaderLayout = HeaderLayout {
    size: 56,
    len: f(0, 8),
    pid: f(8, 4),
    comm: (12, 17),
    typ: f(30, 2),
    sec: f(32, 8),
    frac: f(40, 8),
    ..OBSD_MID_I386
};

/// Classic 4.4BSD header (Darwin ≤ 10.4, OpenBSD ≤ 3.9), ILP32: 44 bytes [V].
const BSD44_ILP32: HeaderLayout = HeaderLayout {
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
const BSD44_LP64: HeaderLayout = HeaderLayout {
    size: 56,
    sec: f(32, 8),
    frac: f(40, 8),
    ..BSD44_ILP32
};

#[cfg(test)]
mod tests {
    use super::*;

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
