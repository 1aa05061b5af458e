//! Text for people and machines out of recorded bytes and numbers, by
//! job: [`vis`](vis()) escaping for terminals (`vis.rs`), decimal digits
//! (`digits.rs`) and hexadecimal (`hex.rs`, the one table of hex digits),
//! all appended to a [`TextSink`]. Nothing recorded is ever printed raw.
//! JSON strings are [`crate::json`]'s, which writes them with these
//! pieces; nothing here knows JSON.

mod digits;
mod hex;
mod vis;

pub use digits::{push_int, push_uint, push_uint_padded, Digits};
pub use hex::{hex, hex_digits, hex_into, hex_pair, push_hex, push_retval, HEX_DIGITS};
pub(crate) use vis::is_bidi_control;
pub use vis::{all_plain, path, quoted, vis, vis_into, vis_plain};

/// Append `n` spaces, whole slices of a constant, not a character at a time
/// (padding of table cells and tree indents).
pub fn push_spaces(out: &mut Vec<u8>, mut n: usize) {
    const SPACES: &[u8] = b"                                                                ";
    while n > 0 {
        let k = n.min(SPACES.len());
        out.extend_from_slice(&SPACES[..k]);
        n -= k;
    }
}

/// Whether `b` is valid UTF-8.
pub fn is_utf8(b: &[u8]) -> bool {
    std::str::from_utf8(b).is_ok()
}

/// Where text is appended: a `String` (the reports, messages) or a byte
/// buffer that is written out as it is (`dump`, whose output is most of
/// what it costs). Only valid UTF-8 is ever appended, so a buffer of bytes
/// holds text too; a `String` checks what it is given, bytes do not.
pub trait TextSink {
    /// Append bytes known to be ASCII.
    fn push_ascii(&mut self, b: &[u8]);
    /// Append bytes known to be valid UTF-8 (whole characters).
    fn push_utf8(&mut self, b: &[u8]);
    /// Append text.
    fn push_text(&mut self, s: &str);
    /// Append the first `n` (at most eight) bytes of `w`'s, read
    /// little-endian, known to be ASCII (digits worked out in a register).
    #[inline]
    fn push_word(&mut self, w: u64, n: usize) {
        self.push_ascii(&w.to_le_bytes()[..n]);
    }
}

impl TextSink for String {
    #[inline]
    fn push_ascii(&mut self, b: &[u8]) {
        // A digit at a time: fewer than a check of the slice costs.
        if b.len() < 16 {
            self.extend(b.iter().map(|&c| char::from(c)));
        } else {
            self.push_utf8(b);
        }
    }
    #[inline]
    fn push_utf8(&mut self, b: &[u8]) {
        self.push_str(std::str::from_utf8(b).unwrap_or_default());
    }
    #[inline]
    fn push_text(&mut self, s: &str) {
        self.push_str(s);
    }
}

impl TextSink for Vec<u8> {
    #[inline]
    fn push_ascii(&mut self, b: &[u8]) {
        self.extend_from_slice(b);
    }
    #[inline]
    fn push_utf8(&mut self, b: &[u8]) {
        self.extend_from_slice(b);
    }
    #[inline]
    fn push_text(&mut self, s: &str) {
        self.extend_from_slice(s.as_bytes());
    }
    /// All eight bytes in one store (no call to `memcpy` for a few
    /// digits), then cut back to `n`.
    #[inline]
    fn push_word(&mut self, w: u64, n: usize) {
        self.extend_from_slice(&w.to_le_bytes());
        self.truncate(self.len() - (8 - n));
    }
}

/// A xorshift64 generator from `seed`: the same numbers on every run.
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// Byte strings of up to 5000 bytes, the same on every run, for the
/// writers that put text together in blocks: mostly NUL, mostly text, or
/// any byte.
#[cfg(test)]
pub(crate) fn long_samples() -> Vec<Vec<u8>> {
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    (0..400)
        .map(|round| {
            let len = (next() % 5000) as usize;
            (0..len)
                .map(|_| {
                    let r = next();
                    match round % 3 {
                        0 if r % 4 != 0 => 0,
                        1 if r % 16 != 0 => b'a' + (r % 26) as u8,
                        _ => (r >> 8) as u8,
                    }
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_told_apart() {
        assert!(is_utf8("caf\u{e9}".as_bytes()));
        assert!(!is_utf8(b"\xff"));
    }
}
