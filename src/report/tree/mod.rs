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
//! Nothing grows with the build: every format ([`Report`]) writes the
//! images as tree.sql yields them, in its order, holding only the stack of
//! the open ancestors of the image at hand (the JSON's open brackets, the
//! dot's fork and exec edges), and the calls as tree_call_rows.sql (the
//! calls of tree_calls.sql, without their paths) yields them ([`calls`]),
//! beside the images; a reader that stops early (`| head`) stops the
//! queries. `--long` asks per image whether an exec followed it (the
//! probe [`NEXT_IMAGE`]). [`Tree`], the tree held whole, is for callers
//! that look at its shape, never the report's. Their paths come from each process's
//! lookups, read once per process and held only until its calls have
//! taken them (`lookups::Lookups`).

use std::collections::HashMap;
use std::io::{self, Write};

use rusqlite::types::ValueRef;
use rusqlite::{Connection, Statement};

use super::json::Obj;
use super::render::{Format, Render, RowSink};
use super::row::{typed_row, RowReader};
use super::run::each_row;
use super::{prepare, prepare_as, trace_systems, Cell, Scope};
use crate::decode::Abi;
use crate::json::json_str_list_text;
use crate::schema::sql_err;
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

/// The tree held whole: every image with the indexes of those it hangs
/// over, for a caller that looks at its shape (tests, the library). The
/// report's writers never build it: they stream ([`Report`]).
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// Every node in printed order.
    pub nodes: Vec<Node>,
    /// The nodes directly under `<process_root>`.
    pub roots: Vec<usize>,
}

/// The tree of `scope`, held whole ([`Tree`]).
pub fn tree(conn: &Connection, scope: Scope, long: bool) -> Result<Tree, Error> {
    let mut t = Tree::default();
    let mut stack: Vec<usize> = Vec::new();
    Images::new(conn, scope, long)?.each(|node, _| {
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
        t.nodes.push(node.clone());
        Ok(())
    })?;
    Ok(t)
}

/// The probe that tells whether an image is its process's last: no exec
/// made the next one (tree.sql's own test for where an image ends).
const NEXT_IMAGE: &str =
    "SELECT EXISTS (SELECT 1 FROM exec WHERE process_id = ?1 AND image = ?2 + 1)";

/// The rows of tree.sql pulled one at a time, each read as the [`Node`]
/// it stands for (without children: the writers keep only the stack of
/// its open ancestors) beside its cells as shown.
struct Images<'c> {
    stmt: Statement<'c>,
    context: String,
    /// The columns shown: tree.sql's, without `--long`'s unless asked.
    columns: Vec<String>,
    tree: RowReader<TreeRow>,
    /// With `--long`: where its columns are, and the probe for
    /// [`Long::last`].
    long: Option<(RowReader<LongRow<'static>>, Statement<'c>)>,
}

impl<'c> Images<'c> {
    fn new(conn: &'c Connection, scope: Scope, long: bool) -> Result<Self, Error> {
        let mut params = scope.params();
        params.push(("long", if long { Cell::Int(1) } else { Cell::Null }));
        let (stmt, context) = prepare(conn, "tree", &params)?;
        let tree = RowReader::of_statement(&stmt, TREE_SQL)?;
        let mut columns: Vec<String> = stmt.column_names().iter().map(|c| c.to_string()).collect();
        let long = match long {
            true => {
                let probe = conn
                    .prepare(NEXT_IMAGE)
                    .map_err(sql_err(format!("{context} (the next image)")))?;
                Some((RowReader::of_statement(&stmt, TREE_SQL)?, probe))
            }
            false => {
                // Without --long the rows are tree.sql's first columns.
                columns.truncate(SHORT_COLUMNS);
                None
            }
        };
        Ok(Images {
            stmt,
            context,
            columns,
            tree,
            long,
        })
    }

    /// Hand `f` every image in printed order, with its row's cells.
    fn each(
        &mut self,
        mut f: impl FnMut(&Node, &[Cell]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let Images {
            stmt,
            context,
            columns,
            tree,
            long,
        } = self;
        let shown = columns.len();
        let context = context.as_str();
        each_row(stmt, context, |cells| {
            let r = tree.cells(cells);
            let mut node = Node {
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
                long: None,
                running: r.running.is_some(),
            };
            if let Some((reader, probe)) = long.as_mut() {
                let mut l = long_of(reader.cells(cells));
                let next: bool = probe
                    .query_row((node.process_id, node.image), |row| row.get(0))
                    .map_err(sql_err(format!("{context} (the next image)")))?;
                l.last = !next;
                node.long = Some(l);
            }
            f(&node, &cells[..shown])
        })
    }
}

/// `kt2sql tree`'s writers: each reads tree.sql (and, with calls,
/// tree_call_rows.sql) as it writes, holding only the image at hand and
/// the stack of its open ancestors, so memory stays flat however big the
/// build.
#[derive(Debug)]
pub struct Report<'c> {
    conn: &'c Connection,
    /// The scope the tree covers (its calls are read in the same one).
    scope: Scope,
    /// Whether the writers show each image's calls.
    calls: bool,
    /// Whether the writers show each image's argv, time and end
    /// (`--long`): the columns of tree.sql from `argv` on.
    long: bool,
    /// What recorded each trace, by trace_id, for the calls' arguments.
    abis: HashMap<i64, Abi>,
}

