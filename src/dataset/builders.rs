//! The Arrow builders of the dataset's columns: one [`Col`] per column of
//! a model table, of the [`Kind`] its declaration gives
//! ([`super::columns`] derives it from the rows' forms), so a value always
//! finds a builder of its form; and a table's [`Builders`], handed on in
//! the dataset's column order. The rows reach them through
//! [`super::rows`].

use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, Float64Builder, Int64Builder, StringBuilder};
use arrow_array::ArrayRef;

use super::columns::{Kind, TableColumns};
use super::rows::ROWS_PER_BATCH;
use crate::sink::table::Table;
use crate::sink::value::{write_args, AsciiOut};

/// The builder of one column (and of its `_bytes` companion).
#[derive(Debug)]
pub enum Col {
    Int(Int64Builder),
    Real(Float64Builder),
    Text(StringBuilder),
    Bytes(StringBuilder, BinaryBuilder),
    Blob(BinaryBuilder),
}

impl Col {
    pub fn new(kind: Kind) -> Col {
        match kind {
            Kind::Int => Col::Int(Int64Builder::new()),
            Kind::Real => Col::Real(Float64Builder::new()),
            Kind::Text => Col::Text(StringBuilder::new()),
            Kind::Bytes => Col::Bytes(StringBuilder::new(), BinaryBuilder::new()),
            Kind::Blob => Col::Blob(BinaryBuilder::new()),
        }
    }

    #[inline]
    pub fn int(&mut self, v: Option<i64>) {
        match self {
            Col::Int(b) => b.append_option(v),
            _ => self.mismatch("an integer"),
        }
    }

    #[inline]
    pub fn text(&mut self, v: Option<&str>) {
        match self {
            Col::Text(b) => b.append_option(v),
            _ => self.mismatch("text"),
        }
    }

    /// Recorded bytes: the text when UTF-8, else the text with U+FFFD for
    /// each bad sequence and the exact bytes in the companion.
    #[inline]
    pub fn bytes(&mut self, v: Option<&[u8]>) {
        let Col::Bytes(t, raw) = self else {
            self.mismatch("bytes")
        };
        match v {
            None => {
                t.append_null();
                raw.append_null();
            }
            Some(b) => match std::str::from_utf8(b) {
                Ok(s) => {
                    t.append_value(s);
                    raw.append_null();
                }
                Err(_) => {
                    t.append_value(String::from_utf8_lossy(b));
                    raw.append_value(b);
                }
            },
        }
    }

    #[inline]
    pub fn blob(&mut self, v: Option<&[u8]>) {
        match self {
            Col::Blob(b) => b.append_option(v),
            _ => self.mismatch("raw data"),
        }
    }

    /// Argument words as text, written straight into the column.
    #[inline]
    pub fn args(&mut self, words: &[u64]) {
        match self {
            Col::Text(b) => {
                write_args(b, words);
                b.append_value("");
            }
            _ => self.mismatch("argument text"),
        }
    }

    /// Its finished arrays (two for bytes), the builder left empty with
    /// room for a batch as large (Arrow's `finish` leaves none: the next
    /// batch's columns were grown by doubling, a copy at each step).
    pub fn finish(&mut self, out: &mut Vec<ArrayRef>) {
        match self {
            Col::Int(b) => out.push(Arc::new(std::mem::replace(b, ints()).finish())),
            Col::Real(b) => out.push(Arc::new(
                std::mem::replace(b, Float64Builder::with_capacity(ROWS_PER_BATCH)).finish(),
            )),
            Col::Text(b) => out.push(Arc::new(std::mem::replace(b, strings(b)).finish())),
            Col::Bytes(t, raw) => {
                out.push(Arc::new(std::mem::replace(t, strings(t)).finish()));
                out.push(Arc::new(std::mem::replace(raw, blobs(raw)).finish()));
            }
            Col::Blob(b) => out.push(Arc::new(std::mem::replace(b, blobs(b)).finish())),
        }
    }

    /// A value of another form than the column's: the declaration and
    /// [`super::columns`] disagree, a bug, not bad input.
    #[cold]
    fn mismatch(&self, what: &str) -> ! {
        unreachable!("{what} for a column built as {self:?}")
    }
}

/// An integer column's builder, with room for a batch.
fn ints() -> Int64Builder {
    Int64Builder::with_capacity(ROWS_PER_BATCH)
}

/// A text column's builder, with room for a batch with as many bytes as
/// `last` holds.
fn strings(last: &StringBuilder) -> StringBuilder {
    StringBuilder::with_capacity(ROWS_PER_BATCH, last.values_slice().len())
}

/// A binary column's builder, with room for a batch with as many bytes as
/// `last` holds.
fn blobs(last: &BinaryBuilder) -> BinaryBuilder {
    BinaryBuilder::with_capacity(ROWS_PER_BATCH, last.values_slice().len())
}

/// Argument text written into a text column's value being built.
impl AsciiOut for StringBuilder {
    #[inline]
    fn ascii(&mut self, b: &[u8]) {
        // ASCII, so always UTF-8.
        if let Ok(s) = std::str::from_utf8(b) {
            let _ = std::fmt::Write::write_str(self, s);
        }
    }
}

/// One model table's columns being built.
#[derive(Debug, Default)]
pub struct Builders {
    /// Its declared columns in the order a row gives them, then the key
    /// SQLite would give, if the declaration lacks it.
    pub cols: Vec<Col>,
    /// For each column of the dataset's table, its builder in `cols`.
    order: Vec<usize>,
    /// Whether the last of `cols` is that key, and the last key given.
    pub key: Option<i64>,
    /// Rows added since the columns were last handed on.
    pub rows: usize,
}

impl Builders {
    /// The builders of table `t`, whose dataset columns are `cols`.
    pub fn new(t: Table, cols: &TableColumns) -> Builders {
        debug_assert_eq!(cols.name, t.name());
        let declared = cols.positions_of(t.columns());
        let mut kinds: Vec<Kind> = declared.iter().map(|&i| cols.columns[i].kind).collect();
        let key = (0..cols.columns.len()).find(|i| !declared.contains(i));
        if let Some(k) = key {
            kinds.push(cols.columns[k].kind);
        }
        let order = (0..cols.columns.len())
            .map(|i| {
                declared
                    .iter()
                    .position(|&d| d == i)
                    .unwrap_or(declared.len())
            })
            .collect();
        Builders {
            cols: kinds.into_iter().map(Col::new).collect(),
            order,
            key: key.map(|_| 0),
            rows: 0,
        }
    }

    /// The columns in the dataset's order, the builders left empty.
    pub fn finish(&mut self) -> Vec<ArrayRef> {
        let mut out = Vec::with_capacity(self.order.len() + 2);
        for &i in &self.order {
            self.cols[i].finish(&mut out);
        }
        self.rows = 0;
        out
    }
}
