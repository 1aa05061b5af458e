//! Rows → SQL values. The [`Encoder`] is the process model's [`Sink`] on the
//! decoding side of an import: it turns each row into the values of its
//! INSERT (path bytes interned to ids, derived columns computed, arguments
//! formatted) and hands them on in [`Batch`]es to a [`BatchTarget`]:
//! straight to a [`super::writer::Writer`] on one thread, or over a channel
//! to the SQLite thread. No SQLite here.
//!
//! A value owns nothing: text and blobs are written end to end into the
//! batch's one byte buffer, and a value holds where (no allocation per
//! value, and a batch is emptied without freeing anything). Each row's
//! values are pushed straight into its table's list; a call row waits for
//! the calls before it as its typed row, and is encoded when released.
//!
//! A row's values come from the one declaration of its table
//! ([`model_tables!`]): every field is a column there, stored as its type
//! (or its `as`) says, so no field can be dropped or put under another
//! column.

use rusqlite::types::ValueRef;

use crate::process::rows::{
    model_tables, Access, CallRow, End, EventRow, ExecRow, IssueKind, IssueRow, NameiRow, PathRow,
    ProcessRow, Resolution, Severity, Sink, SyscallStatRow, ThreadRow, Unpaired,
};
use crate::sink::reorder::{HeldCall, InOrder, CALL_WINDOW};
use crate::sink::table::{Table, TABLE_COUNT};
use crate::sink::value::{
    bytes_value, call_arg, call_dur, call_errno_name, call_nargs, json_string_list, write_args,
    AsciiOut,
};
use crate::sink::{PathCache, TraceContext};

/// One SQL value of a row. Like rusqlite's `ValueRef`, but text and blobs
/// are where they lie in their batch's [`Batch::bytes`], and the many fixed
/// strings (syscall names, record kinds, resolutions) stay borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlValue {
    /// NULL.
    Null,
    /// INTEGER.
    Int(i64),
    /// TEXT known at compile time.
    Static(&'static str),
    /// TEXT (valid UTF-8) in the batch's bytes.
    Text(Span),
    /// BLOB in the batch's bytes.
    Blob(Span),
}

/// Where a value's bytes lie in [`Batch::bytes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    start: usize,
    end: usize,
}

impl SqlValue {
    /// The value, its bytes read from `bytes` (the [`Batch::bytes`] of its
    /// batch).
    #[inline]
    pub fn get<'a>(&'a self, bytes: &'a [u8]) -> ValueRef<'a> {
        match *self {
            SqlValue::Null => ValueRef::Null,
            SqlValue::Int(i) => ValueRef::Integer(i),
            SqlValue::Static(s) => ValueRef::Text(s.as_bytes()),
            SqlValue::Text(Span { start, end }) => ValueRef::Text(&bytes[start..end]),
            SqlValue::Blob(Span { start, end }) => ValueRef::Blob(&bytes[start..end]),
        }
    }
}

impl SqlValue {
    /// Whether `self` and `other`, both of the batch whose bytes are
    /// `bytes`, are the same SQL value (the same type and content).
    #[inline]
    pub fn same(self, other: SqlValue, bytes: &[u8]) -> bool {
        match (self, other) {
            (SqlValue::Int(a), SqlValue::Int(b)) => a == b,
            (SqlValue::Null, SqlValue::Null) => true,
            (SqlValue::Int(_) | SqlValue::Null, _) | (_, SqlValue::Int(_) | SqlValue::Null) => {
                false
            }
            _ => self.get(bytes) == other.get(bytes),
        }
    }
}

/// Rows per batch handed on (a few hundred KB of values).
pub const BATCH_ROWS: usize = 4096;

/// Encoded rows of every table, flat: table `t`'s values are
/// `values[t.index()]`, `t.columns().len()` per row.
#[derive(Debug, Default)]
pub struct Batch {
    /// Values per table.
    pub values: [Vec<SqlValue>; TABLE_COUNT],
    /// The bytes of every text and blob value, end to end.
    pub bytes: Vec<u8>,
    /// Rows in all.
    pub rows: usize,
}

/// The end of a batch's [`Batch::bytes`], where values are written.
struct Bytes<'b>(&'b mut Vec<u8>);