/// The report of `scope`'s tree; with `calls`, its writers show each
/// image's calls; with `long`, each image's argv, duration and end as well
/// (`tree --long`).
pub fn report(
    conn: &Connection,
    scope: Scope,
    calls: bool,
    long: bool,
) -> Result<Report<'_>, Error> {
    let mut abis = HashMap::new();
    if calls || long {
        for (id, _, dialect) in trace_systems(conn, scope.trace)? {
            if let Ok(abi) = dialect.parse::<Abi>() {
                abis.insert(id, abi);
            }
        }
    }
    Ok(Report {
        conn,
        scope,
        calls,
        long,
        abis,
    })
}

/// An I/O error of the report's output.
fn out_err(source: io::Error) -> Error {
    Error::Io {
        path: "standard output".into(),
        source,
    }
}

/// The stream of calls beside the images.
struct Walk<'s> {
    calls: Option<Calls<'s>>,
}

impl Walk<'_> {
    /// Hand `f` each call of image `n`, in file order. The calls come in
    /// tree order, as the images do (both queries walk the same rows of
    /// tree_node in the same scope, by position): an image's calls are the
    /// ones at the head of the stream that name it.
    fn calls_of(
        &mut self,
        n: &Node,
        mut f: impl FnMut(&Call) -> io::Result<()>,
    ) -> Result<(), Error> {
        let Some(calls) = self.calls.as_mut() else {
            return Ok(());
        };
        while calls.peek()? == Some(n.exec_id) {
            let call = calls.next(n.process_id)?.expect("a call was peeked");
            f(call).map_err(out_err)?;
        }
        Ok(())
    }
}

