//! A small JSON object writer shared by the output layers (`dump`'s JSON
//! Lines, the reports' json format). Keys and strings go through
//! [`json_str`], so the output is always valid UTF-8 JSON; a byte string
//! that is not UTF-8 gets a `<key>_hex` field beside it with the exact bytes.

use std::fmt::{Display, Write as _};

use crate::text::{hex, is_utf8, json_str};

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
        json_str(self.out, k.as_bytes());
        self.out.push(':');
    }

    /// `"k": v` for a number.
    pub fn int(&mut self, k: &str, v: impl Display) -> &mut Self {
        self.key(k);
        let _ = write!(self.out, "{v}");
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
            let _ = write!(self.out, "{n}");
        }
        self.out.push(']');
        self
    }

    /// A number, or `null`.
    pub fn opt(&mut self, k: &str, v: Option<impl Display>) -> &mut Self {
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
        json_str(self.out, v.as_bytes());
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
        self.key(&format!("{k}_hex"));
        let _ = write!(self.out, "\"{}\"", hex(v));
        self
    }

    /// Close the object.
    pub fn end(self) {
        self.out.push('}');
    }
}
