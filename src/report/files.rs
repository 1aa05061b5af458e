//! `kt2sql files` (alias `namei`): ptrace.py's namei list from
//! `queries/files.sql`, or with callers from `queries/files_verbose.sql`.
//!
//! Shapes (stable):
//! * text: `Namei list:`, then one path per line sorted by its bytes; with
//!   callers, under each path one line per syscall (sorted by name):
//!   `    open(): cc [1425],cc [1430]`, callers ordered by pid then command.
//! * json: `[{"path"}]`, with callers `[{"path","calls":[{"syscall",
//!   "by":[{"comm","pid"}]}]}]`; `path_hex`/`comm_hex` beside a value that
//!   is not UTF-8.
//! * csv: the rows of files.sql (`path`), with callers of files_verbose.sql
//!   (`path,syscall,comm,pid`).
//!
//! `--unresolved` lists instead the lookups left relative (their base
//! unknown) from `queries/unresolved.sql`, headed `Unresolved lookups …`
//! in text, in the same shapes (csv always `path,syscall,comm,pid`).
//!
//! The rows are read as SQLite produces them and nothing grows with the
//! build: every format is written row by row (text and JSON open a path's
//! line at its first row and close it at the next path's). One mechanism,
//! [`stream`], tells each [`Listing`] where a path and a syscall start:
//! the writers, the counter and the entries of [`files`], which holds the
//! whole list for a caller that looks at it (no writer does).

use std::borrow::Cow;
use std::io::{self, Write};

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use super::json::Obj;
use super::render::{Format, Render, RowSink};
use super::row::typed_row;
use super::{each_as, Cell, Scope};
use crate::json::json_str_list_text;
use crate::text::vis;
use crate::Error;

/// What to list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FilesOptions<'a> {
    /// Which traces and processes.
    pub scope: Scope,
    /// Paths of failed calls too (`-a`).
    pub all: bool,
    /// Who looked each path up (`-v`).
    pub callers: bool,
    /// The lookups left relative instead, their base unknown
    /// (`queries/unresolved.sql`, always with callers in the rows).
    pub unresolved: bool,
    /// Only the paths in this directory tree (absolute: `--under`).
    pub under: Option<&'a str>,
    /// Not the paths in these directory trees (absolute: `--exclude`).
    pub exclude: &'a [String],
}

/// Who made one syscall on a path: (command, pid) pairs.
pub type Callers = Vec<(Vec<u8>, i64)>;

/// One path and, with callers, who looked it up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The absolute path.
    pub path: Vec<u8>,
    /// Per syscall (sorted by name): the (command, pid) pairs that made it,
    /// ordered by pid then command. Empty without callers.
    pub calls: Vec<(Vec<u8>, Callers)>,
}

/// The list.
#[derive(Debug, Clone, Default)]
pub struct Files {
    /// The paths in order.
    pub entries: Vec<Entry>,
    /// Whether callers were asked for.
    pub callers: bool,
    /// Whether these are the unresolved lookups.
    pub unresolved: bool,
}

/// The query that lists what `opts` asks for, and its parameters.
fn query(opts: FilesOptions) -> (&'static str, Vec<(&'static str, Cell)>) {
    let mut params = opts.scope.params();
    params.push(("all", Cell::Int(opts.all.into())));
    if !opts.unresolved {
        let text = |s: String| Cell::Text(s.into_bytes());
        params.push(("under", opts.under.map_or(Cell::Null, |u| text(u.into()))));
        params.push(("exclude", text(json_str_list_text(opts.exclude))));
    }
    let name = match (opts.unresolved, opts.callers) {
        (true, _) => "unresolved",
        (false, true) => "files_verbose",
        (false, false) => "files",
    };
    (name, params)
}

typed_row! {
    /// A row of the path lists: `queries/files.sql`, and the paths of
    /// the lists with callers.
    struct Listed<'r> from "files", "files_verbose", "unresolved" {
        path: Cow<'r, [u8]>,
    }
}

typed_row! {
    /// A row of the lists with callers: a path and one call on it.
    struct Looked<'r> from "files_verbose", "unresolved" {
        path: Cow<'r, [u8]>,
        syscall: Cow<'r, [u8]>,
        comm: Cow<'r, [u8]>,
        pid: i64,
    }
}

