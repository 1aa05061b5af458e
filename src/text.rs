//! Safe text: how recorded bytes (paths, command names, I/O data) are shown.
//! Nothing recorded is ever printed raw: control characters, DEL, C1
//! controls and bytes that are not UTF-8 are escaped C-style with octal
//! (`\n`, `\t`, `\033`), as kdump's vis(3) does, and `\` itself is doubled,
//! so the escaped text maps back to exactly one byte string.
//! JSON output gets valid UTF-8 strings; where the bytes are not UTF-8 the
//! caller adds a hex field so nothing is lost.

use std::borrow::Cow;

/// Escape `b` for a terminal (vis(3) C-style, octal for the rest).
/// Printable UTF-8 passes through unchanged.
pub fn vis(b: &[u8]) -> Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(b) {
        if !s.chars().any(needs_escape) {
            return Cow::Borrowed(s);
        }
    }
    let mut out = String::with_capacity(b.len() + 8);
    vis_into(&mut out, b, false);
    Cow::Owned(out)
}

/// A file name for a message: its bytes escaped as [`vis`] does.
pub fn path(p: &std::path::Path) -> String {
    vis(p.as_os_str().as_encoded_bytes()).into_owned()
}

/// `b` escaped and in double quotes, with `"` escaped too.
pub fn quoted(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 2);
    out.push('"');
    vis_into(&mut out, b, true);
    out.push('"');
    out
}

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

/// Append the escaped form of `b` to `out`. Runs of printable ASCII are
/// appended whole.
pub fn vis_into(out: &mut impl TextSink, b: &[u8], escape_quote: bool) {
    let plain = |c: u8| vis_plain(c) && !(escape_quote && c == b'"');
    // Command names and most paths: nothing to escape, copied whole.
    if b.iter().all(|&c| plain(c)) {
        out.push_ascii(b);
        return;
    }
    for chunk in b.utf8_chunks() {
        let mut rest = chunk.valid();
        loop {
            let run = rest.bytes().position(|c| !plain(c)).unwrap_or(rest.len());
            out.push_ascii(&rest.as_bytes()[..run]);
            rest = &rest[run..];
            let Some(c) = rest.chars().next() else {
                break;
            };
            rest = &rest[c.len_utf8()..];
            match c {
                '\\' => out.push_ascii(b"\\\\"),
                '"' => out.push_ascii(b"\\\""),
                '\n' => out.push_ascii(b"\\n"),
                '\t' => out.push_ascii(b"\\t"),
                '\r' => out.push_ascii(b"\\r"),
                '\0' => out.push_ascii(b"\\0"),
                c if needs_escape(c) => {
                    let mut buf = [0u8; 4];
                    for &byte in c.encode_utf8(&mut buf).as_bytes() {
                        push_octal(out, byte);
                    }
                }
                c => out.push_text(c.encode_utf8(&mut [0u8; 4])),
            }
        }
        for &byte in chunk.invalid() {
            push_octal(out, byte);
        }
    }
}

/// A byte [`vis`] leaves as it is, one column wide: printable ASCII but
/// the backslash.
#[inline]
pub fn vis_plain(c: u8) -> bool {
    (0x20..0x7f).contains(&c) && c != b'\\'
}

/// Whether every byte of `b` is [`vis_plain`]: sixteen bytes at a time
/// without a branch per byte (the compiler vectorises each chunk), for
/// renderers that copy such text whole.
pub fn all_plain(b: &[u8]) -> bool {
    let mut chunks = b.chunks_exact(16);
    let plain = |ok: bool, &c: &u8| ok & vis_plain(c);
    chunks.all(|c| c.iter().fold(true, plain)) && chunks.remainder().iter().fold(true, plain)
}

/// `\ooo`: a byte in three octal digits.
fn push_octal(out: &mut impl TextSink, byte: u8) {
    out.push_ascii(&[
        b'\\',
        b'0' + (byte >> 6),
        b'0' + ((byte >> 3) & 7),
        b'0' + (byte & 7),
    ]);
}

fn needs_escape(c: char) -> bool {
    c.is_control() || c == '\\' || is_bidi_control(c)
}

/// Unicode characters that reorder text on a terminal (Trojan Source).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
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

