//! The timeline as Chrome Trace Event JSON (the "JSON Object Format" of
//! Google's Trace Event Format document, which Perfetto, chrome://tracing
//! and speedscope read): `{"otherData":{…},"traceEvents":[…]}`, one event
//! per line, written as the rows come.
//!
//! * One track per process lifetime (`process_name` metadata: its
//!   commands' names; `process_sort_index`: process-tree order, so every
//!   lifetime sits under its parent). The track's `pid` is the OS pid,
//!   except where lifetimes in scope share a pid (a reused pid, or two
//!   traces): the k-th of them is drawn under another number and named
//!   `… (pid P, lifetime k of n)`, as [`super::tracks`] says. Each slice
//!   has the OS pid and lifetime in `args.os_pid` and `args.process_id`.
//! * A complete slice (`ph: "X"`, `cat: "command"`) per command (process
//!   image) on the process's first thread, named by its comm, with the
//!   program path, argv, cwd, exit status or signal, calls and files in
//!   `args`; `args.critical_ns` on the commands of the critical path.
//! * With `--calls`: a slice per system call on its thread (`cat:
//!   "syscall"`, or `"syscall,failed"` with `args.errno` for a failed one).
//! * Flow arrows (`ph: "s"` / `"f"`, `cat: "fork"`, `id`: the child's
//!   process_id) from the parent's fork call to the child's first slice.
//! * Flow arrows (`cat: "file"`, named by the path, ids above every
//!   process_id) per producer → consumer file flow (`build_flow`): from
//!   the producer's slice at its write to the consumer's at its read.
//! * On track pid 0 (`kt2sql build`): a counter (`ph: "C"`) of running
//!   processes, and the critical path as slices on its thread 0.
//!
//! `ts` and `dur` are microseconds, as the format requires, written with
//! three decimals so nanoseconds survive; `ts` counts from the scope's first
//! process start, given in `otherData.origin_ns` (absolute ns since the
//! epoch would not fit a double's 53 bits at ns precision).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use super::tracks::{Threads, Tracks};
use super::{critical_path, each_slice, extents, int, on_path, out_err, slice, Options, Step};
use crate::json::Obj;
use crate::report::{each, prepare, Cell};
use crate::schema::sql_err;
use crate::text::{is_utf8, push_int, push_uint, Digits};
use crate::Error;

/// The pid of the synthetic track holding the counter and the critical path.
pub const BUILD_PID: i64 = 0;

/// Writes events, one per line, separated by commas.
struct Events<'w> {
    out: &'w mut dyn Write,
    origin: i64,
    first: bool,
    buf: String,
}

impl Events<'_> {
    /// Write the event built by `f` into a fresh object.
    fn event(&mut self, f: impl FnOnce(&mut Obj<'_>, i64)) -> Result<(), Error> {
        self.buf.clear();
        let mut o = Obj::new(&mut self.buf);
        f(&mut o, self.origin);
        o.end();
        let buf = std::mem::take(&mut self.buf);
        let done = self.write(buf.as_bytes());
        self.buf = buf;
        done
    }

    /// Write an event the caller has put together as JSON text.
    fn write(&mut self, event: &[u8]) -> Result<(), Error> {
        let sep: &[u8] = if self.first { b"" } else { b",\n" };
        self.first = false;
        self.out.write_all(sep).map_err(out_err)?;
        self.out.write_all(event).map_err(out_err)
    }

    /// A metadata event naming or ordering a process or thread.
    fn meta(&mut self, name: &str, pid: i64, tid: Option<i64>, args: &str) -> Result<(), Error> {
        self.event(|o, _| {
            o.str("name", name).str("ph", "M").int("pid", pid);
            if let Some(tid) = tid {
                o.int("tid", tid);
            }
            o.raw("args", args);
        })
    }
}

/// Microseconds with three decimals for `ns` after `origin`.
pub fn micros(ns: i64, origin: i64) -> String {
    Digits::default().micros(ns, origin).to_string()
}

