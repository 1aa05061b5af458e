//! Decimal text of integers without the formatting machinery, for the
//! outputs that write millions of them (`dump`, `timeline --calls`, tables
//! of calls): the same digits as `Display` writes, appended to a
//! [`TextSink`] ([`push_uint`], [`push_int`], [`push_uint_padded`]) or
//! put together in a reused buffer ([`Digits`]).

use super::TextSink;

/// Decimal text of integers put together in a buffer reused per number,
/// for the writers of `&str` (`timeline --calls`, tables of calls).
#[derive(Debug, Clone, Copy, Default)]
pub struct Digits {
    buf: [u8; 32],
}

impl Digits {
    /// `v` in decimal, as `v.to_string()` writes it.
    pub fn int(&mut self, v: i64) -> &str {
        std::str::from_utf8(self.int_bytes(v)).unwrap_or_default()
    }

    /// [`Digits::int`]'s text as bytes, for a writer of bytes: no UTF-8
    /// check of the digits.
    pub fn int_bytes(&mut self, v: i64) -> &[u8] {
        let mut at = self.unsigned_at(v.unsigned_abs(), self.buf.len());
        if v < 0 {
            at -= 1;
            self.buf[at] = b'-';
        }
        &self.buf[at..]
    }

    /// `ns - origin` nanoseconds as microseconds with three decimals
    /// (`1234.567`, `-0.005`).
    pub fn micros(&mut self, ns: i64, origin: i64) -> &str {
        let d = ns - origin;
        let a = d.unsigned_abs();
        let end = self.buf.len();
        let mut frac = a % 1000;
        for i in (end - 3..end).rev() {
            self.buf[i] = b'0' + (frac % 10) as u8;
            frac /= 10;
        }
        self.buf[end - 4] = b'.';
        let at = self.unsigned_at(a / 1000, end - 4);
        self.signed(d < 0, at)
    }

    /// Write `v`'s digits to end just before `end`; where they begin.
    fn unsigned_at(&mut self, mut v: u64, end: usize) -> usize {
        let mut at = end;
        loop {
            at -= 1;
            self.buf[at] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                return at;
            }
        }
    }

    /// The text from `at`, with a `-` before it when `negative`.
    fn signed(&mut self, negative: bool, mut at: usize) -> &str {
        if negative {
            at -= 1;
            self.buf[at] = b'-';
        }
        // Only ASCII digits, `-` and `.` were written.
        std::str::from_utf8(&self.buf[at..]).unwrap_or_default()
    }
}

/// Append `v` in decimal (what `{v}` writes, without the formatter), eight
/// digits at a time worked out in a register and appended with one store
/// (a record of `dump --format jsonl` has ten numbers, its time nineteen
/// digits). Never read back from memory: digits stored a few bytes at a
/// time and then copied out whole stalled the copy (`bench/NOTES.md`).
#[inline]
pub fn push_uint(out: &mut impl TextSink, v: u64) {
    const ASCII: u64 = 0x3030_3030_3030_3030;
    const E8: u64 = 100_000_000;
    // The first chunk: no leading zeros, one digit at least.
    let (first, rest) = if v < E8 {
        (v, 0)
    } else if v < E8 * E8 {
        (v / E8, 1)
    } else {
        (v / (E8 * E8), 2)
    };
    let d = eight_digits(first);
    // The leading zeros are the low bytes that are 0 (seven when `first`
    // is 0: its last digit is written).
    let zeros = ((d | 1 << 56).trailing_zeros() / 8) as usize;
    out.push_word((d | ASCII) >> (8 * zeros), 8 - zeros);
    if rest == 2 {
        out.push_word(eight_digits(v / E8 % E8) | ASCII, 8);
    }
    if rest >= 1 {
        out.push_word(eight_digits(v % E8) | ASCII, 8);
    }
}

/// Append `v` in decimal right-aligned in `width` columns (at most eight)
/// with spaces, as `{v:>width}` writes it; below 10^8 (pids, thread ids)
/// as [`push_uint`] writes its first digits, the leading zeros spaces.
#[inline]
pub fn push_uint_padded(out: &mut impl TextSink, v: u64, width: usize) {
    const ASCII: u64 = 0x3030_3030_3030_3030;
    const SPACES: u64 = 0x2020_2020_2020_2020;
    if v >= 100_000_000 {
        return push_uint(out, v);
    }
    let d = eight_digits(v);
    let zeros = ((d | 1 << 56).trailing_zeros() / 8) as usize;
    let lead = (1u64 << (8 * zeros)) - 1;
    let field = (d | ASCII) & !lead | SPACES & lead;
    let n = (8 - zeros).max(width.min(8));
    out.push_word(field >> (8 * (8 - n)), n);
}

