//! `kt2sql graph`: the build as a Graphviz digraph, from
//! `queries/graph_nodes.sql` and `graph_edges.sql`, written as the rows
//! come. Commands are boxes (`comm [pid]`); files are ellipses labelled
//! with their path, sources plain, outputs and intermediates filled,
//! the rest dashed. Edges: command -> file for a write, file -> command
//! for a read; with `commands`, producer -> consumer per `build_dep` row,
//! labelled with the number of paths.

use std::io::Write;

use rusqlite::Connection;

use super::{each, Cell};
use crate::text::vis;
use crate::Error;

fn io_err(source: std::io::Error) -> Error {
    Error::Io {
        path: "the graph output".into(),
        source,
    }
}

fn label(c: &Cell) -> String {
    let b = c.to_bytes();
    vis(&b).replace('\\', "\\\\").replace('"', "\\\"")
}

/// Write the digraph of trace `trace` (every trace when `None`); with
/// `commands`, command -> command edges only.
pub fn write_dot(
    conn: &Connection,
    trace: Option<i64>,
    commands: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let params = [
        ("trace", super::opt_int(trace)),
        ("commands", Cell::Int(commands as i64)),
    ];
    writeln!(out, "digraph build {{").map_err(io_err)?;
    writeln!(out, "    rankdir=LR;").map_err(io_err)?;
    writeln!(out, "    node [fontname=\"monospace\"];").map_err(io_err)?;
    each(conn, "graph_nodes", &params, |r| {
        let (node, kind) = (r[0].display(), r[1].display());
        let style = match (kind.as_ref(), r[3].display().as_ref()) {
            ("command", _) => "shape=box",
            (_, "source") => "shape=ellipse",
            (_, "output" | "intermediate") => "shape=ellipse, style=filled",
            _ => "shape=ellipse, style=dashed",
        };
        writeln!(out, "    {node} [label=\"{}\", {style}];", label(&r[2])).map_err(io_err)
    })?;
    each(conn, "graph_edges", &params, |r| {
        let (from, to) = (r[0].display(), r[1].display());
        match &r[3] {
            Cell::Int(n) => writeln!(out, "    {from} -> {to} [label=\"{n}\"];"),
            _ => writeln!(out, "    {from} -> {to};"),
        }
        .map_err(io_err)
    })?;
    writeln!(out, "}}").map_err(io_err)
}