impl Bytes<'_> {
    /// `b` stored as [`bytes_value`] says.
    #[inline]
    fn recorded(&mut self, b: &[u8]) -> SqlValue {
        match bytes_value(b) {
            ValueRef::Text(t) => SqlValue::Text(self.put(t)),
            _ => SqlValue::Blob(self.put(b)),
        }
    }

    /// `s` as TEXT.
    #[inline]
    fn text(&mut self, s: &str) -> SqlValue {
        SqlValue::Text(self.put(s.as_bytes()))
    }

    #[inline]
    fn put(&mut self, b: &[u8]) -> Span {
        let start = self.0.len();
        self.0.extend_from_slice(b);
        Span {
            start,
            end: self.0.len(),
        }
    }
}

/// Argument text written straight into a batch's bytes.
impl AsciiOut for Bytes<'_> {
    #[inline]
    fn ascii(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
}

/// Where full batches go.
pub trait BatchTarget {
    /// Why a batch could not be taken.
    type Error;
    /// Take a batch of rows; give back an empty one to fill next (a used
    /// one, cleared, keeps its capacity).
    fn take(&mut self, batch: Batch) -> Result<Batch, Self::Error>;
}

impl Batch {
    /// An empty batch with room for as many values and bytes as `full`
    /// holds, so filling it does not grow its lists step by step.
    pub fn sized_like(full: &Batch) -> Batch {
        Batch {
            values: std::array::from_fn(|t| Vec::with_capacity(full.values[t].len())),
            bytes: Vec::with_capacity(full.bytes.len()),
            rows: 0,
        }
    }

    /// Empty it, keeping its capacity.
    pub fn clear(&mut self) {
        for v in &mut self.values {
            v.clear();
        }
        self.bytes.clear();
        self.rows = 0;
    }
}

/// The encoding [`Sink`]: rows in, batches out to its target.
pub struct Encoder<'p, T> {
    batch: Batch,
    /// Finished call rows, put back into `call_id` order (see [`InOrder`];
    /// always `Some` but while rows are released).
    calls: Option<InOrder<HeldCall>>,
    paths: &'p mut PathCache,
    ctx: TraceContext,
    issues: i64,
    /// Where batches go.
    pub target: T,
}

impl<'p, T: BatchTarget> Encoder<'p, T> {
    /// An encoder for one trace.
    pub fn new(paths: &'p mut PathCache, ctx: TraceContext, target: T) -> Self {
        Encoder {
            batch: Batch::default(),
            calls: Some(InOrder::new(CALL_WINDOW)),
            paths,
            ctx,
            issues: 0,
            target,
        }
    }

    /// Hand on the rows still waiting, call rows held for order included.
    pub fn flush(&mut self) -> Result<(), T::Error> {
        let mut calls = self.calls.take().expect("not releasing");
        let mut done = Ok(());
        calls.drain(|h| {
            if done.is_ok() {
                done = self.add_call(&h);
            }
        });
        self.calls = Some(calls);
        done?;
        self.send()
    }

    /// Hand on the batch.
    fn send(&mut self) -> Result<(), T::Error> {
        if self.batch.rows > 0 {
            let full = std::mem::take(&mut self.batch);
            self.batch = self.target.take(full)?;
        }
        Ok(())
    }

    /// This trace's `trace_id`.
    pub fn trace_id(&self) -> i64 {
        self.ctx.trace_id
    }

    /// Issues encoded so far.
    pub fn issues(&self) -> i64 {
        self.issues
    }

    /// One more value of table `t`'s row being added.
    #[inline]
    fn value(&mut self, t: Table, v: SqlValue) {
        self.batch.values[t.index()].push(v);
    }

    /// The end of the batch's bytes.
    #[inline]
    fn bytes(&mut self) -> Bytes<'_> {
        Bytes(&mut self.batch.bytes)
    }

    /// A row is complete: hand the batch on when it is full (never between
    /// the values of a row, so a path row added meanwhile only counts).
    #[inline]
    fn row_done(&mut self) -> Result<(), T::Error> {
        self.batch.rows += 1;
        if self.batch.rows >= BATCH_ROWS {
            self.send()?;
        }
        Ok(())
    }

    /// The id of `path`, adding it to the batch when it is new.
    fn intern(&mut self, path: &[u8]) -> Result<i64, T::Error> {
        let (id, new) = self.paths.intern(path);
        if new {
            PathRow::push_values(&PathRow { id, path }, self)?;
            self.batch.rows += 1;
        }
        Ok(id)
    }

    fn intern_opt(&mut self, path: Option<&[u8]>) -> Result<SqlValue, T::Error> {
        Ok(match path {
            Some(p) => SqlValue::Int(self.intern(p)?),
            None => SqlValue::Null,
        })
    }
}

