//! The system-call slices of `kt2sql timeline --calls` in the Chrome
//! trace ([`super::chrome`]): the rows of `queries/timeline_call_rows.sql`,
//! each call's lifetime and thread mapped to its track and tid
//! ([`Tracks`], [`Threads`]: SQLite's, the recent ones cached), every event built into one
//! reused buffer (a big build makes millions of calls). It writes events
//! only; the rest of the trace is `chrome`'s.

use std::borrow::Cow;

use rusqlite::Connection;

use super::chrome::Events;
use super::tracks::{Threads, Tracks};
use super::Options;
use crate::json::json_plain;
use crate::json::Obj;
use crate::report::prepare_as;
use crate::report::row::typed_row;
use crate::schema::sql_err;
use crate::text::{push_int, push_uint};
use crate::Error;

/// One slice per system call, on its lifetime's track and its thread.
pub(super) fn write(
    conn: &Connection,
    opts: &Options,
    ev: &mut Events<'_>,
    lives: &Tracks,
) -> Result<(), Error> {
    let mut threads = Threads::new(conn)?;
    let mut params = opts.params();
    params.push(("min_dur", super::opt_int(opts.min_dur)));
    let (mut stmt, context, reader) =
        prepare_as::<Call<'static>>(conn, "timeline_call_rows", &params)?;
    let ctx = |e| sql_err(context.clone())(e);
    let mut rows = stmt.raw_query();
    // Reused for every call: a --calls timeline writes millions of them.
    let mut w = CallWriter::default();
    while let Some(row) = rows.next().map_err(ctx)? {
        let call = reader.row(row);
        let pid = threads.pid(call.process_id)?;
        let track = lives.of(call.process_id, pid);
        let tid = threads.tid(call.thread_id, pid)?;
        w.event(&call, track, tid, ev.origin);
        ev.write(&w.buf)?;
    }
    Ok(())
}

typed_row! {
    /// A call as its slice shows it: a row of
    /// `queries/timeline_call_rows.sql`, borrowed from the row.
    struct Call<'r> from "timeline_call_rows" {
        /// Its lifetime, for the track.
        process_id: i64,
        /// Its thread, for the tid (NULL: none).
        thread_id: Option<i64>,
        syscall: Cow<'r, [u8]>,
        ts: i64,
        dur: i64,
        retval: Option<i64>,
        errno: Option<i64>,
        errno_name: Option<&'r [u8]>,
        /// 0 for a failed call.
        success: Option<i64>,
        unpaired: Option<&'r [u8]>,
        call_id: i64,
    }
}

impl Call<'_> {
    /// Whether it failed.
    fn failed(&self) -> bool {
        self.success == Some(0)
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
        self.text("name", &c.syscall);
        self.buf.extend_from_slice(if c.failed() {
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
        if c.failed() {
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
        if json_plain(v) {
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

/// Append what [`super::chrome::micros`] gives, digits straight into `out` (a call's
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

#[cfg(test)]
mod tests {
    use super::super::chrome::micros;
    use super::*;
    use crate::report::{Cell, RowReader};

    /// A call's slice as the object writer puts it together, field by
    /// field, from the call as read (by name) and its tid.
    fn call_by_obj(c: &Call<'_>, track: i64, tid: i64, origin: i64) -> String {
        let failed = c.success == Some(0);
        let mut a = String::new();
        let mut args = Obj::new(&mut a);
        args.int("call_id", c.call_id);
        if let Some(v) = c.retval {
            args.int("retval", v);
        }
        if failed {
            match (c.errno_name, c.errno) {
                (Some(name), _) => args.bytes("errno", name),
                (None, Some(n)) => args.str("errno", &format!("errno {n}")),
                (None, None) => args.str("errno", ""),
            };
        }
        if let Some(u) = c.unpaired {
            args.bytes("unpaired", u);
        }
        args.end();
        let mut e = String::new();
        let mut o = Obj::new(&mut e);
        o.bytes("name", &c.syscall)
            .str("cat", if failed { "syscall,failed" } else { "syscall" })
            .str("ph", "X")
            .raw("ts", &micros(c.ts, origin))
            .raw("dur", &micros(c.dur, 0))
            .int("pid", track)
            .int("tid", tid)
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
        let columns = [
            "process_id",
            "thread_id",
            "syscall",
            "ts",
            "dur",
            "retval",
            "errno",
            "errno_name",
            "success",
            "unpaired",
            "call_id",
        ];
        let reader = RowReader::<Call<'static>>::new(&columns, "the test's rows").unwrap();
        let mut w = CallWriter::default();
        for (i, r) in rows.iter().enumerate() {
            let call = reader.cells(r);
            let tid = call.thread_id.unwrap_or(0);
            for origin in [0, 2_000, -5] {
                w.event(&call, 40 + i as i64, tid, origin);
                let want = call_by_obj(&call, 40 + i as i64, tid, origin);
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

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::Call<'static>>();
    }
}