/// What [`json_str`] writes for each byte, padded to eight bytes, its
/// length in the last: printable ASCII but `"` and `\` as itself; `\"`,
/// `\\`, `\n`, `\t`, `\r`, else `\u00XX` for the rest of ASCII; U+FFFD
/// for every other byte: what a byte that cannot start a UTF-8 character
/// (a continuation byte, `C0`, `C1`, `F5`..`FF`) or a lead byte without a
/// continuation byte after it stands for. A lead byte followed by a
/// continuation byte ([`starts`]) is decoded instead. One table lookup and
/// one store a byte: binary I/O data is random bytes, where a branch per
/// class was mispredicted most of the time.
const JSON_UNITS: [[u8; 8]; 256] = {
    let mut t = [[0u8; 8]; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = match c as u8 {
            b'"' => *b"\\\"\0\0\0\0\0\x02",
            b'\\' => *b"\\\\\0\0\0\0\0\x02",
            b'\n' => *b"\\n\0\0\0\0\0\x02",
            b'\t' => *b"\\t\0\0\0\0\0\x02",
            b'\r' => *b"\\r\0\0\0\0\0\x02",
            0x20..=0x7e => [c as u8, 0, 0, 0, 0, 0, 0, 1],
            0..=0x7f => [b'\\', b'u', b'0', b'0', HEX[c >> 4], HEX[c & 0xf], 0, 6],
            _ => [0xef, 0xbf, 0xbd, 0, 0, 0, 0, 3],
        };
        c += 1;
    }
    t
};

/// Append `b` as a JSON string literal: invalid UTF-8 becomes U+FFFD (the
/// caller emits an exact `_hex` field beside it when [`is_utf8`] is false),
/// one for each maximal invalid sequence, as [`slice::utf8_chunks`] splits
/// them. The escaped text is put together in a block on the stack, each
/// byte's text from [`JSON_UNITS`], and appended a block at a time. This
/// is most of `dump --format jsonl`, whose I/O data is binary
/// (`bench/NOTES.md`). Returns whether `b` is UTF-8 (nothing replaced), as
/// [`is_utf8`] would.
pub fn json_str(out: &mut impl TextSink, b: &[u8]) -> bool {
    // Keys, names and paths: nothing to escape, copied whole.
    if json_plain(b) {
        out.push_ascii(b"\"");
        out.push_ascii(b);
        out.push_ascii(b"\"");
        return true;
    }
    // Room for eight units (`\u` escapes, six bytes each, the last stored
    // as eight) past `BLOCK`.
    const BLOCK: usize = 1024;
    let mut block = [0u8; BLOCK + 64];
    block[0] = b'"';
    let mut k = 1;
    let mut i = 0;
    // Not 0 once a byte has been replaced.
    let mut replaced = 0;
    while i < b.len() {
        if k > BLOCK {
            out.push_utf8(&block[..k]);
            k = 0;
        }
        // Eight bytes at a time, each its unit, with no branch per byte;
        // then, if one of them starts a character (a lead byte followed by
        // a continuation byte, one in sixteen random bytes), the units from
        // it on are taken back and it is decoded below. The ninth byte
        // tells whether the eighth starts one.
        if let Some(nine) = b[i..].first_chunk::<9>() {
            let word = |b: &[u8]| b.first_chunk().map_or(0, |&e| u64::from_le_bytes(e));
            let w = word(nine);
            let starts = starts(w, word(&nine[1..]));
            // Every byte above ASCII before the first start is replaced.
            let before = (starts & starts.wrapping_neg()).wrapping_sub(1);
            replaced |= w & before & 0x8080_8080_8080_8080;
            let mut at = [0usize; 8];
            for (j, &c) in nine[..8].iter().enumerate() {
                at[j] = k;
                let unit = &JSON_UNITS[usize::from(c)];
                block[k..k + 8].copy_from_slice(unit);
                k += usize::from(unit[7]);
            }
            if starts == 0 {
                i += 8;
                continue;
            }
            let run = (starts.trailing_zeros() / 8) as usize;
            k = at[run];
            i += run;
        } else if !(0xc2..=0xf4).contains(&b[i]) || b.get(i + 1).is_none_or(|&c2| c2 & 0xc0 != 0x80)
        {
            // The last eight bytes, one at a time.
            replaced |= u64::from(b[i] >> 7);
            let unit = &JSON_UNITS[usize::from(b[i])];
            block[k..k + 8].copy_from_slice(unit);
            k += usize::from(unit[7]);
            i += 1;
            continue;
        }
        // A lead byte with a continuation byte after it. A two-byte lead
        // (the most common in binary data) without the general decoder.
        if (0xc2..0xe0).contains(&b[i]) {
            let c2 = b[i + 1];
            if b[i] == 0xc2 && c2 < 0xa0 {
                // C1 control.
                block[k..k + 6].copy_from_slice(&u_escape(u32::from(c2)));
                k += 6;
            } else {
                block[k..k + 2].copy_from_slice(&b[i..i + 2]);
                k += 2;
            }
            i += 2;
            continue;
        }
        let (len, ch) = utf8_char(&b[i..]);
        match ch {
            // C1 (U+0080..U+009F: a UTF-8 terminal may take U+009B for
            // CSI) and bidi controls.
            Some(ch) if ch.is_control() || is_bidi_control(ch) => {
                block[k..k + 6].copy_from_slice(&u_escape(ch.into()));
                k += 6;
            }
            // Valid: its own bytes.
            Some(_) => {
                block[k..k + len].copy_from_slice(&b[i..i + len]);
                k += len;
            }
            None => {
                block[k..k + 3].copy_from_slice("\u{fffd}".as_bytes());
                k += 3;
                replaced = 1;
            }
        }
        i += len;
    }
    block[k] = b'"';
    out.push_utf8(&block[..k + 1]);
    replaced == 0
}

