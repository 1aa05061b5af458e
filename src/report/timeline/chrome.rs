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
//!   `args`; `args.critical_ns` on the commands of the critical path. A
//!   command still running at the snapshot of a trace `import --follow`
//!   still follows is drawn to the snapshot (the trace's latest record),
//!   with `args.running` true.
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

use std::io::Write;

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use super::critical;
use super::flows::{self, Flow};
use super::path::{Commands, Path};
use super::tracks::{self, Tracks};
use super::{each_slice, out_err, Options, Running, Slice};
use crate::json::Obj;
use crate::report::each_as;
use crate::report::row::typed_row;
use crate::text::{is_utf8, Digits};
use crate::Error;

/// The pid of the synthetic track holding the counter and the critical path.
pub const BUILD_PID: i64 = 0;

/// Writes events, one per line, separated by commas.
pub(super) struct Events<'w> {
    out: &'w mut dyn Write,
    /// The scope's first process start (ns): `ts` 0.
    pub(super) origin: i64,
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
    pub(super) fn write(&mut self, event: &[u8]) -> Result<(), Error> {
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

/// Write the Chrome Trace Event JSON of `opts` to `out`.
pub fn write(conn: &Connection, opts: &Options, out: &mut dyn Write) -> Result<(), Error> {
    let origin = critical::origin(conn, opts.scope)?;
    let flows = flows::load(conn, opts)?;
    let traces = critical::traces(conn, opts.scope)?;
    let deps = critical::Deps::of(&flows);
    let path = Path::walk(conn, opts.scope, &traces, &deps)?;
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
    build_track(&mut ev, &path)?;
    slices(conn, opts, &mut ev, &lives, &mut path.commands()?)?;
    forks(conn, opts, &mut ev, &lives)?;
    file_flows(&flows, &mut ev, &lives)?;
    counter(conn, opts, &mut ev)?;
    if opts.calls {
        super::calls::write(conn, opts, &mut ev, &lives)?;
    }
    // Track names, in track order: the lifetime's commands in the order
    // they appeared, then which lifetime of a shared pid it is.
    tracks::each_name(conn, opts, |t, process, names| {
        let mut name = names.join(&b" \xe2\x86\x92 "[..]);
        if t.shared() {
            let (p, k, n) = (t.pid, t.lifetime, t.lifetimes);
            name.extend(format!(" (pid {p}, lifetime {k} of {n})").bytes());
        }
        let mut a = String::new();
        let mut args = Obj::new(&mut a);
        args.bytes("name", &name)
            .int("os_pid", t.pid)
            .int("trace_id", t.trace_id)
            .int("process_id", process)
            .int("lifetime", t.lifetime)
            .int("lifetimes", t.lifetimes);
        args.end();
        ev.meta("process_name", t.track, None, &a)
    })?;
    writeln!(ev.out, "\n]}}").map_err(out_err)
}

/// Track 0: its names, the critical path's slices.
fn build_track(ev: &mut Events<'_>, path: &Path<'_>) -> Result<(), Error> {
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
    path.each(|n, s| {
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
            args.int("step", n)
                .int("pid", s.pid)
                .int("image", s.image)
                .int("trace_id", s.trace_id)
                .int("own_ns", s.end_ts - s.start_ts)
                .int("wait_ns", s.wait)
                .str("via", &s.via);
            args.end();
            o.raw("args", &a);
        })
    })
}

/// The command slices in tree order, each track's sort index (its place
/// in that order) before its first slice.
fn slices(
    conn: &Connection,
    opts: &Options,
    ev: &mut Events<'_>,
    lives: &Tracks,
    critical: &mut Commands<'_>,
) -> Result<(), Error> {
    // The lifetimes seen so far, a bit per process_id (dense from 1).
    let mut seen = BitSet::default();
    let mut tracks = 0usize;
    each_slice(conn, opts, false, |r| {
        let process = r.process_id;
        let track = lives.of(process, r.pid);
        let comm = &r.comm;
        if seen.insert(process) {
            let arg = format!("{{\"sort_index\":{tracks}}}");
            tracks += 1;
            ev.meta("process_sort_index", track, None, &arg)?;
        }
        let own = critical.own(r.exec_id)?;
        ev.event(|o, origin| {
            o.bytes("name", comm)
                .str("cat", "command")
                .str("ph", "X")
                .raw("ts", &micros(r.start_ts, origin))
                .raw("dur", &micros(r.end_ts - r.start_ts, 0))
                .int("pid", track)
                .int("tid", r.tid)
                .raw("args", &slice_args(&r, own));
        })
    })
}

