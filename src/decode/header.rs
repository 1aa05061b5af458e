//! Record headers: choose the layout of one record (per record, since
//! FreeBSD mixes v0/v1 and NetBSD versions are per process) and read its
//! fields into a [`RawHeader`]. Where a family keeps a record's version,
//! its type and the flag bits on it is the family's (`family/`, through
//! the registry in `dialects.rs`); nothing here names a family.

use super::abi::{Abi, HeaderLayout, TimeUnit};
use byteorder::ByteOrder;

use super::bytes::{cut_nul, dispatch, ByteReader};
use super::dialects;
use super::error::DecodeErrorKind;

/// Bytes needed before the layout of a record can be chosen.
pub(crate) const SELECT_BYTES: usize = 8;

/// Largest payload accepted. No kernel writes records anywhere near this
/// (GIO is cut to a page, USER to 2 KiB); a larger length is corruption,
/// and refusing it bounds memory.
pub(crate) const MAX_PAYLOAD: u64 = 64 << 20; // "the 64 MiB limit" in `read`

/// One record header, decoded.
#[derive(Debug, Clone)]
pub(crate) struct RawHeader {
    /// Layout it was read with.
    pub(crate) layout: &'static HeaderLayout,
    /// Header version of this record.
    pub(crate) version: u8,
    /// Payload length.
    pub(crate) len: u64,
    /// Record type, flag bits removed.
    pub(crate) typ: u32,
    /// OpenBSD START record.
    pub(crate) start: bool,
    /// FreeBSD KTR_DROP.
    pub(crate) dropped: bool,
    /// Process id.
    pub(crate) pid: i64,
    /// Thread id (`None` when the header has none or holds a kernel pointer).
    pub(crate) tid: Option<i64>,
    /// Where the command name lies in the header, cut at NUL and at the
    /// system's MAXCOMLEN.
    pub(crate) comm: std::ops::Range<usize>,
    /// ns since the epoch.
    pub(crate) ts: i64,
    /// FreeBSD v1 CPU.
    pub(crate) cpu: Option<i32>,
    /// The sub-second field is below one second (a detection hint).
    pub(crate) frac_ok: bool,
}

/// The header layouts of one ABI by version (0, 1, 2), looked up once per
/// file instead of once per record.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layouts([Option<&'static HeaderLayout>; 3]);

impl Layouts {
    /// The layouts `abi` has.
    pub(crate) fn new(abi: &Abi) -> Self {
        Layouts([0, 1, 2].map(|v| abi.layout(v)))
    }

    /// The layout of header version `version`, if the ABI has one.
    #[inline]
    pub(crate) fn get(&self, version: u16) -> Option<&'static HeaderLayout> {
        self.0.get(usize::from(version)).copied().flatten()
    }
}

/// Choose the layout for the record starting at `w[0]` (needs SELECT_BYTES).
pub(crate) fn select(abi: &Abi, w: &[u8]) -> Result<(&'static HeaderLayout, u8), DecodeErrorKind> {
    select_with(abi, &Layouts::new(abi), w)
}

/// [`select`] with the ABI's layouts looked up already.
#[inline]
pub(crate) fn select_with(
    abi: &Abi,
    layouts: &Layouts,
    w: &[u8],
) -> Result<(&'static HeaderLayout, u8), DecodeErrorKind> {
    dispatch!(abi.endianness, select_in(abi, layouts, w))
}

#[inline]
fn select_in<B: ByteOrder>(
    abi: &Abi,
    layouts: &Layouts,
    w: &[u8],
) -> Result<(&'static HeaderLayout, u8), DecodeErrorKind> {
    let b = ByteReader::<B>::new(w);
    // Too short to choose a layout: say how long the header would be.
    let short = || DecodeErrorKind::Truncated {
        what: "record header",
        need: abi.primary_layout().map_or(SELECT_BYTES, |l| l.size) as u64,
        have: w.len() as u64,
    };
    let version = match dialects::header_version(abi, &b) {
        Some(version) => version.ok_or_else(short)?,
        // One header shape: the version is not in the record.
        None => return layouts.get(0).map(|l| (l, 0)).ok_or_else(short),
    };
    match layouts.get(version) {
        Some(l) => Ok((l, version as u8)),
        None => Err(DecodeErrorKind::BadVersion {
            family: abi.system_name(),
            version,
        }),
    }
}

