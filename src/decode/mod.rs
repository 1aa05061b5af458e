//! decode: bytes → records. Detects the dialect of a `ktrace.out` file and
//! yields its records one at a time, borrowing from a bounded buffer, so
//! memory does not grow with the file. Never touches SQLite.
//!
//! The pipeline: [`detect`] picks an [`Abi`] from the first records; for
//! each record, `header` chooses the layout (per record: FreeBSD mixes
//! v0/v1 headers, NetBSD versions are per process) and reads it; `rules`
//! checks it against its type's rule; `payload` turns the body into a
//! [`Body`](crate::record::Body). What differs between systems (header
//! layouts, the rule of each record type, payload layouts) is in one file
//! per family under `family/`, found through the registry in [`dialects`].
//! Any failure, a record that breaks its
//! rules included, is a [`DecodeError`] with the byte offset and record
//! index, returned after every complete record before it and before the
//! bad record is consumed; [`Decoder::resync`] then finds where records
//! start again (`resync.rs`, which also finds the records a record of the
//! wrong length ran into, before the decoder returns it).

pub mod abi;
mod bytes;
pub mod detect;
pub mod dialects;
pub mod error;
mod family;
pub mod growing;
mod header;
mod payload;
mod resync;
pub mod rules;
mod source;

use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub use abi::{Abi, Endianness, Family, Variant, Width};
pub use error::{DecodeError, DecodeErrorKind};

use crate::record::{Body, Record};
use abi::Field;
use header::SELECT_BYTES;
use source::Source;

/// Streaming decoder over one trace.
pub struct Decoder<R> {
    src: Source<R>,
    abi: Abi,
    /// The ABI's header layouts by version.
    layouts: header::Layouts,
    /// The ABI's record rules by type.
    rules: rules::Table,
    /// The header versions whose length field sits at the same place, with
    /// their header sizes, for [`Decoder::swallowed`] (worked out once,
    /// not per opaque record).
    length_groups: Vec<(Field, Vec<usize>)>,
    /// Total length of the input, when known (a file): lets an impossible
    /// length be refused without reading to the end.
    len: Option<u64>,
    index: u64,
    done: bool,
    /// The header after the last record returned, read while checking
    /// that record's framing, and its offset: the next call takes it
    /// instead of reading it again.
    peeked: Option<(u64, header::RawHeader)>,
    /// Set while the decoder reads only to look past a record it holds
    /// whole (see [`Decoder::look_ahead_flag`]).
    looking_ahead: Option<Arc<AtomicBool>>,
}

impl Decoder<File> {
    /// Whether `path` is a ktrace file (its dialect detected): what the
    /// commands ask of a file given where a database goes, to say so and
    /// never to write over it.
    pub fn is_trace(path: &Path) -> bool {
        Self::open(path, None).is_ok()
    }

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
        // Checked on the bytes read for detection, so a pipe loses none.
        if src.window().starts_with(crate::schema::SQLITE_MAGIC) {
            return Err(at(DecodeErrorKind::Sqlite));
        }
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
        let layouts = header::Layouts::new(&abi);
        Ok(Decoder {
            src,
            abi,
            length_groups: resync::length_groups(&layouts),
            layouts,
            rules: rules::Table::new(&abi),
            len,
            index: 0,
            done: false,
            peeked: None,
            looking_ahead: None,
        })
    }

    /// The ABI records are decoded with.
    pub fn abi(&self) -> Abi {
        self.abi
    }

    /// Read the input again where it ended: for a reader that ended once
    /// (while the dialect was detected from what a growing file held) and
    /// now waits for more instead (`dump -l`). Only before the first record.
    pub fn rearm(&mut self) {
        self.src.rearm();
    }

    /// The reader, to change how it reads from now on (`import --follow`).
    pub fn reader_mut(&mut self) -> &mut R {
        self.src.inner_mut()
    }

    /// A flag the decoder sets while it reads only to look past a record
    /// it already holds whole: its framing is checked against the next
    /// header. A reader of a file still being written (`import --follow`)
    /// may then answer "nothing more yet" (`io::ErrorKind::WouldBlock`)
    /// instead of waiting for the next record, so the last record written
    /// (a stuck build's last call, the exit that ends it) is not held back
    /// until another one comes: it is judged on the bytes there are, as a
    /// one-shot import of the bytes read so far judges it. That is no end
    /// of the input: the next read tries again.
    pub fn look_ahead_flag(&mut self) -> Arc<AtomicBool> {
        self.looking_ahead
            .get_or_insert_with(|| Arc::new(AtomicBool::new(false)))
            .clone()
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
        // A header peeked at kept its rules already (`overlap`).
        let peeked = matches!(self.peeked, Some((at, _)) if at == offset);
        let frame = match self.peeked.take() {
            Some((at, h)) if at == offset => self
                .src
                .fill(h.layout.size)
                .map(|_| h)
                .map_err(|e| DecodeErrorKind::Io(e.to_string())),
            _ => header::select_with(&abi, &self.layouts, self.src.window()).and_then(
                |(layout, version)| {
                    self.src
                        .fill(layout.size)
                        .map_err(|e| DecodeErrorKind::Io(e.to_string()))?;
                    header::read(&abi, layout, version, self.src.window())
                },
            ),
        };
        let h = match frame {
            Ok(h) => h,
            Err(kind) => return self.error(offset, kind),
        };
        // Judged before the payload is read: a damaged length is not
        // buffered (memory stays flat) and the record is not consumed.
        if !peeked {
            if let Some(why) = self.rules.header(&abi, &h) {
                return self.error(offset, DecodeErrorKind::BadRecord(why));
            }
        }
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
        if !h.start {
            let p = &self.src.window()[h.layout.size..total as usize];
            if let Some(why) = self.rules.payload(&abi, h.typ, p) {
                return self.error(offset, DecodeErrorKind::BadRecord(why));
            }
        }
        let opaque = !h.start && self.rules.opaque(h.typ);
        let misframed = self.overlap(total as usize, opaque, h.ts).or_else(|| {
            opaque
                .then(|| self.swallowed(h.layout.size, total as usize))
                .flatten()
        });
        if let Some(at) = misframed {
            let label = if h.start {
                crate::record::Kind::Start.label()
            } else {
                rules::label(&abi, h.typ)
            };
            let why = rules::Breach::Overlaps(label, offset + at as u64);
            return self.error(offset, DecodeErrorKind::BadRecord(why));
        }
        let index = self.index;
        self.index += 1;
        let bytes = self.src.take(total as usize);
        Ok(Some(build(&abi, &h, bytes, offset, index)))
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