impl Report<'_> {
    /// Whether the scope has no image (a `-p` pid absent from a trace).
    pub fn is_empty(&self) -> Result<bool, Error> {
        let mut any = false;
        let mut images = Images::new(self.conn, self.scope, false)?;
        images.each(|_, _| {
            any = true;
            Ok(())
        })?;
        Ok(!any)
    }

    /// Run `f` over every image in printed order, each with its cells and
    /// the walk over its calls (tree_call_rows.sql's rows in the same
    /// scope, when calls were asked for).
    fn walk(
        &self,
        mut f: impl FnMut(&Node, &[Cell], &mut Walk<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut images = Images::new(self.conn, self.scope, self.long)?;
        if !self.calls {
            let mut walk = Walk { calls: None };
            return images.each(|n, cells| f(n, cells, &mut walk));
        }
        // The calls without their paths: each process's lookups are read
        // once and handed to its calls ([`Lookups`]).
        let (mut stmt, context, reader) =
            prepare_as(self.conn, "tree_call_rows", &self.scope.params())?;
        let lookups = Lookups::new(self.conn)?;
        let mut walk = Walk {
            calls: Some(Calls::new(&mut stmt, reader, context, lookups)),
        };
        images.each(|n, cells| f(n, cells, &mut walk))
    }

    /// ptrace.py's text.
    pub fn write_text(&self, out: &mut dyn Write) -> Result<(), Error> {
        writeln!(out, "Process tree:").map_err(out_err)?;
        writeln!(out, " <process_root> [0]").map_err(out_err)?;
        // A call's line, reused: a big build makes millions. Bytes, as
        // `dump` writes them: every piece appended is text already.
        let (mut line, mut args) = (Vec::new(), ArgsText::default());
        self.walk(|n, _, w| {
            let pad = 1 + 4 * (n.depth + 1);
            let abi = self.abis.get(&n.trace_id).copied();
            let long = n
                .long
                .as_ref()
                .map_or(String::new(), |l| long_text(n, l, abi));
            writeln!(out, "{:pad$}{}{long}", "", label(n)).map_err(out_err)?;
            w.calls_of(n, |c| {
                line.clear();
                push_spaces(&mut line, pad + 4);
                call_text(&mut line, &mut args, c, abi);
                line.push(b'\n');
                out.write_all(&line)
            })
        })
    }

    /// Nested JSON, roots in order, one root per line.
    pub fn write_json(&self, out: &mut dyn Write) -> Result<(), Error> {
        writeln!(out, "[").map_err(out_err)?;
        // The depths of the nodes still open, each with whether it has had
        // a child; whether a root was written.
        let mut open: Vec<(usize, bool)> = Vec::new();
        let mut any = false;
        let mut s = String::new();
        self.walk(|n, _, w| {
            s.clear();
            while open.last().is_some_and(|&(d, _)| d >= n.depth) {
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
                None if any => s.push_str(",\n"),
                None => {}
            }
            any = true;
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
                w.calls_of(n, |c| {
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
            open.push((n.depth, false));
            Ok(())
        })?;
        s.clear();
        for _ in &open {
            s.push_str("]}");
        }
        if any {
            s.push('\n');
        }
        out.write_all(s.as_bytes()).map_err(out_err)?;
        writeln!(out, "]").map_err(out_err)
    }

    /// The rows of tree.sql; with calls, the images and their calls
    /// (streamed) in one table by a first column `section` (`image` or
    /// `call`), as every report with several sections writes CSV
    /// ([`super::write_sections_csv`]): each image's row (tree.sql's
    /// columns), then its calls' (tree_calls.sql's: one row per path).
    pub fn write_csv(&self, out: &mut dyn Write) -> Result<(), Error> {
        self.write_rows(out, Format::Csv)
    }

    /// The rows of [`Report::write_csv`] as JSON Lines: one object per
    /// image, and with calls per call (and path), keys as the CSV's
    /// columns.
    pub fn write_jsonl(&self, out: &mut dyn Write) -> Result<(), Error> {
        self.write_rows(out, Format::Jsonl)
    }

    /// The flat rows in `format` (CSV or JSON Lines).
    fn write_rows(&self, out: &mut dyn Write, format: Format) -> Result<(), Error> {
        let shown = Images::new(self.conn, self.scope, self.long)?.columns;
        let mut csv = Render::new(out, format);
        if !self.calls {
            csv.start(&shown).map_err(out_err)?;
            self.walk(|_, cells, _| csv.row(cells).map_err(out_err))?;
            return csv.end().map_err(out_err);
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
        columns.extend(shown.iter().cloned());
        let base = columns.len();
        columns.extend(CALL.map(String::from));
        let at = |c: &str| {
            1 + shown
                .iter()
                .position(|s| s == c)
                .expect("a column of tree.sql")
        };
        let (exec_at, pid_at) = (at("exec_id"), at("pid"));
        let text = |b: &[u8]| Cell::Text(b.to_vec());
        let opt_text = |b: &Option<Vec<u8>>| b.as_deref().map_or(Cell::Null, text);
        csv.start(&columns).map_err(out_err)?;
        let mut line = vec![Cell::Null; columns.len()];
        self.walk(|n, cells, w| {
            line.fill(Cell::Null);
            line[0] = text(b"image");
            line[1..base].clone_from_slice(cells);
            csv.row(&line).map_err(out_err)?;
            w.calls_of(n, |c| {
                line.fill(Cell::Null);
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
            })
        })?;
        csv.end().map_err(out_err)
    }

    /// A Graphviz digraph (images only: it never shows calls). A fork
    /// edge comes from the open ancestor one level up, an exec edge from
    /// the image before at the same level when it is the same process's
    /// (an exec is a sibling written after the subtree of the image it
    /// replaced).
    pub fn write_dot(&self, out: &mut dyn Write) -> Result<(), Error> {
        let quote = |s: String| s.replace('\\', "\\\\").replace('"', "\\\"");
        writeln!(out, "digraph process_tree {{").map_err(out_err)?;
        writeln!(out, "    node [shape=box, fontname=\"monospace\"];").map_err(out_err)?;
        writeln!(out, "    root [label=\"<process_root> [0]\"];").map_err(out_err)?;
        // The open ancestors: (depth, exec_id, process_id).
        let mut open: Vec<(usize, i64, i64)> = Vec::new();
        self.walk(|n, _, _| {
            let mut before = None;
            while let Some(&top) = open.last().filter(|&&(d, ..)| d >= n.depth) {
                open.pop();
                before = Some(top);
            }
            let id = n.exec_id;
            writeln!(out, "    e{id} [label=\"{}\"];", quote(label(n))).map_err(out_err)?;
            match (
                before.filter(|&(d, _, p)| d == n.depth && p == n.process_id),
                open.last(),
            ) {
                (Some((_, prev, _)), _) => {
                    writeln!(out, "    e{prev} -> e{id} [style=dashed, label=\"exec\"];")
                }
                (None, Some(&(_, p, _))) => writeln!(out, "    e{p} -> e{id};"),
                (None, None) => writeln!(out, "    root -> e{id};"),
            }
            .map_err(out_err)?;
            open.push((n.depth, id, n.process_id));
            Ok(())
        })?;
        writeln!(out, "}}").map_err(out_err)
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
