//! A small JSON object writer shared by the output layers (`dump`'s JSON
//! Lines, the reports' json format). Keys and strings go through
//! [`json_str`], so the output is always valid UTF-8 JSON; a byte string
//! that is not UTF-8 gets a `<key>_hex` field beside it with the exact bytes.

use std::fmt::Write as _;

use crate::text::{hex_into, is_utf8, json_str, json_text, push_int, push_uint};

/// Builds one JSON object into a string.
pub struct Obj<'o> {
    out: &'o mut String,
    first: bool,
}

impl<'o> Obj<'o> {
    /// Start an object.
    pub fn new(out: &'o mut String) -> Self {
        out.push('{');
        Obj { out, first: true }
    }

    fn key(&mut self, k: &str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        json_text(self.out, k);
        self.out.push(':');
    }

    /// `"k": v` for a number.
    pub fn int(&mut self, k: &str, v: impl Int) -> &mut Self {
        self.key(k);
        v.push(self.out);
        self
    }

    /// `"k": [v, …]` for numbers.
    pub fn ints(&mut self, k: &str, v: &[u64]) -> &mut Self {
        self.key(k);
        self.out.push('[');
        for (i, n) in v.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            push_uint(self.out, *n);
        }
        self.out.push(']');
        self
    }

    /// A number, or `null`.
    pub fn opt(&mut self, k: &str, v: Option<impl Int>) -> &mut Self {
        match v {
            Some(v) => self.int(k, v),
            None => self.raw(k, "null"),
        }
    }

    /// `"k": v` for JSON text the caller has already written.
    pub fn raw(&mut self, k: &str, v: &str) -> &mut Self {
        self.key(k);
        self.out.push_str(v);
        self
    }

    /// A string.
    pub fn str(&mut self, k: &str, v: &str) -> &mut Self {
        self.key(k);
        json_text(self.out, v);
        self
    }

    /// A string, or `null`.
    pub fn name(&mut self, k: &str, v: Option<&str>) -> &mut Self {
        match v {
            Some(s) => self.str(k, s),
            None => self.raw(k, "null"),
        }
    }

    /// A byte string, plus `<k>_hex` when it is not UTF-8.
    pub fn bytes(&mut self, k: &str, v: &[u8]) -> &mut Self {
        self.key(k);
        json_str(self.out, v);
        if !is_utf8(v) {
            self.hex(k, v);
        }
        self
    }

    /// `<k>_hex`: the exact bytes of field `k`.
    pub fn hex(&mut self, k: &str, v: &[u8]) -> &mut Self {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        // `k` escaped, then `_hex` inside the same quotes.
        json_text(self.out, k);
        self.out.pop();
        self.out.push_str("_hex\":\"");
        hex_into(self.out, v);
        self.out.push('"');
        self
    }

    /// Close the object.
    pub fn end(self) {
        self.out.push('}');
    }
}

/// An integer as [`Obj::int`] writes it: decimal, without the formatter
/// (its machinery was a fifth of `dump --format jsonl`).
pub trait Int {
    /// Append `self` in decimal.
    fn push(self, out: &mut String);
}

macro_rules! int {
    ($($t:ty => $push:ident as $wide:ty),*) => {$(
        impl Int for $t {
            fn push(self, out: &mut String) {
                $push(out, <$wide>::from(self));
            }
        }
    )*};
}
int!(i8 => push_int as i64, i16 => push_int as i64, i32 => push_int as i64,
     u8 => push_uint as u64, u16 => push_uint as u64, u32 => push_uint as u64);

impl Int for i64 {
    fn push(self, out: &mut String) {
        push_int(out, self);
    }
}

impl Int for u64 {
    fn push(self, out: &mut String) {
        push_uint(out, self);
    }
}

impl Int for isize {
    fn push(self, out: &mut String) {
        push_int(out, self as i64);
    }
}

impl Int for usize {
    fn push(self, out: &mut String) {
        push_uint(out, self as u64);
    }
}

impl Int for i128 {
    fn push(self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
}

impl<T: Int + Copy> Int for &T {
    fn push(self, out: &mut String) {
        (*self).push(out);
    }
}
