//! Table `tree_node` of a database: the SQLite side of the tree order
//! ([`crate::sink::tree`] orders it). Once a trace's rows are written, the
//! few words per process and image the order needs are read back through
//! the tables' indexes, one trace at a time, and its nodes written.
//!
//! A trace of more than [`IN_MEMORY_PROCESSES`] processes (a build of
//! many gigabytes of trace, or a hostile trace of millions of processes
//! that never exit) is ordered by SQLite instead ([`sorted_nodes`]): each
//! image gets a sort key that spells its path from its root, and SQLite's
//! sorter, which spills to temporary files, puts the keys in printed
//! order; only the processes on the path from the root to the current node
//! are held. Both give the same rows (a test compares them on every
//! committed fixture). [`crate::load::tree_scratch`] runs the same sorter
//! over the words a sink without a database gathers.

use rusqlite::Connection;

use crate::schema::sql_err;
use crate::sink::tree::{order_tree_each, TreeImage, TreeNode, TreeProcess};
use crate::Error;

/// Processes of a trace ordered in memory ([`order_tree_each`], about
/// 170 bytes per process at its peak with two images each: 11 MB here,
/// less than writing the rows held); past it, by SQLite's sorter
/// ([`sorted_nodes`]), which holds one branch of the tree whatever the
/// count and takes about 0.5 s more per 125 000 processes. At 2^18 the
/// order was the import's peak from 4 GiB of trace on (87 MB at 8 GiB).
pub const IN_MEMORY_PROCESSES: i64 = 1 << 16;

/// Order the process images of every trace not yet in `tree_node` and
/// write their rows (inside the caller's transaction), reading back the
/// process and exec rows through their indexes, one trace at a time.
pub fn write_tree_order(conn: &Connection) -> Result<(), Error> {
    write_tree_order_with(conn, IN_MEMORY_PROCESSES).map(|_| ())
}

/// [`write_tree_order`], ordering a trace of more than `in_memory`
/// processes with SQLite's sorter. Returns the most nodes held at once by
/// that ordering (0 when every trace was ordered in memory): the depth of
/// the tree and the images of the processes on one path, never a count of
/// processes.
pub fn write_tree_order_with(conn: &Connection, in_memory: i64) -> Result<usize, Error> {
    let ctx = || sql_err("writing table tree_node".into());
    let (done, mut next): (i64, i64) = conn
        .query_row(
            "SELECT COALESCE(max(trace_id), 0), COALESCE(max(pos), 0) + 1 FROM tree_node",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(ctx())?;
    let traces: Vec<i64> = conn
        .prepare("SELECT trace_id FROM trace WHERE trace_id > ?1 ORDER BY trace_id")
        .and_then(|mut s| s.query_map([done], |r| r.get(0))?.collect())
        .map_err(ctx())?;
    let mut insert = conn
        .prepare(&format!(
            "INSERT INTO tree_node ({}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            TreeNode::COLUMNS.join(", ")
        ))
        .map_err(ctx())?;
    let mut count = conn
        .prepare("SELECT count(*) FROM process WHERE trace_id = ?1")
        .map_err(ctx())?;
    let mut most_held = 0;
    for trace_id in traces {
        let n: i64 = count.query_row([trace_id], |r| r.get(0)).map_err(ctx())?;
        if n > in_memory {
            let end = calls_end(conn, trace_id).map_err(ctx())?;
            let (after, held) = sorted_nodes(conn, trace_id, next, end, |n| {
                insert.execute(n.values()).map(|_| ())
            })
            .map_err(ctx())?;
            next = after;
            most_held = most_held.max(held);
            continue;
        }
        let (procs, images, calls_end) = read_trace(conn, trace_id).map_err(ctx())?;
        let mut done = Ok(());
        order_tree_each(procs, images, next, calls_end, |n| {
            if done.is_ok() {
                next = n.pos + 1;
                done = insert.execute(n.values()).map(|_| ());
            }
        });
        done.map_err(ctx())?;
    }
    Ok(most_held)
}

/// One more than the last call id of trace `trace_id` (0 without calls).
fn calls_end(conn: &Connection, trace_id: i64) -> rusqlite::Result<i64> {
    conn.query_row(
        "SELECT COALESCE(max((SELECT max(c.call_id) FROM call AS c
                              WHERE c.process_id = p.process_id)) + 1, 0)
         FROM process AS p WHERE trace_id = ?1",
        [trace_id],
        |r| r.get(0),
    )
}

