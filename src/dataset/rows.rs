//! The model's rows → Arrow columns: the dataset's [`Sink`], on the
//! decoding side of `kt2sql import --to parquet`. Each row's fields go
//! straight into the column builders of its table (no SQL values between),
//! stored as [`crate::load`] stores them: the same path ids from the same
//! [`PathCache`], the same derived columns and encodings
//! ([`crate::sink::value`]), call rows put back into `call_id` order by
//! the same [`InOrder`] window. A table's columns are handed to the
//! [`ColumnTarget`] every [`ROWS_PER_BATCH`] rows, in the order of the
//! dataset's columns ([`TableColumns`]); a target may take the call rows
//! as they are instead, in order, for another thread's sink to build
//! ([`RowColumns::put_calls`]). The one column the rows lack,
//! the `import_issue_id` SQLite would give, is numbered here as SQLite
//! numbers it in a fresh database (1, 2, …). At the end of the trace the
//! tree order ([`order_tree`]) gives the `tree_node` rows from the few
//! words per process and image gathered as their rows passed.
//! [`finish_trace`] writes the
//! `trace` row from the values of [`crate::sink::trace`], as SQLite has them.
//!
//! A column's builder is of the [`Kind`] its declaration gives
//! ([`super::columns`] derives it from the same field types), so a value
//! always finds a builder of its form.

use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, Int64Array};
use rusqlite::types::{Value, ValueRef};

use super::columns::{Kind, TableColumns, TREE_NODE};
use super::TraceFiles;
use crate::process::rows::{
    model_tables, Access, CallRow, End, EventRow, ExecRow, IssueKind, IssueRow, NameiRow, PathRow,
    ProcessRow, Resolution, Severity, Sink, SyscallStatRow, ThreadRow, Unpaired,
};
use crate::sink::reorder::{HeldCall, InOrder, CALL_WINDOW};
use crate::sink::table::Table;
use crate::sink::trace::{end_values, start_values, TraceEnd, TraceStart};
use crate::sink::tree::{order_tree, TreeImage, TreeNode, TreeProcess};
use crate::sink::value::{
    call_arg, call_dur, call_errno_name, call_nargs, json_string_list, write_args, AsciiOut,
};
use crate::sink::{PathCache, TraceContext};
use crate::Error;

/// The `trace_id` of every trace imported straight into a dataset: the id
/// it would have in a database of its own.
pub const TRACE_ID: i64 = 1;

/// Rows of a table gathered before its columns are handed on.
pub const ROWS_PER_BATCH: usize = 16 * 1024;

/// Where a table's finished columns go.
pub trait ColumnTarget {
    /// Why they could not be taken.
    type Error;
    /// Whether call rows are handed on as they are, in `call_id` order
    /// ([`ColumnTarget::take_calls`]), for another thread to build their
    /// columns ([`RowColumns::put_calls`]), instead of built here.
    const CALLS_AS_ROWS: bool = false;
    /// `rows` rows of the dataset's table number `table` (of
    /// [`super::Dataset::tables`]): one array per column of its files but
    /// the trace key.
    fn take(
        &mut self,
        table: usize,
        rows: usize,
        columns: Vec<ArrayRef>,
    ) -> Result<(), Self::Error>;
    /// [`ROWS_PER_BATCH`] call rows (fewer, the last time), when
    /// [`ColumnTarget::CALLS_AS_ROWS`]; an empty list to fill next.
    fn take_calls(&mut self, calls: Vec<HeldCall>) -> Result<Vec<HeldCall>, Self::Error> {
        unreachable!("{} call rows for a target that builds none", calls.len())
    }
}

impl ColumnTarget for TraceFiles<'_> {
    type Error = Error;
    fn take(&mut self, table: usize, rows: usize, columns: Vec<ArrayRef>) -> Result<(), Error> {
        self.write_columns(table, rows, columns)
    }
}

impl<T: ColumnTarget> ColumnTarget for &mut T {
    type Error = T::Error;
    const CALLS_AS_ROWS: bool = T::CALLS_AS_ROWS;
    fn take_calls(&mut self, calls: Vec<HeldCall>) -> Result<Vec<HeldCall>, T::Error> {
        (**self).take_calls(calls)
    }
    fn take(&mut self, table: usize, rows: usize, columns: Vec<ArrayRef>) -> Result<(), T::Error> {
        (**self).take(table, rows, columns)
    }
}

