//! `kt2sql graph`: the build as a Graphviz digraph, from
//! `queries/graph_nodes.sql` and `graph_edges.sql`, written as the rows
//! come; the nodes and roles are [`crate::build::graph`]'s, the system
//! files [`crate::build::system`]'s. Commands are boxes (`comm [pid]`);
//! files are ellipses labelled with their path relative to the directory
//! the trace started in (`-d`), sources plain, outputs and intermediates
//! filled, the rest dashed. Edges: command -> file for a write, file ->
//! command for a read; with `commands`, producer -> consumer per command
//! pair, labelled with the number of paths. [`Filters`] choose the paths;
//! only the commands with an edge are drawn.
//!
//! So that the picture shows the build and stays a size a viewer opens,
//! two kinds of file are folded away: a directory (a path another file
//! node lies under: read for its listing, it joins every command that
//! looked into it), and a temporary (`build_file.role` `temporary`: the
//! compiler's `/tmp/cc*.s`), whose writer -> reader pairs become one
//! dashed command -> command edge instead. The graph asks Graphviz for
//! a drawing of at most [`MAX_INCHES`] either way, scaled down to fit.
//!
//! The two queries run at once, on two connections: the edges' scan and
//! sort (the larger part of the time on a big build) are done by the time
//! the nodes are written, and their rows then come through a bounded
//! channel. The file nodes are held (their id, label and style, to find
//! the directories among them) and written first, then the edges (noting
//! which commands they name; those of a temporary held until the last),
//! then those commands.

use std::io::Write;
use std::sync::mpsc;

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

use super::row::typed_row;
use super::{each_as, start_dirs, Cell, Database};
use crate::build::graph::{Node, Role};
use crate::build::label::relative;
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

/// The largest drawing (inches either way) Graphviz makes of the graph:
/// it scales a larger layout down to fit.
pub const MAX_INCHES: u32 = 100;

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

/// A file node held until every file is known.
struct FileNode {
    node: String,
    path: Vec<u8>,
    style: &'static str,
    temporary: bool,
}

/// Every proper ancestor directory of `path` (`/a/b/c`: `/a/b`, `/a`).
fn ancestors(path: &[u8]) -> impl Iterator<Item = &[u8]> {
    path.iter()
        .enumerate()
        .filter(|&(i, &c)| c == b'/' && i > 0)
        .map(move |(i, _)| &path[..i])
}

/// The trace id of a file node (`f<trace>_<path_id>`).
fn trace_of(node: &str) -> Option<i64> {
    file_id(node).map(|(t, _)| t)
}

/// A file node's (trace, path_id), from its id `f<trace>_<path_id>`: the
/// sets of nodes hold these numbers, not the ids' text.
fn file_id(node: &str) -> Option<(i64, i64)> {
    let (t, p) = node.strip_prefix('f')?.split_once('_')?;
    Some((t.parse().ok()?, p.parse().ok()?))
}

/// A command node's exec_id, from its id `c<exec_id>`.
fn command_id(node: &str) -> Option<i64> {
    node.strip_prefix('c')?.parse().ok()
}

