//! `kt2sql tree`: ptrace.py's process tree from `queries/tree.sql` (and,
//! with calls, `queries/tree_calls.sql`), rendered as text, JSON, CSV or a
//! Graphviz digraph.
//!
//! Shapes (stable):
//! * text: `Process tree:`, ` <process_root> [0]`, then `comm [pid]` per
//!   image, four more spaces per level; with calls, one line per call under
//!   its image: `syscall(args) "path"… = retval` (`= -1 ENOENT` when it
//!   failed, `= ? (end of trace)` without a return).
//! * json: `[{"pid","comm","process_id","image","exec_id","trace_id",
//!   "children":[…]}]`, the roots in order; with calls each node also has
//!   `"calls":[{"call_id","syscall","args","retval","errno","errno_name",
//!   "paths":[…]}]` (`"paths_hex"` beside `paths` when one is not UTF-8).
//! * csv: the rows of tree.sql (`depth,pid,comm,process_id,image,exec_id,
//!   trace_id`); with calls the rows of tree_calls.sql.
//! * dot: `digraph process_tree`, a box per image, fork edges solid from
//!   the forking image, exec edges dashed from the previous image.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use rusqlite::Connection;

use super::json::Obj;
use super::{run, Cell, ResultSet, Scope};
use crate::text::{hex, is_utf8, json_str, quoted, vis};
use crate::Error;

/// One node: a process image.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Levels below `<process_root>` (0 for the roots).
    pub depth: usize,
    /// OS pid.
    pub pid: i64,
    /// Command name of the image.
    pub comm: Vec<u8>,
    /// Process lifetime.
    pub process_id: i64,
    /// 0 for the inherited image, then per successful exec.
    pub image: i64,
    /// The image's exec row.
    pub exec_id: i64,
    /// Trace it was recorded in.
    pub trace_id: i64,
    /// Indexes (into [`Tree::nodes`]) of the images it hangs over.
    pub children: Vec<usize>,
    /// The calls it made, when asked for.
    pub calls: Vec<Call>,
}

/// One call an image made.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// call.call_id.
    pub call_id: i64,
    /// Syscall name (or `#N`).
    pub syscall: Vec<u8>,
    /// Argument words, kdump style.
    pub args: Vec<u8>,
    /// Return value, when it returned.
    pub retval: Option<i64>,
    /// errno of a failed call.
    pub errno: Option<i64>,
    /// Its symbolic name, when known.
    pub errno_name: Option<Vec<u8>>,
    /// Why a half is missing.
    pub unpaired: Option<Vec<u8>>,
    /// Paths it looked up, made absolute where possible.
    pub paths: Vec<Vec<u8>>,
}

/// The tree, and the rows it was built from.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// Rows of tree.sql.
    pub rows: ResultSet,
    /// Rows of tree_calls.sql, when calls were asked for.
    pub call_rows: Option<ResultSet>,
    /// Every node in printed order.
    pub nodes: Vec<Node>,
    /// The nodes directly under `<process_root>`.
    pub roots: Vec<usize>,
}

/// Build the tree of `scope`; with `calls`, attach each image's calls.
pub fn tree(conn: &Connection, scope: Scope, calls: bool) -> Result<Tree, Error> {
    let rows = run(conn, "tree", &scope.params())?;
    let mut t = Tree {
        nodes: Vec::with_capacity(rows.rows.len()),
        ..Tree::default()
    };
    let c = |n| rows.col(n);
    let (depth, pid, comm) = (c("depth"), c("pid"), c("comm"));
    let (process_id, image, exec_id, trace_id) =
        (c("process_id"), c("image"), c("exec_id"), c("trace_id"));
    let mut stack: Vec<usize> = Vec::new();
    for r in &rows.rows {
        let int = |i: usize| r[i].int().unwrap_or(0);
        let node = Node {
            depth: int(depth).max(0) as usize,
            pid: int(pid),
            comm: r[comm].to_bytes().into_owned(),
            process_id: int(process_id),
            image: int(image),
            exec_id: int(exec_id),
            trace_id: int(trace_id),
            children: Vec::new(),
            calls: Vec::new(),
        };
        while stack
            .last()
            .is_some_and(|&i| t.nodes[i].depth >= node.depth)
        {
            stack.pop();
        }
        let at = t.nodes.len();
        match stack.last() {
            Some(&parent) => t.nodes[parent].children.push(at),
            None => t.roots.push(at),
        }
        stack.push(at);
        t.nodes.push(node);
    }
    t.rows = rows;
    if calls {
        let call_rows = run(conn, "tree_calls", &scope.params())?;
        attach_calls(&mut t, &call_rows);
        t.call_rows = Some(call_rows);
    }
    Ok(t)
}

fn attach_calls(t: &mut Tree, rows: &ResultSet) {
    let by_exec: HashMap<i64, usize> = t
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.exec_id, i))
        .collect();
    let c = |n| rows.col(n);
    let (exec_id, call_id, path) = (c("exec_id"), c("call_id"), c("path"));
    let opt = |cell: &Cell| cell.bytes().map(<[u8]>::to_vec);
    for r in &rows.rows {
        let Some(&node) = r[exec_id].int().and_then(|e| by_exec.get(&e)) else {
            continue;
        };
        let calls = &mut t.nodes[node].calls;
        let id = r[call_id].int().unwrap_or(0);
        if calls.last().is_none_or(|l| l.call_id != id) {
            calls.push(Call {
                call_id: id,
                syscall: r[c("syscall")].to_bytes().into_owned(),
                args: r[c("args")].to_bytes().into_owned(),
                retval: r[c("retval")].int(),
                errno: r[c("errno")].int(),
                errno_name: opt(&r[c("errno_name")]),
                unpaired: opt(&r[c("unpaired")]),
                paths: Vec::new(),
            });
        }
        if let (Some(p), Some(call)) = (opt(&r[path]), calls.last_mut()) {
            call.paths.push(p);
        }
    }
}