/// The builder of one column (and of its `_bytes` companion).
#[derive(Debug)]
enum Col {
    Int(Int64Builder),
    Real(Float64Builder),
    Text(StringBuilder),
    Bytes(StringBuilder, BinaryBuilder),
    Blob(BinaryBuilder),
}

impl Col {
    fn new(kind: Kind) -> Col {
        match kind {
            Kind::Int => Col::Int(Int64Builder::new()),
            Kind::Real => Col::Real(Float64Builder::new()),
            Kind::Text => Col::Text(StringBuilder::new()),
            Kind::Bytes => Col::Bytes(StringBuilder::new(), BinaryBuilder::new()),
            Kind::Blob => Col::Blob(BinaryBuilder::new()),
        }
    }

    #[inline]
    fn int(&mut self, v: Option<i64>) {
        match self {
            Col::Int(b) => b.append_option(v),
            _ => self.mismatch("an integer"),
        }
    }

    #[inline]
    fn text(&mut self, v: Option<&str>) {
        match self {
            Col::Text(b) => b.append_option(v),
            _ => self.mismatch("text"),
        }
    }

    /// Recorded bytes: the text when UTF-8, else the text with U+FFFD for
    /// each bad sequence and the exact bytes in the companion.
    #[inline]
    fn bytes(&mut self, v: Option<&[u8]>) {
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
    fn blob(&mut self, v: Option<&[u8]>) {
        match self {
            Col::Blob(b) => b.append_option(v),
            _ => self.mismatch("raw data"),
        }
    }

    /// Its finished arrays (two for bytes), the builder left empty with
    /// room for a batch as large (Arrow's `finish` leaves none: the next
    /// batch's columns were grown by doubling, a copy at each step).
    fn finish(&mut self, out: &mut Vec<ArrayRef>) {
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
struct Builders {
    /// Its declared columns in the order a row gives them, then the key
    /// SQLite would give, if the declaration lacks it.
    cols: Vec<Col>,
    /// For each column of the dataset's table, its builder in `cols`.
    order: Vec<usize>,
    /// Whether the last of `cols` is that key, and the last key given.
    key: Option<i64>,
    rows: usize,
}

impl Builders {
    fn new(t: Table, cols: &TableColumns) -> Builders {
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
    fn finish(&mut self) -> Vec<ArrayRef> {
        let mut out = Vec::with_capacity(self.order.len() + 2);
        for &i in &self.order {
            self.cols[i].finish(&mut out);
        }
        self.rows = 0;
        out
    }
}

/// The dataset's [`Sink`]: rows in, each table's columns out to its
/// target.
pub struct RowColumns<'p, T> {
    tables: Vec<Builders>,
    /// Finished call rows, put back into `call_id` order (always `Some`
    /// but while rows are released).
    calls: Option<InOrder<HeldCall>>,
    /// Call rows released in order, to be handed on as they are (when the
    /// target takes them so).
    released: Vec<HeldCall>,
    paths: &'p mut PathCache,
    ctx: TraceContext,
    issues: i64,
    /// What the tree order needs, gathered as the rows pass.
    tree: TreeInputs,
    /// `tree_node`'s table number, and each of its columns' place in
    /// [`TreeNode::COLUMNS`].
    tree_table: (usize, Vec<usize>),
    /// Where the columns go.
    pub target: T,
}

/// The few words per process and image [`order_tree`] needs, and one more
/// than the last call id seen.
#[derive(Default)]
struct TreeInputs {
    procs: Vec<TreeProcess>,
    images: Vec<TreeImage>,
    calls_end: i64,
}

impl<'p, T: ColumnTarget> RowColumns<'p, T> {
    /// The sink of one trace, for the dataset's `tables` (`trace` first,
    /// then the model's tables in [`Table::ALL`]'s order, then
    /// `tree_node`).
    pub fn new(
        tables: &[TableColumns],
        paths: &'p mut PathCache,
        ctx: TraceContext,
        target: T,
    ) -> Self {
        RowColumns {
            tables: Table::ALL
                .iter()
                .map(|&t| Builders::new(t, &tables[1 + t.index()]))
                .collect(),
            calls: Some(InOrder::new(CALL_WINDOW)),
            released: Vec::new(),
            paths,
            ctx,
            issues: 0,
            tree: TreeInputs::default(),
            tree_table: {
                let n = tables.len() - 1;
                debug_assert_eq!(tables[n].name, TREE_NODE);
                let at = tables[n].positions_of(&TreeNode::COLUMNS);
                let mut places = vec![0; at.len()];
                for (k, &d) in at.iter().enumerate() {
                    places[d] = k;
                }
                (n, places)
            },
            target,
        }
    }

    /// Issues written so far.
    pub fn issues(&self) -> i64 {
        self.issues
    }

    /// At the end of the trace: hand on every row still waiting, call rows
    /// held for order included, then the trace's `tree_node` rows.
    pub fn flush(&mut self) -> Result<(), T::Error> {
        let mut calls = self.calls.take().expect("not releasing");
        let mut done = Ok(());
        calls.drain(|h| {
            if done.is_ok() {
                done = self.release_call(h);
            }
        });
        self.calls = Some(calls);
        done?;
        if !self.released.is_empty() {
            let last = std::mem::take(&mut self.released);
            self.target.take_calls(last)?;
        }
        for &t in Table::ALL {
            self.send(t)?;
        }
        self.send_tree()
    }

    /// Order the trace's tree (numbered from 1, as in a database of its
    /// own) and hand on its `tree_node` rows.
    fn send_tree(&mut self) -> Result<(), T::Error> {
        let TreeInputs {
            procs,
            images,
            calls_end,
        } = std::mem::take(&mut self.tree);
        let nodes = order_tree(procs, images, 1, calls_end);
        let (table, ref places) = self.tree_table;
        for batch in nodes.chunks(ROWS_PER_BATCH) {
            let columns = places
                .iter()
                .map(|&k| {
                    let col: Int64Array = batch.iter().map(|n| Some(n.values()[k])).collect();
                    Arc::new(col) as ArrayRef
                })
                .collect();
            self.target.take(table, batch.len(), columns)?;
        }
        Ok(())
    }

    /// Hand on the columns of `t`, if it has rows.
    fn send(&mut self, t: Table) -> Result<(), T::Error> {
        let b = &mut self.tables[t.index()];
        if b.rows == 0 {
            return Ok(());
        }
        let rows = b.rows;
        let columns = b.finish();
        self.target.take(1 + t.index(), rows, columns)
    }

    /// Add a row of `t`, its values put by `put`.
    #[inline]
    fn add(
        &mut self,
        t: Table,
        put: impl FnOnce(&mut [Col], &mut Self) -> Result<(), T::Error>,
    ) -> Result<(), T::Error> {
        // Out of `self` while the row is put, so putting may add a path.
        let mut cols = std::mem::take(&mut self.tables[t.index()].cols);
        let put = put(&mut cols, self);
        let b = &mut self.tables[t.index()];
        b.cols = cols;
        put?;
        if let Some(key) = &mut b.key {
            *key += 1;
            b.cols.last_mut().expect("the key").int(Some(*key));
        }
        b.rows += 1;
        if b.rows >= ROWS_PER_BATCH {
            self.send(t)?;
        }
        Ok(())
    }

    fn add_call(&mut self, h: &HeldCall) -> Result<(), T::Error> {
        self.add(Table::Call, |c, e| CallRow::put(&h.row(), c, e))
    }

    /// A call row whose turn has come: into its columns here, or into the
    /// list handed on as it is.
    fn release_call(&mut self, h: HeldCall) -> Result<(), T::Error> {
        if !T::CALLS_AS_ROWS {
            return self.add_call(&h);
        }
        if self.released.capacity() == 0 {
            self.released.reserve_exact(ROWS_PER_BATCH);
        }
        self.released.push(h);
        if self.released.len() >= ROWS_PER_BATCH {
            let full = std::mem::take(&mut self.released);
            self.released = self.target.take_calls(full)?;
        }
        Ok(())
    }

    /// Call rows handed on by another sink's [`ColumnTarget::take_calls`],
    /// already in `call_id` order, into the call table's columns.
    pub fn put_calls(&mut self, calls: &[HeldCall]) -> Result<(), T::Error> {
        calls.iter().try_for_each(|h| self.add_call(h))
    }

    /// Hand on the call rows [`RowColumns::put_calls`] left.
    pub fn finish_calls(&mut self) -> Result<(), T::Error> {
        self.send(Table::Call)
    }

    /// Hold a finished call row until the calls before it are written.
    fn take_call(&mut self, row: &CallRow<'_>) -> Result<(), T::Error> {
        self.tree.calls_end = self.tree.calls_end.max(row.id + 1);
        let mut calls = self.calls.take().expect("not releasing");
        let mut done = Ok(());
        calls.push(row.id, HeldCall::of(row), |h| {
            if done.is_ok() {
                done = self.release_call(h);
            }
        });
        self.calls = Some(calls);
        done
    }

    /// `as path`: the path's id, the path added when new.
    #[inline]
    fn path<'b>(&mut self, p: impl Into<Option<&'b [u8]>>, c: &mut Col) -> Result<(), T::Error> {
        let id = match p.into() {
            None => None,
            Some(path) => {
                let (id, new) = self.paths.intern(path);
                if new {
                    self.add(Table::Path, |c, e| {
                        PathRow::put(&PathRow { id, path }, c, e)
                    })?;
                }
                Some(id)
            }
        };
        c.int(id);
        Ok(())
    }

    /// `as strings`: a JSON array when every string is UTF-8, else the
    /// bytes.
    #[inline]
    fn strings(&mut self, b: Option<&[u8]>, c: &mut Col) -> Result<(), T::Error> {
        match b.map(|b| (b, json_string_list(b))) {
            Some((_, Some(json))) => c.bytes(Some(json.as_bytes())),
            Some((b, None)) => c.bytes(Some(b)),
            None => c.bytes(None),
        }
        Ok(())
    }

    /// `as blob`.
    #[inline]
    fn blob(&mut self, b: Option<&[u8]>, c: &mut Col) -> Result<(), T::Error> {
        c.blob(b);
        Ok(())
    }

    /// `as args`: the words as text, written straight into the column.
    #[inline]
    fn args(&mut self, args: &[u64], c: &mut Col) -> Result<(), T::Error> {
        match c {
            Col::Text(b) => {
                write_args(b, args);
                b.append_value("");
            }
            _ => c.mismatch("argument text"),
        }
        Ok(())
    }

    #[inline]
    fn trace<R>(&self, _: &R, c: &mut Col) {
        c.int(Some(self.ctx.trace_id));
    }

    #[inline]
    fn nargs(&self, r: &CallRow<'_>, c: &mut Col) {
        c.int(Some(call_nargs(r)));
    }

    #[inline]
    fn arg0(&self, r: &CallRow<'_>, c: &mut Col) {
        c.int(call_arg(r, 0, self.ctx.word_bits));
    }

    #[inline]
    fn arg1(&self, r: &CallRow<'_>, c: &mut Col) {
        c.int(call_arg(r, 1, self.ctx.word_bits));
    }

    #[inline]
    fn dur(&self, r: &CallRow<'_>, c: &mut Col) {
        c.int(call_dur(r));
    }

    #[inline]
    fn errno_name(&self, r: &CallRow<'_>, c: &mut Col) {
        c.text(call_errno_name(r, self.ctx.names));
    }
}

/// How a field is put when its type says how: the same forms as the
/// encoder's SQL values (see [`super::columns`] for their kinds).
trait PutColumn {
    fn put_column(&self, c: &mut Col);
}

macro_rules! put_column {
    ($($t:ty => |$v:ident, $c:ident| $e:expr;)*) => {$(
        impl PutColumn for $t {
            #[inline]
            fn put_column(&self, $c: &mut Col) {
                let $v = self;
                $e
            }
        }
    )*};
}

put_column! {
    i64 => |v, c| c.int(Some(*v));
    Option<i64> => |v, c| c.int(*v);
    i32 => |v, c| c.int(Some((*v).into()));
    Option<i32> => |v, c| c.int(v.map(i64::from));
    bool => |v, c| c.int(Some((*v).into()));
    Option<bool> => |v, c| c.int(v.map(i64::from));
    // File offsets fit i64 for any file that exists.
    u64 => |v, c| c.int(Some(*v as i64));
    Option<u64> => |v, c| c.int(v.map(|o| o as i64));
    Vec<u8> => |v, c| c.bytes(Some(v));
    &[u8] => |v, c| c.bytes(Some(v));
    Option<&[u8]> => |v, c| c.bytes(*v);
    &'static str => |v, c| c.text(Some(v));
    Option<&'static str> => |v, c| c.text(*v);
    String => |v, c| c.text(Some(v));
    Option<String> => |v, c| c.text(v.as_deref());
}

/// A vocabulary is stored as its fixed string.
macro_rules! vocabulary_put {
    ($($t:ty),*) => {$(
        put_column! {
            $t => |v, c| c.text(Some(v.as_str()));
            Option<$t> => |v, c| c.text(v.map(|v| v.as_str()));
        }
    )*};
}
vocabulary_put!(Severity, Resolution, Access, End, Unpaired, IssueKind);

/// Each row's `put` and the [`Sink`] methods, from [`model_tables!`].
macro_rules! column_rows {
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
                /// Put its values, one per builder, in its columns' order.
                #[inline]
                #[allow(unused_variables)] // `e` by rows of fields stored as they are
                fn put<T: ColumnTarget>(
                    row: &Self,
                    cols: &mut [Col],
                    e: &mut RowColumns<'_, T>,
                ) -> Result<(), T::Error> {
                    let mut cols = cols.iter_mut();
                    $({
                        let c = cols.next().expect("a builder per column");
                        put!(row e c [$($field)?] [$($how)?]);
                    })*
                    Ok(())
                }
            }
        )*

