//! Safe text: how recorded bytes (paths, command names, I/O data) are shown.
//! Nothing recorded is ever printed raw: control characters, DEL, C1
//! controls and bytes that are not UTF-8 are escaped C-style with octal
//! (`\n`, `\t`, `\033`), as kdump's vis(3) does, and `\` itself is doubled,
//! so the escaped text maps back to exactly one byte string.
//! JSON output gets valid UTF-8 strings; where the bytes are not UTF-8 the
//! caller adds a hex field so nothing is lost.

use std::borrow::Cow;
use std::fmt::Write as _;

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

/// Append the escaped form of `b` to `out`.
pub fn vis_into(out: &mut String, b: &[u8], escape_quote: bool) {
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
                        let _ = write!(out, "\\{byte:03o}");
                    }
                }
                c => out.push(c),
            }
        }
        for byte in chunk.invalid() {
            let _ = write!(out, "\\{byte:03o}");
        }
    }
}

fn needs_escape(c: char) -> bool {
    c.is_control() || c == '\\' || is_bidi_control(c)
}

/// Unicode characters that reorder text on a terminal (Trojan Source).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// Append `b` as a JSON string literal: invalid UTF-8 becomes U+FFFD (the
/// caller emits an exact `_hex` field beside it when [`is_utf8`] is false),
/// one for each maximal invalid sequence, as [`slice::utf8_chunks`] splits
/// them. Long runs of bytes that need no escape are copied whole; the rest
/// is appended a character at a time, never through a check of the
/// `String`'s UTF-8: this is most of `dump --format jsonl`, whose I/O data
/// is binary (`bench/NOTES.md`).
pub fn json_str(out: &mut String, b: &[u8]) {
    let plain = |c: u8| (0x20..0x7f).contains(&c) && c != b'"' && c != b'\\';
    out.reserve(b.len() + 2);
    out.push('"');
    // Keys, names and paths: nothing to escape, copied whole.
    if b.iter().all(|&c| plain(c)) {
        push_ascii(out, b);
        out.push('"');
        return;
    }
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if plain(c) {
            let start = i;
            while i < b.len() && plain(b[i]) {
                i += 1;
            }
            // A long run is copied whole (one check that it is ASCII);
            // a short one, as in binary data, a character at a time.
            if i - start >= 16 {
                push_ascii(out, &b[start..i]);
            } else {
                out.extend(b[start..i].iter().map(|&c| char::from(c)));
            }
            continue;
        }
        if c < 0x80 {
            i += 1;
            out.push_str(match c {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\t' => "\\t",
                b'\r' => "\\r",
                0x7f => "\\u007f",
                // The rest of C0.
                c => C0_ESCAPES[usize::from(c)],
            });
            continue;
        }
        let (len, ch) = utf8_char(&b[i..]);
        match ch {
            // C1 (U+0080..U+009F: a UTF-8 terminal may take U+009B for
            // CSI) and bidi controls.
            Some(ch) if ch.is_control() || is_bidi_control(ch) => push_u_escape(out, ch.into()),
            Some(ch) => out.push(ch),
            None => out.push('\u{fffd}'),
        }
        i += len;
    }
    out.push('"');
}

/// Append `s` as a JSON string literal, as [`json_str`] writes its bytes;
/// text with nothing to escape (keys, names) is copied without a check.
pub fn json_text(out: &mut String, s: &str) {
    if s.bytes()
        .all(|c| (0x20..0x7f).contains(&c) && c != b'"' && c != b'\\')
    {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        json_str(out, s.as_bytes());
    }
}

/// `\u00XX` for each C0 control byte, as JSON writes them.
const C0_ESCAPES: [&str; 32] = [
    "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
    "\\u0008", "\\u0009", "\\u000a", "\\u000b", "\\u000c", "\\u000d", "\\u000e", "\\u000f",
    "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
    "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
];

/// `\u` and four hex digits.
fn push_u_escape(out: &mut String, c: u32) {
    let d = |n: u32| HEX[((c >> n) & 0xf) as usize];
    push_ascii(out, &[b'\\', b'u', d(12), d(8), d(4), d(0)]);
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
        let at = self.unsigned_at(v.unsigned_abs(), self.buf.len());
        self.signed(v < 0, at)
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

/// Append the lower-case hex of `b` to `out`.
pub fn hex_into(out: &mut String, b: &[u8]) {
    out.reserve(b.len() * 2);
    for &byte in b {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0xf)]));
    }
}

/// Append `v` in decimal (what `{v}` writes, without the formatter).
pub fn push_uint(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    // A digit at a time: fewer than a check of the slice costs.
    out.extend(buf[i..].iter().map(|&d| char::from(d)));
}

/// Append `v` in decimal, `-` first when negative.
pub fn push_int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_uint(out, v.unsigned_abs());
}

/// Append `v` in lower-case hex without prefix (what `{v:x}` writes).
pub fn push_hex(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 16];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = HEX[(v & 0xf) as usize];
        v >>= 4;
        if v == 0 {
            break;
        }
    }
    // A digit at a time: fewer than a check of the slice costs.
    out.extend(buf[i..].iter().map(|&d| char::from(d)));
}

/// Append bytes known to be ASCII.
fn push_ascii(out: &mut String, b: &[u8]) {
    out.push_str(std::str::from_utf8(b).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_match_display() {
        let mut d = Digits::default();
        for v in [0, 7, -7, 10, 1_234_567_890, i64::MAX, i64::MIN] {
            assert_eq!(d.int(v), v.to_string());
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
        for v in [0, 9, 10, 12345, u64::MAX] {
            let mut s = String::new();
            push_uint(&mut s, v);
            assert_eq!(s, v.to_string());
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
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 7) as usize;
            let b: Vec<u8> = (0..len)
                .map(|k| alphabet[(seed >> (8 + 6 * k)) as usize % alphabet.len()])
                .collect();
            let mut s = String::new();
            json_str(&mut s, &b);
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

    #[test]
    fn numbers_as_the_formatter_writes_them() {
        for v in [
            0,
            1,
            9,
            10,
            255,
            -1,
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
        let bytes: Vec<u8> = (0..=255).collect();
        let want: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&bytes), want);
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