typed_row! {
    /// A row of the path lists, its path as stored, for CSV.
    struct StoredPath<'r> from "files", "files_verbose", "unresolved" {
        path: ValueRef<'r>,
    }
}

typed_row! {
    /// A row of the lists with callers, its values as stored, for CSV.
    struct StoredCall<'r> from "files_verbose", "unresolved" {
        path: ValueRef<'r>,
        syscall: ValueRef<'r>,
        comm: ValueRef<'r>,
        pid: ValueRef<'r>,
    }
}

/// Build the list, held whole (for a caller that looks at it; the
/// report's writers stream, [`stream`]).
pub fn files(conn: &Connection, opts: FilesOptions) -> Result<Files, Error> {
    let mut entries: Vec<Entry> = Vec::new();
    each_entry(conn, opts, |e| entries.push(e))?;
    Ok(Files {
        entries,
        callers: opts.callers,
        unresolved: opts.unresolved,
    })
}

/// Hand `f` each entry of the list in order, as its rows end: the rows
/// come by path, so one entry is held at a time.
fn each_entry(conn: &Connection, opts: FilesOptions, f: impl FnMut(Entry)) -> Result<(), Error> {
    stream(conn, opts, &mut Entries { open: None, f })
}

/// Whether the list is empty (a `-p` pid that looked nothing up in a
/// trace).
pub fn is_empty(conn: &Connection, opts: FilesOptions) -> Result<bool, Error> {
    Ok(count(conn, opts)? == 0)
}

/// How many entries the list has, counted as they stream.
pub fn count(conn: &Connection, opts: FilesOptions) -> Result<usize, Error> {
    let mut n = Paths(0);
    stream(conn, opts, &mut n)?;
    Ok(n.0)
}

/// The list as CSV, row by row: the query's rows, with the columns the
/// JSON has, so the paths alone unless callers were asked for
/// (`unresolved.sql` always returns its callers).
pub fn write_csv(conn: &Connection, opts: FilesOptions, out: &mut dyn Write) -> Result<(), Error> {
    write_rows(conn, opts, out, Format::Csv)
}

/// The rows of [`write_csv`] as JSON Lines: one object per row and line,
/// keys as the CSV's columns (with callers, one line per call of a path).
pub fn write_jsonl(
    conn: &Connection,
    opts: FilesOptions,
    out: &mut dyn Write,
) -> Result<(), Error> {
    write_rows(conn, opts, out, Format::Jsonl)
}

/// The query's rows in `format` (CSV or JSON Lines).
fn write_rows(
    conn: &Connection,
    opts: FilesOptions,
    out: &mut dyn Write,
    format: Format,
) -> Result<(), Error> {
    let (name, params) = query(opts);
    let paths_only = opts.unresolved && !opts.callers;
    let columns: &[&str] = if paths_only || name == "files" {
        &["path"]
    } else {
        &["path", "syscall", "comm", "pid"]
    };
    let mut r = Render::new(out, format);
    r.start(&columns.iter().map(|c| c.to_string()).collect::<Vec<_>>())
        .map_err(out_err)?;
    // The line, its cells reused from row to row (no allocation per row).
    let mut line = vec![Cell::Null; columns.len()];
    let mut spares = vec![Vec::new(); columns.len()];
    let mut last: Option<Cell> = None;
    if columns.len() == 1 {
        each_as::<StoredPath<'static>>(conn, name, &params, |row| {
            line[0].set(row.path, &mut spares[0]);
            if paths_only {
                if last.as_ref() == Some(&line[0]) {
                    return Ok(());
                }
                last = Some(line[0].clone());
            }
            r.row(&line).map_err(out_err)
        })?;
    } else {
        each_as::<StoredCall<'static>>(conn, name, &params, |row| {
            let values = [row.path, row.syscall, row.comm, row.pid];
            for ((cell, spare), v) in line.iter_mut().zip(&mut spares).zip(values) {
                cell.set(v, spare);
            }
            r.row(&line).map_err(out_err)
        })?;
    }
    r.end().map_err(out_err)
}

