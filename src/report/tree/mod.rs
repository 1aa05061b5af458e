//! `kt2sql tree`: ptrace.py's process tree from `queries/tree.sql` (and,
//! with calls, the rows of `queries/tree_calls.sql`), rendered as text,
//! JSON, CSV or a Graphviz digraph.
//!
//! Shapes (stable):
//! * text: `Process tree:`, ` <process_root> [0]`, then `comm [pid]` per
//!   image, four more spaces per level; with `-p` naming a pid the kernel
//!   reused, each image of one of its processes says which it is, as the
//!   dot labels do: `make [117] (lifetime 2 of 3)`. With calls, one line
//!   per call under its image: `syscall(args) "path"… = retval`, the
//!   arguments as `kt2sql dump` prints them (`= -1 ENOENT` when it failed,
//!   `= ? (end of trace)` without a return).
//!   With `--long`, each image's line goes on with its duration, how it
//!   ended and its argv (else its name): `make [117] (1.650 ms, exit 0)
//!   make -j4` (`exec` for an image another exec replaced, `signal 9
//!   SIGKILL`, `exit ?` when the trace does not say). On a database
//!   `import --follow` still keeps current, the current image of each
//!   process alive at the snapshot says so: `cc [212] (running)`, and with
//!   `--long` `(1.200 s so far)`, its time open to the snapshot. A call's return is
//!   written as kdump writes it (`= 4096/0x1000`, [`crate::text::push_retval`]).
//! * json: `[{"pid","comm","process_id","image","exec_id","trace_id",
//!   "children":[…]}]`, the roots in order; an image of a reused `-p` pid
//!   also has `"lifetime"` and `"lifetimes"` (`2` of `3`); a running
//!   image (as in text) has `"running":true`; with `--long`
//!   `"argv"` (an array of strings, or null), `"start_ts"`, `"dur"`,
//!   `"exit_status"` and `"exit_signal"`. With calls each
//!   node also has `"calls":[{"call_id","syscall","args","retval","errno",
//!   "errno_name","paths":[…]}]` (`"paths_hex"` beside `paths` when one is
//!   not UTF-8), `args` the words as stored.
//! * csv: the rows of tree.sql (`depth,pid,comm,process_id,image,exec_id,
//!   trace_id,lifetime,lifetimes,running`, the lifetimes empty unless the
//!   `-p` pid was reused, running 1 on a running image; with `--long` also `argv,start_ts,dur,exit_status,
//!   exit_signal`); with calls the rows of tree_calls.sql.
//! * dot: `digraph process_tree`, a box per image, fork edges solid from
//!   the forking image, exec edges dashed from the previous image.
//!
//! The images (rows of tree.sql, one per process image) are held; the
//! calls never are: every format writes them as tree_call_rows.sql (the
//! calls of tree_calls.sql, without their paths) yields them ([`calls`]),
//! so memory stays flat however big the build, and a reader that stops
//! early (`| head`) stops the query. Their paths come from each process's
//! lookups, read once per process and held only until its calls have
//! taken them (`lookups::Lookups`).

use std::collections::HashMap;
use std::io::{self, Write};

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use super::json::Obj;
use super::render::{Format, Render, RowSink};
use super::row::{typed_row, RowReader};
use super::{prepare_as, run, trace_systems, Cell, ResultSet, Scope};
use crate::decode::Abi;
use crate::json::json_str_list_text;
use crate::text::push_spaces;
use crate::Error;

pub mod calls;
mod line;
mod lookups;

pub use calls::Call;
use calls::{call_json, call_text, ArgsText, Calls};
use line::{label, long_of, long_text};
use lookups::Lookups;

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
    /// Which lifetime of the `-p` pid this process is, of how many, in
    /// `query pid_lifetimes` order (earliest first); `None` unless the
    /// kernel reused that pid within the scope.
    pub lifetime: Option<(usize, usize)>,
    /// With `--long`: its argv, time and end.
    pub long: Option<Long>,
    /// Whether it is the current image of a process alive at the snapshot
    /// of a trace `import --follow` still follows.
    pub running: bool,
}

/// What `tree --long` shows of an image beside its name and pid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Long {
    /// The argv of the exec that started it, where the trace records it.
    pub argv: Option<Vec<Vec<u8>>>,
    /// Time (ns) it started.
    pub start_ts: i64,
    /// ns from its start to the next image's, or to the process's end.
    pub dur: i64,
    /// On the process's last image: its exit status, when seen.
    pub exit_status: Option<i64>,
    /// On the process's last image: the signal that killed it, when seen.
    pub exit_signal: Option<i64>,
    /// Whether it is the process's last image (the others end in an exec).
    pub last: bool,
}