/// The eight decimal digits of `v` (below 10^8, with leading zeros), one
/// a byte, the first in the lowest byte: the two halves of four digits in
/// the two 32-bit lanes of a word, then each lane split in two and each
/// half again, every lane at once (multiplications by reciprocals exact
/// in these ranges: `x * 10486 >> 20` is `x / 100` below 43 699, `x * 103
/// >> 10` is `x / 10` below 179, and no product leaves its lane).
#[inline]
fn eight_digits(v: u64) -> u64 {
    let x = (v / 10_000) | ((v % 10_000) << 32);
    let hundreds = ((x * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let x = hundreds | (x - hundreds * 100) << 16;
    let tens = ((x * 103) >> 10) & 0x000f_000f_000f_000f;
    tens | (x - tens * 10) << 8
}

/// Append `v` in decimal, `-` first when negative.
#[inline]
pub fn push_int(out: &mut impl TextSink, v: i64) {
    if v < 0 {
        out.push_ascii(b"-");
    }
    push_uint(out, v.unsigned_abs());
}

#[cfg(test)]
mod tests {
    use super::super::xorshift;
    use super::*;

    #[test]
    fn digits_match_display() {
        let mut d = Digits::default();
        for v in [0, 7, -7, 10, 1_234_567_890, i64::MAX, i64::MIN] {
            assert_eq!(d.int(v), v.to_string());
            assert_eq!(d.int_bytes(v), v.to_string().as_bytes());
        }
        assert_eq!(d.micros(1_234_567, 0), "1234.567");
        assert_eq!(d.micros(5, 0), "0.005");
        assert_eq!(d.micros(0, 1500), "-1.500");
        assert_eq!(d.micros(0, 5), "-0.005");
        assert_eq!(d.micros(i64::MAX, 0), "9223372036854775.807");
    }

    #[test]
    fn every_digit_count_into_both_sinks() {
        // Every digit count, at both ends, into both kinds of sink, after
        // text already there.
        let powers = (0..20).map(|k| 10u64.pow(k));
        let ends = powers.flat_map(|p| [p - 1, p, p + 1, p.saturating_mul(5)]);
        for v in ends.chain([12345, 1 << 63, u64::MAX - 1, u64::MAX]) {
            let mut s = String::from("x");
            push_uint(&mut s, v);
            assert_eq!(s, format!("x{v}"));
            let mut b = b"x".to_vec();
            push_uint(&mut b, v);
            assert_eq!(b, format!("x{v}").as_bytes());
            let mut b = Vec::new();
            push_int(&mut b, (v as i64).wrapping_neg());
            assert_eq!(b, (v as i64).wrapping_neg().to_string().as_bytes());
        }
    }

    #[test]
    fn numbers_as_the_formatter_writes_them() {
        for v in [
            0,
            1,
            9,
            10,
            99,
            100,
            101,
            255,
            1000,
            -1,
            -99,
            -100,
            -10,
            i64::MIN,
            i64::MAX,
            1_776_755_796_684_328_591,
        ] {
            let mut s = String::new();
            push_int(&mut s, v);
            assert_eq!(s, v.to_string());
        }
        for v in [0, 1, 0xf, 0x10, 0xdead_beef, u64::MAX] {
            let mut s = String::new();
            push_uint(&mut s, v);
            assert_eq!(s, v.to_string());
        }
    }

    #[test]
    fn padded_numbers_as_the_formatter_writes_them() {
        let mut next = xorshift(0x1405_7b7e_f767_814f);
        for _ in 0..20_000 {
            let v = next() >> (next() % 64);
            for width in 0..=8 {
                let mut b = b"x".to_vec();
                push_uint_padded(&mut b, v, width);
                assert_eq!(b, format!("x{v:>width$}").as_bytes());
            }
        }
        let mut s = String::new();
        push_uint_padded(&mut s, 0, 6);
        assert_eq!(s, "     0");
    }

    /// Numbers of every width, drawn at random, as `Display` writes them.
    #[test]
    fn random_numbers_as_the_formatter_writes_them() {
        let mut next = xorshift(0x853c_49e6_748f_ea9b);
        for _ in 0..100_000 {
            let v = next() >> (next() % 64);
            let mut b = b"x".to_vec();
            push_uint(&mut b, v);
            assert_eq!(b, format!("x{v}").as_bytes());
            let mut s = String::new();
            push_int(&mut s, v as i64);
            assert_eq!(s, (v as i64).to_string());
        }
    }
}
