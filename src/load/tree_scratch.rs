//! Tree words ([`crate::sink::tree::TreeWords`]) for a sink with no
//! database of its own, the dataset's: held in memory up to
//! [`IN_MEMORY_PROCESSES`] processes and ordered there, as a database's
//! are; past that, moved into a scratch SQLite database (a temporary file
//! in `$TMPDIR`, gone when the store is dropped) and ordered by the same
//! sorter that orders a database's big traces ([`super::tree_order`]), so
//! memory stays bounded whatever the count.
//!
//! If the scratch file cannot be made the words stay in memory: the rows
//! are the same, only memory grows. A write that fails once the words
//! are in the file is an error of the import, said when the order is
//! asked for.

use rusqlite::{params, Connection};

use super::tree_order::{sorted_nodes, IN_MEMORY_PROCESSES};
use crate::schema::WRITER_CACHE_SIZE;
use crate::sink::tree::{InMemory, TreeImage, TreeNode, TreeProcess, TreeWords};
use crate::Error;

/// The store of one trace's tree words.
pub struct Spilling {
    trace_id: i64,
    /// Processes held in memory before the words move to the file.
    limit: usize,
    held: InMemory,
    scratch: Option<Scratch>,
    /// The scratch file could not be made: stay in memory.
    no_scratch: bool,
    /// The first write to the scratch file that failed.
    failed: Option<rusqlite::Error>,
}

/// The scratch database: its connection before its file, so that the
/// connection is closed before the file is removed.
struct Scratch {
    conn: Connection,
    file: tempfile::NamedTempFile,
}

/// Only what the sorter's walk reads of `process` and `exec`. A process's
/// rank goes where the walk reads it: `first_ts` for a root, else
/// `fork_offset` ([`TreeProcess::rank`]).
const TABLES: &str = "
    PRAGMA journal_mode = OFF;
    PRAGMA synchronous = OFF;
    CREATE TABLE process (process_id INTEGER PRIMARY KEY, trace_id INTEGER,
                          parent_exec_id INTEGER, first_ts INTEGER, fork_offset INTEGER);
    CREATE TABLE exec (exec_id INTEGER PRIMARY KEY, process_id INTEGER,
                       image INTEGER, calls_from INTEGER);
    BEGIN;";

/// The two indexes the walk goes through, made once every word is in.
const INDEXES: &str = "
    CREATE INDEX process_parent_exec ON process (parent_exec_id);
    CREATE INDEX exec_process ON exec (process_id);";

impl Spilling {
    /// The store of trace `trace_id`'s words.
    pub fn new(trace_id: i64) -> Self {
        Spilling::with_limit(trace_id, IN_MEMORY_PROCESSES as usize)
    }

    /// [`Spilling::new`], the words moving to the file past `limit`
    /// processes (or four times as many images).
    pub fn with_limit(trace_id: i64, limit: usize) -> Self {
        Spilling {
            trace_id,
            limit,
            held: InMemory::default(),
            scratch: None,
            no_scratch: false,
            failed: None,
        }
    }

    /// Whether the words are in the scratch file.
    pub fn spilled(&self) -> bool {
        self.scratch.is_some()
    }

    /// Past the limit, move the words held into a new scratch file.
    fn spill_if_full(&mut self) {
        let full = self.held.procs.len() > self.limit
            || self.held.images.len() > self.limit.saturating_mul(4);
        if !full || self.scratch.is_some() || self.no_scratch {
            return;
        }
        self.scratch = Scratch::create();
        if self.scratch.is_none() {
            self.no_scratch = true;
            return;
        }
        let held = std::mem::take(&mut self.held);
        for p in held.procs {
            self.process(p);
        }
        for i in held.images {
            self.image(i);
        }
    }

    fn keep(&mut self, done: rusqlite::Result<usize>) {
        if let Err(e) = done {
            self.failed.get_or_insert(e);
        }
    }
}

impl Scratch {
    /// A new scratch database with its tables, in a transaction; `None`
    /// if the file cannot be made.
    fn create() -> Option<Scratch> {
        let file = tempfile::NamedTempFile::new().ok()?;
        let conn = Connection::open(file.path()).ok()?;
        conn.pragma_update(None, "cache_size", WRITER_CACHE_SIZE)
            .ok()?;
        conn.execute_batch(TABLES).ok()?;
        Some(Scratch { conn, file })
    }
}

impl TreeWords for Spilling {
    fn process(&mut self, p: TreeProcess) {
        let Some(s) = &self.scratch else {
            self.held.process(p);
            return self.spill_if_full();
        };
        let (first_ts, fork_offset) = match p.parent_exec_id {
            None => (p.rank, None),
            Some(_) => (None, p.rank),
        };
        let done = s
            .conn
            .prepare_cached("INSERT INTO process VALUES (?1, ?2, ?3, ?4, ?5)")
            .and_then(|mut st| {
                st.execute(params![
                    p.process_id,
                    p.trace_id,
                    p.parent_exec_id,
                    first_ts,
                    fork_offset
                ])
            });
        self.keep(done);
    }

    fn image(&mut self, i: TreeImage) {
        let Some(s) = &self.scratch else {
            self.held.image(i);
            return self.spill_if_full();
        };
        let done = s
            .conn
            .prepare_cached("INSERT INTO exec VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut st| st.execute(params![i.exec_id, i.process_id, i.image, i.calls_from]));
        self.keep(done);
    }

    fn order(
        self: Box<Self>,
        first_pos: i64,
        calls_end: i64,
        put: &mut dyn FnMut(TreeNode),
    ) -> Result<(), Error> {
        let Spilling {
            trace_id,
            held,
            scratch,
            failed,
            ..
        } = *self;
        let Some(s) = scratch else {
            return Box::new(held).order(first_pos, calls_end, put);
        };
        let err = |source| Error::Sqlite {
            context: format!(
                "{}: the process tree's scratch database",
                s.file.path().display()
            ),
            source,
        };
        if let Some(e) = failed {
            return Err(err(e));
        }
        s.conn.execute_batch(INDEXES).map_err(err)?;
        sorted_nodes(&s.conn, trace_id, first_pos, calls_end, |n| {
            put(*n);
            Ok(())
        })
        .map_err(err)?;
        Ok(())
    }
}
