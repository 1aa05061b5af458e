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
//! A row's values are the columns it puts into its `RowValues`, the
//! encoder's [`Columns`]: the kit's one visitor of the rows
//! ([`crate::sink::columns`]), so every field is a column, in the form its
//! declaration gives, and no field can be dropped or put under another
//! column.

use std::convert::Infallible;

use rusqlite::types::ValueRef;

use crate::process::rows::{
    CallRow, EventRow, ExecRow, IssueRow, NameiRow, PathRow, ProcessRow, Sink, SyscallStatRow,
    ThreadRow,
};
use crate::sink::columns::Columns;
use crate::sink::reorder::{HeldCall, InOrder, CALL_WINDOW};
use crate::sink::table::{Row, Table, TABLE_COUNT};
use crate::sink::value::{bytes_value, write_args};
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

    /// The next batch to fill after sending `sent` away: `used` (a batch
    /// written and sent back) cleared, or a new one sized like `sent`.
    pub fn reuse_or_like(used: Option<Batch>, sent: &Batch) -> Batch {
        match used {
            Some(mut used) => {
                used.clear();
                used
            }
            None => Batch::sized_like(sent),
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
                done = self.add(&h.row());
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

    /// The path cache rows are interned through.
    pub fn paths(&self) -> &PathCache {
        self.paths
    }

    /// Issues encoded so far.
    pub fn issues(&self) -> i64 {
        self.issues
    }

    /// Where the batches go.
    pub fn target_mut(&mut self) -> &mut T {
        &mut self.target
    }

    /// A row into the batch, the batch handed on when full (never between
    /// the values of a row, so a path row added meanwhile only counts).
    #[inline]
    fn add<R: Row>(&mut self, row: &R) -> Result<(), T::Error> {
        let mut values = RowValues {
            table: R::TABLE,
            batch: &mut self.batch,
            paths: &mut *self.paths,
            ctx: &self.ctx,
        };
        let Ok(()) = row.put_columns(&self.ctx, &mut values);
        self.batch.rows += 1;
        if self.batch.rows >= BATCH_ROWS {
            self.send()?;
        }
        Ok(())
    }

    /// Hand on a finished call row; it waits for the calls before it.
    fn take_call(&mut self, row: &CallRow<'_>) -> Result<(), T::Error> {
        let mut calls = self.calls.take().expect("not releasing");
        let mut done = Ok(());
        calls.push(row.id, HeldCall::of(row), |h| {
            if done.is_ok() {
                done = self.add(&h.row());
            }
        });
        self.calls = Some(calls);
        done
    }
}

/// The values of one row of `table` being added to a batch: the
/// [`Columns`] of the SQLite side. Text and blobs are written into the
/// batch's bytes; a path new to the cache adds its `path` row first.
struct RowValues<'e> {
    table: Table,
    batch: &'e mut Batch,
    paths: &'e mut PathCache,
    ctx: &'e TraceContext,
}

impl RowValues<'_> {
    /// One more value of the row.
    #[inline]
    fn value(&mut self, v: SqlValue) {
        self.batch.values[self.table.index()].push(v);
    }

    /// `b` written at the end of the batch's bytes.
    #[inline]
    fn put(&mut self, b: &[u8]) -> Span {
        let start = self.batch.bytes.len();
        self.batch.bytes.extend_from_slice(b);
        Span {
            start,
            end: self.batch.bytes.len(),
        }
    }
}

impl Columns for RowValues<'_> {
    /// Adding a path never fails: its row only joins the batch.
    type Error = Infallible;

    #[inline]
    fn int(&mut self, v: Option<i64>) {
        self.value(v.map_or(SqlValue::Null, SqlValue::Int));
    }

    #[inline]
    fn name(&mut self, v: Option<&'static str>) {
        self.value(v.map_or(SqlValue::Null, SqlValue::Static));
    }

    #[inline]
    fn text(&mut self, v: Option<&str>) {
        let v = v.map_or(SqlValue::Null, |s| SqlValue::Text(self.put(s.as_bytes())));
        self.value(v);
    }

    /// As [`bytes_value`] says.
    #[inline]
    fn recorded(&mut self, v: Option<&[u8]>) {
        let v = match v {
            None => SqlValue::Null,
            Some(b) => match bytes_value(b) {
                ValueRef::Text(t) => SqlValue::Text(self.put(t)),
                _ => SqlValue::Blob(self.put(b)),
            },
        };
        self.value(v);
    }

    #[inline]
    fn path(&mut self, v: Option<&[u8]>) -> Result<(), Infallible> {
        let v = match v {
            None => SqlValue::Null,
            Some(path) => {
                let (id, new) = self.paths.intern(path);
                if new {
                    let mut row = RowValues {
                        table: Table::Path,
                        batch: &mut *self.batch,
                        paths: &mut *self.paths,
                        ctx: self.ctx,
                    };
                    PathRow { id, path }.put_columns(self.ctx, &mut row)?;
                    self.batch.rows += 1;
                }
                SqlValue::Int(id)
            }
        };
        self.value(v);
        Ok(())
    }

    #[inline]
    fn blob(&mut self, v: Option<&[u8]>) {
        let v = v.map_or(SqlValue::Null, |b| SqlValue::Blob(self.put(b)));
        self.value(v);
    }

    /// The words as text, written into the batch's bytes.
    #[inline]
    fn args(&mut self, words: &[u64]) {
        let start = self.batch.bytes.len();
        write_args(&mut self.batch.bytes, words);
        let end = self.batch.bytes.len();
        self.value(SqlValue::Text(Span { start, end }));
    }
}

/// Call rows wait for the calls before them; issues are counted for the
/// `trace` row; every other row joins the batch.
impl<T: BatchTarget> Sink for Encoder<'_, T> {
    type Error = T::Error;
    fn process(&mut self, row: &ProcessRow) -> Result<(), T::Error> {
        self.add(row)
    }
    fn thread(&mut self, row: &ThreadRow) -> Result<(), T::Error> {
        self.add(row)
    }
    fn exec(&mut self, row: &ExecRow<'_>) -> Result<(), T::Error> {
        self.add(row)
    }
    fn call(&mut self, row: &CallRow<'_>) -> Result<(), T::Error> {
        self.take_call(row)
    }
    fn namei(&mut self, row: &NameiRow<'_>) -> Result<(), T::Error> {
        self.add(row)
    }
    fn event(&mut self, row: &EventRow<'_>) -> Result<(), T::Error> {
        self.add(row)
    }
    fn issue(&mut self, row: &IssueRow) -> Result<(), T::Error> {
        self.issues += 1;
        self.add(row)
    }
    fn syscall_stat(&mut self, row: &SyscallStatRow) -> Result<(), T::Error> {
        self.add(row)
    }
}
