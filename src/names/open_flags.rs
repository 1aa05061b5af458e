//! The `open(2)` flag bits that decide what an open does to its path, per
//! system, transcribed from each system's `sys/fcntl.h` (the macros and
//! values as written there; no other bits are used):
//!
//! - FreeBSD: github.com/freebsd/freebsd-src commit
//!   0069e95e9bc656bc22e6bb3e4a71f0286e800676, path sys/sys/fcntl.h
//! - NetBSD: github.com/NetBSD/src commit
//!   009c6754091fe0e6fefb1599795801b8218d21e7, path sys/sys/fcntl.h
//!   (`$NetBSD: fcntl.h,v 1.41`)
//! - OpenBSD: github.com/openbsd/src commit
//!   29295d1c5caf158d3a732746704292e9a80a32d2, path sys/sys/fcntl.h
//!   (`$OpenBSD: fcntl.h,v 1.9`; the values predate 5.5 and never changed,
//!   so both OpenBSD name tables use them)
//! - Darwin: github.com/apple/darwin-xnu commit
//!   03489ce2d43b52365417fc58e9329fe27aa3a178, path bsd/sys/fcntl.h
//!
//! All four inherit 4.4BSD's values for these bits, so the table holds
//! the same numbers four times; it is kept per system so that a system
//! that differs (Linux's O_CREAT is 0100) would be one more entry, not a
//! rule to rewrite.

use super::Numbering;

/// The flag bits of one system's `open(2)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFlags {
    /// `O_ACCMODE`: the mask of the access mode (`O_RDONLY` 0 when clear).
    pub accmode: u64,
    /// `O_WRONLY`.
    pub wronly: u64,
    /// `O_RDWR`.
    pub rdwr: u64,
    /// `O_CREAT`: create if nonexistent.
    pub creat: u64,
    /// `O_TRUNC`: truncate to zero length.
    pub trunc: u64,
}

/// `#define O_ACCMODE 0x0003`, `O_WRONLY 0x0001`, `O_RDWR 0x0002`,
/// `O_CREAT 0x0200`, `O_TRUNC 0x0400` in FreeBSD's, OpenBSD's and Darwin's
/// fcntl.h; NetBSD writes the same values with eight digits.
const BSD44: OpenFlags = OpenFlags {
    accmode: 0x0003,
    wronly: 0x0001,
    rdwr: 0x0002,
    creat: 0x0200,
    trunc: 0x0400,
};

/// The open flags of the system whose names `table` holds.
pub fn open_flags(table: Numbering) -> OpenFlags {
    match table {
        Numbering::FreeBsd => BSD44,
        Numbering::NetBsd => BSD44,
        Numbering::OpenBsd | Numbering::OpenBsdPre55 => BSD44,
        Numbering::Darwin => BSD44,
    }
}