typed_row! {
    /// A row of `queries/tree.sql`: one process image.
    struct TreeRow from "tree" {
        depth: i64,
        pid: i64,
        comm: Vec<u8>,
        process_id: i64,
        image: i64,
        exec_id: i64,
        trace_id: i64,
        lifetime: Option<i64>,
        lifetimes: Option<i64>,
        running: Option<i64>,
    }
}

typed_row! {
    /// The columns of a row of `queries/tree.sql` that `--long` fills.
    struct LongRow<'r> from "tree" {
        argv: ValueRef<'r>,
        start_ts: Option<i64>,
        dur: Option<i64>,
        exit_status: Option<i64>,
        exit_signal: Option<i64>,
    }
}

/// How many columns of tree.sql are shown without `--long` (those before
/// `argv`).
const SHORT_COLUMNS: usize = 10;

/// Names tree.sql in errors.
const TREE_SQL: &str = "queries/tree.sql";

/// The tree, and the rows it was built from. With calls, the writers read
/// them from the database as they write.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// Rows of tree.sql.
    pub rows: ResultSet,
    /// Every node in printed order.
    pub nodes: Vec<Node>,
    /// The nodes directly under `<process_root>`.
    pub roots: Vec<usize>,
    /// The scope the tree covers (its calls are read in the same one).
    pub scope: Scope,
    /// Whether the writers show each image's calls.
    pub calls: bool,
    /// Whether the writers show each image's argv, time and end
    /// (`--long`): the columns of tree.sql from `argv` on.
    pub long: bool,
    /// What recorded each trace, by trace_id, for the calls' arguments.
    abis: HashMap<i64, Abi>,
}

/// Build the tree of `scope`; with `calls`, its writers show each image's
/// calls.
pub fn tree(conn: &Connection, scope: Scope, calls: bool) -> Result<Tree, Error> {
    tree_long(conn, scope, calls, false)
}

/// [`tree`]; with `long`, its writers show each image's argv, duration and
/// end as well (`tree --long`).
pub fn tree_long(conn: &Connection, scope: Scope, calls: bool, long: bool) -> Result<Tree, Error> {
    let mut params = scope.params();
    params.push(("long", if long { Cell::Int(1) } else { Cell::Null }));
    let mut rows = run(conn, "tree", &params)?;
    let mut t = Tree {
        nodes: Vec::with_capacity(rows.rows.len()),
        scope,
        calls,
        long,
        ..Tree::default()
    };
    let longs: Vec<Option<Long>> = match long {
        true => {
            let reader = RowReader::<LongRow>::of_set(&rows, TREE_SQL)?;
            reader.all(&rows).map(|r| Some(long_of(r))).collect()
        }
        false => vec![None; rows.rows.len()],
    };
    let mut stack: Vec<usize> = Vec::new();
    let reader = RowReader::<TreeRow>::of_set(&rows, TREE_SQL)?;
    for (r, long) in reader.all(&rows).zip(longs) {
        let node = Node {
            depth: r.depth.max(0) as usize,
            pid: r.pid,
            comm: r.comm,
            process_id: r.process_id,
            image: r.image,
            exec_id: r.exec_id,
            trace_id: r.trace_id,
            children: Vec::new(),
            lifetime: r
                .lifetime
                .zip(r.lifetimes)
                .map(|(k, n)| (k as usize, n as usize)),
            long,
            running: r.running.is_some(),
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
    if !long {
        // Without --long the rows are tree.sql's first columns, as before.
        rows.columns.truncate(SHORT_COLUMNS);
        rows.rows.iter_mut().for_each(|r| r.truncate(SHORT_COLUMNS));
    }
    let last: HashMap<i64, usize> = t
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.process_id, i))
        .collect();
    for (i, n) in t.nodes.iter_mut().enumerate() {
        if let Some(l) = n.long.as_mut() {
            l.last = last.get(&n.process_id) == Some(&i);
        }
    }
    t.rows = rows;
    if calls || long {
        for (id, _, dialect) in trace_systems(conn, scope.trace)? {
            if let Ok(abi) = dialect.parse::<Abi>() {
                t.abis.insert(id, abi);
            }
        }
    }
    Ok(t)
}

/// An I/O error of the report's output.
fn out_err(source: io::Error) -> Error {
    Error::Io {
        path: "standard output".into(),
        source,
    }
}

/// Walks the nodes in printed order beside the stream of their calls.
struct Walk<'t, 's> {
    tree: &'t Tree,
    calls: Option<Calls<'s>>,
    /// Node index by exec_id, to pass over calls of an image already written.
    index: HashMap<i64, usize>,
}

