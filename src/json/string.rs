//! JSON strings: the one writer of them ([`json_str`], for bytes, and
//! [`json_text`], for text), every JSON string kt2sql writes goes through
//! (the objects of [`super::Obj`], `dump`'s JSON Lines, the string arrays
//! bound as query parameters, [`push_json_str_list`]), and the reader of
//! such arrays ([`json_str_list`]). Output is always valid UTF-8: bytes
//! that are not become U+FFFD, and the caller adds a `_hex` field with
//! the exact bytes.

use crate::text::{is_bidi_control, TextSink, HEX_DIGITS};

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
            0..=0x7f => [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX_DIGITS[c >> 4],
                HEX_DIGITS[c & 0xf],
                0,
                6,
            ],
            _ => [0xef, 0xbf, 0xbd, 0, 0, 0, 0, 3],
        };
        c += 1;
    }
    t
};

/// Append `b` as a JSON string literal: invalid UTF-8 becomes U+FFFD (the
/// caller emits an exact `_hex` field beside it when
/// [`is_utf8`](crate::text::is_utf8) is false), one for each maximal
/// invalid sequence, as [`slice::utf8_chunks`] splits them. The escaped text is put together in a block on the stack, each
/// byte's text from [`JSON_UNITS`], and appended a block at a time. This
/// is most of `dump --format jsonl`, whose I/O data is binary
/// (`bench/NOTES.md`). Returns whether `b` is UTF-8 (nothing replaced), as
/// [`is_utf8`](crate::text::is_utf8) would.
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
    let d = |n: u32| HEX_DIGITS[((c >> n) & 0xf) as usize];
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

/// Append `items` as a JSON array of strings, each as [`json_str`]
/// writes it (what [`json_str_list`] reads back).
pub fn push_json_str_list<I>(out: &mut impl TextSink, items: I)
where
    I: IntoIterator,
    I::Item: AsRef<[u8]>,
{
    out.push_ascii(b"[");
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_ascii(b",");
        }
        json_str(out, item.as_ref());
    }
    out.push_ascii(b"]");
}

/// `items` as a JSON array of strings ([`push_json_str_list`]), as text.
pub fn json_str_list_text<I>(items: I) -> String
where
    I: IntoIterator,
    I::Item: AsRef<[u8]>,
{
    let mut out = String::new();
    push_json_str_list(&mut out, items);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{is_utf8, long_samples, xorshift};

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
        for b in long_samples() {
            let mut s = String::new();
            assert_eq!(json_str(&mut s, &b), is_utf8(&b));
            assert_eq!(s, json_str_by_chunks(&b), "{b:02x?}");
            let mut v = Vec::new();
            json_str(&mut v, &b);
            assert_eq!(v, s.as_bytes());
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
    }

    #[test]
    fn string_lists_are_written_as_they_are_read() {
        let words = ["cc", "", "a\"b", "\u{1}", "caf\u{e9}"];
        let text = json_str_list_text(words);
        assert_eq!(text, "[\"cc\",\"\",\"a\\\"b\",\"\\u0001\",\"caf\u{e9}\"]");
        assert_eq!(json_str_list(text.as_bytes()).unwrap(), words);
        let mut bytes = b"x".to_vec();
        push_json_str_list(&mut bytes, [&b"\xff"[..], b"a"]);
        assert_eq!(bytes, "x[\"\u{fffd}\",\"a\"]".as_bytes());
        assert_eq!(json_str_list_text(Vec::<String>::new()), "[]");
    }
}