/// Append what [`micros`] gives, digits straight into `out` (a call's
/// slice has two of these; [`Digits`] hands each out through a `&str`).
fn push_micros(out: &mut Vec<u8>, ns: i64, origin: i64) {
    let d = ns - origin;
    if d < 0 {
        out.push(b'-');
    }
    let a = d.unsigned_abs();
    push_uint(out, a / 1000);
    let f = a % 1000;
    let digit = |v: u64| b'0' + (v % 10) as u8;
    out.extend_from_slice(&[b'.', digit(f / 100), digit(f / 10), digit(f)]);
}

/// Write the Chrome Trace Event JSON of `opts` to `out`.
pub fn write(conn: &Connection, opts: &Options, out: &mut dyn Write) -> Result<(), Error> {
    let ext = extents(conn, opts.scope)?;
    let origin = ext.iter().map(|e| e.start_ts).min().unwrap_or(0);
    let traces: Vec<i64> = ext.iter().map(|e| e.trace_id).collect();
    let steps = critical_path(conn, opts.scope, &traces)?;
    writeln!(
        out,
        "{{\"otherData\":{{\"generator\":\"kt2sql\",\"origin_ns\":{origin}}},\
         \"displayTimeUnit\":\"ns\",\"traceEvents\":["
    )
    .map_err(out_err)?;
    let mut ev = Events {
        out,
        origin,
        first: true,
        buf: String::new(),
    };
    let lives = Tracks::load(conn, opts)?;
    build_track(&mut ev, &steps)?;
    let named = slices(conn, opts, &mut ev, &lives, &on_path(&steps))?;
    forks(conn, opts, &mut ev, &lives)?;
    file_flows(conn, opts, &mut ev, &lives)?;
    counter(conn, opts, &mut ev)?;
    if opts.calls {
        calls(conn, opts, &mut ev, &lives)?;
    }
    // Track names: the lifetime's commands in the order they appeared,
    // then which lifetime of a shared pid it is.
    for (track, (_, process, names)) in &named {
        let mut name = names.join(&b" \xe2\x86\x92 "[..]);
        let mut a = String::new();
        let mut args = Obj::new(&mut a);
        if let Some(t) = lives.get(*process) {
            if t.shared() {
                let (p, k, n) = (t.pid, t.lifetime, t.lifetimes);
                name.extend(format!(" (pid {p}, lifetime {k} of {n})").bytes());
            }
            args.bytes("name", &name)
                .int("os_pid", t.pid)
                .int("trace_id", t.trace_id)
                .int("process_id", *process)
                .int("lifetime", t.lifetime)
                .int("lifetimes", t.lifetimes);
        } else {
            args.bytes("name", &name);
        }
        args.end();
        ev.meta("process_name", *track, None, &a)?;
    }
    writeln!(ev.out, "\n]}}").map_err(out_err)
}

/// Track 0: its names, the critical path's slices.
fn build_track(ev: &mut Events<'_>, steps: &[Step]) -> Result<(), Error> {
    ev.meta(
        "process_name",
        BUILD_PID,
        None,
        "{\"name\":\"kt2sql build\"}",
    )?;
    ev.meta("process_sort_index", BUILD_PID, None, "{\"sort_index\":-1}")?;
    ev.meta(
        "thread_name",
        BUILD_PID,
        Some(0),
        "{\"name\":\"critical path\"}",
    )?;
    for (i, s) in steps.iter().enumerate() {
        ev.event(|o, origin| {
            o.bytes("name", &s.comm)
                .str("cat", "critical")
                .str("ph", "X")
                .raw("ts", &micros(s.start_ts, origin))
                .raw("dur", &micros(s.end_ts - s.start_ts, 0))
                .int("pid", BUILD_PID)
                .int("tid", 0);
            let mut a = String::new();
            let mut args = Obj::new(&mut a);
            args.int("step", i + 1)
                .int("pid", s.pid)
                .int("image", s.image)
                .int("trace_id", s.trace_id)
                .int("own_ns", s.end_ts - s.start_ts)
                .int("wait_ns", s.wait)
                .str("via", &s.via);
            args.end();
            o.raw("args", &a);
        })?;
    }
    Ok(())
}

/// Each track (by its `pid`): its sort index (tree order), its lifetime
/// (process_id) and its commands' names in the order they appeared.
type Named = BTreeMap<i64, (usize, i64, Vec<Vec<u8>>)>;

