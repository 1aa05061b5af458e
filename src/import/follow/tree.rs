//! The follower's tree order: table `tree_node` kept current at each
//! commit without reading the rows back. The few words per process and
//! image the order needs ([`crate::sink::tree`]) are gathered as the rows
//! pass to the database (the final ones kept, a snapshot's provisional
//! ones dropped again after its commit), the whole order is worked out in
//! memory, and only the nodes that differ from those the last commit wrote
//! are deleted and written again: a new process shifts the nodes after it
//! and changes its ancestors' `subtree_end`, the rest stays. The rows are
//! those [`crate::load::tree_order`] writes after a one-shot import: the
//! same function orders both.
//!
//! A trace of more than [`IN_MEMORY_PROCESSES`] processes is ordered by
//! SQLite's sorter instead, the whole table written again each time, as a
//! one-shot import would.

use rusqlite::Connection;

use crate::load::tree_order::{write_tree_order, IN_MEMORY_PROCESSES};
use crate::process::rows::{
    CallRow, EventRow, ExecRow, IssueRow, NameiRow, ProcessRow, SyscallStatRow, ThreadRow,
};
use crate::process::Sink;
use crate::schema::sql_err;
use crate::sink::tree::{order_tree, TreeImage, TreeNode, TreeProcess};
use crate::Error;

/// What the order needs of the rows written so far, and the nodes the
/// last commit wrote.
#[derive(Debug, Default)]
pub(super) struct Tree {
    trace_id: i64,
    procs: Vec<TreeProcess>,
    images: Vec<TreeImage>,
    /// One more than the last call id (0 without calls).
    calls_end: i64,
    /// The rows of `tree_node` now, by `pos` (from 1).
    written: Vec<TreeNode>,
}

/// How far the final rows went: a snapshot's rows come after it and are
/// dropped back to it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Mark {
    procs: usize,
    images: usize,
    calls_end: i64,
}

impl Tree {
    /// The order of trace `trace_id`, with no rows yet.
    pub(super) fn new(trace_id: i64) -> Self {
        Tree {
            trace_id,
            ..Tree::default()
        }
    }

    /// Where the rows end now.
    pub(super) fn mark(&self) -> Mark {
        Mark {
            procs: self.procs.len(),
            images: self.images.len(),
            calls_end: self.calls_end,
        }
    }

    /// Forget the rows written after `m` (a snapshot's, taken out).
    pub(super) fn rewind(&mut self, m: Mark) {
        self.procs.truncate(m.procs);
        self.images.truncate(m.images);
        self.calls_end = m.calls_end;
    }

    /// Empty `tree_node`: the next [`Tree::write`] writes it whole.
    pub(super) fn clear_written(&mut self, conn: &Connection) -> Result<(), Error> {
        conn.execute("DELETE FROM tree_node", [])
            .map_err(sql_err("writing table tree_node".into()))?;
        self.written.clear();
        Ok(())
    }

    /// Make `tree_node` the order of the rows gathered (inside the
    /// caller's transaction): only the nodes that changed are written.
    pub(super) fn write(&mut self, conn: &Connection) -> Result<(), Error> {
        let ctx = || sql_err("writing table tree_node".into());
        if self.procs.len() as i64 > IN_MEMORY_PROCESSES {
            self.written.clear();
            conn.execute("DELETE FROM tree_node", []).map_err(ctx())?;
            return write_tree_order(conn);
        }
        let nodes = order_tree(self.procs.clone(), self.images.clone(), 1, self.calls_end);
        let changed = |i: usize| nodes.get(i) != self.written.get(i);
        let len = nodes.len().max(self.written.len());
        let mut del = conn
            .prepare_cached("DELETE FROM tree_node WHERE pos = ?1")
            .map_err(ctx())?;
        for (i, old) in self.written.iter().enumerate() {
            if changed(i) {
                del.execute([old.pos]).map_err(ctx())?;
            }
        }
        let mut insert = conn
            .prepare_cached(&format!(
                "INSERT INTO tree_node ({}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                TreeNode::COLUMNS.join(", ")
            ))
            .map_err(ctx())?;
        for i in (0..len).filter(|&i| changed(i)) {
            if let Some(n) = nodes.get(i) {
                insert.execute(n.values()).map_err(ctx())?;
            }
        }
        self.written = nodes;
        Ok(())
    }
}

/// A sink that passes rows on and gathers what the tree order needs of
/// them.
pub(super) struct Tracked<'s, S> {
    pub(super) inner: &'s mut S,
    pub(super) tree: &'s mut Tree,
}

impl<S: Sink> Sink for Tracked<'_, S> {
    type Error = S::Error;
    fn process(&mut self, row: &ProcessRow) -> Result<(), S::Error> {
        self.tree
            .procs
            .push(TreeProcess::of(self.tree.trace_id, row));
        self.inner.process(row)
    }
    fn thread(&mut self, row: &ThreadRow) -> Result<(), S::Error> {
        self.inner.thread(row)
    }
    fn exec(&mut self, row: &ExecRow<'_>) -> Result<(), S::Error> {
        self.tree.images.extend(TreeImage::of(row));
        self.inner.exec(row)
    }
    fn call(&mut self, row: &CallRow<'_>) -> Result<(), S::Error> {
        self.tree.calls_end = self.tree.calls_end.max(row.id + 1);
        self.inner.call(row)
    }
    fn namei(&mut self, row: &NameiRow<'_>) -> Result<(), S::Error> {
        self.inner.namei(row)
    }
    fn event(&mut self, row: &EventRow<'_>) -> Result<(), S::Error> {
        self.inner.event(row)
    }
    fn issue(&mut self, row: &IssueRow) -> Result<(), S::Error> {
        self.inner.issue(row)
    }
    fn syscall_stat(&mut self, row: &SyscallStatRow) -> Result<(), S::Error> {
        self.inner.syscall_stat(row)
    }
}