/// An optional integer.
fn int(v: Option<i64>) -> SqlValue {
    v.map_or(SqlValue::Null, SqlValue::Int)
}

/// An optional fixed string.
fn text(s: Option<&'static str>) -> SqlValue {
    s.map_or(SqlValue::Null, SqlValue::Static)
}

/// How a field of a row is stored when its type says it: the SQL value of
/// each Rust type the rows use (its bytes, if any, written to `b`).
trait ToColumn {
    fn to_column(&self, b: Bytes<'_>) -> SqlValue;
}

macro_rules! to_column {
    ($($t:ty => |$v:ident, $b:pat_param| $e:expr;)*) => {$(
        impl ToColumn for $t {
            #[inline]
            fn to_column(&self, $b: Bytes<'_>) -> SqlValue {
                let $v = self;
                $e
            }
        }
    )*};
}

to_column! {
    i64 => |v, _| SqlValue::Int(*v);
    Option<i64> => |v, _| int(*v);
    i32 => |v, _| SqlValue::Int((*v).into());
    Option<i32> => |v, _| int(v.map(i64::from));
    bool => |v, _| SqlValue::Int((*v).into());
    Option<bool> => |v, _| int(v.map(i64::from));
    // File offsets fit i64 for any file that exists.
    u64 => |v, _| SqlValue::Int(*v as i64);
    Option<u64> => |v, _| int(v.map(|o| o as i64));
    Vec<u8> => |v, mut b| b.recorded(v);
    &[u8] => |v, mut b| b.recorded(v);
    Option<&[u8]> => |v, mut b| v.map_or(SqlValue::Null, |v| b.recorded(v));
    &'static str => |v, _| SqlValue::Static(v);
    Option<&'static str> => |v, _| text(*v);
    String => |v, mut b| b.text(v);
    Option<String> => |v, mut b| v.as_deref().map_or(SqlValue::Null, |v| b.text(v));
}

/// A vocabulary is stored as its fixed string.
macro_rules! vocabulary_columns {
    ($($t:ty),*) => {$(
        to_column! {
            $t => |v, _| SqlValue::Static(v.as_str());
            Option<$t> => |v, _| text(v.map(|v| v.as_str()));
        }
    )*};
}
vocabulary_columns!(Severity, Resolution, Access, End, Unpaired, IssueKind);

/// The stored forms a row's declaration names with `as`, and the columns
/// derived from a row and its trace.
impl<T: BatchTarget> Encoder<'_, T> {
    /// `as path`: the path's id, the path added when new.
    #[inline]
    fn path<'b>(&mut self, p: impl Into<Option<&'b [u8]>>) -> Result<SqlValue, T::Error> {
        self.intern_opt(p.into())
    }

    /// `as strings`: NUL-separated strings as a JSON array when all are
    /// UTF-8, else the bytes.
    #[inline]
    fn strings(&mut self, b: Option<&[u8]>) -> Result<SqlValue, T::Error> {
        let mut out = self.bytes();
        Ok(match b {
            None => SqlValue::Null,
            Some(b) => match json_string_list(b) {
                Some(json) => out.text(&json),
                None => SqlValue::Blob(out.put(b)),
            },
        })
    }

    /// `as blob`.
    #[inline]
    fn blob(&mut self, b: Option<&[u8]>) -> Result<SqlValue, T::Error> {
        let mut out = self.bytes();
        Ok(b.map_or(SqlValue::Null, |d| SqlValue::Blob(out.put(d))))
    }

    /// `as args`: the words as text, written into the batch's bytes.
    #[inline]
    fn args(&mut self, args: &[u64]) -> Result<SqlValue, T::Error> {
        let start = self.batch.bytes.len();
        write_args(&mut self.bytes(), args);
        Ok(SqlValue::Text(Span {
            start,
            end: self.batch.bytes.len(),
        }))
    }

    /// The trace the row belongs to.
    #[inline]
    fn trace<R>(&self, _: &R) -> SqlValue {
        SqlValue::Int(self.ctx.trace_id)
    }

    /// How many argument words the call has.
    #[inline]
    fn nargs(&self, r: &CallRow<'_>) -> SqlValue {
        SqlValue::Int(call_nargs(r))
    }

    /// The first argument, signed at the trace's word width.
    #[inline]
    fn arg0(&self, r: &CallRow<'_>) -> SqlValue {
        int(call_arg(r, 0, self.ctx.word_bits))
    }

    /// The second argument, signed at the trace's word width.
    #[inline]
    fn arg1(&self, r: &CallRow<'_>) -> SqlValue {
        int(call_arg(r, 1, self.ctx.word_bits))
    }

    /// From CALL to RET.
    #[inline]
    fn dur(&self, r: &CallRow<'_>) -> SqlValue {
        int(call_dur(r))
    }

    /// The errno's name in the trace's system.
    #[inline]
    fn errno_name(&self, r: &CallRow<'_>) -> SqlValue {
        text(call_errno_name(r, self.ctx.names))
    }

    /// Hand on a finished call row; it waits for the calls before it.
    fn take_call(&mut self, row: &CallRow<'_>) -> Result<(), T::Error> {
        let mut calls = self.calls.take().expect("not releasing");
        let mut done = Ok(());
        calls.push(row.id, HeldCall::of(row), |h| {
            if done.is_ok() {
                done = self.add_call(&h);
            }
        });
        self.calls = Some(calls);
        done
    }

    /// A released call row into the batch.
    #[inline]
    fn add_call(&mut self, h: &HeldCall) -> Result<(), T::Error> {
        CallRow::push_values(&h.row(), self)?;
        self.row_done()
    }
}