/// Read the header at `w[0]` (needs `layout.size` bytes).
#[inline]
pub(crate) fn read(
    abi: &Abi,
    layout: &'static HeaderLayout,
    version: u8,
    w: &[u8],
) -> Result<RawHeader, DecodeErrorKind> {
    dispatch!(abi.endianness, read_in(abi, layout, version, w))
}

#[inline]
fn read_in<B: ByteOrder>(
    abi: &Abi,
    layout: &'static HeaderLayout,
    version: u8,
    w: &[u8],
) -> Result<RawHeader, DecodeErrorKind> {
    let short = || DecodeErrorKind::Truncated {
        what: "record header",
        need: layout.size as u64,
        have: w.len() as u64,
    };
    let Some(w) = w.get(..layout.size) else {
        return Err(short());
    };
    let b = ByteReader::<B>::new(w);
    let len = if layout.len.size == 8 {
        b.u64(layout.len.off).ok_or_else(short)?
    } else {
        let l = b.i32(layout.len.off).ok_or_else(short)?;
        if l < 0 {
            return Err(DecodeErrorKind::BadLength {
                len: l.into(),
                why: "negative",
            });
        }
        l as u64
    };
    if len > MAX_PAYLOAD {
        return Err(DecodeErrorKind::BadLength {
            len: len.into(),
            why: "larger than the 64 MiB limit",
        });
    }
    let (typ, start, dropped) = dialects::record_type(abi, layout, &b).ok_or_else(short)?;
    let pid = b.signed(layout.pid).ok_or_else(short)?;
    let tid = match layout.tid {
        Some(fld) => b.signed(fld).filter(|&t| t > 0),
        None => None,
    };
    let (coff, cwidth) = layout.comm;
    let comm = coff..coff + cut_nul(&w[coff..coff + cwidth.min(layout.comm_max)]).len();
    let sec = b.signed(layout.sec).ok_or_else(short)?;
    let frac = b.signed(layout.frac).ok_or_else(short)?;
    let (scale, limit) = match layout.unit {
        TimeUnit::Micro => (1_000, 1_000_000),
        TimeUnit::Nano => (1, 1_000_000_000),
    };
    let ts = sec
        .saturating_mul(1_000_000_000)
        .saturating_add(frac.saturating_mul(scale));
    let cpu = layout.cpu.and_then(|fld| b.i32(fld.off));
    Ok(RawHeader {
        layout,
        version,
        len,
        typ,
        start,
        dropped,
        pid,
        tid,
        comm,
        ts,
        cpu,
        frac_ok: (0..limit).contains(&frac),
    })
}

/// The type of the record at `w[0]` (flags removed) and whether it is a
/// START record, read with the ABI's first layout: a cheap first test
/// for a resynchronisation, which asks at every byte of a damaged stretch.
#[inline]
pub(crate) fn peek_type(abi: &Abi, layouts: &Layouts, w: &[u8]) -> Option<(u32, bool)> {
    let layout = layouts.get(0)?;
    let (typ, start, _) = dispatch!(abi.endianness, peek_in(abi, layout, w))?;
    Some((typ, start))
}

#[inline]
fn peek_in<B: ByteOrder>(abi: &Abi, layout: &HeaderLayout, w: &[u8]) -> Option<(u32, bool, bool)> {
    dialects::record_type(abi, layout, &ByteReader::<B>::new(w))
}

/// The type of the header `b` at the place `layout` gives it: where a
/// family keeps no flags on it and has no START record.
#[inline]
pub(crate) fn plain_type<B: ByteOrder>(
    layout: &HeaderLayout,
    b: &ByteReader<'_, B>,
) -> Option<(u32, bool, bool)> {
    Some((b.unsigned(layout.typ)? as u32, false, false))
}