impl Tree {
    /// ptrace.py's text.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "Process tree:")?;
        writeln!(out, " <process_root> [0]")?;
        for n in &self.nodes {
            let pad = 1 + 4 * (n.depth + 1);
            writeln!(out, "{:pad$}{} [{}]", "", vis(&n.comm), n.pid)?;
            for c in &n.calls {
                writeln!(out, "{:pad$}    {}", "", call_text(c))?;
            }
        }
        Ok(())
    }

    /// Nested JSON, roots in order, one root per line.
    pub fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "[")?;
        for (i, &r) in self.roots.iter().enumerate() {
            let mut s = String::new();
            self.node_json(r, &mut s);
            let sep = if i + 1 < self.roots.len() { "," } else { "" };
            writeln!(out, "{s}{sep}")?;
        }
        writeln!(out, "]")
    }

    fn node_json(&self, i: usize, s: &mut String) {
        let n = &self.nodes[i];
        let mut kids = String::from("[");
        for (k, &c) in n.children.iter().enumerate() {
            if k > 0 {
                kids.push(',');
            }
            self.node_json(c, &mut kids);
        }
        kids.push(']');
        let mut o = Obj::new(s);
        o.int("pid", n.pid)
            .bytes("comm", &n.comm)
            .int("process_id", n.process_id)
            .int("image", n.image)
            .int("exec_id", n.exec_id)
            .int("trace_id", n.trace_id);
        if self.call_rows.is_some() {
            let calls: Vec<String> = n.calls.iter().map(call_json).collect();
            o.raw("calls", &format!("[{}]", calls.join(",")));
        }
        o.raw("children", &kids);
        o.end();
    }

    /// The rows of tree.sql, or of tree_calls.sql when calls were asked for.
    pub fn write_csv(&self, out: &mut dyn Write) -> io::Result<()> {
        self.call_rows.as_ref().unwrap_or(&self.rows).write_csv(out)
    }

    /// A Graphviz digraph.
    pub fn write_dot(&self, out: &mut dyn Write) -> io::Result<()> {
        let label = |b: &[u8]| vis(b).replace('\\', "\\\\").replace('"', "\\\"");
        writeln!(out, "digraph process_tree {{")?;
        writeln!(out, "    node [shape=box, fontname=\"monospace\"];")?;
        writeln!(out, "    root [label=\"<process_root> [0]\"];")?;
        let mut last_image: HashMap<i64, i64> = HashMap::new();
        let mut parent_of: HashMap<usize, i64> = HashMap::new();
        for (i, n) in self.nodes.iter().enumerate() {
            for &c in &n.children {
                parent_of.insert(c, n.exec_id);
            }
            let id = n.exec_id;
            writeln!(out, "    e{id} [label=\"{} [{}]\"];", label(&n.comm), n.pid)?;
            match (last_image.insert(n.process_id, id), parent_of.get(&i)) {
                (Some(prev), _) => {
                    writeln!(out, "    e{prev} -> e{id} [style=dashed, label=\"exec\"];")?
                }
                (None, Some(p)) => writeln!(out, "    e{p} -> e{id};")?,
                (None, None) => writeln!(out, "    root -> e{id};")?,
            }
        }
        writeln!(out, "}}")
    }
}

/// `open(0x1000,0) "/usr/include/stdio.h" = -1 ENOENT`
fn call_text(c: &Call) -> String {
    let mut s = format!("{}({})", vis(&c.syscall), vis(&c.args));
    for p in &c.paths {
        let _ = write!(s, " {}", quoted(p));
    }
    let unpaired = c.unpaired.as_deref().map(vis);
    match (c.retval, c.errno) {
        (_, Some(e)) => {
            let _ = match &c.errno_name {
                Some(name) => write!(s, " = -1 {}", vis(name)),
                None => write!(s, " = -1 errno {e}"),
            };
        }
        (Some(r), None) => {
            let _ = write!(s, " = {r}");
        }
        (None, None) => {}
    }
    match unpaired.as_deref() {
        None | Some("exit") | Some("thread exit") => {}
        Some(why) if c.retval.is_none() => {
            let _ = write!(s, " = ? ({why})");
        }
        Some(why) => {
            let _ = write!(s, " ({why})");
        }
    }
    s
}

fn call_json(c: &Call) -> String {
    let mut s = String::new();
    let mut o = Obj::new(&mut s);
    let opt = |v: &Option<Vec<u8>>| {
        v.as_deref().map_or("null".to_string(), |b| {
            let mut j = String::new();
            json_str(&mut j, b);
            j
        })
    };
    o.int("call_id", c.call_id)
        .bytes("syscall", &c.syscall)
        .bytes("args", &c.args)
        .raw("retval", &c.retval.map_or("null".into(), |r| r.to_string()))
        .raw("errno", &c.errno.map_or("null".into(), |e| e.to_string()))
        .raw("errno_name", &opt(&c.errno_name))
        .raw("unpaired", &opt(&c.unpaired));
    let list = |f: &dyn Fn(&[u8]) -> String| {
        let items: Vec<String> = c.paths.iter().map(|p| f(p)).collect();
        format!("[{}]", items.join(","))
    };
    o.raw(
        "paths",
        &list(&|p| {
            let mut j = String::new();
            json_str(&mut j, p);
            j
        }),
    );
    if !c.paths.iter().all(|p| is_utf8(p)) {
        o.raw("paths_hex", &list(&|p| format!("\"{}\"", hex(p))));
    }
    o.end();
    s
}
