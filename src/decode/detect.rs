//! Dialect detection (docs/dialects.md, "How a dialect is detected"): walk the first records of the
//! file under every ABI kt2sql knows, chaining records by their lengths.
//! A record that breaks its type's rules ([`super::rules`]) breaks the
//! chain, and the walk resumes at the next chain further on, so the fit is
//! made of chains starting at several offsets (the start, after a damaged
//! record, later in the file): one bad record, a zeroed block or a
//! zero-filled tail does not decide the dialect. Soft signs of a wrong
//! reading (control bytes in a command name, …) add to a fit's cost. The
//! ABI that fits best wins; no fit, or a tie for the best, is an error
//! naming the candidates and how far each chained.

use super::abi::Abi;
use super::dialects;
use super::error::DecodeErrorKind;
use super::header::{self, Layouts, RawHeader};
use super::rules;

/// Bytes of the file detection looks at.
pub const SAMPLE_BYTES: usize = 256 << 10;
/// Records detection walks at most.
const SAMPLE_RECORDS: usize = 512;
/// Records without a violation after which a broken chain is damage, not
/// a sign of the wrong dialect.
const TRUSTED_RUN: usize = 16;
/// Cost of a record that breaks the chain.
const BROKEN: u32 = 8;

/// How well one ABI fits the sample.
#[derive(Debug, Clone)]
pub struct Fit {
    /// The ABI, with the header version of the first record.
    pub abi: Abi,
    /// Records that kept their rules.
    pub records: usize,
    /// Soft violations, plus [`BROKEN`] for each record that broke the chain.
    pub cost: u32,
    /// Why the first chain broke, if it did.
    pub broken: Option<String>,
    /// Bit v set: a record with header version v was read.
    versions: u8,
    /// Records of each chain walked, in file order.
    pub chains: Vec<usize>,
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
        let tried: Vec<String> = fits.iter().take(3).map(Fit::describe).collect();
        return Err(DecodeErrorKind::Unrecognized(format!(
            "the best candidates chain only a few records: {}",
            tried.join("; ")
        )));
    }
    Ok(best)
}

/// Whether more bytes could change what [`detect`] says of `sample`, the
/// start of a file still being written (`dump -l`): it is empty, or some
/// dialect reads it from the start without a broken record up to its end
/// (where a record is cut short or none has begun yet), within the bytes
/// and records detection looks at. Bytes that break every dialect's first
/// records stay no trace however many follow.
pub fn wants_more(sample: &[u8]) -> bool {
    sample.is_empty()
        || (sample.len() < SAMPLE_BYTES
            && candidates().iter().any(|abi| reads_to_the_end(abi, sample)))
}

/// `abi` reads `sample` from its start to its end, its last record cut
/// short or ending there, within [`SAMPLE_RECORDS`].
fn reads_to_the_end(abi: &Abi, sample: &[u8]) -> bool {
    let layouts = Layouts::new(abi);
    let mut pos = 0usize;
    for _ in 0..SAMPLE_RECORDS {
        match step(abi, &layouts, &sample[pos..], pos == 0) {
            Step::Good(end, _, _) => pos += end,
            Step::Short => return true,
            Step::Bad(_) => return false,
        }
    }
    false
}

impl Fit {
    /// Many records, few violations: this reading explains the sample.
    fn trusted(&self) -> bool {
        self.records >= TRUSTED_RUN && self.cost as usize * 8 <= self.records
    }

    /// `freebsd-v0:le:32 chained 2 record(s) (longest chain 1): why`.
    fn describe(&self) -> String {
        format!(
            "{} chained {} record(s) (longest chain {}){}",
            self.abi,
            self.records,
            self.chains.iter().max().unwrap_or(&0),
            self.broken
                .as_deref()
                .map(|b| format!(", first broken by: {b}"))
                .unwrap_or_default()
        )
    }
}

/// Every ABI that reads at least one record of the sample, best first
/// (fewest violations, then most records; a stable sort keeps the standard
/// variant ahead of an identical reading). Walks first from the start
/// only; when no reading is trusted from there (damage near the start),
/// walks again past every broken record.
pub fn rank(sample: &[u8], at_eof: bool) -> Vec<Fit> {
    let fits = rank_walks(sample, at_eof, 0);
    if fits.first().is_some_and(Fit::trusted) {
        return fits;
    }
    rank_walks(sample, at_eof, MAX_BREAKS)
}