/// The command slices in tree order; returns the tracks they made.
fn slices(
    conn: &Connection,
    opts: &Options,
    ev: &mut Events<'_>,
    lives: &Tracks,
    critical: &HashMap<i64, i64>,
) -> Result<Named, Error> {
    let mut named = Named::new();
    each_slice(conn, opts, false, |r| {
        let process = int(&r[slice::PROCESS_ID]);
        let track = lives.of(process, int(&r[slice::PID]));
        let comm = r[slice::COMM].to_bytes();
        let seen = named.len();
        let (_, _, names) = named
            .entry(track)
            .or_insert_with(|| (seen, process, Vec::new()));
        if names.is_empty() {
            let arg = format!("{{\"sort_index\":{seen}}}");
            ev.meta("process_sort_index", track, None, &arg)?;
        }
        if !names.iter().any(|c| c[..] == comm[..]) {
            names.push(comm.to_vec());
        }
        ev.event(|o, origin| {
            o.bytes("name", &comm)
                .str("cat", "command")
                .str("ph", "X")
                .raw("ts", &micros(int(&r[slice::START]), origin))
                .raw(
                    "dur",
                    &micros(int(&r[slice::END]) - int(&r[slice::START]), 0),
                )
                .int("pid", track)
                .int("tid", int(&r[slice::TID]))
                .raw("args", &slice_args(r, critical));
        })
    })?;
    Ok(named)
}

/// The `args` of a command slice.
fn slice_args(r: &[Cell], critical: &HashMap<i64, i64>) -> String {
    let mut a = String::new();
    let mut o = Obj::new(&mut a);
    o.int("os_pid", int(&r[slice::PID]))
        .int("process_id", int(&r[slice::PROCESS_ID]))
        .int("exec_id", int(&r[slice::EXEC_ID]))
        .int("image", int(&r[slice::IMAGE]))
        .int("depth", int(&r[slice::DEPTH]));
    let mut text = |k: &str, c: &Cell| {
        if let Some(b) = c.bytes() {
            o.bytes(k, b);
        }
    };
    text("path", &r[slice::PATH]);
    text("cwd", &r[slice::CWD]);
    match &r[slice::ARGV] {
        // Stored as a JSON array of strings when every string is UTF-8.
        Cell::Text(b) if b.first() == Some(&b'[') && is_utf8(b) => {
            o.raw("argv", std::str::from_utf8(b).unwrap_or("null"));
        }
        Cell::Text(b) | Cell::Blob(b) => {
            o.bytes("argv", b);
        }
        _ => {}
    }
    for (k, c) in [
        ("exit_status", &r[slice::EXIT_STATUS]),
        ("exit_signal", &r[slice::EXIT_SIGNAL]),
    ] {
        if let Some(v) = c.int() {
            o.int(k, v);
        }
    }
    o.int("calls", int(&r[slice::CALLS]))
        .int("files", int(&r[slice::FILES]));
    if let Some(ns) = critical.get(&int(&r[slice::EXEC_ID])) {
        o.int("critical_ns", ns);
    }
    o.end();
    a
}

/// A flow arrow per fork: parent's fork call → child's first slice.
fn forks(
    conn: &Connection,
    opts: &Options,
    ev: &mut Events<'_>,
    lives: &Tracks,
) -> Result<(), Error> {
    each(conn, "timeline_forks", &opts.params(), |r| {
        let id = int(&r[0]);
        let name = r[1].to_bytes().into_owned();
        let ends = [
            (
                "s",
                lives.of(int(&r[8]), int(&r[2])),
                int(&r[3]),
                int(&r[4]),
            ),
            ("f", lives.of(id, int(&r[5])), int(&r[6]), int(&r[7])),
        ];
        for (ph, pid, tid, ts) in ends {
            ev.event(|o, origin| {
                o.bytes("name", &name)
                    .str("cat", "fork")
                    .str("ph", ph)
                    .int("id", id)
                    .raw("ts", &micros(ts, origin))
                    .int("pid", pid)
                    .int("tid", tid);
                if ph == "f" {
                    o.str("bp", "e");
                }
            })?;
        }
        Ok(())
    })
}

