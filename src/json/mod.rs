//! JSON out: a small object writer ([`Obj`]) shared by the output layers
//! (the reports' json format, the timeline's Chrome JSON, `dump --info`),
//! and the one writer of JSON strings (`string.rs`: [`json_str`] and its
//! kin) that it, `dump`'s JSON Lines and every string array bound as a
//! query parameter go through, so the output is always valid UTF-8 JSON;
//! a byte string that is not UTF-8 gets a `<key>_hex` field beside it with
//! the exact bytes. Numbers are [`crate::text`]'s digits.

mod string;

pub use string::{
    json_plain, json_str, json_str_list, json_str_list_text, json_text, push_json_str_list,
};

use crate::text::{hex_into, is_utf8, push_int, push_uint, TextSink};

/// Builds one JSON object into a string (or, for `dump`, a byte buffer).
pub struct Obj<'o, O: TextSink = String> {
    out: &'o mut O,
    first: bool,
}

impl<'o, O: TextSink> Obj<'o, O> {
    /// Start an object.
    pub fn new(out: &'o mut O) -> Self {
        out.push_ascii(b"{");
        Obj { out, first: true }
    }

    /// A comma unless this is the first field.
    #[inline]
    fn comma(&mut self) {
        if !self.first {
            self.out.push_ascii(b",");
        }
        self.first = false;
    }

    #[inline]
    fn key(&mut self, k: &str) {
        self.comma();
        json_text(self.out, k);
        self.out.push_ascii(b":");
    }

    /// `"k": v` for a number.
    #[inline]
    pub fn int(&mut self, k: &str, v: impl Int) -> &mut Self {
        self.key(k);
        v.push(self.out);
        self
    }

    /// `"k": [v, …]` for numbers.
    pub fn ints(&mut self, k: &str, v: &[u64]) -> &mut Self {
        self.key(k);
        self.out.push_ascii(b"[");
        for (i, n) in v.iter().enumerate() {
            if i > 0 {
                self.out.push_ascii(b",");
            }
            push_uint(self.out, *n);
        }
        self.out.push_ascii(b"]");
        self
    }

    /// A number, or `null`.
    #[inline]
    pub fn opt(&mut self, k: &str, v: Option<impl Int>) -> &mut Self {
        match v {
            Some(v) => self.int(k, v),
            None => self.raw(k, "null"),
        }
    }

    /// `"k": v` for JSON text the caller has already written.
    #[inline]
    pub fn raw(&mut self, k: &str, v: &str) -> &mut Self {
        self.key(k);
        self.out.push_text(v);
        self
    }

    /// A string.
    #[inline]
    pub fn str(&mut self, k: &str, v: &str) -> &mut Self {
        self.key(k);
        json_text(self.out, v);
        self
    }

    /// A string, or `null`.
    #[inline]
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
        self.comma();
        // `k` escaped, then `_hex` inside the same quotes.
        if json_plain(k.as_bytes()) {
            self.out.push_ascii(b"\"");
            self.out.push_text(k);
        } else {
            let mut key = String::new();
            json_text(&mut key, k);
            key.pop();
            self.out.push_text(&key);
        }
        self.out.push_ascii(b"_hex\":\"");
        hex_into(self.out, v);
        self.out.push_ascii(b"\"");
        self
    }

    /// Close the object.
    pub fn end(self) {
        self.out.push_ascii(b"}");
    }
}

/// An integer as [`Obj::int`] writes it: decimal, without the formatter
/// (its machinery was a fifth of `dump --format jsonl`).
pub trait Int {
    /// Append `self` in decimal.
    fn push(self, out: &mut impl TextSink);
}

macro_rules! int {
    ($($t:ty => $push:ident as $wide:ty),*) => {$(
        impl Int for $t {
            #[inline]
            fn push(self, out: &mut impl TextSink) {
                $push(out, <$wide>::from(self));
            }
        }
    )*};
}
int!(i8 => push_int as i64, i16 => push_int as i64, i32 => push_int as i64,
     u8 => push_uint as u64, u16 => push_uint as u64, u32 => push_uint as u64);

impl Int for i64 {
    #[inline]
    fn push(self, out: &mut impl TextSink) {
        push_int(out, self);
    }
}

impl Int for u64 {
    #[inline]
    fn push(self, out: &mut impl TextSink) {
        push_uint(out, self);
    }
}

impl Int for isize {
    #[inline]
    fn push(self, out: &mut impl TextSink) {
        push_int(out, self as i64);
    }
}

impl Int for usize {
    #[inline]
    fn push(self, out: &mut impl TextSink) {
        push_uint(out, self as u64);
    }
}

impl Int for i128 {
    #[inline]
    fn push(self, out: &mut impl TextSink) {
        out.push_text(&self.to_string());
    }
}

impl<T: Int + Copy> Int for &T {
    #[inline]
    fn push(self, out: &mut impl TextSink) {
        (*self).push(out);
    }
}
