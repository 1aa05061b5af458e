//! A buffered byte source that hands out borrowed windows of a reader, so
//! records can point into the buffer instead of being copied. Memory stays
//! at the buffer size (grown only for a record larger than it).

use std::io::{self, Read};

/// Buffer size: small enough that the kernel's copy lands in the L2 cache
/// the decoder then reads it from (256 KiB decoded a 1 GiB trace in less
/// CPU time than 1 MiB; bench/NOTES.md).
const INITIAL: usize = 1 << 18;

/// Buffered reader with look-ahead windows.
pub(crate) struct Source<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// File offset of `buf[pos]`.
    offset: u64,
    /// Total input length, when known.
    len: Option<u64>,
}

impl<R: Read> Source<R> {
    /// Wrap a reader of `len` bytes, if known (a small input gets a small buffer).
    pub(crate) fn new(inner: R, len: Option<u64>) -> Self {
        let cap = len.map_or(INITIAL, |l| (l as usize).clamp(64, INITIAL));
        Source {
            inner,
            buf: vec![0; cap],
            pos: 0,
            end: 0,
            eof: false,
            offset: 0,
            len,
        }
    }

    /// The reader.
    pub(crate) fn inner_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// File offset of the next unconsumed byte.
    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }

    /// Make at least `need` bytes available unless the reader ends first;
    /// returns how many are available.
    #[inline]
    pub(crate) fn fill(&mut self, need: usize) -> io::Result<usize> {
        // The usual case: the bytes are buffered already.
        let have = self.end - self.pos;
        if have >= need {
            return Ok(have);
        }
        self.refill(need)
    }

    /// [`Source::fill`] when the buffer runs short: read more.
    #[cold]
    #[inline(never)]
    fn refill(&mut self, need: usize) -> io::Result<usize> {
        let need = match self.len {
            Some(l) => need.min(l.saturating_sub(self.offset) as usize),
            None => need,
        };
        while self.end - self.pos < need && !self.eof {
            if self.buf.len() - self.pos < need {
                self.buf.copy_within(self.pos..self.end, 0);
                self.end -= self.pos;
                self.pos = 0;
                if self.buf.len() < need {
                    self.buf.resize(need.next_power_of_two(), 0);
                }
            }
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(self.end - self.pos)
    }

    /// The available unconsumed bytes.
    #[inline]
    pub(crate) fn window(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Consume `n` bytes and return them; they stay valid until the next `fill`.
    #[inline]
    pub(crate) fn take(&mut self, n: usize) -> &[u8] {
        let start = self.pos;
        self.pos += n;
        self.offset += n as u64;
        &self.buf[start..start + n]
    }

    /// Give back the last `n` consumed bytes, if they are still buffered
    /// (no `fill` since they were taken); returns whether it could.
    pub(crate) fn unread(&mut self, n: u64) -> bool {
        if n > self.pos as u64 {
            return false;
        }
        self.pos -= n as usize;
        self.offset -= n;
        true
    }

    /// Forget that the reader ended: the next fill reads it again.
    pub(crate) fn rearm(&mut self) {
        self.eof = false;
    }

    /// Whether the reader has ended (read returned 0).
    pub(crate) fn at_eof(&self) -> bool {
        self.eof
    }
}