/// The walk [`sorted_nodes`] reads: every image of trace `?1` with its
/// depth and a key that spells its path from its root, in key order.
fn walk_sql() -> String {
    // A process's word: its rank (as `TreeProcess::of` gives it: NULL,
    // negative and positive in that order) and its process_id.
    let word = |p: &str| {
        format!(
            "(SELECT CASE WHEN r IS NULL THEN '0' || printf('%016x', 0)
                          WHEN r < 0 THEN '1' || printf('%016x', r)
                          ELSE '2' || printf('%016x', r) END
              FROM (SELECT CASE WHEN {p}.parent_exec_id IS NULL THEN {p}.first_ts
                                ELSE {p}.fork_offset END AS r))
             || printf('%016x', {p}.process_id)"
        )
    };
    // Each node's children by process_parent_exec, never by
    // process_trace: without statistics SQLite took the trace's index for
    // `p` and scanned the walk inside it, every process against every
    // node (an import of 300 000 processes ran for hours). CROSS JOIN keeps
    // the walk outside, `+` keeps the trace test off the index.
    format!(
        "WITH RECURSIVE
           walk (key, depth, process_id, exec_id, image, calls_from) AS (
             SELECT {w} || printf('%08x', e.image), 0, p.process_id, e.exec_id,
                    e.image, e.calls_from
             FROM process AS p JOIN exec AS e ON e.process_id = p.process_id
             WHERE p.trace_id = ?1 AND p.parent_exec_id IS NULL AND e.image IS NOT NULL
             UNION ALL
             SELECT w.key || {w} || printf('%08x', e.image), w.depth + 1,
                    p.process_id, e.exec_id, e.image, e.calls_from
             FROM walk AS w
             CROSS JOIN process AS p ON p.parent_exec_id = w.exec_id
             CROSS JOIN exec AS e ON e.process_id = p.process_id
             WHERE +p.trace_id = ?1 AND e.image IS NOT NULL
           )
         SELECT depth, process_id, exec_id, image, calls_from FROM walk ORDER BY key",
        w = word("p"),
    )
}

/// The tree order of trace `trace_id` as [`crate::sink::tree::order_tree`]
/// gives it, numbered from `first_pos`, by SQLite: a recursive walk from
/// the roots gives each image a key, its parent image's key followed by
/// the process's rank, process_id and image, each a fixed-width
/// hexadecimal word (a leading digit orders NULL, negative and positive);
/// sorted, the keys are in printed order. Each process's nodes wait until
/// its subtree has passed (for `subtree_end`), so only the processes on
/// the current path are held. Hands `put` each node (a process after its
/// descendants) and returns the next free position and the most nodes
/// held at once. `calls_end` is [`calls_end`]'s.
pub(super) fn sorted_nodes(
    conn: &Connection,
    trace_id: i64,
    first_pos: i64,
    calls_end: i64,
    mut put: impl FnMut(&TreeNode) -> rusqlite::Result<()>,
) -> rusqlite::Result<(i64, usize)> {
    let mut st = conn.prepare(&walk_sql())?;
    // The processes on the path to the current node, each with its nodes.
    let mut open: Vec<(i64, Vec<TreeNode>)> = Vec::new();
    let (mut pos, mut held, mut most_held) = (first_pos, 0usize, 0usize);
    let mut close = |frame: (i64, Vec<TreeNode>), last: i64| -> rusqlite::Result<()> {
        let (_, mut nodes) = frame;
        if let Some(n) = nodes.last_mut() {
            n.calls_to = calls_end.max(n.calls_from);
        }
        for n in &mut nodes {
            n.subtree_end = last;
            put(n)?;
        }
        Ok(())
    };
    let mut rows = st.query([trace_id])?;
    while let Some(r) = rows.next()? {
        let (depth, process_id): (i64, i64) = (r.get(0)?, r.get(1)?);
        let node = TreeNode {
            pos,
            trace_id,
            process_id,
            exec_id: r.get(2)?,
            image: r.get(3)?,
            depth,
            subtree_end: 0,
            calls_from: r.get(4)?,
            calls_to: 0,
        };
        // Close the processes this node is not inside of: deeper ones, and
        // another process at its depth.
        while let Some(top) = open.last() {
            let d = top.1.first().map_or(0, |n| n.depth);
            if d < depth || (d == depth && top.0 == process_id) {
                break;
            }
            let frame = open.pop().expect("a frame was seen");
            held -= frame.1.len();
            close(frame, pos - 1)?;
        }
        match open.last_mut() {
            Some((p, nodes)) if *p == process_id => {
                if let Some(prev) = nodes.last_mut() {
                    prev.calls_to = node.calls_from;
                }
                nodes.push(node);
            }
            _ => open.push((process_id, vec![node])),
        }
        held += 1;
        most_held = most_held.max(held);
        pos += 1;
    }
    while let Some(frame) = open.pop() {
        close(frame, pos - 1)?;
    }
    Ok((pos, most_held))
}