impl<'t, 's> Walk<'t, 's> {
    fn new(tree: &'t Tree, calls: Option<Calls<'s>>) -> Self {
        let index = match calls {
            Some(_) => tree
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.exec_id, i))
                .collect(),
            None => HashMap::new(),
        };
        Walk { tree, calls, index }
    }

    /// Hand `f` each call of node `i`, in file order. The calls come in
    /// tree order, as the nodes do (both queries sort by the same unique
    /// key), so a call of an image not in the tree, or already passed, is
    /// one no node shows: it is skipped.
    fn calls_of(
        &mut self,
        i: usize,
        mut f: impl FnMut(&Call) -> io::Result<()>,
    ) -> Result<(), Error> {
        let Some(calls) = self.calls.as_mut() else {
            return Ok(());
        };
        let exec_id = self.tree.nodes[i].exec_id;
        while let Some(e) = calls.peek()? {
            if e != exec_id && self.index.get(&e).is_some_and(|&j| j > i) {
                break;
            }
            let call = calls.next()?.expect("a call was peeked");
            if e == exec_id {
                f(call).map_err(out_err)?;
            }
        }
        Ok(())
    }
}

impl Tree {
    /// Run `f` with the walk over this tree's nodes and, when calls were
    /// asked for, tree_call_rows.sql's rows in the same scope.
    fn walk<R>(
        &self,
        conn: &Connection,
        f: impl FnOnce(&mut Walk<'_, '_>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        if !self.calls {
            return f(&mut Walk::new(self, None));
        }
        // The calls without their paths: each process's lookups are read
        // once and handed to its calls ([`Lookups`]).
        let (mut stmt, context, reader) = prepare_as(conn, "tree_call_rows", &self.scope.params())?;
        let lookups = Lookups::new(conn, self.nodes.iter().map(|n| (n.exec_id, n.process_id)))?;
        let calls = Calls::new(&mut stmt, reader, context, lookups);
        let mut walk = Walk::new(self, Some(calls));
        f(&mut walk)
    }

    /// ptrace.py's text.
    pub fn write_text(&self, conn: &Connection, out: &mut dyn Write) -> Result<(), Error> {
        writeln!(out, "Process tree:").map_err(out_err)?;
        writeln!(out, " <process_root> [0]").map_err(out_err)?;
        self.walk(conn, |w| {
            // A call's line, reused: a big build makes millions. Bytes, as
            // `dump` writes them: every piece appended is text already.
            let (mut line, mut args) = (Vec::new(), ArgsText::default());
            for (i, n) in self.nodes.iter().enumerate() {
                let pad = 1 + 4 * (n.depth + 1);
                let abi = self.abis.get(&n.trace_id).copied();
                let long = n
                    .long
                    .as_ref()
                    .map_or(String::new(), |l| long_text(n, l, abi));
                writeln!(out, "{:pad$}{}{long}", "", label(n)).map_err(out_err)?;
                w.calls_of(i, |c| {
                    line.clear();
                    push_spaces(&mut line, pad + 4);
                    call_text(&mut line, &mut args, c, abi);
                    line.push(b'\n');
                    out.write_all(&line)
                })?;
            }
            Ok(())
        })
    }

    /// Nested JSON, roots in order, one root per line.
    pub fn write_json(&self, conn: &Connection, out: &mut dyn Write) -> Result<(), Error> {
        writeln!(out, "[").map_err(out_err)?;
        self.walk(conn, |w| {
            // The nodes still open, each with whether it has had a child.
            let mut open: Vec<(usize, bool)> = Vec::new();
            let mut s = String::new();
            for (i, n) in self.nodes.iter().enumerate() {
                s.clear();
                while open
                    .last()
                    .is_some_and(|&(o, _)| self.nodes[o].depth >= n.depth)
                {
                    open.pop();
                    s.push_str("]}");
                }
                match open.last_mut() {
                    Some((_, had)) => {
                        if *had {
                            s.push(',');
                        }
                        *had = true;
                    }
                    None if i > 0 => s.push_str(",\n"),
                    None => {}
                }
                let mut o = Obj::new(&mut s);
                o.int("pid", n.pid)
                    .bytes("comm", &n.comm)
                    .int("process_id", n.process_id)
                    .int("image", n.image)
                    .int("exec_id", n.exec_id)
                    .int("trace_id", n.trace_id);
                if let Some((k, of)) = n.lifetime {
                    o.int("lifetime", k as i64).int("lifetimes", of as i64);
                }
                if n.running {
                    o.raw("running", "true");
                }
                if let Some(l) = &n.long {
                    let argv = l.argv.as_ref().map_or("null".into(), |w| {
                        json_str_list_text(w.iter().map(|a| a.as_slice()))
                    });
                    let opt = |v: Option<i64>| v.map_or("null".into(), |v| v.to_string());
                    o.raw("argv", &argv)
                        .int("start_ts", l.start_ts)
                        .int("dur", l.dur)
                        .raw("exit_status", &opt(l.exit_status))
                        .raw("exit_signal", &opt(l.exit_signal));
                }
                if self.calls {
                    o.raw("calls", "[");
                    out.write_all(s.as_bytes()).map_err(out_err)?;
                    let mut first = true;
                    w.calls_of(i, |c| {
                        s.clear();
                        if !first {
                            s.push(',');
                        }
                        first = false;
                        call_json(c, &mut s);
                        out.write_all(s.as_bytes())
                    })?;
                    s.clear();
                    s.push_str("],\"children\":[");
                } else {
                    o.raw("children", "[");
                }
                out.write_all(s.as_bytes()).map_err(out_err)?;
                open.push((i, false));
            }
            s.clear();
            for _ in &open {
                s.push_str("]}");
            }
            if !self.nodes.is_empty() {
                s.push('\n');
            }
            out.write_all(s.as_bytes()).map_err(out_err)
        })?;
        writeln!(out, "]").map_err(out_err)
    }

    /// The rows of tree.sql; with calls, the images and their calls
    /// (streamed) in one table by a first column `section` (`image` or
    /// `call`), as every report with several sections writes CSV
    /// ([`super::write_sections_csv`]): each image's row (tree.sql's
    /// columns), then its calls' (tree_calls.sql's: one row per path).
    pub fn write_csv(&self, conn: &Connection, out: &mut dyn Write) -> Result<(), Error> {
        self.write_rows(conn, out, Format::Csv)
    }

    /// The rows of [`Tree::write_csv`] as JSON Lines: one object per
    /// image, and with calls per call (and path), keys as the CSV's
    /// columns.
    pub fn write_jsonl(&self, conn: &Connection, out: &mut dyn Write) -> Result<(), Error> {
        self.write_rows(conn, out, Format::Jsonl)
    }

    /// The flat rows in `format` (CSV or JSON Lines).
    fn write_rows(
        &self,
        conn: &Connection,
        out: &mut dyn Write,
        format: Format,
    ) -> Result<(), Error> {
        if !self.calls {
            return self.rows.write(out, format).map_err(out_err);
        }
        const CALL: [&str; 8] = [
            "call_id",
            "syscall",
            "args",
            "retval",
            "errno",
            "errno_name",
            "unpaired",
            "path",
        ];
        let mut columns = vec!["section".to_string()];
        columns.extend(self.rows.columns.iter().cloned());
        let base = columns.len();
        columns.extend(CALL.map(String::from));
        let tree = RowReader::<TreeRow>::of_set(&self.rows, TREE_SQL)?;
        let at = |c| 1 + tree.position(c).expect("a column of TreeRow");
        let (exec_at, pid_at) = (at("exec_id"), at("pid"));
        let text = |b: &[u8]| Cell::Text(b.to_vec());
        let opt_text = |b: &Option<Vec<u8>>| b.as_deref().map_or(Cell::Null, text);
        let mut csv = Render::new(out, format);
        csv.start(&columns).map_err(out_err)?;
        self.walk(conn, |w| {
            for (i, n) in self.nodes.iter().enumerate() {
                let mut line = vec![Cell::Null; columns.len()];
                line[0] = text(b"image");
                line[1..base].clone_from_slice(&self.rows.rows[i]);
                csv.row(&line).map_err(out_err)?;
                w.calls_of(i, |c| {
                    let mut line = vec![Cell::Null; columns.len()];
                    line[0] = text(b"call");
                    line[exec_at] = Cell::Int(n.exec_id);
                    line[pid_at] = Cell::Int(n.pid);
                    line[base] = Cell::Int(c.call_id);
                    line[base + 1] = text(&c.syscall);
                    line[base + 2] = text(&c.args);
                    line[base + 3] = c.retval.map_or(Cell::Null, Cell::Int);
                    line[base + 4] = c.errno.map_or(Cell::Null, Cell::Int);
                    line[base + 5] = opt_text(&c.errno_name);
                    line[base + 6] = opt_text(&c.unpaired);
                    if c.paths.is_empty() {
                        return csv.row(&line);
                    }
                    for p in &c.paths {
                        line[base + 7] = text(p);
                        csv.row(&line)?;
                    }
                    Ok(())
                })?;
            }
            Ok(())
        })?;
        csv.end().map_err(out_err)
    }

    /// A Graphviz digraph (images only: it never shows calls).
    pub fn write_dot(&self, out: &mut dyn Write) -> io::Result<()> {
        let quote = |s: String| s.replace('\\', "\\\\").replace('"', "\\\"");
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
            writeln!(out, "    e{id} [label=\"{}\"];", quote(label(n)))?;
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

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::TreeRow>();
        check::<super::LongRow<'static>>();
    }
}
