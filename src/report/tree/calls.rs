//! The calls under each image of `kt2sql tree -v`: the rows of
//! `queries/tree_call_rows.sql` (the calls of `queries/tree_calls.sql`
//! without their paths, one row per call) pulled one at a time while the
//! tree is written, never collected (a big build makes millions of calls),
//! each call given the paths it looked up from its process's lookups, read
//! once per process (`super::lookups::Lookups`), as one [`Call`]; and a
//! call's text and JSON. The text shows the arguments as `kt2sql dump`
//! does, named constants and all (`open(0x1000,0x1000000<O_RDONLY|O_CLOEXEC>)`),
//! by dump's own rules ([`crate::dump::args`]) for the system that recorded
//! the trace; JSON and CSV keep the words as stored (`call.args`).

use std::borrow::Cow;

use rusqlite::{Rows, Statement};

use foldhash::{HashMap, HashMapExt};

use crate::decode::abi::Width;
use crate::decode::Abi;
use crate::names::args::format::{translate, Words};
use crate::names::Numbering;

use super::super::json::Obj;
use super::super::row::{typed_row, RowReader};
use super::lookups::Lookups;
use crate::json::{json_str, json_str_list_text};
use crate::schema::sql_err;
use crate::text::{hex, is_utf8, push_int, push_retval, vis, vis_into};
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

typed_row! {
    /// A row of tree_call_rows.sql: a call without its paths, borrowed
    /// from the row.
    pub(super) struct CallRow<'r> from "tree_call_rows" {
        /// The image that made it (NULL: none the tree shows).
        exec_id: Option<i64>,
        call_id: i64,
        syscall: Cow<'r, [u8]>,
        args: Cow<'r, [u8]>,
        retval: Option<i64>,
        errno: Option<i64>,
        errno_name: Option<&'r [u8]>,
        unpaired: Option<&'r [u8]>,
    }
}

/// The calls of tree_call_rows.sql in its order (tree order, then file
/// order), one at a time, each with the image that made it. The rows are
/// read into two [`Call`]s kept from one call to the next (a big build
/// makes millions of calls: no allocation per call).
pub(super) struct Calls<'s> {
    rows: Rows<'s>,
    reader: RowReader<CallRow<'static>>,
    context: String,
    /// The next call, read ahead (without its paths), and its image
    /// (`None`: not read, or no row left).
    ahead: Call,
    ahead_exec: Option<i64>,
    /// The call [`Calls::next`] handed out last.
    current: Call,
    /// No row left.
    done: bool,
    /// Path buffers of calls handed out before, reused for the next
    /// paths (no allocation per lookup).
    spare: Vec<Vec<u8>>,
    /// Where the paths come from: the rows leave them out.
    lookups: Lookups<'s>,
}

impl<'s> Calls<'s> {
    /// The calls of a prepared and bound tree_call_rows.sql, read by
    /// `reader`; `context` names it in errors; each call's paths come from
    /// `lookups`.
    pub(super) fn new(
        stmt: &'s mut Statement<'_>,
        reader: RowReader<CallRow<'static>>,
        context: String,
        lookups: Lookups<'s>,
    ) -> Calls<'s> {
        let empty = || Call {
            call_id: 0,
            syscall: Vec::new(),
            args: Vec::new(),
            retval: None,
            errno: None,
            errno_name: None,
            unpaired: None,
            paths: Vec::new(),
        };
        Calls {
            rows: stmt.raw_query(),
            reader,
            context,
            ahead: empty(),
            ahead_exec: None,
            current: empty(),
            done: false,
            spare: Vec::new(),
            lookups,
        }
    }

    /// Read the next row into `ahead` (the call without its paths) and
    /// give its image; rows without an image are passed over.
    fn read(&mut self) -> Result<Option<i64>, Error> {
        // The context is copied only for an error, never per row.
        let ctx = |e| sql_err(self.context.clone())(e);
        while let Some(row) = self.rows.next().map_err(ctx)? {
            let r = self.reader.row(row);
            let Some(exec_id) = r.exec_id else {
                continue;
            };
            let opt = |to: &mut Option<Vec<u8>>, v: Option<&[u8]>| match v {
                Some(b) => {
                    let v = to.get_or_insert_with(Vec::new);
                    v.clear();
                    v.extend_from_slice(b);
                }
                None => *to = None,
            };
            let a = &mut self.ahead;
            a.call_id = r.call_id;
            set(&mut a.syscall, &r.syscall);
            set(&mut a.args, &r.args);
            a.retval = r.retval;
            a.errno = r.errno;
            opt(&mut a.errno_name, r.errno_name);
            opt(&mut a.unpaired, r.unpaired);
            return Ok(Some(exec_id));
        }
        Ok(None)
    }

    /// The image that made the next call; `None` when none is left.
    pub(super) fn peek(&mut self) -> Result<Option<i64>, Error> {
        if self.ahead_exec.is_none() && !self.done {
            self.ahead_exec = self.read()?;
            self.done = self.ahead_exec.is_none();
        }
        Ok(self.ahead_exec)
    }

    /// The next call, with every path it looked up; `process` is the
    /// process of its image (the tree's row for it says which).
    pub(super) fn next(&mut self, process: i64) -> Result<Option<&Call>, Error> {
        self.peek()?;
        let Some(exec_id) = self.ahead_exec.take() else {
            return Ok(None);
        };
        std::mem::swap(&mut self.current, &mut self.ahead);
        self.spare.append(&mut self.current.paths);
        self.lookups
            .paths_into(exec_id, process, &mut self.current, &mut self.spare)?;
        Ok(Some(&self.current))
    }
}

