//! How recorded values become SQL values: NUL-separated string lists as
//! JSON arrays, argument words in kdump style and as signed
//! integers of the trace's word size, and the columns a call row derives.
//! One helper per encoding, so every column of a kind is stored the same
//! way by both sinks, the database's encoder and the dataset's columns.

use std::fmt::Write;

use crate::names::{errno_name, Numbering};
use crate::process::rows::CallRow;
use crate::text::json_str;

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

/// Argument words as kdump prints them, `0x3,0x7ffe12,0`, written to
/// `out`. Digits by hand: `write!` with `{:#x}` was 4 % of the decoding
/// thread (one call row per syscall).
pub fn write_args(out: &mut impl Write, args: &[u64]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for (i, &a) in args.iter().enumerate() {
        if i > 0 {
            let _ = out.write_char(',');
        }
        if a == 0 {
            let _ = out.write_char('0');
            continue;
        }
        let mut digits = [0u8; 18];
        let mut at = digits.len();
        let mut w = a;
        while w != 0 {
            at -= 1;
            digits[at] = HEX[(w & 0xf) as usize];
            w >>= 4;
        }
        at -= 2;
        digits[at..at + 2].copy_from_slice(b"0x");
        let _ = out.write_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
    }
}

/// `nargs`: how many argument words the call has.
pub fn call_nargs(r: &CallRow<'_>) -> i64 {
    r.args.len() as i64
}

/// `arg0`, `arg1`: argument `i`, signed at the trace's word width.
pub fn call_arg(r: &CallRow<'_>, i: usize, word_bits: u32) -> Option<i64> {
    r.args.get(i).map(|&w| signed_word(w, word_bits))
}

/// `dur`: from CALL to RET.
pub fn call_dur(r: &CallRow<'_>) -> Option<i64> {
    r.ts.zip(r.ret_ts).map(|(a, b)| b - a)
}

/// `errno_name`: the errno's name in the trace's system.
pub fn call_errno_name(r: &CallRow<'_>, names: Numbering) -> Option<&'static str> {
    r.errno.and_then(|e| errno_name(names, e).map(|(n, _)| n))
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
        // The reports' JSON rules (text::json_str): every control, DEL, C1
        // and bidi control escaped.
        assert_eq!(
            json_string_list("\r\u{7f}\u{202e}".as_bytes()).unwrap(),
            r#"["\r\u007f\u202e"]"#
        );
    }
}
