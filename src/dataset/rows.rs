//! The model's rows → Arrow columns: the dataset's [`Sink`], on the
//! decoding side of `kt2sql import --to parquet`. Each row puts its
//! columns, through the kit's one visitor ([`crate::sink::columns`]),
//! straight into the column builders of its table ([`super::builders`];
//! no SQL values between), so they are stored as the SQLite loader stores
//! them: the same forms, the same path ids from the kit's [`PathCache`],
//! call rows put back into `call_id` order by the kit's [`InOrder`]
//! window. A table's columns are handed to the [`ColumnTarget`] every
//! [`ROWS_PER_BATCH`] rows, in the order of the dataset's columns
//! ([`TableColumns`]); a target may take the call rows as they are
//! instead, in order, for another thread's sink to build
//! ([`RowColumns::put_calls`]). The one column the rows lack, the
//! `import_issue_id` SQLite would give, is numbered here as SQLite numbers
//! it in a fresh database (1, 2, …). At the end of the trace the tree
//! order gives the `tree_node` rows from the few words per process and
//! image gathered as their rows passed, in the [`TreeWords`] store it is
//! given (the import's keeps them in a scratch file past a limit).
//! [`finish_trace`] writes the `trace` row from the values of
//! [`crate::sink::trace`].

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array};
use rusqlite::types::{Value, ValueRef};

use super::builders::{Builders, Col};
use super::columns::{TableColumns, TREE_NODE};
use super::TraceFiles;
use crate::process::rows::{
    CallRow, EventRow, ExecRow, IssueRow, NameiRow, PathRow, ProcessRow, Sink, SyscallStatRow,
    ThreadRow,
};
use crate::sink::columns::Columns;
use crate::sink::reorder::{HeldCall, InOrder, CALL_WINDOW};
use crate::sink::table::{Row, Table};
use crate::sink::trace::{end_values, start_values, TraceEnd, TraceStart};
use crate::sink::tree::{TreeImage, TreeNode, TreeProcess, TreeWords};
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
    /// The sink failed with `e` (the tree order's scratch file): said to
    /// the target, as the error the sink returns.
    fn failed(&mut self, e: Error) -> Self::Error;
}