/// A flow arrow per producer → consumer file flow: from the producer's
/// slice at its write to the consumer's slice at its read.
fn file_flows(
    conn: &Connection,
    opts: &Options,
    ev: &mut Events<'_>,
    lives: &Tracks,
) -> Result<(), Error> {
    each(conn, "timeline_flows", &opts.params(), |r| {
        let id = int(&r[0]);
        let path = r[1].to_bytes().into_owned();
        let producer = lives.of(int(&r[10]), int(&r[3]));
        let consumer = lives.of(int(&r[11]), int(&r[7]));
        for (ph, pid, tid, ts) in [("s", producer, &r[4], &r[5]), ("f", consumer, &r[8], &r[9])] {
            ev.event(|o, origin| {
                o.bytes("name", &path)
                    .str("cat", "file")
                    .str("ph", ph)
                    .int("id", id)
                    .raw("ts", &micros(int(ts), origin))
                    .int("pid", pid)
                    .int("tid", int(tid));
                if ph == "f" {
                    o.str("bp", "e");
                }
            })?;
        }
        Ok(())
    })
}

/// The running-processes counter on track 0.
fn counter(conn: &Connection, opts: &Options, ev: &mut Events<'_>) -> Result<(), Error> {
    each(conn, "parallelism", &opts.params(), |r| {
        ev.event(|o, origin| {
            o.str("name", "running processes")
                .str("ph", "C")
                .raw("ts", &micros(int(&r[0]), origin))
                .int("pid", BUILD_PID)
                .raw("args", &format!("{{\"running\":{}}}", int(&r[1])));
        })
    })
}

/// One slice per system call, on its lifetime's track and its thread.
fn calls(
    conn: &Connection,
    opts: &Options,
    ev: &mut Events<'_>,
    lives: &Tracks,
) -> Result<(), Error> {
    let threads = Threads::load(conn, opts)?;
    let mut params = opts.params();
    params.push(("min_dur", super::opt_int(opts.min_dur)));
    let (mut stmt, context) = prepare(conn, "timeline_call_rows", &params)?;
    let ctx = |e| sql_err(context.clone())(e);
    let mut rows = stmt.raw_query();
    // Reused for every call: a --calls timeline writes millions of them.
    let mut w = CallWriter::default();
    while let Some(row) = rows.next().map_err(ctx)? {
        let col = |i| row.get_ref(i).unwrap_or(ValueRef::Null);
        let process = int_ref(col(0));
        let (track, pid) = match lives.get(process) {
            Some(t) => (t.track, t.pid),
            None => {
                let pid = pid_of(conn, process)?;
                (pid, pid)
            }
        };
        let tid = threads.tid(opt_ref(col(1)), pid);
        w.event(&Call::read(col), track, tid, ev.origin);
        ev.write(&w.buf)?;
    }
    Ok(())
}

/// The OS pid of lifetime `process_id`, for a call whose lifetime has no
/// track (the tracks and the calls are read with the same scope, so this
/// is not expected).
fn pid_of(conn: &Connection, process_id: i64) -> Result<i64, Error> {
    let sql = "SELECT pid FROM process WHERE process_id = ?1";
    conn.prepare_cached(sql)
        .and_then(|mut s| s.query_row([process_id], |r| r.get(0)))
        .map_err(|source| Error::Sqlite {
            context: format!("finding the pid of process {process_id}"),
            source,
        })
}

/// An integer value (0 for anything else, as [`int`] reads a cell).
fn int_ref(v: ValueRef<'_>) -> i64 {
    opt_ref(v).unwrap_or(0)
}

/// An integer value, or `None`.
fn opt_ref(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(i),
        _ => None,
    }
}

/// The bytes of a TEXT or BLOB value.
fn bytes_ref(v: ValueRef<'_>) -> Option<&[u8]> {
    match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(b),
        _ => None,
    }
}

/// A call as its slice shows it: a row of `queries/timeline_call_rows.sql`
/// (the columns after process_id and thread_id), borrowed from the row.
struct Call<'r> {
    name: Cow<'r, [u8]>,
    ts: i64,
    dur: i64,
    retval: Option<i64>,
    errno: Option<i64>,
    errno_name: Option<&'r [u8]>,
    failed: bool,
    unpaired: Option<&'r [u8]>,
    call_id: i64,
}

