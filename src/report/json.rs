//! A tiny JSON object writer for the reports. Byte strings become valid
//! UTF-8 JSON strings ([`json_str`]); when they are a BLOB or not UTF-8, a
//! `<key>_hex` field beside them carries the exact bytes.

use std::fmt::Write as _;

use super::table::Cell;
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
    pub fn int(&mut self, k: &str, v: i64) -> &mut Self {
        self.key(k);
        let _ = write!(self.out, "{v}");
        self
    }

    /// `"k": v` for JSON text the caller has already written.
    pub fn raw(&mut self, k: &str, v: &str) -> &mut Self {
        self.key(k);
        self.out.push_str(v);
        self
    }

    /// A byte string, plus `<k>_hex` when it is not UTF-8.
    pub fn bytes(&mut self, k: &str, v: &[u8]) -> &mut Self {
        self.key(k);
        json_str(self.out, v);
        if !is_utf8(v) {
            self.key(&format!("{k}_hex"));
            let _ = write!(self.out, "\"{}\"", hex(v));
        }
        self
    }

    /// Any SQL value: null, a number, or a string (BLOBs always with `_hex`).
    pub fn cell(&mut self, k: &str, v: &Cell) -> &mut Self {
        match v {
            Cell::Null => self.raw(k, "null"),
            Cell::Int(i) => self.int(k, *i),
            Cell::Real(f) if f.is_finite() => self.raw(k, &format!("{f:?}")),
            Cell::Real(_) => self.raw(k, "null"),
            Cell::Text(b) => self.bytes(k, b),
            Cell::Blob(b) => {
                self.key(k);
                json_str(self.out, b);
                self.key(&format!("{k}_hex"));
                let _ = write!(self.out, "\"{}\"", hex(b));
                self
            }
        }
    }

    /// Close the object.
    pub fn end(self) {
        self.out.push('}');
    }
}