/// The top bit of each byte of `w` that may start a UTF-8 character of
/// more than one byte: both its top bits set (`C0`..`FF`), and the byte
/// after it (the same byte of `after`, `w`'s bytes from the second on and
/// the next) a continuation byte (top bits `10`).
#[inline]
fn starts(w: u64, after: u64) -> u64 {
    w & (w << 1) & after & !(after << 1) & 0x8080_8080_8080_8080
}

/// Whether `b` is printable ASCII without `"` and `\\`: a JSON string as
/// it is.
#[inline]
pub fn json_plain(b: &[u8]) -> bool {
    b.iter().all(|&c| JSON_UNITS[usize::from(c)][7] == 1)
}

/// Append `s` as a JSON string literal, as [`json_str`] writes its bytes;
/// text with nothing to escape (keys, names) is copied without a check.
#[inline]
pub fn json_text(out: &mut impl TextSink, s: &str) {
    if json_plain(s.as_bytes()) {
        out.push_ascii(b"\"");
        out.push_text(s);
        out.push_ascii(b"\"");
    } else {
        json_str(out, s.as_bytes());
    }
}

/// `\u` and four hex digits.
fn u_escape(c: u32) -> [u8; 6] {
    let d = |n: u32| HEX[((c >> n) & 0xf) as usize];
    [b'\\', b'u', d(12), d(8), d(4), d(0)]
}

/// The UTF-8 sequence `b` starts with (`b[0] >= 0x80`): its length and
/// character when it is valid, else the length of its maximal invalid
/// prefix (at least one byte) and `None`, as the standard library's UTF-8
/// validation reports it.
fn utf8_char(b: &[u8]) -> (usize, Option<char>) {
    // The range of the second byte, how many continuation bytes follow,
    // and the lead byte's bits of the code point.
    let (second, need, bits) = match b[0] {
        0xc2..=0xdf => (0x80..=0xbf, 1, b[0] & 0x1f),
        0xe0 => (0xa0..=0xbf, 2, 0),
        0xe1..=0xec | 0xee..=0xef => (0x80..=0xbf, 2, b[0] & 0x0f),
        0xed => (0x80..=0x9f, 2, 0x0d),
        0xf0 => (0x90..=0xbf, 3, 0),
        0xf1..=0xf3 => (0x80..=0xbf, 3, b[0] & 0x07),
        0xf4 => (0x80..=0x8f, 3, 0x04),
        _ => return (1, None),
    };
    if !b.get(1).is_some_and(|c| second.contains(c)) {
        return (1, None);
    }
    let mut cp = u32::from(bits);
    for k in 1..=need {
        match b.get(k) {
            Some(&c) if (0x80..=0xbf).contains(&c) => cp = cp << 6 | u32::from(c & 0x3f),
            _ => return (k, None),
        }
    }
    (need + 1, char::from_u32(cp))
}

/// Parse a JSON array of strings (as [`json_str`] writes them, or any
/// other valid JSON of that shape): `None` when `b` is anything else.
pub fn json_str_list(b: &[u8]) -> Option<Vec<String>> {
    serde_json::from_slice(b).ok()
}

/// Decimal text of integers written without the formatting machinery,
/// for outputs that write millions of them (`timeline --calls`, tables of
/// calls): the same digits as `Display`, into a buffer reused per number.
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

/// Whether `b` is valid UTF-8.
pub fn is_utf8(b: &[u8]) -> bool {
    std::str::from_utf8(b).is_ok()
}

