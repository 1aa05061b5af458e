//! Header shapes (formats doc section 2) and record type codes (section 3)
//! per family, written out again independently of the decoder's tables.

use kt2sql::decode::{Abi, Family, Variant, Width};
use kt2sql::record::Body;

/// An integer header field: (offset, size).
pub type F = (usize, usize);

/// One header shape (formats doc section 2), independent of the decoder's.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub size: usize,
    pub len: F,
    /// Little-endian position for NetBSD; swapped with `version` on big-endian.
    pub typ: F,
    pub version: Option<F>,
    pub pid: F,
    pub tid: Option<F>,
    /// (offset, width) of the comm array.
    pub comm: (usize, usize),
    /// MAXCOMLEN: longest name the system keeps.
    pub comm_max: usize,
    pub sec: F,
    pub frac: F,
    /// timespec (ns) rather than timeval (µs).
    pub nanos: bool,
    pub cpu: Option<F>,
}

#[allow(clippy::too_many_arguments)]
#[rustfmt::skip]
const fn sh(size: usize, len: F, typ: F, pid: F, comm: (usize, usize), comm_max: usize,
            sec: F, frac: F, nanos: bool, tid: Option<F>) -> Shape {
    Shape { size, len, typ, version: None, pid, tid, comm, comm_max, sec, frac, nanos, cpu: None }
}

/// The header shape of a record with header `version` under `abi`.
#[rustfmt::skip]
pub fn shape(abi: &Abi, version: u8) -> Option<Shape> {
    use Family::*;
    use Variant::*;
    use Width::*;
    let (fam, w, var) = (abi.family, abi.width, abi.variant);
    let (l4, t2) = ((0, 4), (4, 2));
    let ver = Some((6, 2));
    // sh(size, len, type, pid, comm (off, width), MAXCOMLEN, tv_sec, tv_(u|n)sec, ns?, tid)
    Some(match (fam, version, w, var) {
        // 2.2 FreeBSD ktr_header_v0: comm 12/20, MAXCOMLEN 19, timeval, tid.
        (FreeBsd, 0, W32, Standard) => sh(44, l4, t2, (8, 4), (12, 20), 19, (32, 4), (36, 4), false, Some((40, 4))),
        (FreeBsd, 0, W64, Standard) => sh(56, l4, t2, (8, 4), (12, 20), 19, (32, 8), (40, 8), false, Some((48, 8))),
        (FreeBsd, 0, W32, Time64) => sh(56, l4, t2, (8, 4), (12, 20), 19, (32, 8), (40, 4), false, Some((48, 4))),
        // 2.3 FreeBSD versioned: version @6, timespec, tid, cpu.
        (FreeBsd, 1, W32, Standard) => Shape { version: ver, cpu: Some((44, 4)),
            ..sh(48, l4, t2, (8, 4), (12, 20), 19, (32, 4), (36, 4), true, Some((40, 4))) },
        (FreeBsd, 1, W64, Standard) => Shape { version: ver, cpu: Some((56, 4)),
            ..sh(64, l4, t2, (8, 4), (12, 20), 19, (32, 8), (40, 8), true, Some((48, 8))) },
        (FreeBsd, 1, W32, Time64) => Shape { version: ver, cpu: Some((52, 4)),
            ..sh(56, l4, t2, (8, 4), (12, 20), 19, (32, 8), (40, 4), true, Some((48, 4))) },
        // 2.4 NetBSD: comm 12/17, MAXCOMLEN 16; v0 no lid, v1/v2 lid.
        (NetBsd, 0, W32, Standard | Time64) => nb(sh(44, l4, t2, (8, 4), (12, 17), 16, (32, 4), (36, 4), false, None)),
        (NetBsd, 1, W32, Standard | Time64) => nb(sh(44, l4, t2, (8, 4), (12, 17), 16, (32, 4), (36, 4), true, Some((40, 4)))),
        (NetBsd, 2, W32, Standard) => nb(sh(48, l4, t2, (8, 4), (12, 17), 16, (32, 8), (40, 4), true, Some((44, 4)))),
        (NetBsd, 2, W32, Time64) => nb(sh(56, l4, t2, (8, 4), (12, 17), 16, (32, 8), (40, 4), true, Some((48, 4)))),
        (NetBsd, 0, W64, Standard) => nb(sh(56, l4, t2, (8, 4), (12, 17), 16, (32, 4), (40, 8), false, None)),
        (NetBsd, 1, W64, Standard) => nb(sh(56, l4, t2, (8, 4), (12, 17), 16, (32, 4), (40, 8), true, Some((48, 4)))),
        (NetBsd, 2, W64, Standard) => nb(sh(56, l4, t2, (8, 4), (12, 17), 16, (32, 8), (40, 8), true, Some((48, 4)))),
        // 2.6 OpenBSD type-first: type u32 @0, pid, tid, timespec, comm, size_t len last.
        (OpenBsd, 0, W64, Standard) => sh(64, (56, 8), (0, 4), (4, 4), (32, 24), 23, (16, 8), (24, 8), true, Some((8, 4))),
        (OpenBsd, 0, W32, Standard) => sh(52, (48, 4), (0, 4), (4, 4), (24, 24), 23, (12, 8), (20, 4), true, Some((8, 4))),
        (OpenBsd, 0, W32, Comm17) => sh(48, (44, 4), (0, 4), (4, 4), (24, 17), 16, (12, 8), (20, 4), true, Some((8, 4))),
        (OpenBsd, 0, W32, Time32) => sh(44, (40, 4), (0, 4), (4, 4), (20, 17), 16, (12, 4), (16, 4), true, Some((8, 4))),
        // 2.5 OpenBSD interim: size_t len, pid, comm, type after comm, timeval.
        (OpenBsdMid, 0, W32, Standard) => sh(40, (0, 4), (26, 2), (4, 4), (8, 17), 16, (28, 4), (32, 4), false, None),
        (OpenBsdMid, 0, W64, Standard) => sh(56, (0, 8), (30, 2), (8, 4), (12, 17), 16, (32, 8), (40, 8), false, None),
        // 2.1 classic 4.4BSD (Darwin, OpenBSD <= 3.9).
        (OpenBsdOld | Darwin, 0, W32, Standard) => sh(44, l4, t2, (8, 4), (12, 17), 16, (32, 4), (36, 4), false, None),
        (OpenBsdOld | Darwin, 0, W64, Standard) => sh(56, l4, t2, (8, 4), (12, 17), 16, (32, 8), (40, 8), false, None),
        _ => return None,
    })
}