/// An I/O error of the report's output.
fn out_err(source: io::Error) -> Error {
    Error::Io {
        path: "standard output".into(),
        source,
    }
}

/// ptrace.py's text, written as the rows stream.
pub fn write_text(conn: &Connection, opts: FilesOptions, out: &mut dyn Write) -> Result<(), Error> {
    writeln!(
        out,
        "{}",
        if opts.unresolved {
            "Unresolved lookups (relative, base directory unknown):"
        } else {
            "Namei list:"
        }
    )
    .map_err(out_err)?;
    stream(
        conn,
        opts,
        &mut Text {
            out,
            open: false,
            first: true,
        },
    )
}

/// An array of objects, one path per line, written as the rows stream.
pub fn write_json(conn: &Connection, opts: FilesOptions, out: &mut dyn Write) -> Result<(), Error> {
    writeln!(out, "[").map_err(out_err)?;
    let mut json = Json {
        out,
        callers: opts.callers,
        entries: 0,
        open: false,
        syscalls: 0,
        by: 0,
    };
    stream(conn, opts, &mut json)?;
    writeln!(out, "]").map_err(out_err)
}

/// What a list written as its rows stream is told, in order: a path
/// starts; with callers, a syscall on it starts, one of its callers.
/// Nothing is held for a path, however many processes looked it up (a
/// shared library's callers are every process of the build).
trait Listing {
    fn path(&mut self, path: &[u8]) -> io::Result<()>;
    fn syscall(&mut self, syscall: &[u8]) -> io::Result<()>;
    fn caller(&mut self, comm: &[u8], pid: i64) -> io::Result<()>;
    fn end(&mut self) -> io::Result<()>;
}

/// The query's rows told to `l`: a path or a syscall once per run of
/// equal ones (the rows come by path, then syscall).
fn stream(conn: &Connection, opts: FilesOptions, l: &mut dyn Listing) -> Result<(), Error> {
    let (name, params) = query(opts);
    let (mut path, mut syscall) = (None::<Vec<u8>>, None::<Vec<u8>>);
    let starts = |now: &[u8], last: &mut Option<Vec<u8>>| {
        if last.as_deref() == Some(now) {
            return false;
        }
        let buf = last.get_or_insert_with(Vec::new);
        buf.clear();
        buf.extend_from_slice(now);
        true
    };
    if opts.callers {
        each_as::<Looked<'static>>(conn, name, &params, |r| {
            if starts(&r.path, &mut path) {
                syscall = None;
                l.path(&r.path).map_err(out_err)?;
            }
            if starts(&r.syscall, &mut syscall) {
                l.syscall(&r.syscall).map_err(out_err)?;
            }
            l.caller(&r.comm, r.pid).map_err(out_err)
        })?;
    } else {
        each_as::<Listed<'static>>(conn, name, &params, |r| {
            if starts(&r.path, &mut path) {
                l.path(&r.path).map_err(out_err)?;
            }
            Ok(())
        })?;
    }
    l.end().map_err(out_err)
}

/// The text: a path a line, under it `    open(): cc [1425],cc [1430]`.
struct Text<'o> {
    out: &'o mut dyn Write,
    /// A syscall's line is being written.
    open: bool,
    /// No caller on it yet.
    first: bool,
}

impl Text<'_> {
    fn close(&mut self) -> io::Result<()> {
        if std::mem::take(&mut self.open) {
            writeln!(self.out)?;
        }
        Ok(())
    }
}

impl Listing for Text<'_> {
    fn path(&mut self, path: &[u8]) -> io::Result<()> {
        self.close()?;
        writeln!(self.out, "{}", vis(path))
    }
    fn syscall(&mut self, syscall: &[u8]) -> io::Result<()> {
        self.close()?;
        (self.open, self.first) = (true, true);
        write!(self.out, "    {}(): ", vis(syscall))
    }
    fn caller(&mut self, comm: &[u8], pid: i64) -> io::Result<()> {
        if !std::mem::take(&mut self.first) {
            self.out.write_all(b",")?;
        }
        write!(self.out, "{} [{pid}]", vis(comm))
    }
    fn end(&mut self) -> io::Result<()> {
        self.close()
    }
}

