//! How recorded values become SQL values: raw data as BLOB, NUL-separated
//! string lists as JSON arrays, argument words in kdump style and as signed
//! integers of the trace's word size. One helper per encoding, so every
//! column of a kind is stored the same way.

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::ToSql;

/// Raw data, always a BLOB (I/O and struct bytes are not text).
#[derive(Debug, Clone, Copy)]
pub struct Blob<'a>(pub &'a [u8]);

impl ToSql for Blob<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(ValueRef::Blob(self.0)))
    }
}

/// NUL-separated strings (argv, envp): a JSON array of strings when every
/// string is UTF-8, else a BLOB of the bytes as recorded. One trailing NUL
/// terminates the last string rather than starting an empty one.
#[derive(Debug, Clone, Copy)]
pub struct StringList<'a>(pub &'a [u8]);

impl ToSql for StringList<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match json_string_list(self.0) {
            Some(json) => ToSqlOutput::from(json),
            None => ToSqlOutput::Borrowed(ValueRef::Blob(self.0)),
        })
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
            json_string_into(&mut out, std::str::from_utf8(part).ok()?);
        }
    }
    out.push(']');
    Some(out)
}

fn json_string_into(out: &mut String, s: &str) {
    use std::fmt::Write as _;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Argument words as kdump prints them: `0x3,0x7ffe12,0`.
pub fn args_text(args: &[u64]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(args.len() * 10);
    for (i, &a) in args.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if a == 0 {
            out.push('0');
        } else {
            let _ = write!(out, "{a:#x}");
        }
    }
    out
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
        assert_eq!(args_text(&[3, 0x7ffe12, 0]), "0x3,0x7ffe12,0");
        assert_eq!(args_text(&[]), "");
        assert_eq!(args_text(&[u64::MAX]), "0xffffffffffffffff");
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
    }
}
