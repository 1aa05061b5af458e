//! The ABI of a trace file: which system wrote it (dialect family), its byte
//! order, its register width and, where a system had several header shapes
//! for one width, which one; and the shape of a header layout. The layouts
//! themselves are data in each family's file under `family/` (docs/dialects.md,
//! "Headers"), found through the registry in `dialects.rs`, which also
//! holds the dialect names that parsing and display use here.
//!
//! Nothing here reads bytes; `header.rs` applies a layout to a buffer.

use std::fmt;
use std::str::FromStr;

use super::dialects::{self, DIALECTS};
use crate::names::Numbering;

pub use super::dialects::Family;
pub use crate::record::Width;

/// Byte order of the writing kernel (there is no marker in the file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endianness {
    /// Little-endian (i386, amd64, Intel Macs).
    Little,
    /// Big-endian (PowerPC Macs, sparc64, …).
    Big,
}

impl Endianness {
    /// Each byte order with its name in a dialect string.
    const ALL: [(Endianness, &'static str); 2] =
        [(Endianness::Little, "le"), (Endianness::Big, "be")];

    /// `le` or `be`, as in a dialect string.
    pub fn name(self) -> &'static str {
        match self {
            Endianness::Little => Self::ALL[0].1,
            Endianness::Big => Self::ALL[1].1,
        }
    }
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

impl Variant {
    /// Every variant with its name in a dialect string (none for `Standard`).
    const ALL: [(Variant, &'static str); 4] = [
        (Variant::Standard, "standard"),
        (Variant::Time64, "time64"),
        (Variant::Comm17, "comm17"),
        (Variant::Time32, "time32"),
    ];
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

/// A [`Field`] at `off`, `size` bytes wide (for the layout tables).
pub(crate) const fn f(off: usize, size: usize) -> Field {
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
        dialects::layout(self, version)
    }

    /// The layout every record of this file is tried with first.
    #[inline]
    pub fn primary_layout(&self) -> Option<&'static HeaderLayout> {
        self.layout(u16::from(self.version))
    }

    /// Whether this combination of family, version, width and variant exists.
    pub fn is_valid(&self) -> bool {
        self.dialect().is_some() && self.primary_layout().is_some()
    }

    /// Whether headers of this ABI carry a thread id, in some header
    /// version (NetBSD's v0 has none, its later versions do).
    pub fn has_tid(&self) -> bool {
        (0..=2).any(|v| self.layout(v).is_some_and(|l| l.tid.is_some()))
    }

    /// The syscall/errno/signal name table for this family.
    pub fn name_table(&self) -> Numbering {
        self.family.name_table()
    }

    /// Every ABI the decoder knows, for detection and tests: each dialect
    /// of the registry in each byte order, width and variant it has.
    pub fn all() -> Vec<Abi> {
        let mut out = Vec::new();
        for d in DIALECTS {
            for (endianness, _) in Endianness::ALL {
                for width in [Width::W32, Width::W64] {
                    for (variant, _) in Variant::ALL {
                        let abi = Abi {
                            family: d.family,
                            version: d.version,
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
        out
    }

    /// The registry entry of this family and header version.
    fn dialect(&self) -> Option<&'static dialects::Dialect> {
        DIALECTS
            .iter()
            .find(|d| d.family == self.family && d.version == self.version)
    }

    /// The dialect name without order and width, naming the header layout
    /// of the first record: `freebsd-v1`, `openbsd-mid`, `darwin`, …
    pub fn layout_name(&self) -> &'static str {
        self.dialect().map_or("unknown", |d| d.name)
    }

    /// Short system name: `freebsd`, `netbsd`, `openbsd`, `darwin`.
    pub fn system_name(&self) -> &'static str {
        self.family.system()
    }
}

/// `LAYOUT:ORDER:BITS[:VARIANT]`, e.g. `freebsd-v0:le:32`, `netbsd-v2:be:32:time64`.
impl fmt::Display for Abi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.layout_name();
        let order = self.endianness.name();
        write!(f, "{name}:{order}:{}", self.width.bits())?;
        match Variant::ALL.iter().find(|(v, _)| *v == self.variant) {
            Some((Variant::Standard, _)) | None => Ok(()),
            Some((_, v)) => write!(f, ":{v}"),
        }
    }
}

/// What a dialect string looks like, with every name the registry knows.
pub fn usage() -> String {
    let orders: Vec<&str> = Endianness::ALL.iter().map(|(_, n)| *n).collect();
    let variants: Vec<&str> = Variant::ALL[1..].iter().map(|(_, n)| *n).collect();
    format!(
        "expected LAYOUT:ORDER:BITS[:VARIANT], e.g. freebsd-v0:le:32 \
         (dialects: {}; orders: {}; bits: 32 64; variants: {})",
        dialects::names(),
        orders.join(" "),
        variants.join(" ")
    )
}

impl FromStr for Abi {
    type Err = String;

    fn from_str(s: &str) -> Result<Abi, String> {
        let usage = usage();
        let parts: Vec<&str> = s.split(':').collect();
        if parts.len() < 3 || parts.len() > 4 {
            return Err(format!("invalid dialect '{s}': {usage}"));
        }
        let Some(d) = DIALECTS.iter().find(|d| d.name == parts[0]) else {
            return Err(format!("unknown dialect '{}': {usage}", parts[0]));
        };
        let Some(&(endianness, _)) = Endianness::ALL.iter().find(|(_, n)| *n == parts[1]) else {
            return Err(format!("unknown byte order '{}': {usage}", parts[1]));
        };
        let width = match parts[2] {
            "32" => Width::W32,
            "64" => Width::W64,
            other => return Err(format!("unknown word size '{other}': {usage}")),
        };
        let variant = match parts.get(3) {
            None => Variant::Standard,
            Some(name) => match Variant::ALL.iter().find(|(_, n)| n == name) {
                Some(&(v, _)) => v,
                None => return Err(format!("unknown variant '{name}': {usage}")),
            },
        };
        let abi = Abi {
            family: d.family,
            version: d.version,
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
