//! Where `kt2sql tree -v` gets each call's paths: every process's lookups
//! read once through `namei_process` and handed to its calls in order
//! ([`Lookups`]), not a `namei_call` probe for every call. It reads
//! lookups and paths only; the calls and their text are
//! [`super::calls`]'.

use rusqlite::{Connection, Statement};

use foldhash::{HashMap, HashMapExt};

use super::calls::Call;
use crate::report::row::{typed_row, RowReader};
use crate::schema::sql_err;
use crate::Error;

/// The lookups of each process, read once per process through
/// `namei_process` (in namei_id order) and handed to its calls as they come,
/// instead of a `namei_call` probe for every call (most calls look nothing
/// up). A process's calls come in call_id order whichever of its images
/// they belong to (its images are printed in order, each one's calls a
/// later range than the one before), so one pass over its lookups, sorted
/// by call, serves them all. Only the processes whose lookups are not all
/// handed out yet are held: a process that forks before its last image
/// keeps the rest of its lookups while its children are written.
pub(super) struct Lookups<'s> {
    stmt: Statement<'s>,
    /// Where [`Lookup`]'s columns are in `stmt`'s rows.
    reader: RowReader<Lookup<'static>>,
    /// The image of the last call given paths, its process and that
    /// process's lookups (consecutive calls are mostly of one image: the
    /// maps are asked once per image, not per call).
    image: Option<(i64, Option<i64>)>,
    current: Pending,
    /// Lookups of the other processes not handed out yet.
    open: HashMap<i64, Pending>,
    /// Emptied [`Pending`]s, reused.
    pool: Vec<Pending>,
}

/// One process's lookups: (call_id, where its path is in `bytes`), sorted
/// by call_id and, within a call, in namei_id order; `next` the first not
/// handed out.
#[derive(Default)]
struct Pending {
    items: Vec<(i64, usize, usize)>,
    bytes: Vec<u8>,
    next: usize,
}

typed_row! {
    /// A row of [`PROCESS_LOOKUPS`]: a lookup's call and the path it
    /// resolved to, borrowed from the row.
    struct Lookup<'r> {
        call_id: Option<i64>,
        path: Option<&'r [u8]>,
    }
}

/// A process's lookups with the paths they resolved to, in file order
/// (namei_id, the order of `namei_process` entries: no sorting); a lookup
/// without a call (a core file) belongs to no call's line.
const PROCESS_LOOKUPS: &str = "SELECT n.call_id, rp.path FROM namei AS n \
     JOIN path AS rp ON rp.path_id = n.resolved_id \
     WHERE n.process_id = ?1 AND n.call_id IS NOT NULL ORDER BY n.namei_id";

impl<'s> Lookups<'s> {
    /// Ready to read the lookups of any process, each when its calls come.
    pub(super) fn new(conn: &'s Connection) -> Result<Self, Error> {
        let stmt = conn
            .prepare(PROCESS_LOOKUPS)
            .map_err(sql_err(LOOKUPS_CONTEXT.to_string()))?;
        Ok(Lookups {
            reader: RowReader::of_statement(&stmt, LOOKUPS_CONTEXT)?,
            stmt,
            image: None,
            current: Pending::default(),
            open: HashMap::new(),
            pool: Vec::new(),
        })
    }

    /// Give `call`, made by image `exec_id` of process `process`, the paths
    /// it looked up, path buffers taken from `spare`.
    pub(super) fn paths_into(
        &mut self,
        exec_id: i64,
        process: i64,
        call: &mut Call,
        spare: &mut Vec<Vec<u8>>,
    ) -> Result<(), Error> {
        if self.image.is_none_or(|(e, _)| e != exec_id) {
            self.switch(exec_id, process)?;
        }
        let p = &mut self.current;
        // Lookups of calls before this one were of calls no line shows.
        while p.items.get(p.next).is_some_and(|&(c, ..)| c < call.call_id) {
            p.next += 1;
        }
        while let Some(&(_, from, to)) = p.items.get(p.next).filter(|(c, ..)| *c == call.call_id) {
            let mut v = spare.pop().unwrap_or_default();
            v.clear();
            v.extend_from_slice(&p.bytes[from..to]);
            call.paths.push(v);
            p.next += 1;
        }
        // All handed out: the buffers go back to the pool; the empty
        // `current` stays the process's, so its later calls do not read
        // its lookups again.
        if p.next == p.items.len() && p.items.capacity() > 0 {
            self.pool.push(std::mem::take(p));
        }
        Ok(())
    }

    /// Make `current` the lookups of `process`, whose image `exec_id` made
    /// the next calls, keeping the last process's.
    fn switch(&mut self, exec_id: i64, process: i64) -> Result<(), Error> {
        let process = Some(process);
        let last = self.image.and_then(|(_, p)| p);
        self.image = Some((exec_id, process));
        if last == process {
            return Ok(());
        }
        let mut p = match process {
            Some(id) => match self.open.remove(&id) {
                Some(p) => p,
                None => self.read(id)?,
            },
            None => Pending::default(),
        };
        std::mem::swap(&mut self.current, &mut p);
        // The last process keeps what it has not handed out; one with
        // nothing left is not held (should it come back, a later image
        // after its children, it reads its lookups again and passes over
        // those of the calls it has shown).
        match last {
            Some(id) if p.next < p.items.len() => {
                self.open.insert(id, p);
            }
            _ if p.items.capacity() > 0 => self.pool.push(p),
            _ => {}
        }
        Ok(())
    }

    /// Read `process`'s lookups, sorted by call.
    fn read(&mut self, process: i64) -> Result<Pending, Error> {
        let mut p = self.pool.pop().unwrap_or_default();
        p.items.clear();
        p.bytes.clear();
        p.next = 0;
        let ctx = |e| sql_err(LOOKUPS_CONTEXT.to_string())(e);
        let mut rows = self.stmt.query([process]).map_err(ctx)?;
        while let Some(row) = rows.next().map_err(ctx)? {
            let Lookup {
                call_id: Some(call),
                path: Some(path),
            } = self.reader.row(row)
            else {
                continue;
            };
            let from = p.bytes.len();
            p.bytes.extend_from_slice(path);
            p.items.push((call, from, p.bytes.len()));
        }
        // A call's lookups are numbered when it ends: calls of threads
        // that overlap end out of order. A stable sort keeps each call's
        // in file order.
        if !p.items.is_sorted_by_key(|&(c, ..)| c) {
            p.items.sort_by_key(|&(c, ..)| c);
        }
        Ok(p)
    }
}

/// Names the per-process lookup query in errors.
const LOOKUPS_CONTEXT: &str = "reading a process's lookups for tree -v";
