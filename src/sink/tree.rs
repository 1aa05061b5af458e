//! The process tree in printed order: table `tree_node`, one row per
//! process image, numbered depth first (`pos`), each process with the last
//! `pos` of its subtree. The tree is complete only when the trace is (a
//! child may fork long after its parent ended), so it is worked out once a
//! trace's rows are all seen, by one pure function ([`order_tree`]) over a
//! few words per process and image. Both sinks feed it: the SQLite loader
//! reads those words back from the rows just written
//! (`load::tree_order`); the dataset's sink gathers them as the rows pass.
//! It is the one place that orders the tree: the `process_tree` view,
//! `kt2sql tree` and every `--pid` scope (`_scope`) read `tree_node`. (A
//! trace of more processes than memory should hold, which no build has,
//! is ordered by SQLite's sorter in `load::tree_order` instead, by this
//! same rule; a test holds the two to the same rows.)
//!
//! Order (ptrace.py -t): roots by trace, then first appearance (`first_ts`,
//! then `process_id`); under an image, the processes forked while it was
//! current (`process.parent_exec_id`) by the file offset of their fork's
//! RET (then `process_id`); a process's images in order, each followed by
//! its children. A process whose parent image is not an image of the
//! trace (never written by a correct import) is left out, as a walk from
//! the roots would.

use crate::process::rows::{ExecRow, ProcessRow};
use crate::Error;

/// What the order needs of one process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeProcess {
    /// `process.trace_id`.
    pub trace_id: i64,
    /// `process.process_id`.
    pub process_id: i64,
    /// The image it hangs under (`process.parent_exec_id`); `None` for a root.
    pub parent_exec_id: Option<i64>,
    /// Its rank: `first_ts` for a root, else `fork_offset`.
    pub rank: Option<i64>,
}

/// What the order needs of one image (a successful exec, or the inherited
/// image).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeImage {
    /// `exec.process_id`.
    pub process_id: i64,
    /// `exec.exec_id`.
    pub exec_id: i64,
    /// `exec.image` (0, 1, …).
    pub image: i64,
    /// `exec.calls_from`.
    pub calls_from: i64,
}

impl TreeProcess {
    /// A process row of trace `trace_id` as the order needs it. The rank
    /// rule is the one `read_trace` reads back in SQL.
    pub fn of(trace_id: i64, row: &ProcessRow) -> Self {
        TreeProcess {
            trace_id,
            process_id: row.id,
            parent_exec_id: row.parent_exec_id,
            rank: match row.parent_exec_id {
                None => Some(row.first_ts),
                Some(_) => row.fork_offset.map(|o| o as i64),
            },
        }
    }
}

impl TreeImage {
    /// An exec row as the order needs it: `None` for an exec that made no
    /// image (a failed one).
    pub fn of(row: &ExecRow<'_>) -> Option<Self> {
        Some(TreeImage {
            process_id: row.process_id,
            exec_id: row.id,
            image: row.image?,
            calls_from: row.calls_from,
        })
    }
}

/// One row of `tree_node`, its columns in the table's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeNode {
    pub pos: i64,
    pub trace_id: i64,
    pub process_id: i64,
    pub exec_id: i64,
    pub image: i64,
    pub depth: i64,
    pub subtree_end: i64,
    pub calls_from: i64,
    pub calls_to: i64,
}

impl TreeNode {
    /// The columns of `tree_node`, in the order of [`TreeNode::values`].
    pub const COLUMNS: [&'static str; 9] = [
        "pos",
        "trace_id",
        "process_id",
        "exec_id",
        "image",
        "depth",
        "subtree_end",
        "calls_from",
        "calls_to",
    ];

    /// Its values, in the order of [`TreeNode::COLUMNS`].
    pub fn values(&self) -> [i64; 9] {
        [
            self.pos,
            self.trace_id,
            self.process_id,
            self.exec_id,
            self.image,
            self.depth,
            self.subtree_end,
            self.calls_from,
            self.calls_to,
        ]
    }
}

/// Where a trace's tree words go as its rows pass ([`TreeProcess::of`],
/// [`TreeImage::of`]), and the order made of them once the trace ends.
/// [`InMemory`] holds them; the SQLite side can hold them in a scratch
/// database past a limit (`load::tree_order::Spilling`), so that a sink
/// with no database of its own (the dataset's) stays in bounded memory.
pub trait TreeWords {
    /// One more process.
    fn process(&mut self, p: TreeProcess);
    /// One more image.
    fn image(&mut self, i: TreeImage);
    /// Every node of the tree, numbered in printed order from
    /// `first_pos` ([`order_tree`]'s rule; `calls_end` as there), handed
    /// to `put` in that order, or with each process's nodes after its
    /// descendants' when SQLite's sorter orders them.
    fn order(
        self: Box<Self>,
        first_pos: i64,
        calls_end: i64,
        put: &mut dyn FnMut(TreeNode),
    ) -> Result<(), Error>;
}

/// Tree words held in memory, ordered by [`order_tree_each`].
#[derive(Debug, Default)]
pub struct InMemory {
    pub procs: Vec<TreeProcess>,
    pub images: Vec<TreeImage>,
}