/// The header, the file nodes from `db` (directories left out, see the
/// module's doc), the edges as `rx` hands them over (when the first
/// command node comes, or after the last node; a temporary's folded into
/// command -> command edges), the command nodes with an edge, then the
/// closing brace.
fn write_all(
    db: &Database,
    params: &[(&str, Cell)],
    rx: mpsc::Receiver<Result<Edge, Error>>,
    out: &mut dyn Write,
) -> Result<(), Error> {
    writeln!(out, "digraph build {{").map_err(io_err)?;
    writeln!(out, "    rankdir=LR;").map_err(io_err)?;
    // At most 100 inches (7,200 pt) either way, scaled down to fit: a
    // size a browser or image viewer opens; nodes packed close.
    writeln!(
        out,
        "    size=\"{MAX_INCHES},{MAX_INCHES}\"; nodesep=0.1; ranksep=0.4;"
    )
    .map_err(io_err)?;
    writeln!(out, "    node [fontname=\"monospace\"];").map_err(io_err)?;
    let trace = params.iter().find_map(|(k, v)| match (k, v) {
        (&"trace", Cell::Int(t)) => Some(*t),
        _ => None,
    });
    let starts: HashMap<i64, Option<Vec<u8>>> = start_dirs(db, super::Scope { trace, pid: None })?
        .into_iter()
        .map(|d| (d.trace, d.start_cwd))
        .collect();
    let mut files: Vec<FileNode> = Vec::new();
    // The file nodes left out (directories) and folded (temporaries).
    let (mut dropped, mut temporary) = (HashSet::new(), HashSet::new());
    let mut files_done = false;
    let write_files = |files: &mut Vec<FileNode>,
                       out: &mut dyn Write,
                       dropped: &mut HashSet<(i64, i64)>,
                       temporary: &mut HashSet<(i64, i64)>|
     -> Result<(), Error> {
        let dirs: HashSet<(Option<i64>, &[u8])> = files
            .iter()
            .flat_map(|f| ancestors(&f.path).map(move |a| (trace_of(&f.node), a)))
            .collect();
        for f in files.iter() {
            let t = trace_of(&f.node);
            if dirs.contains(&(t, f.path.as_slice())) {
                dropped.extend(file_id(&f.node));
                continue;
            }
            if f.temporary {
                temporary.extend(file_id(&f.node));
                continue;
            }
            let start = t.and_then(|t| starts.get(&t)).and_then(|s| s.as_deref());
            let shown = relative(&f.path, None, start);
            writeln!(
                out,
                "    {} [label=\"{}\", {}];",
                f.node,
                label(&shown),
                f.style
            )
            .map_err(io_err)?;
        }
        files.clear();
        Ok(())
    };
    // The commands with an edge, by exec_id.
    let mut linked: Option<HashSet<i64>> = None;
    let edges = |out: &mut dyn Write,
                 dropped: &HashSet<(i64, i64)>,
                 temporary: &HashSet<(i64, i64)>|
     -> Result<HashSet<i64>, Error> {
        let mut seen = HashSet::new();
        // A temporary's writers and readers (exec_ids), by its node.
        let mut via: HashMap<(i64, i64), (Vec<i64>, Vec<i64>)> = HashMap::new();
        let held =
            |set: &HashSet<(i64, i64)>, f: Option<(i64, i64)>| f.is_some_and(|f| set.contains(&f));
        for r in rx.iter() {
            let r = r?;
            let (from, to) = (r.source, r.target);
            let (file_from, file_to) = (file_id(&from), file_id(&to));
            if held(dropped, file_from) || held(dropped, file_to) {
                continue;
            }
            // A temporary's edges join a command: a write into it, a
            // read out of it.
            if let (Some(t), Some(c)) =
                (file_to.filter(|t| temporary.contains(t)), command_id(&from))
            {
                via.entry(t).or_default().0.push(c);
                continue;
            }
            if let (Some(t), Some(c)) =
                (file_from.filter(|t| temporary.contains(t)), command_id(&to))
            {
                via.entry(t).or_default().1.push(c);
                continue;
            }
            match r.paths {
                Some(n) => writeln!(out, "    {from} -> {to} [label=\"{n}\"];"),
                None => writeln!(out, "    {from} -> {to};"),
            }
            .map_err(io_err)?;
            seen.extend([&from, &to].into_iter().filter_map(|end| command_id(end)));
        }
        // Through a temporary: one dashed edge per writer -> reader pair.
        // In the order of the node ids' text.
        let pairs: BTreeSet<(String, String)> = via
            .into_values()
            .flat_map(|(ws, rs)| {
                ws.into_iter()
                    .flat_map(move |w| rs.clone().into_iter().map(move |r| (w, r)))
            })
            .filter(|(w, r)| w != r)
            .map(|(w, r)| {
                seen.extend([w, r]);
                (format!("c{w}"), format!("c{r}"))
            })
            .collect();
        for (w, r) in pairs {
            writeln!(out, "    {w} -> {r} [style=dashed];").map_err(io_err)?;
        }
        Ok(seen)
    };
    each_as::<NodeRow<'static>>(db, "graph_nodes", params, |r| {
        let node = r.node;
        let style = match Node::of(&r.kind, &r.role) {
            Node::Command => {
                if linked.is_none() {
                    if !files_done {
                        write_files(&mut files, out, &mut dropped, &mut temporary)?;
                        files_done = true;
                    }
                    linked = Some(edges(out, &dropped, &temporary)?);
                }
                let id = command_id(&node);
                if !linked
                    .as_ref()
                    .is_some_and(|l| id.is_some_and(|c| l.contains(&c)))
                {
                    return Ok(());
                }
                "shape=box"
            }
            Node::File(Some(Role::Source)) => "shape=ellipse",
            Node::File(Some(r)) if r.is_product() => "shape=ellipse, style=filled",
            Node::File(_) => "shape=ellipse, style=dashed",
        };
        if node.starts_with('f') {
            files.push(FileNode {
                node,
                path: r.label.into_owned(),
                style,
                temporary: r.role == Role::Temporary.name(),
            });
            return Ok(());
        }
        writeln!(out, "    {node} [label=\"{}\", {style}];", label(&r.label)).map_err(io_err)
    })?;
    if !files_done {
        write_files(&mut files, out, &mut dropped, &mut temporary)?;
    }
    if linked.is_none() {
        edges(out, &dropped, &temporary)?;
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