fn rank_walks(sample: &[u8], at_eof: bool, breaks: u32) -> Vec<Fit> {
    let mut fits: Vec<Fit> = candidates()
        .into_iter()
        .filter_map(|abi| walk(abi, sample, at_eof, breaks))
        .collect();
    // A reading that explains many records with few violations beats one
    // that reads a record or two, whatever damage ends the longer walk;
    // trusted readings rank by their rate of violations, then length.
    fits.sort_by_key(|f| {
        let rate = f.cost as usize * 1024 / f.records.max(1);
        if f.trusted() {
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

/// Bytes after a broken record searched for the next chain of records.
const SCAN_BYTES: usize = 8 << 10;
/// Broken records a walk looks past before it gives up.
const MAX_BREAKS: u32 = 4;
/// Records that must chain after a broken one for the walk to resume there.
const RESUME_RUN: usize = 4;

/// One record of the walk.
enum Step {
    /// A record that keeps every rule: its size, version and soft violations.
    Good(usize, u8, u32),
    /// The record runs past the end of the sample.
    Short,
    /// A record that breaks its rules (or no record at all), and why.
    Bad(DecodeErrorKind),
}

/// The record at `w[0]` under `abi`; `first` says it opens the file.
fn step(abi: &Abi, layouts: &Layouts, w: &[u8], first: bool) -> Step {
    let (layout, version) = match header::select_with(abi, layouts, w) {
        Ok(x) => x,
        Err(DecodeErrorKind::Truncated { .. }) => return Step::Short,
        Err(e) => return Step::Bad(e),
    };
    let h = match header::read(abi, layout, version, w) {
        Ok(h) => h,
        Err(DecodeErrorKind::Truncated { .. }) => return Step::Short,
        Err(e) => return Step::Bad(e),
    };
    if let Some(why) = rules::header(abi, &h) {
        return Step::Bad(DecodeErrorKind::BadRecord(why));
    }
    let end = layout.size + h.len as usize;
    let Some(p) = w.get(layout.size..end) else {
        return Step::Short;
    };
    if !h.start {
        if let Some(why) = rules::payload(abi, h.typ, p) {
            return Step::Bad(DecodeErrorKind::BadRecord(why));
        }
    }
    Step::Good(end, version, violations(abi, &h, w, first))
}

/// Walk the sample under `abi`: every record that keeps its type's rules
/// counts; past a broken one (damage, or the wrong dialect) the walk
/// resumes at the next chain of [`RESUME_RUN`] good records, up to
/// `max_breaks` times, so one bad record or a zeroed block near the start
/// does not decide the dialect.
fn walk(mut abi: Abi, sample: &[u8], at_eof: bool, max_breaks: u32) -> Option<Fit> {
    let layouts = Layouts::new(&abi);
    let mut pos = 0usize;
    let mut fit = Fit {
        abi,
        records: 0,
        cost: 0,
        broken: None,
        versions: 0,
        chains: Vec::new(),
    };
    let mut chain = 0usize;
    let mut breaks = 0u32;
    while pos < sample.len() && fit.records < SAMPLE_RECORDS {
        match step(&abi, &layouts, &sample[pos..], pos == 0) {
            Step::Good(end, version, soft) => {
                if fit.records == 0 {
                    abi.version = version;
                }
                fit.cost += soft;
                fit.versions |= 1 << version.min(7);
                fit.records += 1;
                chain += 1;
                pos += end;
            }
            Step::Short if !at_eof => break,
            Step::Short => {
                fit.cost += 1;
                fit.broken
                    .get_or_insert_with(|| "the file ends inside a record".into());
                break;
            }
            Step::Bad(why) => {
                fit.cost += BROKEN;
                fit.broken.get_or_insert_with(|| why.to_string());
                breaks += 1;
                fit.chains.push(chain);
                chain = 0;
                if breaks > max_breaks {
                    break;
                }
                match resume(&abi, &layouts, sample, pos + 1, at_eof) {
                    Some(p) => pos = p,
                    None => break,
                }
            }
        }
    }
    fit.chains.push(chain);
    if fit.records == 0 {
        return None;
    }
    fit.abi = abi;
    Some(fit)
}

/// The first offset from `from` (within [`SCAN_BYTES`]) where
/// [`RESUME_RUN`] good records chain (or good records reach the end).
fn resume(abi: &Abi, layouts: &Layouts, sample: &[u8], from: usize, at_eof: bool) -> Option<usize> {
    let last = sample.len().min(from + SCAN_BYTES);
    (from..last).find(|&start| {
        let mut pos = start;
        for _ in 0..RESUME_RUN {
            if pos == sample.len() && pos > start {
                return at_eof;
            }
            match step(abi, layouts, &sample[pos..], false) {
                Step::Good(end, _, _) => pos += end,
                Step::Short => return !at_eof && pos > start,
                Step::Bad(_) => return false,
            }
        }
        true
    })
}

/// Soft rule violations of one record under `abi` (its hard rules hold):
/// signs of a wrong reading that a real record may still show.
fn violations(abi: &Abi, h: &RawHeader, w: &[u8], first: bool) -> u32 {
    if h.start {
        return 0;
    }
    let mut v = dialects::doubts(abi, h, first);
    // Control bytes mean a wrong reading; high bytes may be a Latin-1 or
    // UTF-8 name, so they are not held against it.
    if w[h.comm.clone()].iter().any(|&c| c < 0x20 || c == 0x7f) {
        v += 1;
    }
    if !h.frac_ok {
        v += 1;
    }
    if h.typ == 3 && h.len == 0 {
        v += 1;
    }
    v
}