/// Lower-case hex of `b`.
pub fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    hex_into(&mut s, b);
    s
}

/// Lower-case hex digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// Two lower-case hex digits for each byte.
const HEX2: [[u8; 2]; 256] = {
    let mut t = [[0u8; 2]; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = [HEX[c >> 4], HEX[c & 0xf]];
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_plain_is_every_byte_vis_plain() {
        // Each byte value at each place of texts of every length around
        // the chunk size, the rest plain.
        for len in 1..40 {
            for at in 0..len {
                for byte in 0..=255u8 {
                    let mut b = vec![b'a'; len];
                    b[at] = byte;
                    assert_eq!(all_plain(&b), vis_plain(byte), "{len} {at} {byte}");
                }
            }
        }
        assert!(all_plain(b""));
    }

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
    fn json_text_writes_what_json_str_writes() {
        let all_bytes: String = (0u8..0x80).map(char::from).collect();
        for s in [
            "call_id",
            "",
            "a\"b",
            "back\\slash",
            "caf\u{e9}",
            "\u{202e}x",
            "\u{85}",
            &all_bytes,
        ] {
            let (mut a, mut b) = (String::new(), String::new());
            json_text(&mut a, s);
            json_str(&mut b, s.as_bytes());
            assert_eq!(a, b, "{s:?}");
        }
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
    fn plain_paths_pass_through() {
        assert!(matches!(vis(b"/usr/bin/cc"), Cow::Borrowed("/usr/bin/cc")));
        assert_eq!(vis("/tmp/caf\u{e9}".as_bytes()), "/tmp/caf\u{e9}");
    }

    #[test]
    fn control_bytes_and_invalid_utf8_are_escaped() {
        assert_eq!(vis(b"a\x1b[31mb"), "a\\033[31mb");
        assert_eq!(vis(b"x\ny\t\0"), "x\\ny\\t\\0");
        assert_eq!(vis(b"\xff\xfe"), "\\377\\376");
        assert_eq!(vis(b"back\\slash"), "back\\\\slash");
        assert_eq!(vis("\u{9b}".as_bytes()), "\\302\\233");
        assert_eq!(vis("a\u{202e}b".as_bytes()), "a\\342\\200\\256b");
        assert_eq!(quoted(b"say \"hi\""), "\"say \\\"hi\\\"\"");
    }

    #[test]
    fn json_string_lists_read_back() {
        let words = [
            "cc",
            "",
            "a\"b\\c",
            "\u{1}\n\t\r",
            "caf\u{e9}",
            "\u{1f600}",
            "a\u{202e}b",
        ];
        let mut s = String::from("[");
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            json_str(&mut s, w.as_bytes());
        }
        s.push(']');
        assert_eq!(json_str_list(s.as_bytes()).unwrap(), words);
        let other = r#" [ "x\/y" , "\ud83d\ude00\b\f" ] "#;
        assert_eq!(
            json_str_list(other.as_bytes()).unwrap(),
            ["x/y", "\u{1f600}\u{8}\u{c}"]
        );
        assert_eq!(json_str_list(b"[]").unwrap(), Vec::<String>::new());
        for bad in [
            &b""[..],
            b"[",
            b"[1]",
            b"[\"a\"",
            b"[\"a\",]",
            b"[\"\\q\"]",
            b"[] x",
            b"[\"\\ud83d\"]",
            b"\xff",
        ] {
            assert_eq!(json_str_list(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    /// The escaping `json_str` did before its fast path, character by
    /// character over `utf8_chunks`: the reference it must equal.
    fn json_str_by_chunks(b: &[u8]) -> String {
        let mut out = String::from('"');
        for chunk in b.utf8_chunks() {
            for c in chunk.valid().chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    c if c.is_control() || is_bidi_control(c) => {
                        out.push_str(&format!("\\u{:04x}", c as u32));
                    }
                    c => out.push(c),
                }
            }
            if !chunk.invalid().is_empty() {
                out.push('\u{fffd}');
            }
        }
        out.push('"');
        out
    }

    /// A xorshift64 generator from `seed`: the same bytes on every run.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    #[test]
    fn json_strings_match_the_reference() {
        // Bytes that exercise every UTF-8 rule: ASCII, continuation bytes,
        // every lead byte class, and the edges of each second-byte range.
        let alphabet: Vec<u8> = [
            &b"a\"\\\n\t\r\x00\x1f\x7f"[..],
            &[0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf],
            &[
                0xe0, 0xe1, 0xe2, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff,
            ],
        ]
        .concat();
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..200_000 {
            // Up to 20 bytes: a sequence at every place of an eight-byte
            // word and across two.
            let len = (next() % 21) as usize;
            let b: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() >> 8) as usize % alphabet.len()])
                .collect();
            let mut s = String::new();
            assert_eq!(json_str(&mut s, &b), is_utf8(&b), "{b:02x?}");
            assert_eq!(s, json_str_by_chunks(&b), "{b:02x?}");
        }
        for text in [
            "caf\u{e9}",
            "\u{9b}6n",
            "a\u{202e}b",
            "\u{1f600}",
            "\u{fffd}",
        ] {
            let mut s = String::new();
            json_str(&mut s, text.as_bytes());
            assert_eq!(s, json_str_by_chunks(text.as_bytes()));
        }
    }

    /// Long strings cross the blocks `json_str` builds on the stack; the
    /// bytes written to a `Vec<u8>` are the text written to a `String`.
    #[test]
    fn long_json_strings_match_the_reference() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for round in 0..400 {
            let len = (next() % 5000) as usize;
            // Mostly NUL, mostly text, or any byte.
            let b: Vec<u8> = (0..len)
                .map(|_| {
                    let r = next();
                    match round % 3 {
                        0 if r % 4 != 0 => 0,
                        1 if r % 16 != 0 => b'a' + (r % 26) as u8,
                        _ => (r >> 8) as u8,
                    }
                })
                .collect();
            let mut s = String::new();
            assert_eq!(json_str(&mut s, &b), is_utf8(&b));
            assert_eq!(s, json_str_by_chunks(&b), "{b:02x?}");
            let mut v = Vec::new();
            json_str(&mut v, &b);
            assert_eq!(v, s.as_bytes());
            let mut h = Vec::new();
            hex_into(&mut h, &b);
            let want: String = b.iter().map(|c| format!("{c:02x}")).collect();
            assert_eq!(h, want.as_bytes());
            for q in [false, true] {
                let (mut vs, mut vb) = (String::new(), Vec::new());
                vis_into(&mut vs, &b, q);
                vis_into(&mut vb, &b, q);
                assert_eq!(vs, vis_by_chars(&b, q));
                assert_eq!(vb, vs.as_bytes());
            }
        }
    }

    #[test]
    fn vis_into_is_vis_by_chars_on_names_and_paths() {
        for b in [
            &b"open"[..],
            b"/usr/include/stdio.h",
            b"a \"quoted\" name",
            b"back\\slash",
            b"tab\there",
            b"\xff\xfe bad utf-8",
            "caf\u{e9} \u{202e}bidi".as_bytes(),
            b"",
            b"del\x7f",
        ] {
            for quote in [false, true] {
                let mut got = String::new();
                vis_into(&mut got, b, quote);
                assert_eq!(got, vis_by_chars(b, quote), "{b:?} {quote}");
            }
        }
    }

    /// `vis_into` as it was written before runs of ASCII were copied whole.
    fn vis_by_chars(b: &[u8], escape_quote: bool) -> String {
        let mut out = String::new();
        for chunk in b.utf8_chunks() {
            for c in chunk.valid().chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '"' if escape_quote => out.push_str("\\\""),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\r' => out.push_str("\\r"),
                    '\0' => out.push_str("\\0"),
                    c if needs_escape(c) => {
                        let mut buf = [0u8; 4];
                        for byte in c.encode_utf8(&mut buf).bytes() {
                            out.push_str(&format!("\\{byte:03o}"));
                        }
                    }
                    c => out.push(c),
                }
            }
            for byte in chunk.invalid() {
                out.push_str(&format!("\\{byte:03o}"));
            }
        }
        out
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
            push_hex(&mut s, v);
            assert_eq!(s, format!("{v:x}"));
            s.clear();
            push_uint(&mut s, v);
            assert_eq!(s, v.to_string());
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

    #[test]
    fn json_strings_are_valid() {
        let mut s = String::new();
        json_str(&mut s, b"a\"b\\c\x01\xff");
        assert_eq!(s, "\"a\\\"b\\\\c\\u0001\u{fffd}\"");
        s.clear();
        json_str(&mut s, "\u{7f}\u{9b}6n\u{e9}".as_bytes());
        assert_eq!(s, "\"\\u007f\\u009b6n\u{e9}\"");
        assert!(!is_utf8(b"\xff"));
        assert_eq!(hex(b"\x00\xab"), "00ab");
    }
}
