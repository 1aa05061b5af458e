//! Dialect detection (formats doc section 5): walk the first records of the
//! file under every ABI kt2sql knows, count how many payloads break their
//! type's rules, and take the ABI that fits best. A walk whose lengths stop
//! chaining before the sample ends costs more than any rule. No fit, or a
//! tie for the best, is an error naming the candidates.

use super::abi::{Abi, Family, Width};
use byteorder::ByteOrder;

use super::bytes::{dispatch, Reader};
use super::error::DecodeErrorKind;
use super::header::{self, RawHeader, SELECT_BYTES};

/// Bytes of the file detection looks at.
pub const SAMPLE_BYTES: usize = 256 << 10;
/// Records detection walks at most.
const SAMPLE_RECORDS: usize = 512;
/// Records without a violation after which a broken chain is damage, not
/// a sign of the wrong dialect.
const TRUSTED_RUN: usize = 16;
/// Cost of a walk that stops chaining before the end of the sample.
const BROKEN: u32 = 8;

/// How well one ABI fits the sample.
#[derive(Debug, Clone)]
pub struct Fit {
    /// The ABI, with the header version of the first record.
    pub abi: Abi,
    /// Records walked.
    pub records: usize,
    /// Rule violations (plus the cost of a broken chain).
    pub cost: u32,
    /// Why the walk stopped early, if it did.
    pub broken: Option<String>,
    /// Bit v set: a record with header version v was read.
    versions: u8,
}

impl Fit {
    /// Two fits read the sample identically: same family, order and width,
    /// and the same layouts for every header version the sample contained.
    fn same_reading(&self, other: &Fit) -> bool {
        let (a, b) = (&self.abi, &other.abi);
        a.family == b.family
            && a.endianness == b.endianness
            && a.width == b.width
            && self.versions == other.versions
            && (0..8u16)
                .filter(|v| self.versions & (1 << v) != 0)
                .all(|v| a.layout(v) == b.layout(v))
    }
}

/// Decide the ABI of a file from its first bytes. `at_eof` says the sample
/// is the whole file (so a partial last record means truncation).
pub fn detect(sample: &[u8], at_eof: bool) -> Result<Fit, DecodeErrorKind> {
    if sample.is_empty() {
        return Err(DecodeErrorKind::Empty);
    }
    let fits = rank(sample, at_eof);
    let Some(best) = fits.first().cloned() else {
        return Err(DecodeErrorKind::Unrecognized(
            "no known dialect reads a single record from the start of the file".into(),
        ));
    };
    let ties: Vec<String> = fits
        .iter()
        .filter(|f| f.cost == best.cost && f.records == best.records)
        .filter(|f| std::ptr::eq(*f, &fits[0]) || !f.same_reading(&best))
        .map(|f| f.abi.to_string())
        .collect();
    if ties.len() > 1 {
        return Err(DecodeErrorKind::Ambiguous(format!(
            "{} fit its first {} records equally well ({} rule violations each)",
            ties.join(", "),
            best.records,
            best.cost
        )));
    }
    if best.cost >= BROKEN && best.records < 3 {
        return Err(DecodeErrorKind::Unrecognized(format!(
            "the best candidate, {}, reads only {} record(s): {}",
            best.abi,
            best.records,
            best.broken.as_deref().unwrap_or("too many rule violations")
        )));
    }
    Ok(best)
}

/// Every ABI that reads at least one record of the sample, best first
/// (fewest violations, then most records; a stable sort keeps the standard
/// variant ahead of an identical reading).
pub fn rank(sample: &[u8], at_eof: bool) -> Vec<Fit> {
    let mut fits: Vec<Fit> = candidates()
        .into_iter()
        .filter_map(|abi| walk(abi, sample, at_eof))
        .collect();
    // A reading that explains many records with few violations beats one
    // that reads a record or two, whatever damage ends the longer walk;
    // trusted readings rank by their rate of violations, then length.
    fits.sort_by_key(|f| {
        let trusted = f.records >= TRUSTED_RUN && f.cost as usize * 8 <= f.records;
        let rate = f.cost as usize * 1024 / f.records.max(1);
        if trusted {
            (0, rate, std::cmp::Reverse(f.records))
        } else {
            (1, f.cost as usize, std::cmp::Reverse(f.records))
        }
    });
    fits
}

/// Every ABI with version 0: the version is read from the file.
fn candidates() -> Vec<Abi> {
    Abi::all().into_iter().filter(|a| a.version == 0).collect()
}

