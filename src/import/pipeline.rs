//! One trace's import on two threads: the decoder, the process model and
//! the [`Encoder`] run on a scoped thread and send batches of SQL values
//! through a bounded channel; the calling thread, which owns the
//! connection, writes them. SQLite's work (the larger part) and everything
//! before it overlap on the two cores, and the channel bounds the memory in
//! between. Damage handling (skip and resynchronise) lives here too, on the
//! decoding side.
//!
//! For an import into a dataset the decoding side builds each table's
//! Arrow columns instead ([`RowColumns`]) but the call table's, whose rows
//! it hands on as they are, and the calling thread builds the call
//! columns and writes every table's into the trace's Parquet files
//! ([`decode_to_dataset`]).
//!
//! Cancellation and write errors stop the decoding thread at its next
//! batch: dropping the receiver makes its send fail.

use std::fs::File;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use rusqlite::Connection;

use super::{Damage, Progress};
use arrow_array::ArrayRef;

use crate::dataset::columns::TableColumns;
use crate::dataset::rows::{ColumnTarget, RowColumns};
use crate::dataset::TraceFiles;
use crate::decode::Decoder;
use crate::load::encode::{Batch, BatchTarget, Encoder};
use crate::load::tree_scratch::Spilling;
use crate::load::writer::Writer;
use crate::process::rows::Totals;
use crate::process::{Model, Sink};
use crate::record::{Body, Record};
use crate::schema::sql_err;
use crate::sink::reorder::HeldCall;
use crate::sink::tree::InMemory;
use crate::sink::{PathCache, TraceContext};
use crate::Error;

/// Consecutive believable records that must follow a damaged stretch
/// before decoding resumes there (fewer only where the file ends).
const RESYNC_RUN: usize = 4;
/// How far outside the time span seen so far a record may be and still
/// count as believable when looking for the end of a damaged stretch.
const RESYNC_SLACK_NS: i64 = 86_400 * 1_000_000_000;
/// Batches in flight between the threads (each is BATCH_ROWS rows).
const IN_FLIGHT: usize = 4;

/// What the decoding side hands back.
#[derive(Debug)]
pub struct Decoded {
    /// The model's counts.
    pub totals: Totals,
    /// Stretches that could not be imported.
    pub damage: Vec<Damage>,
    /// Bytes read (the offset where decoding ended).
    pub read: u64,
    /// Import issues written.
    pub issues: i64,
}

/// How a trace is loaded.
pub struct Job<'a> {
    /// The opened trace.
    pub dec: Decoder<File>,
    /// Its process model.
    pub model: Model,
    /// File size, for damage messages (0 for a pipe).
    pub size: u64,
    /// Stop at the first damage (`--strict`).
    pub strict: bool,
    /// Interned paths of the database.
    pub paths: &'a mut PathCache,
    /// The trace row's context.
    pub ctx: TraceContext,
}

/// A batch and how far decoding was when it was sent.
struct Msg<B> {
    batch: B,
    bytes: u64,
    records: u64,
}

/// The decoding side's end of the channels.
struct Channel {
    tx: SyncSender<Msg<Batch>>,
    /// Written batches coming back, to be cleared and refilled here: their
    /// values are freed on the thread that allocated them, and their
    /// capacity is reused.
    back: Receiver<Batch>,
    bytes: u64,
    records: u64,
}

/// The writing side went away (an error, or Ctrl-C).
#[derive(Debug)]
struct Stopped;

impl BatchTarget for Channel {
    type Error = Stopped;
    fn take(&mut self, batch: Batch) -> Result<Batch, Stopped> {
        let fresh = Batch::reuse_or_like(self.back.try_recv().ok(), &batch);
        let msg = Msg {
            batch,
            bytes: self.bytes,
            records: self.records,
        };
        self.tx.send(msg).map_err(|_| Stopped)?;
        Ok(fresh)
    }
}

/// What the dataset's sink hands on: one table's columns, or call rows
/// whose columns the writing side builds.
enum Part {
    Columns {
        table: usize,
        rows: usize,
        columns: Vec<ArrayRef>,
    },
    Calls(Vec<HeldCall>),
    /// The decoding side failed (the tree order's scratch file).
    Failed(Error),
}

/// The decoding side's end of a dataset import's channels.
struct ColumnChannel {
    tx: SyncSender<Msg<Part>>,
    /// Lists of call rows written, coming back to be refilled.
    back: Receiver<Vec<HeldCall>>,
    bytes: u64,
    records: u64,
}

