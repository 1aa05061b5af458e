//! vis(3) escaping: how recorded bytes (paths, command names, I/O data)
//! are shown to people. Control characters, DEL, C1 controls, bidi
//! controls and bytes that are not UTF-8 are escaped C-style with octal
//! (`\n`, `\t`, `\033`), as kdump's vis(3) does, and `\` itself is
//! doubled, so the escaped text maps back to exactly one byte string.
//! Never writes JSON ([`crate::json`] escapes for JSON).

use std::borrow::Cow;

use super::TextSink;

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
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
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

    /// Long strings of every kind, into both kinds of sink.
    #[test]
    fn long_strings_are_vis_by_chars() {
        for b in super::super::long_samples() {
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
}
