//! The test-only ktrace writer: encodes model [`Record`]s into the bytes a
//! kernel of a given [`Abi`] would write. Header and payload layouts are
//! written out again from `shared/docs/ktrace-formats.md` (sections 2 and 3)
//! and never taken from the decoder (`Abi::layout` is not used), so decoding
//! what this writes cross-checks the decoder's tables.
//!
//! Per record it follows the record's own header version (FreeBSD v0/v1,
//! NetBSD v0/v1/v2, type/version swapped on big-endian NetBSD), writes
//! OpenBSD START as the big-endian magic `KTR\0`, and NetBSD v2 NAMI paths
//! with their trailing NUL. [`representable`] says what a record looks like
//! after a trip through a dialect (µs clocks, tid/cpu/drop only where
//! recorded, comm cut at MAXCOMLEN, …); [`TraceWriter::raw`] writes chosen
//! header fields (a hostile length, a comm without NUL) for damaged files.

mod layout;
mod payload;
mod representable;

use kt2sql::decode::{Abi, Endianness, Family};
use kt2sql::record::{Body, Record};

#[allow(unused_imports)]
pub use layout::{defines, shape, Shape, F};
pub use payload::payload;
pub use representable::representable;

use layout::header_version;

/// The header fields of one record, exactly as they go into the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fields {
    /// Selects the header shape (and is written to the version field, if any).
    pub version: u8,
    /// Payload length as stored (cut to the field's width).
    pub len: u64,
    /// Type as stored, flag bits included (FreeBSD 0x4000/0x8000).
    pub typ: u32,
    /// Write the OpenBSD START magic instead of `typ`.
    pub start: bool,
    pub pid: i64,
    pub tid: i64,
    /// Raw comm bytes, cut to the array width; a full-width name has no NUL.
    pub comm: Vec<u8>,
    pub sec: i64,
    /// µs or ns, by the shape.
    pub frac: i64,
    pub cpu: i32,
}

/// Encodes records for one ABI.
#[derive(Debug, Clone)]
pub struct TraceWriter {
    abi: Abi,
    junk: bool,
    buf: Vec<u8>,
    offsets: Vec<u64>,
}

impl TraceWriter {
    pub fn new(abi: Abi) -> Self {
        TraceWriter {
            abi,
            junk: false,
            buf: Vec::new(),
            offsets: Vec::new(),
        }
    }

    /// Fill padding, unused fields and comm tails with stale-looking bytes
    /// (as Darwin, NetBSD and old FreeBSD kernels leave them) instead of zeros.
    pub fn junk(&mut self, on: bool) -> &mut Self {
        self.junk = on;
        self
    }

    pub fn abi(&self) -> Abi {
        self.abi
    }

    /// Append one record. Values wider than their field are cut, as a
    /// kernel's would be; [`representable`] tells what decodes back.
    /// Panics on a body the family has no record type for.
    pub fn record(&mut self, r: &Record) -> &mut Self {
        let (fields, payload) = fields_for(&self.abi, r)
            .unwrap_or_else(|| panic!("{}: cannot write {:?}", self.abi, r.body));
        self.raw(&fields, &payload)
    }

    /// Append every record of `rs`.
    pub fn records<'a>(&mut self, rs: impl IntoIterator<Item = &'a Record<'a>>) -> &mut Self {
        for r in rs {
            self.record(r);
        }
        self
    }

    /// Append a header with exactly these fields, then `payload` (whose
    /// length need not match `f.len`).
    pub fn raw(&mut self, f: &Fields, payload: &[u8]) -> &mut Self {
        let s = shape(&self.abi, f.version)
            .unwrap_or_else(|| panic!("{} has no header version {}", self.abi, f.version));
        let e = self.abi.endianness;
        let mut h = vec![if self.junk { 0xa5 } else { 0 }; s.size];
        let (mut typ, mut ver) = (s.typ, s.version);
        if self.abi.family == Family::NetBsd && e == Endianness::Big {
            (typ, ver) = (ver.expect("netbsd version"), Some(typ));
        }
        put(&mut h, e, s.len, f.len);
        put(&mut h, e, typ, u64::from(f.typ));
        if let Some(v) = ver {
            put(&mut h, e, v, u64::from(f.version));
        }
        if f.start {
            h[0..4].copy_from_slice(b"KTR\0");
        }
        put(&mut h, e, s.pid, f.pid as u64);
        if let Some(t) = s.tid {
            put(&mut h, e, t, f.tid as u64);
        }
        let (co, cw) = s.comm;
        let n = f.comm.len().min(cw);
        h[co..co + n].copy_from_slice(&f.comm[..n]);
        if n < cw {
            h[co + n] = 0;
            for (i, b) in h[co + n + 1..co + cw].iter_mut().enumerate() {
                *b = if self.junk { b"erminal"[i % 7] } else { 0 };
            }
        }
        put(&mut h, e, s.sec, f.sec as u64);
        put(&mut h, e, s.frac, f.frac as u64);
        if let Some(c) = s.cpu {
            put(&mut h, e, c, f.cpu as u32 as u64);
        }
        self.offsets.push(self.buf.len() as u64);
        self.buf.extend_from_slice(&h);
        self.buf.extend_from_slice(payload);
        self
    }

    /// Append raw bytes (a cut record, garbage).
    pub fn bytes_raw(&mut self, b: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(b);
        self
    }

    /// Byte offset of every record written so far.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    pub fn bytes(&self) -> Vec<u8> {
        self.buf.clone()
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }
}

pub(super) fn put(h: &mut [u8], e: Endianness, (off, size): F, v: u64) {
    let b = &mut h[off..off + size];
    match (e, size) {
        (Endianness::Little, 2) => b.copy_from_slice(&(v as u16).to_le_bytes()),
        (Endianness::Little, 4) => b.copy_from_slice(&(v as u32).to_le_bytes()),
        (Endianness::Little, _) => b.copy_from_slice(&v.to_le_bytes()),
        (Endianness::Big, 2) => b.copy_from_slice(&(v as u16).to_be_bytes()),
        (Endianness::Big, 4) => b.copy_from_slice(&(v as u32).to_be_bytes()),
        (Endianness::Big, _) => b.copy_from_slice(&v.to_be_bytes()),
    }
}

/// The header fields and payload `r` is written as; `None` when the body
/// has no record type in this family.
pub fn fields_for(abi: &Abi, r: &Record) -> Option<(Fields, Vec<u8>)> {
    let version = header_version(abi, r.version);
    let s = shape(abi, version)?;
    let (typ, payload) = payload(abi, version, &r.body)?;
    let mut typ = typ;
    if abi.family == Family::FreeBsd {
        typ |= if version == 1 { 0x4000 } else { 0 } | if r.dropped { 0x8000 } else { 0 };
    }
    let sec = r.ts.div_euclid(1_000_000_000);
    let ns = r.ts.rem_euclid(1_000_000_000);
    Some((
        Fields {
            version,
            len: payload.len() as u64,
            typ,
            start: matches!(r.body, Body::Start),
            pid: r.pid,
            tid: r.tid.unwrap_or(0),
            comm: r.comm.to_vec(),
            sec,
            frac: if s.nanos { ns } else { ns / 1000 },
            cpu: r.cpu.unwrap_or(0),
        },
        payload,
    ))
}