impl ColumnChannel {
    fn send(&mut self, batch: Part) -> Result<(), Stopped> {
        let msg = Msg {
            batch,
            bytes: self.bytes,
            records: self.records,
        };
        self.tx.send(msg).map_err(|_| Stopped)
    }
}

/// The call table's columns are built on the writing side: the decoding
/// thread, which also runs the decoder and the model, is the longer of
/// the two, and the call rows are most of the rows.
impl ColumnTarget for ColumnChannel {
    type Error = Stopped;
    const CALLS_AS_ROWS: bool = true;
    fn take(&mut self, table: usize, rows: usize, columns: Vec<ArrayRef>) -> Result<(), Stopped> {
        self.send(Part::Columns {
            table,
            rows,
            columns,
        })
    }
    fn take_calls(&mut self, calls: Vec<HeldCall>) -> Result<Vec<HeldCall>, Stopped> {
        self.send(Part::Calls(calls))?;
        Ok(self.back.try_recv().unwrap_or_default())
    }
    fn failed(&mut self, e: Error) -> Stopped {
        // The writing side returns it; if that side has stopped already,
        // its own error is the one told.
        let _ = self.send(Part::Failed(e));
        Stopped
    }
}

/// The decoding side's sink: rows in, and how far decoding is.
trait Decoding: Sink<Error = Stopped> {
    /// One more record decoded, up to byte `offset`.
    fn decoded(&mut self, offset: u64);
}

impl Decoding for Encoder<'_, Channel> {
    fn decoded(&mut self, offset: u64) {
        self.target.records += 1;
        self.target.bytes = offset;
    }
}

impl Decoding for RowColumns<'_, ColumnChannel> {
    fn decoded(&mut self, offset: u64) {
        self.target.records += 1;
        self.target.bytes = offset;
    }
}

/// Decode one trace on a second thread and write its batches into `conn`
/// on this one (inside the caller's transaction).
pub fn decode_and_write(
    conn: &Connection,
    job: Job<'_>,
    progress: &dyn Progress,
) -> Result<Decoded, Error> {
    let mut writer = Writer::prepare(conn).map_err(sql_err("preparing INSERTs".into()))?;
    let (back_tx, back) = sync_channel::<Batch>(IN_FLIGHT + 1);
    on_two_threads(
        move |tx| decode(job, tx, back),
        |batch| {
            writer.write(&batch)?;
            // Back to the decoding thread to be freed or refilled; if that
            // side is done or has enough, it is dropped here.
            let _ = back_tx.try_send(batch);
            Ok(())
        },
        progress,
    )
}

/// Decode one trace on a second thread into the columns of the dataset's
/// `tables` (its call rows as they are), and build the call columns and
/// write every table's into its `files` on this one.
pub fn decode_to_dataset(
    files: &mut TraceFiles<'_>,
    tables: &[TableColumns],
    job: Job<'_>,
    progress: &dyn Progress,
) -> Result<Decoded, Error> {
    // Call rows have no paths: this side's cache stays empty.
    let mut no_paths = PathCache::default();
    let mut calls = RowColumns::new(
        tables,
        &mut no_paths,
        job.ctx,
        files,
        Box::<InMemory>::default(),
    );
    let (back_tx, back) = sync_channel::<Vec<HeldCall>>(IN_FLIGHT + 1);
    let decoded = on_two_threads(
        move |tx| decode_columns(job, tables, tx, back),
        |part| match part {
            Part::Columns {
                table,
                rows,
                columns,
            } => calls.target.write_columns(table, rows, columns),
            Part::Calls(mut rows) => {
                calls.put_calls(&rows)?;
                rows.clear();
                // Back to be refilled, or dropped if that side is done.
                let _ = back_tx.try_send(rows);
                Ok(())
            }
            Part::Failed(e) => Err(e),
        },
        progress,
    )?;
    calls.finish_calls()?;
    Ok(decoded)
}

