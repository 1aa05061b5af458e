//! decode: bytes → records. Detects the dialect of a `ktrace.out` file and
//! yields its records one at a time, borrowing from a bounded buffer, so
//! memory does not grow with the file. Never touches SQLite.
//!
//! The pipeline: [`detect`] picks an [`Abi`] from the first records; for
//! each record, [`header`] chooses the layout (per record: FreeBSD mixes
//! v0/v1 headers, NetBSD versions are per process) and reads it;
//! [`payload`] turns the body into a [`Body`](crate::record::Body).
//! Any failure is a [`DecodeError`] with the byte offset and record index,
//! returned after every complete record before it.

pub mod abi;
mod bytes;
pub mod detect;
pub mod error;
pub mod header;
pub mod payload;
pub mod sanity;
mod source;

use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::Path;

pub use abi::{Abi, Endianness, Family, Variant, Width};
pub use error::{DecodeError, DecodeErrorKind};

use crate::record::{Body, Record};
use header::SELECT_BYTES;
use source::Source;

/// Streaming decoder over one trace.
pub struct Decoder<R> {
    src: Source<R>,
    abi: Abi,
    /// The ABI's header layouts by version.
    layouts: header::Layouts,
    /// Total length of the input, when known (a file): lets an impossible
    /// length be refused without reading to the end.
    len: Option<u64>,
    index: u64,
    done: bool,
}

impl Decoder<File> {
    /// Open a trace file, detecting its dialect unless `abi` is given.
    pub fn open(path: &Path, abi: Option<Abi>) -> Result<Self, crate::Error> {
        let io = |source| crate::Error::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(io(std::io::Error::other(
                "is a directory, not a trace file",
            )));
        }
        // Only a regular file's size is its length (a pipe or device says 0).
        let len = meta.is_file().then_some(meta.len());
        Decoder::new(file, abi, len).map_err(|source| crate::Error::Decode {
            path: path.to_owned(),
            source,
        })
    }
}

impl<R: Read> Decoder<R> {
    /// Wrap a reader of `len` bytes (if known), detecting the dialect from its
    /// first records unless `abi` is given.
    pub fn new(reader: R, abi: Option<Abi>, len: Option<u64>) -> Result<Self, DecodeError> {
        let mut src = Source::new(reader, len);
        let at = |kind| DecodeError {
            offset: 0,
            record: 0,
            kind,
        };
        let have = src
            .fill(detect::SAMPLE_BYTES)
            .map_err(|e| at(DecodeErrorKind::Io(e.to_string())))?;
        let abi = match abi {
            Some(mut abi) => {
                if let Ok((_, v)) = header::select(&abi, src.window()) {
                    abi.version = v;
                }
                abi
            }
            None => {
                let sample = &src.window()[..have];
                let whole = src.at_eof() || len.is_some_and(|l| have as u64 >= l);
                detect::detect(sample, whole).map_err(at)?.abi
            }
        };
        Ok(Decoder {
            src,
            abi,
            layouts: header::Layouts::new(&abi),
            len,
            index: 0,
            done: false,
        })
    }

    /// The ABI records are decoded with.
    pub fn abi(&self) -> Abi {
        self.abi
    }

    /// Bytes consumed so far (the offset of the next record).
    pub fn offset(&self) -> u64 {
        self.src.offset()
    }

    /// Records decoded so far.
    pub fn records(&self) -> u64 {
        self.index
    }

    /// The next record; `Ok(None)` at the clean end of the input. After an
    /// error every later call returns `Ok(None)`.
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>, DecodeError> {
        if self.done {
            return Ok(None);
        }
        let offset = self.src.offset();
        let avail = match self.src.fill(SELECT_BYTES) {
            Ok(n) => n,
            Err(e) => return self.error(offset, DecodeErrorKind::Io(e.to_string())),
        };
        if avail == 0 {
            self.done = true;
            return Ok(None);
        }
        let abi = self.abi;
        let frame = header::select_with(&abi, &self.layouts, self.src.window()).and_then(
            |(layout, version)| {
                self.src
                    .fill(layout.size)
                    .map_err(|e| DecodeErrorKind::Io(e.to_string()))?;
                header::read(&abi, layout, version, self.src.window())
            },
        );
        let h = match frame {
            Ok(h) => h,
            Err(kind) => return self.error(offset, kind),
        };
        let total = h.layout.size as u64 + h.len;
        let remaining = self.len.map(|l| l.saturating_sub(offset));
        if remaining.is_some_and(|r| total > r) {
            let have = remaining.unwrap_or(0);
            return self.error(offset, truncated(total, have));
        }
        let have = match self.src.fill(total as usize) {
            Ok(n) => n as u64,
            Err(e) => return self.error(offset, DecodeErrorKind::Io(e.to_string())),
        };
        if have < total {
            return self.error(offset, truncated(total, have));
        }
        let index = self.index;
        self.index += 1;
        let bytes = self.src.take(total as usize);
        Ok(Some(build(&abi, &h, bytes, offset, index)))
    }

