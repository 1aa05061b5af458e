//! Bounds-checked integer reads in the file's byte order. Every read returns
//! `None` past the end of the slice, so hostile lengths cannot panic.
//! The byte order is chosen once per record by [`dispatch!`] and is a type
//! parameter below it (no per-field branch); decoding never uses the host's
//! native order.

use std::marker::PhantomData;

use byteorder::ByteOrder;

use super::abi::{Field, Width};

/// Call `$f::<LittleEndian or BigEndian>($args)` according to `$e`.
macro_rules! dispatch {
    ($e:expr, $f:ident($($arg:expr),*)) => {
        match $e {
            $crate::decode::abi::Endianness::Little => $f::<byteorder::LittleEndian>($($arg),*),
            $crate::decode::abi::Endianness::Big => $f::<byteorder::BigEndian>($($arg),*),
        }
    };
}
pub(crate) use dispatch;

/// Integer reader over one record's bytes, in byte order `B`.
pub(crate) struct ByteReader<'a, B> {
    /// The bytes.
    pub(crate) b: &'a [u8],
    order: PhantomData<B>,
}

impl<B> Clone for ByteReader<'_, B> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}
impl<B> Copy for ByteReader<'_, B> {}

impl<'a, B: ByteOrder> ByteReader<'a, B> {
    /// A reader over `b`.
    #[inline]
    pub(crate) fn new(b: &'a [u8]) -> Self {
        ByteReader {
            b,
            order: PhantomData,
        }
    }

    #[inline]
    fn get(&self, off: usize, n: usize) -> Option<&'a [u8]> {
        self.b.get(off..off.checked_add(n)?)
    }

    /// Unsigned 16-bit.
    #[inline]
    pub(crate) fn u16(&self, off: usize) -> Option<u16> {
        let s = self.get(off, 2)?;
        Some(B::read_u16(s))
    }

    /// Signed 16-bit.
    #[inline]
    pub(crate) fn i16(&self, off: usize) -> Option<i16> {
        self.u16(off).map(|v| v as i16)
    }

    /// Unsigned 32-bit.
    #[inline]
    pub(crate) fn u32(&self, off: usize) -> Option<u32> {
        let s = self.get(off, 4)?;
        Some(B::read_u32(s))
    }

    /// Signed 32-bit.
    #[inline]
    pub(crate) fn i32(&self, off: usize) -> Option<i32> {
        self.u32(off).map(|v| v as i32)
    }

    /// Unsigned 64-bit.
    #[inline]
    pub(crate) fn u64(&self, off: usize) -> Option<u64> {
        let s = self.get(off, 8)?;
        Some(B::read_u64(s))
    }

    /// A register-sized word, zero-extended.
    #[inline]
    pub(crate) fn word(&self, off: usize, w: Width) -> Option<u64> {
        match w {
            Width::W32 => self.u32(off).map(u64::from),
            Width::W64 => self.u64(off),
        }
    }

    /// A register-sized word, sign-extended (`register_t`, `long`).
    #[inline]
    pub(crate) fn sword(&self, off: usize, w: Width) -> Option<i64> {
        match w {
            Width::W32 => self.i32(off).map(i64::from),
            Width::W64 => self.u64(off).map(|v| v as i64),
        }
    }

    /// A header field of 2, 4 or 8 bytes, sign-extended.
    #[inline(always)]
    pub(crate) fn signed(&self, fld: Field) -> Option<i64> {
        match fld.size {
            2 => self.i16(fld.off).map(i64::from),
            4 => self.i32(fld.off).map(i64::from),
            _ => self.u64(fld.off).map(|v| v as i64),
        }
    }

    /// A header field of 2, 4 or 8 bytes, zero-extended.
    #[inline]
    pub(crate) fn unsigned(&self, fld: Field) -> Option<u64> {
        match fld.size {
            2 => self.u16(fld.off).map(u64::from),
            4 => self.u32(fld.off).map(u64::from),
            _ => self.u64(fld.off),
        }
    }

    /// Bytes from `off` to the end (empty when `off` is past it).
    #[inline]
    pub(crate) fn rest(&self, off: usize) -> &'a [u8] {
        self.b.get(off..).unwrap_or(&[])
    }
}

/// `s` up to its first NUL.
#[inline]
pub(crate) fn cut_nul(s: &[u8]) -> &[u8] {
    match s.iter().position(|&c| c == 0) {
        Some(i) => &s[..i],
        None => s,
    }
}

/// `s` without trailing NULs.
#[inline]
pub(crate) fn trim_nuls(s: &[u8]) -> &[u8] {
    let mut end = s.len();
    while end > 0 && s[end - 1] == 0 {
        end -= 1;
    }
    &s[..end]
}
