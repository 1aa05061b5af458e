//! How recorded values are encoded: bytes as TEXT or BLOB, NUL-separated
//! string lists as JSON arrays, argument words in kdump style and as
//! signed integers of the trace's word size. One helper per encoding, so
//! every column of a kind is stored the same way by both sinks (through
//! [`super::columns`]) and by the `trace` row.

use rusqlite::types::ValueRef;

use crate::json::json_str;

/// Recorded bytes, stored losslessly: TEXT when they are valid UTF-8,
/// otherwise a BLOB with the exact bytes (so `typeof(col) = 'blob'` always
/// means "not UTF-8").
pub fn bytes_value(b: &[u8]) -> ValueRef<'_> {
    match std::str::from_utf8(b) {
        Ok(_) => ValueRef::Text(b),
        Err(_) => ValueRef::Blob(b),
    }
}

/// `a\0b\0` → `["a","b"]`; `None` when a string is not UTF-8.
pub fn json_string_list(b: &[u8]) -> Option<String> {
    let body = b.strip_suffix(b"\0").unwrap_or(b);
    let mut out = String::with_capacity(b.len() + 8);
    out.push('[');
    if !b.is_empty() {
        for (i, part) in body.split(|&c| c == 0).enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_str(&mut out, std::str::from_utf8(part).ok()?.as_bytes());
        }
    }
    out.push(']');
    Some(out)
}

/// Where argument text is written: ASCII bytes, appended.
pub trait AsciiOut {
    /// Append `b`, ASCII.
    fn ascii(&mut self, b: &[u8]);
}

/// Argument text written straight into a byte buffer (the SQLite
/// encoder's batch).
impl AsciiOut for Vec<u8> {
    #[inline]
    fn ascii(&mut self, b: &[u8]) {
        self.extend_from_slice(b);
    }
}

impl AsciiOut for String {
    fn ascii(&mut self, b: &[u8]) {
        self.extend(b.iter().map(|&c| char::from(c)));
    }
}

/// Argument words as kdump prints them, `0x3,0x7ffe12,0`, written to
/// `out`. Digits by hand (`write!` with `{:#x}` was 4 % of the decoding
/// thread, one call row per syscall), into a buffer on the stack handed on
/// whole: a UTF-8 check per word was 2.5 % more.
pub fn write_args(out: &mut impl AsciiOut, args: &[u64]) {
    use crate::text::HEX_DIGITS as HEX;
    /// The longest word: a comma, `0x` and 16 digits.
    const WORD: usize = 19;
    let mut buf = [0u8; 16 * WORD];
    let mut len = 0;
    for (i, &a) in args.iter().enumerate() {
        if len + WORD > buf.len() {
            out.ascii(&buf[..len]);
            len = 0;
        }
        if i > 0 {
            buf[len] = b',';
            len += 1;
        }
        if a == 0 {
            buf[len] = b'0';
            len += 1;
            continue;
        }
        buf[len..len + 2].copy_from_slice(b"0x");
        len += 2;
        let digits = (64 - a.leading_zeros() as usize).div_ceil(4);
        let mut w = a;
        for d in buf[len..len + digits].iter_mut().rev() {
            *d = HEX[(w & 0xf) as usize];
            w >>= 4;
        }
        len += digits;
    }
    out.ascii(&buf[..len]);
}

/// An argument word as a signed integer of the trace's word size, so a
/// 32-bit AT_FDCWD reads -100 rather than 4294967196.
pub fn signed_word(w: u64, word_bits: u32) -> i64 {
    if word_bits == 32 {
        i64::from(w as u32 as i32)
    } else {
        w as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_print_like_kdump() {
        let text = |args: &[u64]| {
            let mut out = String::new();
            write_args(&mut out, args);
            out
        };
        assert_eq!(text(&[3, 0x7ffe12, 0]), "0x3,0x7ffe12,0");
        assert_eq!(text(&[]), "");
        assert_eq!(text(&[u64::MAX]), "0xffffffffffffffff");
        assert_eq!(text(&[0x10, 0xf, 1 << 63]), "0x10,0xf,0x8000000000000000");
    }

    #[test]
    fn words_are_signed_at_their_width() {
        assert_eq!(signed_word(0xffff_ff9c, 32), -100);
        assert_eq!(signed_word(0xffff_ff9c, 64), 0xffff_ff9c);
        assert_eq!(signed_word(u64::MAX, 64), -1);
    }

    #[test]
    fn string_lists_become_json_arrays() {
        assert_eq!(
            json_string_list(b"cc\0-c\0a \"b\".c\0").unwrap(),
            r#"["cc","-c","a \"b\".c"]"#
        );
        assert_eq!(json_string_list(b"").unwrap(), "[]");
        assert_eq!(json_string_list(b"a\0\0b").unwrap(), r#"["a","","b"]"#);
        assert_eq!(json_string_list(b"\x01\\\n").unwrap(), r#"["\u0001\\\n"]"#);
        assert_eq!(json_string_list(b"ok\0\xff\0"), None);
        // The reports' JSON rules (json::json_str): every control, DEL, C1
        // and bidi control escaped.
        assert_eq!(
            json_string_list("\r\u{7f}\u{202e}".as_bytes()).unwrap(),
            r#"["\r\u007f\u202e"]"#
        );
    }
}