/// `to` becomes `b`, in its own buffer.
fn set(to: &mut Vec<u8>, b: &[u8]) {
    to.clear();
    to.extend_from_slice(b);
}

/// Append `open(0x1000,0<O_RDONLY>) "/usr/include/stdio.h" = -1 ENOENT`
/// to `out`, the arguments translated for `abi` (as stored when it is not
/// known).
pub(super) fn call_text(out: &mut Vec<u8>, args: &mut ArgsText, c: &Call, abi: Option<Abi>) {
    vis_into(out, &c.syscall, false);
    out.push(b'(');
    args.write(out, c, abi);
    out.push(b')');
    for p in &c.paths {
        out.extend_from_slice(b" \"");
        vis_into(out, p, true);
        out.push(b'"');
    }
    match (c.retval, c.errno) {
        (_, Some(e)) => match &c.errno_name {
            Some(name) => {
                out.extend_from_slice(b" = -1 ");
                vis_into(out, name, false);
            }
            None => {
                out.extend_from_slice(b" = -1 errno ");
                push_int(out, e);
            }
        },
        (Some(r), None) => {
            // As kdump prints it (and `kt2sql dump`): `4096/0x1000`.
            out.extend_from_slice(b" = ");
            push_retval(out, r, abi.map_or(64, |a| a.width.bits()));
        }
        (None, None) => {}
    }
    let Some(unpaired) = c.unpaired.as_deref() else {
        return;
    };
    match &*vis(unpaired) {
        "exit" | "thread exit" => {}
        why if c.retval.is_none() => {
            out.extend_from_slice(b" = ? (");
            out.extend_from_slice(why.as_bytes());
            out.push(b')');
        }
        why => {
            out.extend_from_slice(b" (");
            out.extend_from_slice(why.as_bytes());
            out.push(b')');
        }
    }
}

/// Writes a call's argument words as `kt2sql dump` prints them, with
/// scratch space kept from one call to the next.
#[derive(Default)]
pub(super) struct ArgsText {
    /// The argument words of the call being written.
    words: Vec<u64>,
    /// Per name table (a trace or two), per syscall name: whether dump
    /// names any of its words (false: every word is a plain number).
    named: Vec<(Numbering, HashMap<Vec<u8>, bool>)>,
}

impl ArgsText {
    /// Append the argument words as `kt2sql dump` prints them for a trace
    /// of `abi`: hex words, with named constants where kdump has them.
    fn write(&mut self, out: &mut Vec<u8>, c: &Call, abi: Option<Abi>) {
        let Some(abi) = abi else {
            vis_into(out, &c.args, false);
            return;
        };
        // Most calls (read, write, close, …) have no word dump names: their
        // words, already stored as dump prints numbers, are copied whole.
        if !self.names_words(abi.name_table(), &c.syscall) && as_printed(&c.args, abi.width) {
            out.extend_from_slice(&c.args);
            return;
        }
        if !parse_words(&c.args, &mut self.words) {
            vis_into(out, &c.args, false);
            return;
        }
        let mut w = Words::new(&self.words, abi.width, false);
        if let Ok(name) = std::str::from_utf8(&c.syscall) {
            translate(abi.name_table(), name, &mut w, out);
        }
        w.rest(out);
    }

    /// Whether dump names any word of the syscall `name` in `table`:
    /// [`translate`] asked once per name, with words to spare (every rule
    /// writes the first word it reads, so one that writes nothing names
    /// none).
    fn names_words(&mut self, table: Numbering, name: &[u8]) -> bool {
        let at = match self.named.iter().position(|(t, _)| *t == table) {
            Some(at) => at,
            None => {
                self.named.push((table, HashMap::new()));
                self.named.len() - 1
            }
        };
        let known = &mut self.named[at].1;
        if let Some(&named) = known.get(name) {
            return named;
        }
        let mut probe = Vec::new();
        if let Ok(n) = std::str::from_utf8(name) {
            translate(
                table,
                n,
                &mut Words::new(&[0; 8], Width::W64, false),
                &mut probe,
            );
        }
        known.insert(name.to_vec(), !probe.is_empty());
        !probe.is_empty()
    }
}