fn nb(s: Shape) -> Shape {
    Shape {
        version: Some((6, 2)),
        ..s
    }
}

/// The header version a record is written with: its own where the family
/// has versions, else 0.
pub(super) fn header_version(abi: &Abi, v: u8) -> u8 {
    match abi.family {
        Family::FreeBsd if v <= 1 => v,
        Family::NetBsd if v <= 2 => v,
        Family::FreeBsd | Family::NetBsd => abi.version,
        _ => 0,
    }
}

/// Record type code of each body kind per family (formats doc section 3).
pub(super) fn type_code(fam: Family, body: &Body) -> Option<u32> {
    use Family::*;
    let obsd = matches!(fam, OpenBsd | OpenBsdMid | OpenBsdOld);
    Some(match body {
        Body::Start if fam == OpenBsd => 0,
        Body::Call(_) => 1,
        Body::Ret(_) => 2,
        Body::Namei(_) => 3,
        Body::Gio(_) => 4,
        Body::Psig(_) => 5,
        Body::Csw(_) => 6,
        Body::Emul(_) if fam == NetBsd || obsd => 7,
        Body::User(u) if u.id.is_none() && matches!(fam, FreeBsd | Darwin) => 7,
        Body::User(u) if u.id.is_some() && fam == NetBsd => 8,
        Body::User(u) if u.id.is_some() && obsd => 9,
        Body::Struct(s) if s.elem_size.is_none() && (fam == FreeBsd || obsd) => 8,
        Body::Struct(s) if s.elem_size.is_some() && fam == FreeBsd => 15,
        Body::Sysctl(_) if fam == FreeBsd => 9,
        Body::ProcCtor { .. } if fam == FreeBsd => 10,
        Body::ProcDtor if fam == FreeBsd => 11,
        Body::CapFail { .. } if fam == FreeBsd => 12,
        Body::Fault { .. } if fam == FreeBsd => 13,
        Body::FaultEnd { .. } if fam == FreeBsd => 14,
        Body::ExecArgs(_) if fam == FreeBsd => 16,
        Body::ExecEnv(_) if fam == FreeBsd => 17,
        Body::ExecArgs(_) if fam == NetBsd || obsd => 10,
        Body::ExecEnv(_) if fam == NetBsd || obsd => 11,
        Body::Mib(_) if fam == NetBsd => 14,
        Body::ExecFd { .. } if fam == NetBsd => 15,
        Body::Pledge { .. } if obsd => 12,
        Body::PinSyscall { .. } if obsd => 13,
        Body::Unknown { typ, .. } if !defines(fam, *typ) && fits_type(fam, *typ) => *typ,
        _ => return None,
    })
}

/// Whether `typ` (flags removed) is a record type the family decodes.
pub fn defines(fam: Family, typ: u32) -> bool {
    match fam {
        Family::FreeBsd => (1..=17).contains(&typ),
        Family::NetBsd => matches!(typ, 1..=8 | 10 | 11 | 14 | 15),
        Family::OpenBsd | Family::OpenBsdMid | Family::OpenBsdOld => (1..=13).contains(&typ),
        Family::Darwin => (1..=7).contains(&typ),
    }
}

/// Whether an undefined type code can be stored: below the FreeBSD flag
/// bits, in the 16-bit field of the older headers, never OpenBSD's START magic
/// (in either byte order).
fn fits_type(fam: Family, typ: u32) -> bool {
    match fam {
        Family::FreeBsd => typ < 0x4000,
        Family::OpenBsd => typ != 0x4b54_5200 && typ != 0x0052_544b,
        _ => typ <= 0xffff,
    }
}