    /// After an error (or a record the caller found implausible), find where
    /// records start again: the first offset past the current one where
    /// `run` consecutive records (or all records up to the end of the input)
    /// frame exactly and pass `accept`. Positions the decoder there and
    /// returns the new offset; `None` when nothing follows (a truncated tail).
    /// `from` is the offset of the damaged record.
    pub fn resync(
        &mut self,
        from: u64,
        run: usize,
        accept: &dyn Fn(&Record<'_>) -> bool,
    ) -> Option<u64> {
        // An implausible record was consumed already: go back to it.
        if from < self.src.offset() {
            self.src.unread(self.src.offset() - from);
        }
        let skip = from.saturating_sub(self.src.offset()) + 1;
        if self.skip(skip).is_err() {
            return None;
        }
        loop {
            let have = self.src.fill(RESYNC_WINDOW).ok()?;
            if have < SELECT_BYTES {
                self.done = true;
                return None;
            }
            if self.run_fits(run, accept) {
                self.done = false;
                return Some(self.src.offset());
            }
            self.src.take(1);
        }
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

    /// Do `run` records (or every record to the end) start at the current
    /// offset, framed exactly and accepted?
    fn run_fits(&self, run: usize, accept: &dyn Fn(&Record<'_>) -> bool) -> bool {
        let w = self.src.window();
        let at_end = self.src.at_eof()
            || self
                .len
                .is_some_and(|l| self.src.offset() + w.len() as u64 >= l);
        let mut pos = 0usize;
        for n in 0..run {
            if pos == w.len() && at_end && n > 0 {
                return true;
            }
            let at = self.src.offset() + pos as u64;
            let Some(rec) = frame_at(&self.abi, &self.layouts, &w[pos..], at) else {
                return false;
            };
            if !accept(&rec.0) {
                return false;
            }
            pos += rec.1;
        }
        true
    }

    fn error<T>(&mut self, offset: u64, kind: DecodeErrorKind) -> Result<T, DecodeError> {
        self.done = true;
        Err(DecodeError {
            offset,
            record: self.index,
            kind,
        })
    }
}

/// Bytes a resynchronisation looks at from each candidate offset.
const RESYNC_WINDOW: usize = 256 << 10;

/// The record framed at `w[0]`, and its total size, if it fits in `w`.
fn frame_at<'a>(
    abi: &Abi,
    layouts: &header::Layouts,
    w: &'a [u8],
    offset: u64,
) -> Option<(Record<'a>, usize)> {
    let (layout, version) = header::select_with(abi, layouts, w).ok()?;
    let h = header::read(abi, layout, version, w).ok()?;
    let total = layout.size.checked_add(usize::try_from(h.len).ok()?)?;
    Some((build(abi, &h, w.get(..total)?, offset, 0), total))
}

/// The record whose header is `h` and whose bytes (header and payload) are `bytes`.
#[inline]
fn build<'a>(
    abi: &Abi,
    h: &header::RawHeader,
    bytes: &'a [u8],
    offset: u64,
    index: u64,
) -> Record<'a> {
    let body = if h.start {
        Body::Start
    } else {
        payload::decode(abi, h.typ, &bytes[h.layout.size..])
    };
    Record {
        index,
        offset,
        version: h.version,
        pid: h.pid,
        tid: h.tid,
        comm: Cow::Borrowed(&bytes[h.comm.clone()]),
        ts: h.ts,
        cpu: h.cpu,
        dropped: h.dropped,
        body,
    }
}

fn truncated(need: u64, have: u64) -> DecodeErrorKind {
    DecodeErrorKind::Truncated {
        what: if have < SELECT_BYTES as u64 {
            "record header"
        } else {
            "record"
        },
        need,
        have,
    }
}
