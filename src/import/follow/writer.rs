//! The follow's database writer, on a thread of its own: it owns the
//! connection and does, in the order sent, what the follower asks of the
//! database: batches of rows to insert and statements to run (the
//! snapshot's end and the commit, the indexes, the taking out of a
//! snapshot's rows). The follower's decoding, model and encoding overlap
//! SQLite's work on two cores, as in a one-shot import
//! ([`crate::import::pipeline`]); the channel is bounded, so the follower
//! waits when SQLite is behind and memory in between stays small.
//!
//! The first failure stops the writer: it drops its end of the channel,
//! the follower's next send fails and the follower stops;
//! [`ToWriter::close`] then gives the writer's own error.

use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::thread::JoinHandle;

use rusqlite::Connection;

use crate::load::encode::{Batch, BatchTarget};
use crate::load::writer::Writer;
use crate::schema::sql_err;
use crate::Error;

/// Jobs in flight between the follower and the writer (each batch is the
/// encoder's batch size in rows).
const IN_FLIGHT: usize = 4;

/// A statement to run on the writer's connection, in turn with the rows.
type Op = Box<dyn FnOnce(&Connection) -> Result<(), Error> + Send>;

/// What the follower sends.
enum Job {
    Rows(Batch),
    /// Rows of a snapshot, written by a writer of their own (see
    /// [`serve`]).
    Snapshot(Batch),
    Run(Op),
    /// No more: hand the connection back.
    End,
}

/// A way to send the writer jobs (one per encoder, and the follower's).
#[derive(Clone)]
pub(super) struct Sender {
    tx: SyncSender<Job>,
    /// The database, for the message when the writer is gone.
    db: PathBuf,
}

impl Sender {
    /// Have `op` run on the connection once what was sent before is
    /// written.
    pub(super) fn run(
        &self,
        op: impl FnOnce(&Connection) -> Result<(), Error> + Send + 'static,
    ) -> Result<(), Error> {
        self.tx
            .send(Job::Run(Box::new(op)))
            .map_err(|_| gone(&self.db))
    }
}

/// The writer stopped (its own error is given by [`ToWriter::close`]).
fn gone(db: &std::path::Path) -> Error {
    Error::Interrupted {
        path: db.to_owned(),
    }
}

/// The follower's hold on the writer thread.
pub(super) struct ToWriter {
    pub(super) send: Sender,
    handle: JoinHandle<(Connection, Result<(), Error>)>,
}

impl ToWriter {
    /// Start the writer on `conn` (inside its open transaction); the
    /// target of the follower's encoder, which gets written batches back.
    pub(super) fn start(
        conn: Connection,
        db: PathBuf,
        discard: bool,
    ) -> Result<(Self, Target), Error> {
        let (tx, rx) = sync_channel::<Job>(IN_FLIGHT);
        let (back_tx, back) = sync_channel::<Batch>(IN_FLIGHT);
        let handle = std::thread::Builder::new()
            .name("follow-writer".into())
            .spawn(move || serve(conn, rx, back_tx))
            .map_err(|source| Error::Io {
                path: db.clone(),
                source,
            })?;
        let send = Sender { tx, db };
        let target = Target {
            to: send.clone(),
            back: Some(back),
            snapshot: false,
            discard,
        };
        Ok((ToWriter { send, handle }, target))
    }

    /// Wait for everything sent to be done and take the connection back:
    /// the writer's first error instead, if it failed.
    pub(super) fn close(self) -> Result<Connection, Error> {
        let _ = self.send.tx.send(Job::End);
        match self.handle.join() {
            Ok((conn, Ok(()))) => Ok(conn),
            Ok((_, Err(e))) => Err(e),
            Err(_) => Err(Error::Io {
                path: self.send.db.clone(),
                source: std::io::Error::other("the follow's writer thread panicked"),
            }),
        }
    }
}

/// Where an encoder's rows go: the writer, or nowhere while a resumed
/// follow reads again what the database holds already.
pub(super) struct Target {
    pub(super) to: Sender,
    /// Written batches coming back to be filled again (the follower's own
    /// encoder; a snapshot's makes new ones).
    back: Option<Receiver<Batch>>,
    /// A snapshot's rows.
    snapshot: bool,
    pub(super) discard: bool,
}

impl Target {
    /// The target of a snapshot's encoder.
    pub(super) fn snapshot(to: &Sender, discard: bool) -> Self {
        Target {
            to: to.clone(),
            back: None,
            snapshot: true,
            discard,
        }
    }
}

impl BatchTarget for Target {
    type Error = Error;
    fn take(&mut self, mut batch: Batch) -> Result<Batch, Error> {
        if self.discard {
            batch.clear();
            return Ok(batch);
        }
        let used = self.back.as_ref().and_then(|b| b.try_recv().ok());
        let fresh = Batch::reuse_or_like(used, &batch);
        let job = if self.snapshot {
            Job::Snapshot(batch)
        } else {
            Job::Rows(batch)
        };
        self.to.tx.send(job).map_err(|_| gone(&self.to.db))?;
        Ok(fresh)
    }
}

/// The writer thread: every job in turn until [`Job::End`], the channel's
/// end, or the first error.
///
/// A [`Writer`] remembers each table's largest id (a row one above it is
/// written with a NULL id). A snapshot's rows go through a writer of
/// their own, prepared when they start and dropped at the next statement
/// (the commit that takes them out again at its end), so the follower's
/// writer never counts them: its largest ids are the table's again once
/// they are gone.
fn serve(
    conn: Connection,
    rx: Receiver<Job>,
    back: SyncSender<Batch>,
) -> (Connection, Result<(), Error>) {
    let result = (|| {
        let prepare = || Writer::prepare(&conn).map_err(sql_err("preparing INSERTs".into()));
        let mut writer = prepare()?;
        let mut snap: Option<Writer<'_>> = None;
        for job in rx {
            let batch = match job {
                Job::Rows(batch) => {
                    writer.write(&batch)?;
                    batch
                }
                Job::Snapshot(batch) => {
                    if snap.is_none() {
                        snap = Some(prepare()?);
                    }
                    snap.as_mut().expect("prepared").write(&batch)?;
                    batch
                }
                Job::Run(op) => {
                    snap = None;
                    op(&conn)?;
                    continue;
                }
                Job::End => break,
            };
            // Full: the follower has batches enough; drop this one.
            if let Err(TrySendError::Disconnected(_)) = back.try_send(batch) {
                break;
            }
        }
        Ok(())
    })();
    (conn, result)
}