impl<'r> Call<'r> {
    /// The call of a row whose column `i` is `col(i)`.
    fn read(col: impl Fn(usize) -> ValueRef<'r>) -> Self {
        let name = match col(2) {
            ValueRef::Text(b) | ValueRef::Blob(b) => Cow::Borrowed(b),
            v => Cow::Owned(Cell::from(v).to_bytes().into_owned()),
        };
        Call {
            name,
            ts: int_ref(col(3)),
            dur: int_ref(col(4)),
            retval: opt_ref(col(5)),
            errno: opt_ref(col(6)),
            errno_name: bytes_ref(col(7)),
            failed: opt_ref(col(8)) == Some(0),
            unpaired: bytes_ref(col(9)),
            call_id: int_ref(col(10)),
        }
    }
}

/// Writes a call's slice: the fields [`Obj`] would write, in the same
/// order and bytes, with the constant keys put in as text (millions of
/// calls; the object writer's per-key work was a fifth of the Rust side).
#[derive(Default)]
struct CallWriter {
    buf: Vec<u8>,
    /// A text field that needs escaping or is not UTF-8, written by [`Obj`].
    odd: Vec<u8>,
}

impl CallWriter {
    /// The event of `c` on `track`, thread `tid`.
    fn event(&mut self, c: &Call<'_>, track: i64, tid: i64, origin: i64) {
        self.buf.clear();
        self.buf.push(b'{');
        self.text("name", &c.name);
        self.buf.extend_from_slice(if c.failed {
            b",\"cat\":\"syscall,failed\",\"ph\":\"X\",\"ts\":"
        } else {
            b",\"cat\":\"syscall\",\"ph\":\"X\",\"ts\":"
        });
        let b = &mut self.buf;
        push_micros(b, c.ts, origin);
        b.extend_from_slice(b",\"dur\":");
        push_micros(b, c.dur, 0);
        b.extend_from_slice(b",\"pid\":");
        push_int(b, track);
        b.extend_from_slice(b",\"tid\":");
        push_int(b, tid);
        b.extend_from_slice(b",\"args\":{\"call_id\":");
        push_int(b, c.call_id);
        if let Some(v) = c.retval {
            b.extend_from_slice(b",\"retval\":");
            push_int(b, v);
        }
        if c.failed {
            self.buf.push(b',');
            // The name, or `errno N` when the system's table lacks it.
            match (c.errno_name, c.errno) {
                (Some(name), _) => self.text("errno", name),
                (None, Some(n)) => self.text("errno", format!("errno {n}").as_bytes()),
                (None, None) => self.text("errno", b""),
            }
        }
        if let Some(u) = c.unpaired {
            self.buf.push(b',');
            self.text("unpaired", u);
        }
        self.buf.extend_from_slice(b"}}");
    }