/// The processes and images of trace `trace_id`, and one more than its
/// last call id (0 without calls).
fn read_trace(
    conn: &Connection,
    trace_id: i64,
) -> rusqlite::Result<(Vec<TreeProcess>, Vec<TreeImage>, i64)> {
    // The rank as `TreeProcess::of` gives it.
    let mut st = conn.prepare(
        "SELECT process_id, parent_exec_id,
                CASE WHEN parent_exec_id IS NULL THEN first_ts ELSE fork_offset END,
                (SELECT max(c.call_id) FROM call AS c WHERE c.process_id = p.process_id)
         FROM process AS p WHERE trace_id = ?1",
    )?;
    let mut calls_end = 0i64;
    let procs = st
        .query_map([trace_id], |r| {
            let last: Option<i64> = r.get(3)?;
            calls_end = calls_end.max(last.map_or(0, |c| c + 1));
            Ok(TreeProcess {
                trace_id,
                process_id: r.get(0)?,
                parent_exec_id: r.get(1)?,
                rank: r.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let (lo, hi) = procs.iter().fold((i64::MAX, i64::MIN), |(lo, hi), p| {
        (lo.min(p.process_id), hi.max(p.process_id))
    });
    let mut st = conn.prepare(
        "SELECT process_id, exec_id, image, calls_from FROM exec
         WHERE process_id BETWEEN ?1 AND ?2 AND image IS NOT NULL",
    )?;
    let images = st
        .query_map([lo, hi], |r| {
            Ok(TreeImage {
                process_id: r.get(0)?,
                exec_id: r.get(1)?,
                image: r.get(2)?,
                calls_from: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok((procs, images, calls_end))
}

#[cfg(test)]
mod tests {
    use super::walk_sql;
    use rusqlite::Connection;

    /// The walk finds each node's children through process_parent_exec
    /// with the walk as the outer loop, whatever SQLite guesses without
    /// statistics (with process_trace it compared every process with
    /// every node).
    #[test]
    fn the_walk_finds_children_by_their_parent_exec() {
        let conn = Connection::open_in_memory().unwrap();
        crate::schema::create_tables(&conn).unwrap();
        crate::schema::create_indexes(&conn).unwrap();
        let mut st = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {}", walk_sql()))
            .unwrap();
        let plan: Vec<String> = st
            .query_map([1], |r| r.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let step = plan
            .iter()
            .position(|d| d == "RECURSIVE STEP")
            .expect("a recursive step");
        let after: Vec<&str> = plan[step + 1..].iter().map(String::as_str).collect();
        assert_eq!(
            &after[..3],
            [
                "SCAN w",
                "SEARCH p USING INDEX process_parent_exec (parent_exec_id=?)",
                "SEARCH e USING INDEX exec_process (process_id=?)",
            ],
            "{plan:#?}"
        );
    }
}
