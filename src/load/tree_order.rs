//! Table `tree_node` of a database: the SQLite side of the tree order
//! ([`crate::sink::tree`] orders it). Once a trace's rows are written, the
//! few words per process and image the order needs are read back through
//! the tables' indexes, one trace at a time, and its nodes written.

use rusqlite::Connection;

use crate::schema::sql_err;
use crate::sink::tree::{order_tree, TreeImage, TreeNode, TreeProcess};
use crate::Error;

/// Order the process images of every trace not yet in `tree_node` and
/// write their rows (inside the caller's transaction), reading back the
/// process and exec rows through their indexes, one trace at a time.
pub fn write_tree_order(conn: &Connection) -> Result<(), Error> {
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
    for trace_id in traces {
        let (procs, images, calls_end) = read_trace(conn, trace_id).map_err(ctx())?;
        let nodes = order_tree(procs, images, next, calls_end);
        next += nodes.len() as i64;
        for n in &nodes {
            insert.execute(n.values()).map_err(ctx())?;
        }
    }
    Ok(())
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
