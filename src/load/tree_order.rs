//! The process tree in printed order, written once a trace's rows are in:
//! table `tree_node`, one row per process image, numbered depth first
//! (`pos`), each process with the last `pos` of its subtree. The tree is
//! complete only when the trace is (a child may fork long after its parent
//! ended), so it is read back from the rows just written: each process's
//! parent image and rank, each image's calls. It is the one place that
//! orders the tree: the `process_tree` view, `kt2sql tree` and every
//! `--pid` scope (`_scope`) read `tree_node`.
//!
//! Order (ptrace.py -t): roots by trace, then first appearance (`first_ts`,
//! then `process_id`); under an image, the processes forked while it was
//! current (`process.parent_exec_id`) by the file offset of their fork's
//! RET (then `process_id`); a process's images in order, each followed by
//! its children. A process whose parent image is not an image of the
//! database (never written by a correct import) is left out, as a walk
//! from the roots would.

use rusqlite::{params, Connection};

use crate::schema::sql_err;
use crate::Error;

/// One process of the traces being ordered.
struct Proc {
    trace_id: i64,
    process_id: i64,
    /// The image it hangs under; `None` for a root.
    parent_exec_id: Option<i64>,
    /// Rank among the roots (`first_ts`) or among its siblings (the fork
    /// RET's offset).
    rank: Option<i64>,
    /// Its images: `images[first..first + count]`.
    first: u32,
    count: u32,
}

/// One image: (exec_id, image, calls_from).
type Image = (i64, i64, i64);

/// Number the process images of every trace not yet in `tree_node` and
/// write their rows (inside the caller's transaction). Reads the process
/// and exec rows through their indexes; memory is a few words per process
/// and image.
pub fn write_tree_order(conn: &Connection) -> Result<(), Error> {
    let ctx = || sql_err("writing table tree_node".into());
    let (done, base): (i64, i64) = conn
        .query_row(
            "SELECT COALESCE(max(trace_id), 0), COALESCE(max(pos), 0) FROM tree_node",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(ctx())?;
    let mut procs = read_processes(conn, done).map_err(ctx())?;
    let Some(low) = procs.first().map(|p| p.process_id) else {
        return Ok(());
    };
    let images = read_images(conn, low, &mut procs).map_err(ctx())?;

    // Image index by exec_id, to find each child's parent image.
    let mut by_exec: Vec<(i64, u32)> = images
        .iter()
        .enumerate()
        .map(|(i, &(e, ..))| (e, i as u32))
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

    // Depth first: the nodes in printed order (process, image, depth), and
    // the last position of each process's subtree.
    let mut order: Vec<(u32, u32, u32)> = Vec::with_capacity(images.len());
    let mut end = vec![0i64; procs.len()];
    // (process, its next image, the next child of that image, depth)
    let mut stack: Vec<(u32, u32, u32, u32)> = Vec::new();
    for &(.., root) in &roots {
        stack.push((root, 0, u32::MAX, 0));
        while let Some(top) = stack.last_mut() {
            let (k, img, kid, depth) = *top;
            let p = &procs[k as usize];
            if kid == u32::MAX {
                // Start image `img`: its node, then its children.
                if img == p.count {
                    end[k as usize] = base + order.len() as i64;
                    stack.pop();
                    continue;
                }
                order.push((k, img, depth));
                top.2 = starts[(p.first + img) as usize];
                continue;
            }
            let i = (p.first + img) as usize;
            if kid < starts[i + 1] {
                top.2 = kid + 1;
                stack.push((kids[kid as usize], 0, u32::MAX, depth + 1));
            } else {
                top.1 = img + 1;
                top.2 = u32::MAX;
            }
        }
    }

    let mut insert = conn
        .prepare(
            "INSERT INTO tree_node (pos, trace_id, process_id, exec_id, image, depth, \
             subtree_end, calls_from, calls_to) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )
        .map_err(ctx())?;
    for (n, &(k, img, depth)) in order.iter().enumerate() {
        let p = &procs[k as usize];
        let i = (p.first + img) as usize;
        let (exec_id, image, calls_from) = images[i];
        let calls_to = if img + 1 < p.count {
            images[i + 1].2
        } else {
            i64::MAX
        };
        insert
            .execute(params![
                base + n as i64 + 1,
                p.trace_id,
                p.process_id,
                exec_id,
                image,
                depth,
                end[k as usize],
                calls_from,
                calls_to
            ])
            .map_err(ctx())?;
    }
    Ok(())
}

/// The processes of the traces after `done`, by process_id.
fn read_processes(conn: &Connection, done: i64) -> rusqlite::Result<Vec<Proc>> {
    let mut st = conn.prepare(
        "SELECT trace_id, process_id, parent_exec_id,
                CASE WHEN parent_exec_id IS NULL THEN first_ts ELSE fork_offset END
         FROM process WHERE trace_id > ?1 ORDER BY process_id",
    )?;
    let rows = st.query_map([done], |r| {
        Ok(Proc {
            trace_id: r.get(0)?,
            process_id: r.get(1)?,
            parent_exec_id: r.get(2)?,
            rank: r.get(3)?,
            first: 0,
            count: 0,
        })
    })?;
    rows.collect()
}

/// The images (successful execs, the inherited one included) of the
/// processes from `low` on, in process and image order, each process's
/// `first` and `count` set to its own.
fn read_images(conn: &Connection, low: i64, procs: &mut [Proc]) -> rusqlite::Result<Vec<Image>> {
    let mut st = conn.prepare(
        "SELECT process_id, exec_id, image, calls_from FROM exec
         WHERE process_id >= ?1 AND image IS NOT NULL ORDER BY process_id, seq",
    )?;
    let mut rows = st.query([low])?;
    let mut images = Vec::new();
    let mut at = 0;
    while let Some(r) = rows.next()? {
        let process_id: i64 = r.get(0)?;
        while at < procs.len() && procs[at].process_id < process_id {
            at += 1;
        }
        let Some(p) = procs.get_mut(at).filter(|p| p.process_id == process_id) else {
            continue;
        };
        if p.count == 0 {
            p.first = images.len() as u32;
        }
        p.count += 1;
        images.push((r.get(1)?, r.get(2)?, r.get(3)?));
    }
    Ok(images)
}