/// The JSON: `{"path"}` a line, with callers `{"path","calls":[{"syscall",
/// "by":[{"comm","pid"}]}]}`, a comma ending every line but the last.
struct Json<'o> {
    out: &'o mut dyn Write,
    callers: bool,
    /// Paths started.
    entries: usize,
    /// A path's object is being written.
    open: bool,
    /// Syscalls of the open path, and callers of its last syscall.
    syscalls: usize,
    by: usize,
}

impl Json<'_> {
    /// `{"k":v` of one field, the object left open.
    fn open_obj(&mut self, k: &str, v: &[u8]) -> io::Result<()> {
        let mut s = String::new();
        Obj::new(&mut s).bytes(k, v);
        self.out.write_all(s.as_bytes())
    }

    fn close(&mut self) -> io::Result<()> {
        if !std::mem::take(&mut self.open) {
            return Ok(());
        }
        if self.callers {
            if self.syscalls > 0 {
                self.out.write_all(b"]}")?;
            }
            self.out.write_all(b"]")?;
        }
        self.out.write_all(b"}")
    }
}

impl Listing for Json<'_> {
    fn path(&mut self, path: &[u8]) -> io::Result<()> {
        self.close()?;
        if self.entries > 0 {
            self.out.write_all(b",\n")?;
        }
        (self.entries, self.open, self.syscalls) = (self.entries + 1, true, 0);
        self.open_obj("path", path)?;
        if self.callers {
            self.out.write_all(b",\"calls\":[")?;
        }
        Ok(())
    }
    fn syscall(&mut self, syscall: &[u8]) -> io::Result<()> {
        if self.syscalls > 0 {
            self.out.write_all(b"]},")?;
        }
        (self.syscalls, self.by) = (self.syscalls + 1, 0);
        self.open_obj("syscall", syscall)?;
        self.out.write_all(b",\"by\":[")
    }
    fn caller(&mut self, comm: &[u8], pid: i64) -> io::Result<()> {
        if self.by > 0 {
            self.out.write_all(b",")?;
        }
        self.by += 1;
        let mut s = String::new();
        let mut o = Obj::new(&mut s);
        o.bytes("comm", comm).int("pid", pid);
        o.end();
        self.out.write_all(s.as_bytes())
    }
    fn end(&mut self) -> io::Result<()> {
        self.close()?;
        if self.entries > 0 {
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// The entries, each handed on whole when the next path starts.
struct Entries<F> {
    open: Option<Entry>,
    f: F,
}

impl<F: FnMut(Entry)> Listing for Entries<F> {
    fn path(&mut self, path: &[u8]) -> io::Result<()> {
        self.end()?;
        self.open = Some(Entry {
            path: path.to_vec(),
            calls: Vec::new(),
        });
        Ok(())
    }
    fn syscall(&mut self, syscall: &[u8]) -> io::Result<()> {
        if let Some(e) = &mut self.open {
            e.calls.push((syscall.to_vec(), Vec::new()));
        }
        Ok(())
    }
    fn caller(&mut self, comm: &[u8], pid: i64) -> io::Result<()> {
        if let Some((_, by)) = self.open.as_mut().and_then(|e| e.calls.last_mut()) {
            by.push((comm.to_vec(), pid));
        }
        Ok(())
    }
    fn end(&mut self) -> io::Result<()> {
        if let Some(e) = self.open.take() {
            (self.f)(e);
        }
        Ok(())
    }
}

/// The number of paths, nothing held.
struct Paths(usize);

impl Listing for Paths {
    fn path(&mut self, _: &[u8]) -> io::Result<()> {
        self.0 += 1;
        Ok(())
    }
    fn syscall(&mut self, _: &[u8]) -> io::Result<()> {
        Ok(())
    }
    fn caller(&mut self, _: &[u8], _: i64) -> io::Result<()> {
        Ok(())
    }
    fn end(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::Listed<'static>>();
        check::<super::Looked<'static>>();
        check::<super::StoredPath<'static>>();
        check::<super::StoredCall<'static>>();
    }
}
