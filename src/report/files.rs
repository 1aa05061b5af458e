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
//! The rows are read as SQLite produces them: CSV is written row by row
//! ([`write_csv`]); text and JSON keep one [`Entry`] per path, never the
//! rows themselves.

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

/// Build the list.
pub fn files(conn: &Connection, opts: FilesOptions) -> Result<Files, Error> {
    let (name, params) = query(opts);
    let mut entries: Vec<Entry> = Vec::new();
    // The rows come by path: a path's rows make one entry.
    fn entry<'e>(entries: &'e mut Vec<Entry>, p: &[u8]) -> &'e mut Entry {
        if entries.last().is_none_or(|e| e.path != p) {
            entries.push(Entry {
                path: p.to_vec(),
                calls: Vec::new(),
            });
        }
        entries.last_mut().expect("just pushed")
    }
    if opts.callers {
        each_as::<Looked<'static>>(conn, name, &params, |r| {
            let e = entry(&mut entries, &r.path);
            let by = (r.comm.into_owned(), r.pid);
            match e.calls.last_mut() {
                Some((s, list)) if **s == *r.syscall => list.push(by),
                _ => e.calls.push((r.syscall.into_owned(), vec![by])),
            }
            Ok(())
        })?;
    } else {
        each_as::<Listed<'static>>(conn, name, &params, |r| {
            entry(&mut entries, &r.path);
            Ok(())
        })?;
    }
    Ok(Files {
        entries,
        callers: opts.callers,
        unresolved: opts.unresolved,
    })
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

impl Files {
    /// ptrace.py's text.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "{}",
            if self.unresolved {
                "Unresolved lookups (relative, base directory unknown):"
            } else {
                "Namei list:"
            }
        )?;
        for e in &self.entries {
            writeln!(out, "{}", vis(&e.path))?;
            for (syscall, by) in &e.calls {
                let who: Vec<String> = by
                    .iter()
                    .map(|(comm, pid)| format!("{} [{pid}]", vis(comm)))
                    .collect();
                writeln!(out, "    {}(): {}", vis(syscall), who.join(","))?;
            }
        }
        Ok(())
    }

    /// An array of objects, one path per line.
    pub fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "[")?;
        for (i, e) in self.entries.iter().enumerate() {
            let mut s = String::new();
            let mut o = Obj::new(&mut s);
            o.bytes("path", &e.path);
            if self.callers {
                let calls: Vec<String> = e
                    .calls
                    .iter()
                    .map(|(syscall, by)| {
                        let by: Vec<String> = by
                            .iter()
                            .map(|(comm, pid)| {
                                let mut b = String::new();
                                let mut ob = Obj::new(&mut b);
                                ob.bytes("comm", comm).int("pid", *pid);
                                ob.end();
                                b
                            })
                            .collect();
                        let mut c = String::new();
                        let mut oc = Obj::new(&mut c);
                        oc.bytes("syscall", syscall)
                            .raw("by", &format!("[{}]", by.join(",")));
                        oc.end();
                        c
                    })
                    .collect();
                o.raw("calls", &format!("[{}]", calls.join(",")));
            }
            o.end();
            let sep = if i + 1 < self.entries.len() { "," } else { "" };
            writeln!(out, "{s}{sep}")?;
        }
        writeln!(out, "]")
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
