//! Lower-case hexadecimal: the one table of hex digits ([`HEX_DIGITS`]:
//! every table and escape that takes digits by value is made from it),
//! the hex of byte strings (the `_hex` twin of a JSON value, `dump`'s
//! hexdump) and of words (`{v:x}` without the formatter).

use super::TextSink;

/// Lower-case hex digits, by value.
pub const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Lower-case hex of `b`.
pub fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    hex_into(&mut s, b);
    s
}

/// Two lower-case hex digits for each byte.
const HEX2: [[u8; 2]; 256] = {
    let mut t = [[0u8; 2]; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = [HEX_DIGITS[c >> 4], HEX_DIGITS[c & 0xf]];
        c += 1;
    }
    t
};

/// The two lower-case hex digits of `b`.
#[inline]
pub fn hex_pair(b: u8) -> [u8; 2] {
    HEX2[usize::from(b)]
}

/// Append the lower-case hex of `b` to `out` (the `_hex` twin of `dump`'s
/// binary I/O data), put together a block at a time on the stack: four
/// bytes at a time worked out in a register ([`hex_digits`]) and stored
/// whole, the last few from [`hex_pair`].
pub fn hex_into(out: &mut impl TextSink, b: &[u8]) {
    let mut block = [0u8; 512];
    for chunk in b.chunks(256) {
        let mut fours = chunk.chunks_exact(4);
        for (d, four) in block.chunks_exact_mut(8).zip(&mut fours) {
            let x = hex_digits(four.first_chunk().map_or([0; 4], |&f| f));
            d.copy_from_slice(&x.to_le_bytes());
        }
        let whole = 2 * (chunk.len() - fours.remainder().len());
        for (d, &c) in block[whole..].chunks_exact_mut(2).zip(fours.remainder()) {
            d.copy_from_slice(&hex_pair(c));
        }
        out.push_ascii(&block[..2 * chunk.len()]);
    }
}

/// The lower-case hex of `four`, as ASCII in the bytes of a word read
/// little-endian (the first byte's two digits lowest): each byte spread
/// to a 16-bit lane, its high nibble to the lane's low byte and its low
/// nibble to the high byte, then `0`..`9` or `a`..`f` for all sixteen
/// nibbles at once (a nibble of 10 or more carries into its byte's top bit
/// when 0x76 is added).
#[inline]
pub fn hex_digits(four: [u8; 4]) -> u64 {
    const NIBBLES: u64 = 0x000f_000f_000f_000f;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = u64::from(u32::from_le_bytes(four));
    let x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    let x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    let n = (x >> 4) & NIBBLES | (x & NIBBLES) << 8;
    let letters = ((n + 0x76 * ONES) >> 7) & ONES;
    n + 0x30 * ONES + letters * (b'a' - b'0' - 10) as u64
}

/// Append `v` in lower-case hex without prefix (what `{v:x}` writes): its
/// sixteen digits worked out in two registers ([`hex_digits`]), the
/// leading zeros cut off, appended with a store or two.
#[inline]
pub fn push_hex(out: &mut impl TextSink, v: u64) {
    let [a, b, c, d, e, f, g, h] = v.to_be_bytes();
    // Digits to write: one at least.
    let n = (16 - (v | 1).leading_zeros() / 4) as usize;
    let low = hex_digits([e, f, g, h]);
    if n > 8 {
        out.push_word(hex_digits([a, b, c, d]) >> (8 * (16 - n)), n - 8);
        out.push_word(low, 8);
    } else {
        out.push_word(low >> (8 * (8 - n)), n);
    }
}

/// Append a successful call's return value as kdump prints it: decimal,
/// and beside it `/0x` and the hex of the word the kernel returned when
/// the value is not a single digit (`3`, `-1/0xffffffff`, `4096/0x1000`).
/// `word_bits` (32 or 64) is the writing kernel's register width, which a
/// negative value's hex is cut to. `kt2sql dump` and `tree -v` both write
/// returns with this.
pub fn push_retval(out: &mut impl TextSink, v: i64, word_bits: u32) {
    super::push_int(out, v);
    if !(0..=9).contains(&v) {
        let word = if word_bits == 32 {
            u64::from(v as u32)
        } else {
            v as u64
        };
        out.push_text("/0x");
        push_hex(out, word);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{long_samples, xorshift};
    use super::*;

    #[test]
    fn retval_as_kdump_prints_it() {
        let show = |v: i64, bits: u32| {
            let mut s = String::new();
            push_retval(&mut s, v, bits);
            s
        };
        assert_eq!(show(0, 64), "0");
        assert_eq!(show(9, 64), "9");
        assert_eq!(show(10, 64), "10/0xa");
        assert_eq!(show(4096, 32), "4096/0x1000");
        assert_eq!(show(-1, 32), "-1/0xffffffff");
        assert_eq!(show(-100, 64), "-100/0xffffffffffffff9c");
    }

    #[test]
    fn hex_as_the_formatter_writes_it() {
        for v in [0, 1, 0xf, 0x10, 0xdead_beef, u64::MAX] {
            let mut s = String::new();
            push_hex(&mut s, v);
            assert_eq!(s, format!("{v:x}"));
        }
        let mut next = xorshift(0xdaa6_6d2b_5c3b_9f4b);
        for _ in 0..100_000 {
            let v = next() >> (next() % 64);
            let mut b = b"x".to_vec();
            push_hex(&mut b, v);
            assert_eq!(b, format!("x{v:x}").as_bytes());
        }
        let bytes: Vec<u8> = (0..=255).collect();
        let want: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&bytes), want);
        assert_eq!(hex(b"\x00\xab"), "00ab");
    }

    /// Long strings cross the blocks `hex_into` builds on the stack.
    #[test]
    fn long_strings_in_hex() {
        for b in long_samples() {
            let mut h = Vec::new();
            hex_into(&mut h, &b);
            let want: String = b.iter().map(|c| format!("{c:02x}")).collect();
            assert_eq!(h, want.as_bytes());
        }
    }
}
