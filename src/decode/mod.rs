//! decode: bytes → records. Detects the dialect of a `ktrace.out` file and
//! yields its records one at a time, borrowing from a bounded buffer, so
//! memory does not grow with the file. Never touches SQLite.
//!
//! The pipeline: [`detect`] picks an [`Abi`] from the first records; for
//! each record, [`header`] chooses the layout (per record: FreeBSD mixes
//! v0/v1 headers, NetBSD versions are per process) and reads it;
//! [`payload`] turns the body into a [`Body`](crate::model::Body).
//! Any failure is a [`DecodeError`] with the byte offset and record index,
//! returned after every complete record before it.

pub mod abi;
mod bytes;
pub mod detect;
pub mod error;
pub mod header;
pub mod payload;
mod source;

use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::Path;

pub use abi::{Abi, Endianness, Family, Variant, Width};
pub use error::{DecodeError, DecodeErrorKind};

use crate::model::{Body, Record};
use header::SELECT_BYTES;
use source::Source;

/// Streaming decoder over one trace.
pub struct Decoder<R> {
    src: Source<R>,
    abi: Abi,
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
        Decoder::new(file, abi, Some(meta.len())).map_err(|source| crate::Error::Decode {
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
                detect::detect(sample, src.at_eof()).map_err(at)?.abi
            }
        };
        Ok(Decoder {
            src,
            abi,
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
        let frame = header::select(&abi, self.src.window()).and_then(|(layout, version)| {
            self.src
                .fill(layout.size)
                .map_err(|e| DecodeErrorKind::Io(e.to_string()))?;
            header::read(&abi, layout, version, self.src.window())
        });
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
        let payload = &bytes[h.layout.size..];
        let body = if h.start {
            Body::Start
        } else {
            payload::decode(&abi, h.typ, payload)
        };
        Ok(Some(Record {
            index,
            offset,
            version: h.version,
            pid: h.pid,
            tid: h.tid,
            comm: Cow::Borrowed(&bytes[h.comm]),
            ts: h.ts,
            cpu: h.cpu,
            dropped: h.dropped,
            body,
        }))
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