fn walk(mut abi: Abi, sample: &[u8], at_eof: bool) -> Option<Fit> {
    let mut pos = 0usize;
    let mut records = 0usize;
    let mut cost = 0u32;
    let mut broken = None;
    let mut versions = 0u8;
    while pos < sample.len() && records < SAMPLE_RECORDS {
        let w = &sample[pos..];
        let step = header::select(&abi, w).and_then(|(layout, version)| {
            if records == 0 {
                abi.version = version;
            }
            let h = header::read(&abi, layout, version, w)?;
            let end = layout.size as u64 + h.len;
            Ok((h, end))
        });
        match step {
            Ok((h, end)) if end as usize <= w.len() => {
                cost += violations(&abi, &h, w, records == 0);
                versions |= 1 << h.version.min(7);
                records += 1;
                pos += end as usize;
            }
            Ok(_) | Err(DecodeErrorKind::Truncated { .. }) if !at_eof => break,
            Ok(_) | Err(DecodeErrorKind::Truncated { .. }) => {
                cost += 1;
                broken = Some("the file ends inside a record".into());
                break;
            }
            // Damage after a believable start is the importer's business.
            Err(_) if records >= TRUSTED_RUN => break,
            Err(e) => {
                cost += BROKEN;
                broken = Some(e.to_string());
                break;
            }
        }
    }
    if w_too_short(sample, pos) && records == 0 {
        return None;
    }
    (records > 0).then_some(Fit {
        abi,
        records,
        cost,
        broken,
        versions,
    })
}

fn w_too_short(sample: &[u8], pos: usize) -> bool {
    sample.len() - pos < SELECT_BYTES
}

/// Rule violations of one record under `abi`.
fn violations(abi: &Abi, h: &RawHeader, w: &[u8], first: bool) -> u32 {
    dispatch!(abi.endianness, violations_in(abi, h, w, first))
}

fn violations_in<B: ByteOrder>(abi: &Abi, h: &RawHeader, w: &[u8], first: bool) -> u32 {
    let p = &w[h.layout.size..h.layout.size + h.len as usize];
    let mut v = 0;
    if h.start {
        return u32::from(h.pid != -1 || h.len != 0);
    }
    if abi.family == Family::OpenBsd && first {
        v += 2; // kdump refuses an OpenBSD file that does not begin with START
    }
    if h.pid <= 0 || h.pid > i64::from(i32::MAX) {
        v += 1;
    }
    // Control bytes mean a wrong reading; high bytes may be a Latin-1 or
    // UTF-8 name, so they are not held against it.
    if w[h.comm.clone()].iter().any(|&c| c < 0x20 || c == 0x7f) {
        v += 1;
    }
    if !plausible_time(h) {
        v += 1;
    }
    let b = Reader::<B>::new(p);
    let ws = abi.width.bytes();
    let len = p.len();
    let argsize_ok = || {
        b.i32(4)
            .is_some_and(|a| a >= 0 && a as usize % ws == 0 && len == 8 + a as usize)
    };
    let ok = match (abi.family, h.typ) {
        (Family::FreeBsd, 1) => {
            let argoff = if abi.width == Width::W64 { 8 } else { 4 };
            b.i16(2)
                .is_some_and(|n| n >= 0 && len == argoff + n as usize * ws)
        }
        (Family::FreeBsd, 2) => len == 8 + ws,
        (Family::FreeBsd, 9) => p.last() == Some(&0),
        (Family::FreeBsd, 10) => len == 4,
        (Family::FreeBsd, 11) => len == 0,
        (Family::FreeBsd, 3..=8 | 12..=17) => true,
        (Family::NetBsd, 1) => argsize_ok(),
        (Family::NetBsd, 2) => len == 8 + 2 * ws,
        (Family::NetBsd, 7) => len > 0 && len <= 32,
        (Family::NetBsd, 3..=6 | 8..=15) => true,
        (Family::OpenBsd, 1) => b
            .i32(4)
            .is_some_and(|a| a >= 0 && a as usize % ws == 0 && len >= 8 + a as usize),
        (Family::OpenBsd, 2) => len == 8 || len == 8 + ws || len == 16,
        (Family::OpenBsd, 3..=13) => true,
        (Family::OpenBsdMid | Family::OpenBsdOld, 1) => argsize_ok(),
        (Family::OpenBsdMid | Family::OpenBsdOld, 2) => len == 12,
        (Family::OpenBsdMid | Family::OpenBsdOld, 3..=9) => true,
        (Family::Darwin, 1) => b
            .i16(2)
            .is_some_and(|n| n >= 0 && len == 4 + 8 * n as usize),
        (Family::Darwin, 2) => len == 12,
        (Family::Darwin, 5) => len == 16,
        (Family::Darwin, 6) => len == 8,
        (Family::Darwin, 3 | 4 | 7) => true,
        _ => {
            v += 2; // a type this family does not define
            true
        }
    };
    if !ok {
        v += 1;
    }
    if abi.family == Family::FreeBsd && h.tid.is_some_and(|t| t < 100_000) {
        v += 1;
    }
    if h.typ == 3 && p.is_empty() {
        v += 1;
    }
    v
}

/// Seconds between 1980 and 2100, sub-second part below one second.
fn plausible_time(h: &RawHeader) -> bool {
    const LO: i64 = 315_532_800_000_000_000; // 1980-01-01
    const HI: i64 = 4_102_444_800_000_000_000; // 2100-01-01
    (LO..HI).contains(&h.ts) && h.frac_ok
}