/// Run `decode` on a second thread, named, and `write` on this one for
/// every batch it sends.
fn on_two_threads<B: Send>(
    decode: impl FnOnce(SyncSender<Msg<B>>) -> Result<Decoded, Stopped> + Send,
    write: impl FnMut(B) -> Result<(), Error>,
    progress: &dyn Progress,
) -> Result<Decoded, Error> {
    let (tx, rx) = sync_channel::<Msg<B>>(IN_FLIGHT);
    std::thread::scope(|s| {
        // Named, so profilers and debuggers tell the two sides apart.
        let decoding = std::thread::Builder::new()
            .name("kt2sql-decode".into())
            .spawn_scoped(s, move || decode(tx))
            .map_err(|source| Error::Io {
                path: "(thread)".into(),
                source,
            })?;
        // `rx` is dropped when `write_all` returns, so a decoding thread
        // blocked on a full channel wakes with an error instead of waiting
        // forever.
        let written = write_all(write, rx, progress);
        let decoded = match decoding.join() {
            Ok(decoded) => decoded,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        written?;
        // The receiver lasted until the sender was done: nothing stopped it.
        Ok(decoded.expect("decoding ran to the end"))
    })
}

/// The writing side: every batch written, until the decoding thread is
/// done, a write fails, or the user cancels.
fn write_all<B>(
    mut write: impl FnMut(B) -> Result<(), Error>,
    rx: Receiver<Msg<B>>,
    progress: &dyn Progress,
) -> Result<(), Error> {
    for msg in rx {
        write(msg.batch)?;
        progress.advance(msg.bytes, msg.records);
        if progress.cancelled() {
            return Err(Error::Interrupted {
                path: Default::default(), // named by the caller
            });
        }
    }
    Ok(())
}

/// The decoding thread: every record through the model into the encoder.
fn decode(
    job: Job<'_>,
    tx: SyncSender<Msg<Batch>>,
    back: Receiver<Batch>,
) -> Result<Decoded, Stopped> {
    let Job {
        mut dec,
        mut model,
        size,
        strict,
        paths,
        ctx,
    } = job;
    let target = Channel {
        tx,
        back,
        bytes: 0,
        records: 0,
    };
    let mut enc = Encoder::new(paths, ctx, target);
    let damage = run(&mut dec, &mut model, &mut enc, size, strict)?;
    let totals = model.finish(&mut enc)?;
    enc.flush()?;
    Ok(Decoded {
        totals,
        damage,
        read: dec.offset(),
        issues: enc.issues(),
    })
}

/// The decoding thread of a dataset import: every record through the
/// model into the columns.
fn decode_columns(
    job: Job<'_>,
    tables: &[TableColumns],
    tx: SyncSender<Msg<Part>>,
    back: Receiver<Vec<HeldCall>>,
) -> Result<Decoded, Stopped> {
    let Job {
        mut dec,
        mut model,
        size,
        strict,
        paths,
        ctx,
    } = job;
    let target = ColumnChannel {
        tx,
        back,
        bytes: 0,
        records: 0,
    };
    // Past its limit, the tree order's words go to a scratch file.
    let tree = Box::new(Spilling::new(ctx.trace_id));
    let mut sink = RowColumns::new(tables, paths, ctx, target, tree);
    let damage = run(&mut dec, &mut model, &mut sink, size, strict)?;
    let totals = model.finish(&mut sink)?;
    sink.flush()?;
    Ok(Decoded {
        totals,
        damage,
        read: dec.offset(),
        issues: sink.issues(),
    })
}

/// Feed every record to the model. A decode error (a record that breaks
/// its type's rules included) is damage: it is recorded, and decoding
/// resumes at the next run of believable records (none: the tail is lost),
/// so each damaged stretch runs exactly from the first record not imported
/// to the first imported again. With `strict`, the first damage ends it.
fn run(
    dec: &mut Decoder<File>,
    model: &mut Model,
    enc: &mut impl Decoding,
    size: u64,
    strict: bool,
) -> Result<Vec<Damage>, Stopped> {
    let mut damage = Vec::new();
    let mut span: Option<(i64, i64)> = None;
    loop {
        let (offset, why) = match dec.next_record() {
            Ok(Some(rec)) => {
                if !matches!(rec.body, Body::Start) {
                    span = Some(
                        span.map_or((rec.ts, rec.ts), |(a, b)| (a.min(rec.ts), b.max(rec.ts))),
                    );
                }
                model.record(&rec, enc)?;
                enc.decoded(dec.offset());
                continue;
            }
            Ok(None) => return Ok(damage),
            Err(e) => (e.offset, e.kind.to_string()),
        };
        if strict {
            damage.push(Damage {
                offset,
                resumed_at: None,
                why,
            });
            return Ok(damage);
        }
        // Records keep their rules (the decoder checks); within the time
        // seen so far, they are believable too.
        let believable = |r: &Record<'_>| {
            span.is_none_or(|(a, b)| {
                matches!(r.body, Body::Start)
                    || (a - RESYNC_SLACK_NS..=b + RESYNC_SLACK_NS).contains(&r.ts)
            })
        };
        let resumed_at = dec.resync(offset, RESYNC_RUN, &believable);
        model.damage(offset, resumed_at, &why, size, enc)?;
        damage.push(Damage {
            offset,
            resumed_at,
            why,
        });
        if resumed_at.is_none() {
            return Ok(damage);
        }
    }
}