        impl<T: ColumnTarget> Sink for RowColumns<'_, T> {
            type Error = T::Error;
            $( put_method!($table [$($method)?] $row [$($lt)?]); )*
        }
    };
}

/// One value of a row into its builder `c`.
macro_rules! put {
    ($row:ident $e:ident $c:ident [$field:ident] []) => {
        $row.$field.put_column($c)
    };
    ($row:ident $e:ident $c:ident [$field:ident] [$how:ident]) => {
        $e.$how($row.$field, $c)?
    };
    ($row:ident $e:ident $c:ident [] [$how:ident]) => {
        $e.$how($row, $c)
    };
}

/// The [`Sink`] method of a table, if it has one.
macro_rules! put_method {
    ($table:ident [] $($rest:tt)*) => {};
    ($table:ident [$method:ident] $row:ident []) => {
        fn $method(&mut self, row: &$row) -> Result<(), T::Error> {
            add!(self $table row $row)
        }
    };
    ($table:ident [$method:ident] $row:ident [$lt:lifetime]) => {
        fn $method(&mut self, row: &$row<'_>) -> Result<(), T::Error> {
            add!(self $table row $row)
        }
    };
}

/// Where a row goes: call rows wait for the calls before them, issues are
/// counted for the `trace` row, the rest join their table's columns.
macro_rules! add {
    ($e:ident Call $row:ident $ty:ident) => {
        $e.take_call($row)
    };
    ($e:ident Process $row:ident $ty:ident) => {{
        $e.tree.procs.push(TreeProcess::of($e.ctx.trace_id, $row));
        $e.add(Table::Process, |c, e| $ty::put($row, c, e))
    }};
    ($e:ident Exec $row:ident $ty:ident) => {{
        $e.tree.images.extend(TreeImage::of($row));
        $e.add(Table::Exec, |c, e| $ty::put($row, c, e))
    }};
    ($e:ident Issue $row:ident $ty:ident) => {{
        $e.issues += 1;
        $e.add(Table::Issue, |c, e| $ty::put($row, c, e))
    }};
    ($e:ident $table:ident $row:ident $ty:ident) => {
        $e.add(Table::$table, |c, e| $ty::put($row, c, e))
    };
}

model_tables!(column_rows);

/// Write the `trace` row, finish every file and publish the trace; its
/// rows per table.
pub fn finish_trace(
    mut files: TraceFiles<'_>,
    start: &TraceStart<'_>,
    issues: i64,
    end: &TraceEnd<'_>,
) -> Result<Vec<u64>, Error> {
    let mut named: Vec<(&str, Value)> = vec![("trace_id", Value::Integer(TRACE_ID))];
    named.extend(start_values(start));
    // `size` again at the end (a pipe's is known only then): the last wins.
    named.extend(end_values(issues, end));
    let cols = &files.dataset.tables[0].columns;
    let row: Vec<ValueRef<'_>> = cols
        .iter()
        .map(|c| {
            named
                .iter()
                .rev()
                .find(|(n, _)| *n == c.name)
                .map_or(ValueRef::Null, |(_, v)| ValueRef::from(v))
        })
        .collect();
    files.push(0, row)?;
    files.finish()
}