/// A row's values and the [`Sink`] methods, from [`model_tables!`]: each
/// column is the field's value as its type or its `as` says, or a value
/// derived from the row.
macro_rules! encode_rows {
    ($(
        $(#[$meta:meta])*
        $table:ident = $name:literal, key: $key:ident $(($id:ident))?,
        $(sink: $method:ident,)? $(spilled: $spilled:ident,)?
        struct $row:ident $(<$lt:lifetime>)? {
            $( $( $(#[$doc:meta])* $field:ident: $ty:ty )? => $column:literal $(as $how:ident)?, )*
        }
    )*) => {
        $(
            impl $(<$lt>)? $row $(<$lt>)? {
                /// Push its values, in the order of its table's columns.
                #[inline]
                fn push_values<T: BatchTarget>(
                    row: &Self,
                    e: &mut Encoder<'_, T>,
                ) -> Result<(), T::Error> {
                    $(
                        let v = column!(row e [$($field)?] [$($how)?]);
                        e.value(Table::$table, v);
                    )*
                    Ok(())
                }
            }
        )*

        impl<T: BatchTarget> Sink for Encoder<'_, T> {
            type Error = T::Error;
            $( encode_method!($table [$($method)?] $row [$($lt)?]); )*
        }
    };
}

/// One value of a row.
macro_rules! column {
    ($row:ident $e:ident [$field:ident] []) => {
        $row.$field.to_column($e.bytes())
    };
    ($row:ident $e:ident [$field:ident] [$how:ident]) => {
        $e.$how($row.$field)?
    };
    ($row:ident $e:ident [] [$how:ident]) => {
        $e.$how($row)
    };
}

/// The [`Sink`] method of a table, if it has one.
macro_rules! encode_method {
    ($table:ident [] $($rest:tt)*) => {};
    ($table:ident [$method:ident] $row:ident []) => {
        fn $method(&mut self, row: &$row) -> Result<(), T::Error> {
            take!(self $table row $row)
        }
    };
    ($table:ident [$method:ident] $row:ident [$lt:lifetime]) => {
        fn $method(&mut self, row: &$row<'_>) -> Result<(), T::Error> {
            take!(self $table row $row)
        }
    };
}

/// Where a row's values go: call rows wait for the calls before them,
/// issues are counted for the `trace` row, the rest join the batch.
macro_rules! take {
    ($e:ident Call $row:ident $ty:ident) => {
        $e.take_call($row)
    };
    ($e:ident Issue $row:ident $ty:ident) => {{
        $e.issues += 1;
        $ty::push_values($row, $e)?;
        $e.row_done()
    }};
    ($e:ident $table:ident $row:ident $ty:ident) => {{
        $ty::push_values($row, $e)?;
        $e.row_done()
    }};
}

model_tables!(encode_rows);