/// A set of ids, a bit each up to the largest (process_ids are numbered
/// from 1 without gaps: an eighth of a byte per lifetime).
#[derive(Default)]
struct BitSet(Vec<u64>);

impl BitSet {
    /// Add `id`; whether it was new. A negative id is never held (always new).
    fn insert(&mut self, id: i64) -> bool {
        let Ok(id) = usize::try_from(id) else {
            return true;
        };
        let (word, bit) = (id / 64, 1u64 << (id % 64));
        if word >= self.0.len() {
            self.0.resize(word + 1, 0);
        }
        let new = self.0[word] & bit == 0;
        self.0[word] |= bit;
        new
    }
}

/// The `args` of a command slice.
fn slice_args(r: &Slice<'_>, critical_ns: Option<i64>) -> String {
    let mut a = String::new();
    let mut o = Obj::new(&mut a);
    o.int("os_pid", r.pid)
        .int("process_id", r.process_id)
        .int("exec_id", r.exec_id)
        .int("image", r.image)
        .int("depth", r.depth);
    for (k, text) in [("path", r.path), ("cwd", r.cwd)] {
        if let Some(b) = text {
            o.bytes(k, b);
        }
    }
    match r.argv {
        // Stored as a JSON array of strings when every string is UTF-8.
        ValueRef::Text(b) if b.first() == Some(&b'[') && is_utf8(b) => {
            o.raw("argv", std::str::from_utf8(b).unwrap_or("null"));
        }
        ValueRef::Text(b) | ValueRef::Blob(b) => {
            o.bytes("argv", b);
        }
        _ => {}
    }
    for (k, v) in [
        ("exit_status", r.exit_status),
        ("exit_signal", r.exit_signal),
    ] {
        if let Some(v) = v {
            o.int(k, v);
        }
    }
    o.int("calls", r.calls).int("files", r.files);
    if r.running.is_some() {
        o.raw("running", "true");
    }
    if let Some(ns) = critical_ns {
        o.int("critical_ns", ns);
    }
    o.end();
    a
}

typed_row! {
    /// A row of `queries/timeline_forks.sql`: a fork, from the parent's
    /// call to the child's first record.
    struct Fork from "timeline_forks" {
        process_id: i64,
        fork_syscall: Vec<u8>,
        parent_pid: i64,
        parent_tid: i64,
        fork_ts: i64,
        pid: i64,
        tid: i64,
        first_ts: i64,
        parent_id: i64,
    }
}

/// A flow arrow per fork: parent's fork call → child's first slice.
fn forks(
    conn: &Connection,
    opts: &Options,
    ev: &mut Events<'_>,
    lives: &Tracks,
) -> Result<(), Error> {
    each_as::<Fork>(conn, "timeline_forks", &opts.params(), |r| {
        let id = r.process_id;
        let name = r.fork_syscall;
        let ends = [
            (
                "s",
                lives.of(r.parent_id, r.parent_pid),
                r.parent_tid,
                r.fork_ts,
            ),
            ("f", lives.of(id, r.pid), r.tid, r.first_ts),
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
fn file_flows(flows: &[Flow], ev: &mut Events<'_>, lives: &Tracks) -> Result<(), Error> {
    for f in flows {
        let producer = lives.of(f.producer_process, f.producer_pid);
        let consumer = lives.of(f.consumer_process, f.consumer_pid);
        let ends = [
            ("s", producer, f.producer_tid, f.write_ts),
            ("f", consumer, f.consumer_tid, f.read_ts),
        ];
        for (ph, pid, tid, ts) in ends {
            ev.event(|o, origin| {
                o.bytes("name", &f.path)
                    .str("cat", "file")
                    .str("ph", ph)
                    .int("id", f.id)
                    .raw("ts", &micros(ts, origin))
                    .int("pid", pid)
                    .int("tid", tid);
                if ph == "f" {
                    o.str("bp", "e");
                }
            })?;
        }
    }
    Ok(())
}

/// The running-processes counter on track 0.
fn counter(conn: &Connection, opts: &Options, ev: &mut Events<'_>) -> Result<(), Error> {
    each_as::<Running>(conn, "parallelism", &opts.params(), |r| {
        ev.event(|o, origin| {
            o.str("name", "running processes")
                .str("ph", "C")
                .raw("ts", &micros(r.ts, origin))
                .int("pid", BUILD_PID)
                .raw("args", &format!("{{\"running\":{}}}", r.running));
        })
    })
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::Fork>();
    }
}