impl ColumnTarget for TraceFiles<'_> {
    type Error = Error;
    fn take(&mut self, table: usize, rows: usize, columns: Vec<ArrayRef>) -> Result<(), Error> {
        self.write_columns(table, rows, columns)
    }
    fn failed(&mut self, e: Error) -> Error {
        e
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
    fn failed(&mut self, e: Error) -> T::Error {
        (**self).failed(e)
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
    /// What the tree order needs, gathered as the rows pass (`None`
    /// while it is ordered).
    tree: Option<Box<dyn TreeWords>>,
    /// One more than the last call id seen (0 without calls).
    calls_end: i64,
    /// `tree_node`'s table number, and each of its columns' place in
    /// [`TreeNode::COLUMNS`].
    tree_table: (usize, Vec<usize>),
    /// Where the columns go.
    pub target: T,
}

impl<'p, T: ColumnTarget> RowColumns<'p, T> {
    /// The sink of one trace, for the dataset's `tables` (`trace` first,
    /// then the model's tables in [`Table::ALL`]'s order, then
    /// `tree_node`); the tree order's words go to `tree`.
    pub fn new(
        tables: &[TableColumns],
        paths: &'p mut PathCache,
        ctx: TraceContext,
        target: T,
        tree: Box<dyn TreeWords>,
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
            tree: Some(tree),
            calls_end: 0,
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
        let Some(tree) = self.tree.take() else {
            return Ok(());
        };
        let (table, ref places) = self.tree_table;
        let target = &mut self.target;
        let send = |batch: &[TreeNode], target: &mut T| {
            let columns = places
                .iter()
                .map(|&k| {
                    let col: Int64Array = batch.iter().map(|n| Some(n.values()[k])).collect();
                    Arc::new(col) as ArrayRef
                })
                .collect();
            target.take(table, batch.len(), columns)
        };
        let (mut batch, mut done) = (Vec::with_capacity(ROWS_PER_BATCH), Ok(()));
        let ordered = tree.order(1, self.calls_end, &mut |n| {
            batch.push(n);
            if batch.len() == ROWS_PER_BATCH {
                if done.is_ok() {
                    done = send(&batch, target);
                }
                batch.clear();
            }
        });
        if let Err(e) = ordered {
            return Err(target.failed(e));
        }
        done?;
        if batch.is_empty() {
            return Ok(());
        }
        send(&batch, target)
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

    /// Add a row to its table's columns, the columns handed on when the
    /// table has a batch.
    #[inline]
    fn add<R: Row>(&mut self, row: &R) -> Result<(), T::Error> {
        let t = R::TABLE;
        // Out of `self` while the row is put, so putting may add a path.
        let mut cols = std::mem::take(&mut self.tables[t.index()].cols);
        let ctx = self.ctx;
        let put = row.put_columns(
            &ctx,
            &mut PutRow {
                cols: cols.iter_mut(),
                sink: self,
            },
        );
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

    /// A call row whose turn has come: into its columns here, or into the
    /// list handed on as it is.
    fn release_call(&mut self, h: HeldCall) -> Result<(), T::Error> {
        if !T::CALLS_AS_ROWS {
            return self.add(&h.row());
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
        calls.iter().try_for_each(|h| self.add(&h.row()))
    }

    /// Hand on the call rows [`RowColumns::put_calls`] left.
    pub fn finish_calls(&mut self) -> Result<(), T::Error> {
        self.send(Table::Call)
    }

    /// Hold a finished call row until the calls before it are written.
    fn take_call(&mut self, row: &CallRow<'_>) -> Result<(), T::Error> {
        self.calls_end = self.calls_end.max(row.id + 1);
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
}

/// One row's columns going into its table's builders, in order: the
/// [`Columns`] of the Arrow side. A path new to the cache adds its `path`
/// row first.
struct PutRow<'r, 's, 'p, T> {
    cols: std::slice::IterMut<'r, Col>,
    sink: &'s mut RowColumns<'p, T>,
}

impl<T> PutRow<'_, '_, '_, T> {
    /// The builder of the next column.
    #[inline]
    fn col(&mut self) -> &mut Col {
        self.cols.next().expect("a builder per column")
    }
}

impl<T: ColumnTarget> Columns for PutRow<'_, '_, '_, T> {
    type Error = T::Error;

    #[inline]
    fn int(&mut self, v: Option<i64>) {
        self.col().int(v);
    }

    #[inline]
    fn name(&mut self, v: Option<&'static str>) {
        self.col().text(v);
    }

    #[inline]
    fn text(&mut self, v: Option<&str>) {
        self.col().text(v);
    }

    #[inline]
    fn recorded(&mut self, v: Option<&[u8]>) {
        self.col().bytes(v);
    }

    #[inline]
    fn path(&mut self, v: Option<&[u8]>) -> Result<(), T::Error> {
        let id = match v {
            None => None,
            Some(path) => {
                let (id, new) = self.sink.paths.intern(path);
                if new {
                    self.sink.add(&PathRow { id, path })?;
                }
                Some(id)
            }
        };
        self.col().int(id);
        Ok(())
    }

    #[inline]
    fn blob(&mut self, v: Option<&[u8]>) {
        self.col().blob(v);
    }

    #[inline]
    fn args(&mut self, words: &[u64]) {
        self.col().args(words);
    }
}

/// Call rows wait for the calls before them; process and image rows leave
/// what the tree order needs; issues are counted for the `trace` row;
/// every row joins its table's columns.
impl<T: ColumnTarget> Sink for RowColumns<'_, T> {
    type Error = T::Error;
    fn process(&mut self, row: &ProcessRow) -> Result<(), T::Error> {
        if let Some(tree) = &mut self.tree {
            tree.process(TreeProcess::of(self.ctx.trace_id, row));
        }
        self.add(row)
    }
    fn thread(&mut self, row: &ThreadRow) -> Result<(), T::Error> {
        self.add(row)
    }
    fn exec(&mut self, row: &ExecRow<'_>) -> Result<(), T::Error> {
        if let (Some(tree), Some(image)) = (&mut self.tree, TreeImage::of(row)) {
            tree.image(image);
        }
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
