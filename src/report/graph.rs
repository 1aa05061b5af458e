//! `kt2sql graph`: the build as a Graphviz digraph, from
//! `queries/graph_nodes.sql` and `graph_edges.sql`, written as the rows
//! come; the nodes and roles are [`crate::build::graph`]'s, the system
//! files [`crate::build::system`]'s. Commands are boxes (`comm [pid]`);
//! files are ellipses labelled with their path, sources plain, outputs and
//! intermediates filled, the rest dashed. Edges: command -> file for a
//! write, file -> command for a read; with `commands`, producer -> consumer
//! per command pair, labelled with the number of paths. [`Filters`] choose
//! the paths; only the commands with an edge are drawn.
//!
//! The two queries run at once, on two connections: the edges' scan and
//! sort (the larger part of the time on a big build) are done by the time
//! the nodes are written, and their rows then come through a bounded
//! channel, so memory stays flat. The file nodes come first, then the
//! edges (noting which commands they name), then those commands.

use std::io::Write;
use std::sync::mpsc;

use std::borrow::Cow;
use std::collections::HashSet;

use super::row::typed_row;
use super::{each_as, Cell, Database};
use crate::build::graph::{Node, Role};
use crate::build::system::SYSTEM_DIRS;
use crate::json::json_str_list_text;
use crate::text::vis;
use crate::Error;

fn io_err(source: std::io::Error) -> Error {
    Error::Io {
        path: "the graph output".into(),
        source,
    }
}

fn label(b: &[u8]) -> String {
    vis(b).replace('\\', "\\\\").replace('"', "\\\"")
}

typed_row! {
    /// A row of `queries/graph_nodes.sql`.
    struct NodeRow<'r> from "graph_nodes" {
        node: String,
        kind: String,
        label: Cow<'r, [u8]>,
        role: String,
    }
}

typed_row! {
    /// A row of `queries/graph_edges.sql`: `paths` files between two
    /// nodes (NULL: not counted).
    struct Edge from "graph_edges" {
        source: String,
        target: String,
        paths: Option<i64>,
    }
}

/// Edge rows in flight between the edges' thread and the writer.
const EDGES_IN_FLIGHT: usize = 4096;

/// Which paths the graph shows.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// Only the paths in this directory tree (absolute).
    pub under: Option<String>,
    /// Not the paths in these directory trees (absolute).
    pub exclude: Vec<String>,
    /// The system files too ([`crate::build::system`]), which are left
    /// out by default.
    pub system: bool,
}

/// Write the digraph of `scope` (every trace and process when empty):
/// with a pid, the commands of that subtree, their paths and the edges
/// between them; with `commands`, command -> command edges only; the
/// paths `filters` keep, and the commands with an edge.
pub fn write_dot(
    db: &Database,
    scope: super::Scope,
    commands: bool,
    filters: &Filters,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let text = |s: String| Cell::Text(s.into_bytes());
    let mut params = scope.params();
    params.extend([
        ("commands", Cell::Int(commands as i64)),
        ("under", filters.under.clone().map_or(Cell::Null, text)),
        ("exclude", text(json_str_list_text(&filters.exclude))),
        (
            "system",
            match filters.system {
                true => Cell::Null,
                false => text(json_str_list_text(SYSTEM_DIRS)),
            },
        ),
    ]);
    let (path, edge_params) = (&db.path, &params);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<Result<Edge, Error>>(EDGES_IN_FLIGHT);
        let edges = scope.spawn(move || {
            let run = || -> Result<(), Error> {
                let conn = super::open(path)?;
                each_as::<Edge>(&conn, "graph_edges", edge_params, |r| {
                    // The writer stopped (an error of its own, which it
                    // reports): stop too.
                    tx.send(Ok(r))
                        .map_err(|_| Error::Interrupted { path: path.clone() })
                })
            };
            if let Err(e) = run() {
                let _ = tx.send(Err(e));
            }
        });
        let written = write_all(db, &params, rx, out);
        // A writer error drops the receiver, which ends the edges' thread.
        edges
            .join()
            .expect("the graph edges' thread does not panic");
        written
    })
}

/// The header, the file nodes from `db`, the edges as `rx` hands them
/// over (when the first command node comes, or after the last node), the
/// command nodes with an edge, then the closing brace.
fn write_all(
    db: &Database,
    params: &[(&str, Cell)],
    rx: mpsc::Receiver<Result<Edge, Error>>,
    out: &mut dyn Write,
) -> Result<(), Error> {
    writeln!(out, "digraph build {{").map_err(io_err)?;
    writeln!(out, "    rankdir=LR;").map_err(io_err)?;
    writeln!(out, "    node [fontname=\"monospace\"];").map_err(io_err)?;
    let mut linked: Option<HashSet<String>> = None;
    let edges = |out: &mut dyn Write| -> Result<HashSet<String>, Error> {
        let mut seen = HashSet::new();
        for r in rx.iter() {
            let r = r?;
            let (from, to) = (r.source, r.target);
            match r.paths {
                Some(n) => writeln!(out, "    {from} -> {to} [label=\"{n}\"];"),
                None => writeln!(out, "    {from} -> {to};"),
            }
            .map_err(io_err)?;
            for end in [from, to] {
                if end.starts_with('c') {
                    seen.insert(end);
                }
            }
        }
        Ok(seen)
    };
    each_as::<NodeRow<'static>>(db, "graph_nodes", params, |r| {
        let node = r.node;
        let style = match Node::of(&r.kind, &r.role) {
            Node::Command => {
                if linked.is_none() {
                    linked = Some(edges(out)?);
                }
                if !linked.as_ref().is_some_and(|l| l.contains(&node)) {
                    return Ok(());
                }
                "shape=box"
            }
            Node::File(Some(Role::Source)) => "shape=ellipse",
            Node::File(Some(r)) if r.is_product() => "shape=ellipse, style=filled",
            Node::File(_) => "shape=ellipse, style=dashed",
        };
        writeln!(out, "    {node} [label=\"{}\", {style}];", label(&r.label)).map_err(io_err)
    })?;
    if linked.is_none() {
        edges(out)?;
    }
    writeln!(out, "}}").map_err(io_err)
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::NodeRow<'static>>();
        check::<super::Edge>();
    }
}
