//! The spill file: an anonymous temporary file of records, each a
//! little-endian u32 length and that many bytes of the [`form`] a live
//! process is written in. [`super::live`] decides what is spilled and
//! when; this module only appends records, reads them back by offset and
//! compacts away the dead ones. It knows nothing of processes beyond
//! their [`Spill`] form.

pub mod form;

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

pub use form::{Packer, Spill, Statics, Unpacker};

/// Dead bytes (records read back or rewritten) the file may hold before it
/// asks to be compacted, beyond as many bytes as it holds live (less in
/// unit tests, so that they compact).
pub const SLACK: u64 = if cfg!(test) { 64 << 10 } else { 64 << 20 };

/// The file and what is known of its records.
pub struct SpillFile {
    file: File,
    /// Bytes written.
    len: u64,
    /// Bytes of the records not yet read back nor forgotten.
    live: u64,
    statics: Statics,
    cache: Cache,
}

impl SpillFile {
    /// A new, empty temporary file.
    pub fn create() -> io::Result<SpillFile> {
        Ok(SpillFile {
            file: tempfile::tempfile()?,
            len: 0,
            live: 0,
            statics: Statics::default(),
            cache: Cache::default(),
        })
    }

    /// Append a record for each value; the key and offset of every one
    /// written (a value whose form passes 4 GiB is left out).
    pub fn append<'v, K, V: Spill + 'v>(
        &mut self,
        values: impl IntoIterator<Item = (K, &'v V)>,
    ) -> io::Result<Vec<(K, u64)>> {
        let mut buf = Vec::new();
        let mut placed = Vec::new();
        for (key, value) in values {
            let start = buf.len();
            buf.extend([0; 4]);
            value.put(&mut Packer {
                buf: &mut buf,
                statics: &mut self.statics,
            });
            let Ok(n) = u32::try_from(buf.len() - start - 4) else {
                buf.truncate(start);
                continue;
            };
            buf[start..start + 4].copy_from_slice(&n.to_le_bytes());
            placed.push((key, self.len + start as u64));
        }
        self.file.seek(SeekFrom::Start(self.len))?;
        self.file.write_all(&buf)?;
        self.len += buf.len() as u64;
        self.live += buf.len() as u64;
        Ok(placed)
    }

    /// Read back the record at `off`, which stays in the file.
    pub fn read<V: Spill>(&mut self, off: u64) -> io::Result<V> {
        let mut r = Unpacker {
            buf: self.cache.payload(&mut self.file, off)?,
            statics: &self.statics,
        };
        match V::take(&mut r) {
            Some(v) if r.buf.is_empty() => Ok(v),
            _ => Err(unreadable(off)),
        }
    }

    /// Read back the record at `off`, whose bytes are dead from now on.
    pub fn take<V: Spill>(&mut self, off: u64) -> io::Result<V> {
        let v = self.read(off)?;
        self.forget(off);
        Ok(v)
    }

    /// The first value of the record at `off`, without reading the rest.
    pub fn peek<V: Spill>(&mut self, off: u64) -> io::Result<V> {
        let mut r = Unpacker {
            buf: self.cache.payload(&mut self.file, off)?,
            statics: &self.statics,
        };
        V::take(&mut r).ok_or_else(|| unreadable(off))
    }

    /// Count the record at `off` as dead.
    pub fn forget(&mut self, off: u64) {
        if let Ok(b) = self.cache.payload(&mut self.file, off) {
            self.live -= 4 + b.len() as u64;
        }
    }

    /// Whether the dead bytes have passed the live ones by more than
    /// [`SLACK`].
    pub fn wants_compaction(&self) -> bool {
        self.len - self.live > self.live + SLACK
    }

    /// Copy the records at `offsets` to a fresh file, in offset order,
    /// dropping every other: each key with its record's new offset.
    pub fn compact<K>(&mut self, mut offsets: Vec<(u64, K)>) -> io::Result<Vec<(K, u64)>> {
        offsets.sort_unstable_by_key(|&(off, _)| off);
        let mut new = io::BufWriter::new(tempfile::tempfile()?);
        let mut len = 0u64;
        let mut moved = Vec::with_capacity(offsets.len());
        for (off, key) in offsets {
            let bytes = self.cache.payload(&mut self.file, off)?;
            new.write_all(&(bytes.len() as u32).to_le_bytes())?;
            new.write_all(bytes)?;
            moved.push((key, len));
            len += 4 + bytes.len() as u64;
        }
        self.file = new.into_inner().map_err(|e| e.into_error())?;
        self.cache = Cache::default();
        self.len = len;
        self.live = len;
        Ok(moved)
    }

    /// Bytes written, dead ones included.
    #[cfg(test)]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Bytes of the records still live.
    #[cfg(test)]
    pub fn live(&self) -> u64 {
        self.live
    }

    /// Overwrite bytes of the file, to damage a record in a test.
    #[cfg(test)]
    pub fn overwrite(&mut self, off: u64, bytes: &[u8]) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(off))?;
        self.file.write_all(bytes)?;
        self.cache = Cache::default();
        Ok(())
    }
}

fn unreadable(off: u64) -> io::Error {
    io::Error::other(format!(
        "the record at byte {off} of the spill file does not read back"
    ))
}

/// A window of the spill file, so that reading records in file order (the
/// end of the trace, a compaction) costs a read per 64 KiB, not three
/// calls per record. Bytes before the file's end never change, so the
/// window stays true as records are appended.
#[derive(Default)]
struct Cache {
    bytes: Vec<u8>,
    at: u64,
}

impl Cache {
    /// The payload of the record at `off`.
    fn payload(&mut self, file: &mut File, off: u64) -> io::Result<&[u8]> {
        let len = self.get(file, off, 4)?;
        let n = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
        self.get(file, off + 4, n)
    }

    /// `n` bytes of the file from `off`.
    fn get(&mut self, file: &mut File, off: u64, n: usize) -> io::Result<&[u8]> {
        let inside = off >= self.at && off - self.at + n as u64 <= self.bytes.len() as u64;
        if !inside {
            self.at = off;
            self.bytes.clear();
            file.seek(SeekFrom::Start(off))?;
            file.take(n.max(64 << 10) as u64)
                .read_to_end(&mut self.bytes)?;
            if self.bytes.len() < n {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
        }
        let from = (off - self.at) as usize;
        Ok(&self.bytes[from..from + n])
    }
}