/// Whether `args` (`0x3,0x7ffe12,0`) is exactly what dump prints for its
/// words on a system of `width`: each word `0`, or `0x` and lowercase hex
/// digits without a leading zero that fit the width.
fn as_printed(args: &[u8], width: Width) -> bool {
    let max = match width {
        Width::W32 => 8,
        Width::W64 => 16,
    };
    args.is_empty()
        || args.split(|&b| b == b',').all(|w| match w {
            b"0" => true,
            _ => w.strip_prefix(b"0x").is_some_and(|d| {
                (1..=max).contains(&d.len())
                    && d[0] != b'0'
                    && d.iter().all(|&x| matches!(x, b'0'..=b'9' | b'a'..=b'f'))
            }),
        })
}

/// Parse `call.args` (`0x3,0x7ffe12,0`) into `words`; false if it is not
/// that.
fn parse_words(args: &[u8], words: &mut Vec<u64>) -> bool {
    words.clear();
    if args.is_empty() {
        return true;
    }
    let word = |w: &[u8]| match w {
        b"0" => Some(0),
        _ => hex_word(w.strip_prefix(b"0x")?),
    };
    for w in args.split(|&b| b == b',') {
        match word(w) {
            Some(v) => words.push(v),
            None => return false,
        }
    }
    true
}

/// The value of hex digits as `u64::from_str_radix(_, 16)` reads them (a
/// `+` first allowed), byte by byte: no UTF-8 check per word.
fn hex_word(digits: &[u8]) -> Option<u64> {
    let digits = digits.strip_prefix(b"+").unwrap_or(digits);
    if digits.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for (k, &d) in digits.iter().enumerate() {
        let x = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        // Sixteen digits cannot overflow; only a longer word is checked.
        v = if k < 16 {
            v << 4 | u64::from(x)
        } else {
            v.checked_mul(16)?.checked_add(u64::from(x))?
        };
    }
    Some(v)
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
    o.raw("paths", &json_str_list_text(&c.paths));
    if !c.paths.iter().all(|p| is_utf8(p)) {
        o.raw(
            "paths_hex",
            &json_str_list_text(c.paths.iter().map(|p| hex(p))),
        );
    }
    o.end();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arguments as dump's rules print them, word by word: what
    /// [`ArgsText::write`] must give whichever way it takes.
    fn by_the_rules(c: &Call, abi: Abi) -> Vec<u8> {
        let (mut out, mut words) = (Vec::new(), Vec::new());
        if !parse_words(&c.args, &mut words) {
            vis_into(&mut out, &c.args, false);
            return out;
        }
        let mut w = Words::new(&words, abi.width, false);
        translate(
            abi.name_table(),
            std::str::from_utf8(&c.syscall).unwrap(),
            &mut w,
            &mut out,
        );
        w.rest(&mut out);
        out
    }

    #[test]
    fn arguments_copied_whole_are_what_the_rules_print() {
        let call = |syscall: &str, args: &str| Call {
            call_id: 1,
            syscall: syscall.into(),
            args: args.into(),
            retval: None,
            errno: None,
            errno_name: None,
            unpaired: None,
            paths: Vec::new(),
        };
        let mut text = ArgsText::default();
        for abi in [
            "freebsd-v1:le:64",
            "netbsd-v2:le:32",
            "openbsd:le:64",
            "darwin:le:32",
        ] {
            let abi: Abi = abi.parse().unwrap();
            for syscall in [
                "read", "close", "open", "openat", "mmap", "fcntl", "lseek", "nosuch",
            ] {
                for args in [
                    "",
                    "0",
                    "0x3,0x7ffe12,0",
                    "0x3,0x7ffe12,0x601,0x1b6",
                    "0x0,0x1",
                    "0x03",
                    "0xA",
                    "0x+5",
                    "0x,1",
                    "0xffffffff",
                    "0x1ffffffff",
                    "0xffffffffffffffff",
                    "0x10000000000000000",
                    "3,4",
                    "0x3,",
                    "a\tb",
                ] {
                    let c = call(syscall, args);
                    let mut got = Vec::new();
                    text.write(&mut got, &c, Some(abi));
                    let want = by_the_rules(&c, abi);
                    assert_eq!(got, want, "{abi} {syscall}({args})");
                }
            }
        }
    }

    #[test]
    fn every_call_dump_names_words_of_is_known_as_such() {
        let mut text = ArgsText::default();
        let names = crate::names::args::format::TRANSLATED_NAMES
            .iter()
            .chain(crate::names::args::format::AT_CALLS);
        for name in names {
            assert!(
                text.names_words(Numbering::FreeBsd, name.as_bytes()),
                "{name}"
            );
        }
        for name in ["read", "write", "close", "fstat", "#400"] {
            assert!(
                !text.names_words(Numbering::FreeBsd, name.as_bytes()),
                "{name}"
            );
        }
    }

    #[test]
    fn hex_words_read_as_from_str_radix_reads_them() {
        for w in [
            "0",
            "1",
            "ff",
            "FF",
            "7ffe12",
            "+5",
            "+",
            "",
            "-5",
            "g",
            "0x1",
            "ffffffffffffffff",
            "10000000000000000",
            "00000000000000000001",
        ] {
            let want = u64::from_str_radix(w, 16).ok();
            assert_eq!(hex_word(w.as_bytes()), want, "{w:?}");
        }
    }
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::CallRow<'static>>();
    }
}