impl TreeWords for InMemory {
    fn process(&mut self, p: TreeProcess) {
        self.procs.push(p);
    }
    fn image(&mut self, i: TreeImage) {
        self.images.push(i);
    }
    fn order(
        self: Box<Self>,
        first_pos: i64,
        calls_end: i64,
        put: &mut dyn FnMut(TreeNode),
    ) -> Result<(), Error> {
        order_tree_each(self.procs, self.images, first_pos, calls_end, put);
        Ok(())
    }
}

/// The tree of one trace's processes and images (in any order) in printed
/// order, numbered from `first_pos`. `calls_end` is one more than the
/// trace's last call id (or 0 without calls): the last image of a process
/// has its calls up to there (`calls_to`, never below its `calls_from`).
pub fn order_tree(
    procs: Vec<TreeProcess>,
    images: Vec<TreeImage>,
    first_pos: i64,
    calls_end: i64,
) -> Vec<TreeNode> {
    let mut nodes = Vec::with_capacity(images.len());
    order_tree_each(procs, images, first_pos, calls_end, |n| nodes.push(n));
    nodes
}

/// [`order_tree`], each node handed to `put` in printed order instead of
/// collected: the order holds a few words per process and image, never
/// the nodes (72 bytes each, the biggest part when they were collected).
pub fn order_tree_each(
    mut procs: Vec<TreeProcess>,
    mut images: Vec<TreeImage>,
    first_pos: i64,
    calls_end: i64,
    mut put: impl FnMut(TreeNode),
) {
    procs.sort_unstable_by_key(|p| p.process_id);
    images.sort_unstable_by_key(|i| (i.process_id, i.image));
    // Each process's images: `images[first[k]..first[k + 1]]`.
    let mut first = vec![0u32; procs.len() + 1];
    let mut at = 0usize;
    images.retain(|i| {
        while at < procs.len() && procs[at].process_id < i.process_id {
            at += 1;
        }
        let known = at < procs.len() && procs[at].process_id == i.process_id;
        if known {
            first[at + 1] += 1;
        }
        known
    });
    for k in 0..procs.len() {
        first[k + 1] += first[k];
    }

    // Image index by exec_id, to find each child's parent image.
    let mut by_exec: Vec<(i64, u32)> = images
        .iter()
        .enumerate()
        .map(|(i, m)| (m.exec_id, i as u32))
        .collect();
    by_exec.sort_unstable();
    let image_of = |e: i64| {
        by_exec
            .binary_search_by_key(&e, |&(x, _)| x)
            .ok()
            .map(|k| by_exec[k].1)
    };
    // Children of each image, in rank order (CSR: `kids[starts[i]..starts[i + 1]]`).
    let mut edges: Vec<(u32, Option<i64>, i64, u32)> = Vec::new();
    let mut roots: Vec<(i64, Option<i64>, i64, u32)> = Vec::new();
    for (k, p) in procs.iter().enumerate() {
        match p.parent_exec_id {
            None => roots.push((p.trace_id, p.rank, p.process_id, k as u32)),
            Some(e) => {
                if let Some(i) = image_of(e) {
                    edges.push((i, p.rank, p.process_id, k as u32));
                }
            }
        }
    }
    drop(by_exec);
    roots.sort_unstable();
    edges.sort_unstable();
    let mut starts = vec![0u32; images.len() + 1];
    for &(i, ..) in &edges {
        starts[i as usize + 1] += 1;
    }
    for i in 0..images.len() {
        starts[i + 1] += starts[i];
    }
    let kids: Vec<u32> = edges.into_iter().map(|(.., k)| k).collect();

    // Depth first: the nodes in printed order (process, image index,
    // depth), and the last position of each process's subtree.
    let mut order: Vec<(u32, u32, u32)> = Vec::with_capacity(images.len());
    let mut end = vec![0i64; procs.len()];
    // (process, its next image, the next child of that image, depth)
    let mut stack: Vec<(u32, u32, u32, u32)> = Vec::new();
    for &(.., root) in &roots {
        stack.push((root, 0, u32::MAX, 0));
        while let Some(top) = stack.last_mut() {
            let (k, img, kid, depth) = *top;
            let (lo, hi) = (first[k as usize], first[k as usize + 1]);
            if kid == u32::MAX {
                // Start image `img`: its node, then its children.
                if lo + img == hi {
                    end[k as usize] = first_pos - 1 + order.len() as i64;
                    stack.pop();
                    continue;
                }
                order.push((k, lo + img, depth));
                top.2 = starts[(lo + img) as usize];
                continue;
            }
            let i = (lo + img) as usize;
            if kid < starts[i + 1] {
                top.2 = kid + 1;
                stack.push((kids[kid as usize], 0, u32::MAX, depth + 1));
            } else {
                top.1 = img + 1;
                top.2 = u32::MAX;
            }
        }
    }

    for (n, &(k, i, depth)) in order.iter().enumerate() {
        let p = &procs[k as usize];
        let m = &images[i as usize];
        let calls_to = if i + 1 < first[k as usize + 1] {
            images[i as usize + 1].calls_from
        } else {
            calls_end.max(m.calls_from)
        };
        put(TreeNode {
            pos: first_pos + n as i64,
            trace_id: p.trace_id,
            process_id: p.process_id,
            exec_id: m.exec_id,
            image: m.image,
            depth: i64::from(depth),
            subtree_end: end[k as usize],
            calls_from: m.calls_from,
            calls_to,
        });
    }
}
