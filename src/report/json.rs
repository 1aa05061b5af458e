//! SQL values in the reports' JSON: the shared [`Obj`] writer plus `cell`,
//! which writes any value of a result row (BLOBs always with `_hex`).

use super::result_set::Cell;

pub use crate::json::Obj;

impl Obj<'_> {
    /// Any SQL value: null, a number, or a string (BLOBs always with `_hex`).
    pub fn cell(&mut self, k: &str, v: &Cell) -> &mut Self {
        match v {
            Cell::Null => self.raw(k, "null"),
            Cell::Int(i) => self.int(k, *i),
            Cell::Real(f) if f.is_finite() => self.raw(k, &format!("{f:?}")),
            Cell::Real(_) => self.raw(k, "null"),
            Cell::Text(b) => self.bytes(k, b),
            Cell::Blob(b) => self.str(k, &String::from_utf8_lossy(b)).hex(k, b),
        }
    }
}
