//! Where records start again, for the decoder: after damage
//! ([`Decoder::resync`]: the first offset where a run of records keeps
//! its rules), and inside a record whose length is wrong yet whose
//! payload keeps its rule (`overlap`, `swallowed`: the records it ran
//! into or swallowed), which [`Decoder::next_record`] asks before it
//! returns a record.

use std::io::Read;
use std::sync::atomic::Ordering;

use super::abi::{Abi, Endianness, Field};
use super::error::DecodeErrorKind;
use super::header::{self, SELECT_BYTES};
use super::{build, rules, Decoder};
use crate::record::{Body, Record};

impl<R: Read> Decoder<R> {
    /// After an error at `from` (the offset of the record that failed,
    /// which [`Decoder::next_record`] left unconsumed, or of a record the
    /// caller refused), find where records start again: the first offset
    /// after `from` where `run` consecutive records (or all records up to
    /// the end of the input) keep their rules and pass `accept`. Positions
    /// the decoder there and returns the new offset; `None` when nothing
    /// follows (a truncated tail). Scans each byte once, in a window of
    /// bounded size, whatever the size of the damaged stretch.
    pub fn resync(
        &mut self,
        from: u64,
        run: usize,
        accept: &dyn Fn(&Record<'_>) -> bool,
    ) -> Option<u64> {
        if from < self.src.offset() {
            // A refused record was consumed already: go back to it (it is
            // still buffered right after `next_record` returned it;
            // otherwise the scan starts where the source is).
            if self.src.unread(self.src.offset() - from) {
                self.skip(1).ok()?;
            }
        } else {
            self.skip(from - self.src.offset() + 1).ok()?;
        }
        loop {
            let have = self.src.fill(RESYNC_WINDOW).ok()?;
            if have < SELECT_BYTES {
                self.done = true;
                return None;
            }
            let at_end = self.at_end();
            // Keep a look-ahead for the run of records after each start,
            // except where the input ends.
            let scan = if at_end {
                have
            } else {
                have.saturating_sub(RESYNC_LOOKAHEAD).max(1)
            };
            if let Some(i) = (0..scan).find(|&i| self.run_fits(i, at_end, run, accept)) {
                self.src.take(i);
                self.done = false;
                return Some(self.src.offset());
            }
            self.src.take(scan);
        }
    }

    /// Whether the record of `total` bytes at the start of the window is
    /// misframed: its length is wrong yet the payload keeps its rule (a
    /// length grown past the next header, bytes deleted inside it). Then
    /// no record starts where it ends, while a run of records starts
    /// inside it: returns that run's position in the window. After an
    /// `opaque` record (whose rule cannot pin its length) the next
    /// [`AFTER_OPAQUE`] records must keep their payloads' rules too, and a
    /// header the input ends in is no excuse: a doubled GIO length can
    /// land on bytes that pass for a header, or near the end, and the
    /// records it swallowed would be lost outside every reported range.
    /// Where the input ends inside the next header, the records found
    /// inside an opaque payload must be within [`NEAR_NS`] of its time `ts`.
    pub(super) fn overlap(&mut self, total: usize, opaque: bool, ts: i64) -> Option<usize> {
        self.fill_ahead(total + NEXT_HEADER).ok()?;
        let w = self.src.window();
        let next = w.get(total..).filter(|n| !n.is_empty())?;
        let read = header::select_with(&self.abi, &self.layouts, next)
            .and_then(|(layout, version)| header::read(&self.abi, layout, version, next));
        let cut = matches!(read, Err(DecodeErrorKind::Truncated { .. }));
        let fits = match read {
            Ok(h) => {
                let fits = self.rules.header(&self.abi, &h).is_none()
                    && (!opaque || self.chain_fits(total, AFTER_OPAQUE));
                if fits {
                    self.peeked = Some((self.src.offset() + total as u64, h));
                }
                fits
            }
            // The input ends inside the next header: a truncated tail,
            // unless records chain to the end inside an opaque payload.
            Err(DecodeErrorKind::Truncated { .. }) => !opaque,
            Err(_) => false,
        };
        if fits {
            return None;
        }
        let at_end = self.at_end();
        // Before a cut, the run may be a single record ending at the cut:
        // random data passes for one, so it must be near in time too.
        let near =
            |r: &Record<'_>| !cut || matches!(r.body, Body::Start) || r.ts.abs_diff(ts) <= NEAR_NS;
        (1..total).find(|&i| self.run_fits(i, at_end, OVERLAP_RUN, &near))
    }

    /// [`Source::fill`](super::source::Source::fill) for bytes past the
    /// record at hand, only to check its framing: a growing file's reader
    /// may answer `WouldBlock` ("nothing more yet", no end of the input:
    /// [`Decoder::look_ahead_flag`]), and what is buffered is what there is.
    fn fill_ahead(&mut self, need: usize) -> std::io::Result<usize> {
        let Some(flag) = &self.looking_ahead else {
            return self.src.fill(need);
        };
        flag.store(true, Ordering::SeqCst);
        let have = self.src.fill(need);
        flag.store(false, Ordering::SeqCst);
        match have {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(self.src.window().len()),
            have => have,
        }
    }

    /// Whether `run` records chain from `at` in the window, each keeping
    /// its header's and its payload's rules, or the input ends before
    /// they do (a truncated tail is reported as such when it is reached).
    fn chain_fits(&mut self, mut at: usize, run: usize) -> bool {
        for _ in 0..run {
            let Ok(have) = self.fill_ahead(at + NEXT_HEADER) else {
                return true;
            };
            let Some(next) = self.src.window().get(at..have).filter(|n| !n.is_empty()) else {
                return true;
            };
            let read = header::select_with(&self.abi, &self.layouts, next)
                .and_then(|(layout, version)| header::read(&self.abi, layout, version, next));
            let h = match read {
                Ok(h) if self.rules.header(&self.abi, &h).is_none() => h,
                Err(DecodeErrorKind::Truncated { .. }) => return true,
                _ => return false,
            };
            let end = at + h.layout.size + h.len as usize;
            if self.fill_ahead(end).map_or(true, |have| have < end) {
                return true;
            }
            let p = &self.src.window()[at + h.layout.size..end];
            if !h.start && self.rules.payload(&self.abi, h.typ, p).is_some() {
                return false;
            }
            at = end;
        }
        true
    }

    /// Whether the record of `total` bytes at the start of the window, an
    /// opaque one (GIO, USER, …: its rule cannot pin its length), ends
    /// with a whole record inside its payload (from `from`): a length
    /// grown to land on a later header swallows the records in between.
    /// Returns that record's position in the window. A cheap test first:
    /// the candidate's length field must say it ends where this record ends.
    pub(super) fn swallowed(&self, from: usize, total: usize) -> Option<usize> {
        let w = &self.src.window()[..total];
        let at_end = self.at_end();
        // Header versions whose length field sits at the same place are
        // tested in one pass over the payload: a candidate at `j` ends at
        // `total` when `j + size + len == total` for one of their header
        // sizes. This runs over every byte of every GIO, so most bytes are
        // passed over eight at a time (below).
        let big = self.abi.endianness == Endianness::Big;
        for (field, sizes) in &self.length_groups {
            let field = *field;
            let min = *sizes.iter().min()?;
            let last = total.checked_sub(min)?;
            let (off, width) = (field.off, field.size);
            if last < from {
                continue;
            }
            // The length fields of every candidate, one slice.
            let fields = &w[from + off..last + off + width];
            let candidates = last - from + 1;
            let test = |k: usize| {
                let f = &fields[k..k + width];
                let len = match (big, f) {
                    (false, &[a, b, c, d]) => u64::from(u32::from_le_bytes([a, b, c, d])),
                    (true, &[a, b, c, d]) => u64::from(u32::from_be_bytes([a, b, c, d])),
                    (false, f) => u64::from_le_bytes(f.try_into().ok()?),
                    (true, f) => u64::from_be_bytes(f.try_into().ok()?),
                };
                let j = from + k;
                // Most bytes stop here: the length runs past the record.
                let size = (total - j).checked_sub(usize::try_from(len).ok()?)?;
                (sizes.contains(&size) && self.run_fits(j, at_end, 1, &|_| true)).then_some(j)
            };
            // A candidate's length is below `total`: under 2^24, the byte
            // holding its bits 24..31 is 0. And its low byte is that of
            // the one length that ends it at `total`: for the candidate at
            // `k`, `total - from - k - size`, so `low[k] + k` is the same
            // for every `k` (mod 256). Eight candidates at a time, only
            // those that pass both get the length test.
            let high = if big { width - 4 } else { 3 };
            let low = if big { width - 1 } else { 0 };
            let word_at =
                |i: usize| u64::from_le_bytes(fields[i..i + 8].try_into().expect("8 bytes"));
            let mut k = 0;
            while k < candidates {
                if total < 1 << 24 && k + 8 <= candidates {
                    // Most blocks of 32 candidates have no 0 in their
                    // high bytes at all: a test the compiler vectorises
                    // passes them over at once.
                    if k + 32 <= candidates {
                        let block = fields[k + high..k + high + 32]
                            .try_into()
                            .expect("32 bytes");
                        if !has_zero(block) {
                            k += 32;
                            continue;
                        }
                    }
                    let mut zeros = zero_bytes(word_at(k + high));
                    if zeros != 0 {
                        // Byte i of `shifted`: the low byte of candidate
                        // k + i, plus i, mod 256 (i < 8: no carry leaves a
                        // byte).
                        let l = word_at(k + low);
                        let shifted = ((l & !TOPS) + IOTA) ^ (l & TOPS);
                        let mut lows = 0;
                        for &size in sizes {
                            let want = (total - from - k).wrapping_sub(size) as u8;
                            lows |= zero_bytes(shifted ^ (ONES * u64::from(want)));
                        }
                        zeros &= lows;
                    }
                    while zeros != 0 {
                        let hit = test(k + (zeros.trailing_zeros() / 8) as usize);
                        if hit.is_some() {
                            return hit;
                        }
                        zeros &= zeros - 1;
                    }
                    k += 8;
                    continue;
                }
                let hit = test(k);
                if hit.is_some() {
                    return hit;
                }
                k += 1;
            }
        }
        None
    }

    /// Whether the buffered window reaches the end of the input.
    #[inline]
    fn at_end(&self) -> bool {
        self.src.at_eof()
            || self
                .len
                .is_some_and(|l| self.src.offset() + self.src.window().len() as u64 >= l)
    }

    /// Consume `n` bytes (past a damaged stretch).
    fn skip(&mut self, mut n: u64) -> std::io::Result<()> {
        while n > 0 {
            let have = self.src.fill(RESYNC_WINDOW)?;
            if have == 0 {
                return Ok(());
            }
            let k = (have as u64).min(n) as usize;
            self.src.take(k);
            n -= k as u64;
        }
        Ok(())
    }

    /// Do `run` records (or every record to the end) start at `start` in
    /// the window, keeping their rules, and accepted?
    #[inline]
    fn run_fits(
        &self,
        start: usize,
        at_end: bool,
        run: usize,
        accept: &dyn Fn(&Record<'_>) -> bool,
    ) -> bool {
        let w = self.src.window();
        let mut pos = start;
        for n in 0..run {
            if pos == w.len() && at_end && n > 0 {
                return true;
            }
            let at = self.src.offset() + pos as u64;
            let Some((rec, size)) = frame_at(&self.abi, &self.layouts, &self.rules, &w[pos..], at)
            else {
                return false;
            };
            if !accept(&rec) {
                return false;
            }
            pos += size;
        }
        true
    }
}

/// Bytes read past a record to check the header that follows it (the
/// largest header is 64 bytes).
const NEXT_HEADER: usize = 64;
/// Records that must chain inside a record for it to count as misframed.
const OVERLAP_RUN: usize = 4;
/// Records that must keep their rules after an opaque record for its
/// length to be believed.
const AFTER_OPAQUE: usize = 2;
/// How far from an opaque record's time the records found inside it may
/// be (a day), for them to count as records it swallowed.
const NEAR_NS: u64 = 86_400_000_000_000;

/// Bytes a resynchronisation buffers.
const RESYNC_WINDOW: usize = 256 << 10;
/// Bytes kept after a candidate offset for the run of records that must
/// start there (records a resynchronisation finds are smaller).
const RESYNC_LOOKAHEAD: usize = 64 << 10;

/// The record framed at `w[0]`, and its total size, if it fits in `w` and
/// keeps its type's rules.
#[inline]
fn frame_at<'a>(
    abi: &Abi,
    layouts: &header::Layouts,
    table: &rules::Table,
    w: &'a [u8],
    offset: u64,
) -> Option<(Record<'a>, usize)> {
    let (typ, start) = header::peek_type(abi, layouts, w)?;
    if !start && !rules::defined(abi, typ) {
        return None;
    }
    let (layout, version) = header::select_with(abi, layouts, w).ok()?;
    let h = header::read(abi, layout, version, w).ok()?;
    if table.header(abi, &h).is_some() {
        return None;
    }
    let total = layout.size.checked_add(usize::try_from(h.len).ok()?)?;
    let bytes = w.get(..total)?;
    if !h.start && table.payload(abi, h.typ, &bytes[layout.size..]).is_some() {
        return None;
    }
    Some((build(abi, &h, bytes, offset, 0), total))
}

/// The header versions `layouts` has, grouped by where their length field
/// sits, with each group's distinct header sizes.
pub(super) fn length_groups(layouts: &header::Layouts) -> Vec<(Field, Vec<usize>)> {
    let mut groups: Vec<(Field, Vec<usize>)> = Vec::with_capacity(3);
    for l in (0..3).filter_map(|v| layouts.get(v)) {
        match groups.iter_mut().find(|(f, _)| *f == l.len) {
            Some((_, sizes)) if !sizes.contains(&l.size) => sizes.push(l.size),
            Some(_) => {}
            None => groups.push((l.len, vec![l.size])),
        }
    }
    groups
}

/// The top bit of each byte of `w` that may be 0: every 0 byte is marked
/// (a 1 byte just above a 0 may be too). The classic bit trick:
/// subtracting 1 from each byte borrows into its top bit only from a 0.
fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & TOPS
}

/// Whether `b` holds a 0 byte: its least byte, a reduction the compiler
/// turns into a few vector instructions (no early exit to stop it).
#[inline]
fn has_zero(b: &[u8; 32]) -> bool {
    b.iter().fold(u8::MAX, |least, &c| least.min(c)) == 0
}

/// 1 in every byte.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The top bit of every byte.
const TOPS: u64 = 0x8080_8080_8080_8080;
/// Byte i holds i (read little-endian).
const IOTA: u64 = 0x0706_0504_0302_0100;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// Every 0 byte is marked, and only 0 bytes or a 1 just above a 0.
        #[test]
        fn zero_bytes_marks_every_zero(bytes in proptest::array::uniform8(prop_oneof![Just(0u8), Just(1u8), any::<u8>()])) {
            let marks = super::zero_bytes(u64::from_le_bytes(bytes));
            for (i, &b) in bytes.iter().enumerate() {
                let marked = marks >> (8 * i + 7) & 1 == 1;
                if b == 0 {
                    prop_assert!(marked, "byte {i} of {bytes:?}");
                }
                if marked {
                    prop_assert!(b == 0 || (b == 1 && bytes[..i].contains(&0)), "byte {i} of {bytes:?}");
                }
            }
        }
    }
}
