//! The calls under each image of `kt2sql tree -v`: the rows of
//! `queries/tree_calls.sql` pulled one at a time while the tree is written,
//! never collected (a big build makes millions of calls), each call's rows
//! (one per path it looked up) folded into one [`Call`]; and a call's text
//! and JSON. The text shows the arguments as `kt2sql dump` does, named
//! constants and all (`open(0x1000,0x1000000<O_RDONLY|O_CLOEXEC>)`), by
//! dump's own rules ([`crate::dump::args`]) for the system that recorded
//! the trace; JSON and CSV keep the words as stored (`call.args`).

use rusqlite::{Rows, Statement};

use crate::decode::Abi;
use crate::dump::args::{translate, Words};

use super::super::json::Obj;
use super::super::Cell;
use crate::schema::sql_err;
use crate::text::{hex, is_utf8, json_str, quoted, vis};
use crate::Error;

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

/// Where tree_calls.sql's columns are.
struct Cols {
    exec_id: usize,
    call_id: usize,
    syscall: usize,
    args: usize,
    retval: usize,
    errno: usize,
    errno_name: usize,
    unpaired: usize,
    path: usize,
}

/// The calls of tree_calls.sql in its order (tree order, then file order),
/// one at a time, each with the image that made it.
pub(super) struct Calls<'s> {
    rows: Rows<'s>,
    cols: Cols,
    context: String,
    /// The first row of the next call, read ahead: its image and the call
    /// with that row's path.
    ahead: Option<(i64, Call)>,
    /// No row left.
    done: bool,
}

impl<'s> Calls<'s> {
    /// The calls of a prepared and bound tree_calls.sql; `context` names it
    /// in errors.
    pub(super) fn new(stmt: &'s mut Statement<'_>, context: String) -> Calls<'s> {
        let names: Vec<String> = stmt.column_names().iter().map(|c| c.to_string()).collect();
        let c = |n: &str| {
            names
                .iter()
                .position(|c| c == n)
                .unwrap_or_else(|| panic!("tree_calls.sql has no column {n:?}"))
        };
        let cols = Cols {
            exec_id: c("exec_id"),
            call_id: c("call_id"),
            syscall: c("syscall"),
            args: c("args"),
            retval: c("retval"),
            errno: c("errno"),
            errno_name: c("errno_name"),
            unpaired: c("unpaired"),
            path: c("path"),
        };
        Calls {
            rows: stmt.raw_query(),
            cols,
            context,
            ahead: None,
            done: false,
        }
    }

    /// One row as (image, call with at most this row's path); rows without
    /// an image are passed over.
    fn read(&mut self) -> Result<Option<(i64, Call)>, Error> {
        let ctx = || sql_err(self.context.clone());
        while let Some(row) = self.rows.next().map_err(ctx())? {
            let cell = |i: usize| row.get_ref(i).map(Cell::from).map_err(ctx());
            let Some(exec_id) = cell(self.cols.exec_id)?.int() else {
                continue;
            };
            let opt = |c: Cell| c.bytes().map(<[u8]>::to_vec);
            let call = Call {
                call_id: cell(self.cols.call_id)?.int().unwrap_or(0),
                syscall: cell(self.cols.syscall)?.to_bytes().into_owned(),
                args: cell(self.cols.args)?.to_bytes().into_owned(),
                retval: cell(self.cols.retval)?.int(),
                errno: cell(self.cols.errno)?.int(),
                errno_name: opt(cell(self.cols.errno_name)?),
                unpaired: opt(cell(self.cols.unpaired)?),
                paths: opt(cell(self.cols.path)?).into_iter().collect(),
            };
            return Ok(Some((exec_id, call)));
        }
        Ok(None)
    }

    /// The image that made the next call; `None` when none is left.
    pub(super) fn peek(&mut self) -> Result<Option<i64>, Error> {
        if self.ahead.is_none() && !self.done {
            self.ahead = self.read()?;
            self.done = self.ahead.is_none();
        }
        Ok(self.ahead.as_ref().map(|(e, _)| *e))
    }

    /// The next call, with every path it looked up.
    pub(super) fn next(&mut self) -> Result<Option<Call>, Error> {
        self.peek()?;
        let Some((exec_id, mut call)) = self.ahead.take() else {
            return Ok(None);
        };
        loop {
            match self.read()? {
                Some((e, more)) if e == exec_id && more.call_id == call.call_id => {
                    call.paths.extend(more.paths)
                }
                other => {
                    self.done = other.is_none();
                    self.ahead = other;
                    return Ok(Some(call));
                }
            }
        }
    }
}

/// `open(0x1000,0<O_RDONLY>) "/usr/include/stdio.h" = -1 ENOENT`, its
/// arguments translated for `abi` (as stored when it is not known).
pub(super) fn call_text(c: &Call, abi: Option<Abi>) -> String {
    let mut s = format!("{}({})", vis(&c.syscall), args_text(c, abi));
    for p in &c.paths {
        s.push(' ');
        s.push_str(&quoted(p));
    }
    let unpaired = c.unpaired.as_deref().map(vis);
    match (c.retval, c.errno) {
        (_, Some(e)) => match &c.errno_name {
            Some(name) => s.push_str(&format!(" = -1 {}", vis(name))),
            None => s.push_str(&format!(" = -1 errno {e}")),
        },
        (Some(r), None) => s.push_str(&format!(" = {r}")),
        (None, None) => {}
    }
    match unpaired.as_deref() {
        None | Some("exit") | Some("thread exit") => {}
        Some(why) if c.retval.is_none() => s.push_str(&format!(" = ? ({why})")),
        Some(why) => s.push_str(&format!(" ({why})")),
    }
    s
}

/// The argument words as `kt2sql dump` prints them for a trace of `abi`:
/// hex words, with named constants where kdump has them.
fn args_text(c: &Call, abi: Option<Abi>) -> String {
    let (Some(abi), Some(words)) = (abi, words(&c.args)) else {
        return vis(&c.args).into_owned();
    };
    let mut out = String::new();
    let mut w = Words::new(&words, abi.width, false);
    if let Ok(name) = std::str::from_utf8(&c.syscall) {
        translate(abi.name_table(), name, &mut w, &mut out);
    }
    w.rest(&mut out);
    out
}

/// The words of `call.args` (`0x3,0x7ffe12,0`); `None` if it is not that.
fn words(args: &[u8]) -> Option<Vec<u64>> {
    let text = std::str::from_utf8(args).ok()?;
    if text.is_empty() {
        return Some(Vec::new());
    }
    let word = |w: &str| match w {
        "0" => Some(0),
        _ => u64::from_str_radix(w.strip_prefix("0x")?, 16).ok(),
    };
    text.split(',').map(word).collect()
}

/// One call as a JSON object.
pub(super) fn call_json(c: &Call, s: &mut String) {
    let mut o = Obj::new(s);
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
}
