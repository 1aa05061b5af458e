//! A trace file's fingerprint: a 64-bit FNV-1a hash of its first and last
//! MiB (the whole file when it is smaller than 2 MiB), stored in
//! `trace.fingerprint`. With the size it recognises a file imported before,
//! so `--append` can warn, without reading the whole file. Cheap and stable
//! across versions and platforms; not a defence against a chosen collision.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::Error;

/// Bytes hashed at each end of the file.
const END: u64 = 1 << 20;

/// The fingerprint of the regular file at `path` of `size` bytes, as 16 hex
/// digits; `None` for anything else (a pipe can be read only once).
pub fn of_file(path: &Path, size: u64) -> Result<Option<String>, Error> {
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    // Look before opening: opening a FIFO a second time could block.
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Ok(None);
    }
    let mut f = File::open(path).map_err(io)?;
    let mut h = Fnv1a::default();
    let head = size.min(END);
    hash_span(&mut f, 0, head, &mut h).map_err(io)?;
    let tail = (size - head).min(END);
    hash_span(&mut f, size - tail, tail, &mut h).map_err(io)?;
    Ok(Some(format!("{:016x}", h.0)))
}

fn hash_span(f: &mut File, from: u64, len: u64, h: &mut Fnv1a) -> std::io::Result<()> {
    f.seek(SeekFrom::Start(from))?;
    let mut buf = vec![0u8; len as usize];
    f.read_exact(&mut buf)?;
    h.write(&buf);
    Ok(())
}

/// FNV-1a, 64 bits (<http://www.isthe.com/chongo/tech/comp/fnv/>).
struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        let hash = |s: &[u8]| {
            let mut h = Fnv1a::default();
            h.write(s);
            h.0
        };
        assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn the_middle_of_a_large_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        let mut bytes = vec![7u8; 3 << 20];
        std::fs::write(&p, &bytes).unwrap();
        let a = of_file(&p, bytes.len() as u64).unwrap().unwrap();
        bytes[3 << 19] = 8; // the middle
        std::fs::write(&p, &bytes).unwrap();
        assert_eq!(of_file(&p, bytes.len() as u64).unwrap().unwrap(), a);
        bytes[10] = 8; // the first MiB
        std::fs::write(&p, &bytes).unwrap();
        assert_ne!(of_file(&p, bytes.len() as u64).unwrap().unwrap(), a);
        let small = dir.path().join("s");
        std::fs::write(&small, b"abc").unwrap();
        assert_eq!(of_file(&small, 3).unwrap().unwrap().len(), 16);
    }
}