    /// `"k":"v"` as [`Obj::bytes`] writes it (`k` a plain key).
    fn text(&mut self, k: &str, v: &[u8]) {
        if v.iter()
            .all(|&c| (0x20..0x7f).contains(&c) && c != b'"' && c != b'\\')
        {
            for part in [b"\"", k.as_bytes(), b"\":\""] {
                self.buf.extend_from_slice(part);
            }
            self.buf.extend_from_slice(v);
            self.buf.push(b'"');
        } else {
            self.odd.clear();
            let mut o = Obj::new(&mut self.odd);
            o.bytes(k, v);
            o.end();
            self.buf.extend_from_slice(&self.odd[1..self.odd.len() - 1]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cell as SQLite hands it over.
    fn value(c: &Cell) -> ValueRef<'_> {
        match c {
            Cell::Null => ValueRef::Null,
            Cell::Int(i) => ValueRef::Integer(*i),
            Cell::Real(f) => ValueRef::Real(*f),
            Cell::Text(b) => ValueRef::Text(b),
            Cell::Blob(b) => ValueRef::Blob(b),
        }
    }

    /// A call's slice as the object writer puts it together, field by field.
    fn call_by_obj(r: &[Cell], track: i64, origin: i64) -> String {
        let failed = r[8].int() == Some(0);
        let mut a = String::new();
        let mut args = Obj::new(&mut a);
        args.int("call_id", int(&r[10]));
        if let Some(v) = r[5].int() {
            args.int("retval", v);
        }
        if failed {
            match (r[7].bytes(), r[6].int()) {
                (Some(name), _) => args.bytes("errno", name),
                (None, Some(n)) => args.str("errno", &format!("errno {n}")),
                (None, None) => args.str("errno", ""),
            };
        }
        if let Some(u) = r[9].bytes() {
            args.bytes("unpaired", u);
        }
        args.end();
        let mut e = String::new();
        let mut o = Obj::new(&mut e);
        o.bytes("name", &r[2].to_bytes())
            .str("cat", if failed { "syscall,failed" } else { "syscall" })
            .str("ph", "X")
            .raw("ts", &micros(int(&r[3]), origin))
            .raw("dur", &micros(int(&r[4]), 0))
            .int("pid", track)
            .int("tid", int(&r[1]))
            .raw("args", &a);
        o.end();
        e
    }

    #[test]
    fn call_slices_are_what_the_object_writer_makes() {
        use Cell::{Blob, Int, Null, Text};
        let t = |s: &[u8]| Text(s.to_vec());
        let rows = [
            // pid (the test's: the track is given), tid, syscall, ts, dur,
            // retval, errno, errno_name, success, unpaired, call_id
            [
                Int(7),
                Int(100_007),
                t(b"read"),
                Int(5_000_123),
                Int(4_001),
                Int(12),
                Null,
                Null,
                Int(1),
                Null,
                Int(1),
            ],
            [
                Int(7),
                Int(7),
                t(b"open"),
                Int(999),
                Int(0),
                Int(-1),
                Int(2),
                t(b"ENOENT"),
                Int(0),
                Null,
                Int(2),
            ],
            [
                Int(8),
                Int(8),
                t(b"#555"),
                Int(1_000),
                Int(0),
                Int(-1),
                Int(99),
                Null,
                Int(0),
                Null,
                Int(3),
            ],
            [
                Int(8),
                Int(8),
                t(b"exit"),
                Int(1_000),
                Int(0),
                Null,
                Null,
                Null,
                Null,
                t(b"no return"),
                Int(4),
            ],
            [
                Int(8),
                Int(8),
                t(b"we\"ird\\"),
                Int(3),
                Int(0),
                Int(-1),
                Null,
                Null,
                Int(0),
                Blob(b"\xff\x00q".to_vec()),
                Int(5),
            ],
            [
                Int(8),
                Int(8),
                Blob(b"\xc3(".to_vec()),
                Int(3),
                Int(1),
                Null,
                Null,
                t("é\n".as_bytes()),
                Int(0),
                t(b"\x01"),
                Int(6),
            ],
        ];
        let mut w = CallWriter::default();
        for (i, r) in rows.iter().enumerate() {
            let call = Call::read(|c| value(&r[c]));
            for origin in [0, 2_000, -5] {
                w.event(&call, 40 + i as i64, int(&r[1]), origin);
                let want = call_by_obj(r, 40 + i as i64, origin);
                assert_eq!(String::from_utf8_lossy(&w.buf), want, "row {i}");
            }
        }
    }

    #[test]
    fn micros_keep_nanoseconds() {
        assert_eq!(micros(1_234_567, 0), "1234.567");
        assert_eq!(micros(5, 0), "0.005");
        assert_eq!(micros(0, 1500), "-1.500");
        let mut b = Vec::new();
        let edges = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 123_456_789_012];
        let wide = [i64::MAX / 2, i64::MIN / 2, 1_700_000_000_123_456_789];
        for ns in edges.into_iter().flat_map(|n| [n, -n]).chain(wide) {
            for origin in [0, 7, -1_000, 1_700_000_000_000_000_000] {
                b.clear();
                push_micros(&mut b, ns, origin);
                assert_eq!(b, micros(ns, origin).as_bytes(), "{ns} - {origin}");
            }
        }
    }
}
