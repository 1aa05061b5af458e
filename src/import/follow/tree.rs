//! The follower's tree order: table `tree_node` kept current at each
//! commit without reading the rows back. The few words per process and
//! image the order needs ([`crate::sink::tree`]) are gathered as the rows
//! pass to the database (the final ones kept, a snapshot's provisional
//! ones dropped again after its commit), the whole order is worked out in
//! memory on the follower's thread, and only the nodes that differ from
//! those the last commit wrote are deleted and written again (by the
//! writer thread, in the commit; when most of the nodes after the first
//! change changed, that whole tail, with one DELETE and multi-row
//! INSERTs): a new process shifts the nodes after it
//! and changes its ancestors' `subtree_end`, the rest stays. The rows are
//! those [`crate::load::tree_order`] writes after a one-shot import: the
//! same function orders both.
//!
//! A trace of more than [`IN_MEMORY`] processes is ordered by SQLite's
//! sorter instead, the whole table written again each time, as a one-shot
//! import would.

use rusqlite::Connection;

use crate::load::tree_order::write_tree_order;
use crate::process::rows::{
    CallRow, EventRow, ExecRow, IssueRow, NameiRow, ProcessRow, SyscallStatRow, ThreadRow,
};
use crate::process::Sink;
use crate::schema::sql_err;
use crate::sink::tree::{order_tree, TreeImage, TreeNode, TreeProcess};
use crate::Error;

/// Processes the follower orders in memory at each commit, rewriting only
/// the nodes that changed. It holds every process's words anyway, and a
/// live view needs each commit's order fast: SQLite's sorter (the
/// one-shot import's path past
/// [`crate::load::tree_order::IN_MEMORY_PROCESSES`]) takes about 1.4 s
/// per 125 000 processes, every commit.
const IN_MEMORY: i64 = 1 << 18;

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

    /// Forget the nodes written: the next [`Tree::changes`] writes the
    /// table whole (the caller empties it).
    pub(super) fn clear_written(&mut self) {
        self.written.clear();
    }

    /// What makes `tree_node` the order of the rows gathered, to be written
    /// inside the commit's transaction ([`Changes::write`]): only the
    /// nodes that changed since the last call. The order is worked out
    /// here, on the follower's thread.
    pub(super) fn changes(&mut self) -> Changes {
        if self.procs.len() as i64 > IN_MEMORY {
            self.written.clear();
            return Changes::Whole;
        }
        let nodes = order_tree(self.procs.clone(), self.images.clone(), 1, self.calls_end);
        let changed = |i: usize| nodes.get(i) != self.written.get(i);
        let len = nodes.len().max(self.written.len());
        let Some(first) = (0..len).find(|&i| changed(i)) else {
            return Changes::Nodes {
                delete: Vec::new(),
                insert: Vec::new(),
            };
        };
        let changes = if (first..len).filter(|&i| changed(i)).count() * 2 > len - first {
            // A process placed before the end shifts every node after it:
            // most of the tail changed, so it is written again whole.
            Changes::Tail {
                from: first as i64 + 1,
                insert: nodes[first.min(nodes.len())..].to_vec(),
            }
        } else {
            let gone = (first..self.written.len()).filter(|&i| changed(i));
            let delete = gone.map(|i| self.written[i].pos).collect();
            let new = (first..len).filter(|&i| changed(i));
            let insert = new.filter_map(|i| nodes.get(i).copied()).collect();
            Changes::Nodes { delete, insert }
        };
        self.written = nodes;
        changes
    }
}

/// The writes that bring `tree_node` up to date.
#[derive(Debug)]
pub(super) enum Changes {
    /// Too many processes to order in memory: the table is written again
    /// whole by SQLite's sorter.
    Whole,
    /// The nodes whose `pos` to delete, then the nodes to insert.
    Nodes {
        delete: Vec<i64>,
        insert: Vec<TreeNode>,
    },
    /// Every node from `pos` `from` on to delete (one statement), then the
    /// nodes to insert.
    Tail { from: i64, insert: Vec<TreeNode> },
}

/// Nodes per multi-row INSERT.
const PER_INSERT: usize = 50;

impl Changes {
    /// Write them (inside the caller's transaction).
    pub(super) fn write(self, conn: &Connection) -> Result<(), Error> {
        let ctx = || sql_err("writing table tree_node".into());
        let (delete, insert) = match self {
            Changes::Whole => {
                conn.execute("DELETE FROM tree_node", []).map_err(ctx())?;
                return write_tree_order(conn);
            }
            Changes::Nodes { delete, insert } => (delete, insert),
            Changes::Tail { from, insert } => {
                conn.execute("DELETE FROM tree_node WHERE pos >= ?1", [from])
                    .map_err(ctx())?;
                (Vec::new(), insert)
            }
        };
        let mut del = conn
            .prepare_cached("DELETE FROM tree_node WHERE pos = ?1")
            .map_err(ctx())?;
        for pos in delete {
            del.execute([pos]).map_err(ctx())?;
        }
        let group = format!("({})", vec!["?"; TreeNode::COLUMNS.len()].join(", "));
        let head = format!(
            "INSERT INTO tree_node ({}) VALUES",
            TreeNode::COLUMNS.join(", ")
        );
        let mut many = conn
            .prepare_cached(&format!(
                "{head} {}",
                vec![group.as_str(); PER_INSERT].join(", ")
            ))
            .map_err(ctx())?;
        let mut one = conn
            .prepare_cached(&format!("{head} {group}"))
            .map_err(ctx())?;
        let mut chunks = insert.chunks_exact(PER_INSERT);
        for chunk in &mut chunks {
            let values = chunk.iter().flat_map(|n| n.values());
            many.execute(rusqlite::params_from_iter(values))
                .map_err(ctx())?;
        }
        for n in chunks.remainder() {
            one.execute(n.values()).map_err(ctx())?;
        }
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
