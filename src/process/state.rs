//! The model's state: the trace-wide [`TraceState`] every handler shares
//! (name table, ids, totals, issues, outstanding forks), and the live
//! processes with their threads and pending calls.

use std::collections::BTreeMap;
use std::hash::BuildHasher;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::rows::{
    Access, End, IdBase, IssueKind, IssueRow, ProcessRow, Resolution, Severity, Sink,
    SyscallStatRow, Totals,
};
use super::syscall::{effect, Effect};
use crate::names::{FdEffects, Numbering};
use crate::record::MAX_ARGS;

/// Import issues of one kind written as rows before the rest are only counted.
const ISSUES_PER_KIND: u32 = 100;

/// The state of one trace that every record handler shares besides the
/// process it works on; the handlers are its methods (in `handle/`).
#[derive(Clone)]
pub struct TraceState {
    /// Name table of the dialect.
    pub names: Numbering,
    /// What its opens and fcntls do to descriptors.
    pub fd_effects: FdEffects,
    /// Keep GIO data bytes.
    pub keep_io_data: bool,
    /// Next ids.
    pub ids: IdBase,
    /// Counters.
    pub totals: Totals,
    /// Fork-family and posix_spawn calls of live processes awaiting their
    /// RET: while any is, a pid never seen before may be their child.
    pub fork_calls: Vec<ForkCall>,
    /// Fork-family calls that got no RET (lost, or cut off): their child can
    /// still be claimed by the parent's wait RET.
    pub lost_forks: Vec<ForkCall>,
    /// Distinct absolute paths successful calls looked up, over the trace,
    /// by [`FileKey`].
    pub files: HashSet<FileKey>,
    /// The seed of every [`FileKey`] of this trace.
    file_seed: foldhash::quality::RandomState,
    /// The syscall_stat row of each syscall number, over the trace.
    pub syscalls: BTreeMap<i32, SyscallStatRow>,
    /// Issues seen per kind (to cap the rows written).
    issue_counts: HashMap<IssueKind, u32>,
}

impl TraceState {
    /// A fresh context.
    pub fn new(names: Numbering, keep_io_data: bool, ids: IdBase) -> Self {
        TraceState {
            names,
            fd_effects: FdEffects::of(names),
            keep_io_data,
            ids,
            totals: Totals::default(),
            fork_calls: Vec::new(),
            lost_forks: Vec::new(),
            files: HashSet::new(),
            file_seed: foldhash::quality::RandomState::default(),
            syscalls: BTreeMap::new(),
            issue_counts: HashMap::new(),
        }
    }

    /// Record an issue; past ISSUES_PER_KIND of one kind only count it.
    pub fn issue<S: Sink>(
        &mut self,
        sink: &mut S,
        severity: Severity,
        kind: IssueKind,
        offset: Option<u64>,
        process_id: Option<i64>,
        message: impl FnOnce() -> String,
    ) -> Result<(), S::Error> {
        let n = self.issue_counts.entry(kind).or_default();
        *n += 1;
        if *n > ISSUES_PER_KIND {
            return Ok(());
        }
        self.totals.issues += 1;
        sink.issue(&IssueRow {
            offset,
            severity,
            kind,
            message: message(),
            process_id,
        })
    }

    /// One summary issue per kind whose rows were capped.
    pub fn summarise_capped<S: Sink>(&mut self, sink: &mut S) -> Result<(), S::Error> {
        let mut capped: Vec<(IssueKind, u32)> = self
            .issue_counts
            .iter()
            .filter(|(_, &n)| n > ISSUES_PER_KIND)
            .map(|(&k, &n)| (k, n))
            .collect();
        capped.sort();
        for (kind, n) in capped {
            self.totals.issues += 1;
            sink.issue(&IssueRow {
                offset: None,
                severity: Severity::Info,
                kind,
                message: format!(
                    "{} more '{}' issues not listed ({n} in all)",
                    n - ISSUES_PER_KIND,
                    kind.as_str()
                ),
                process_id: None,
            })?;
        }
        Ok(())
    }

    /// The key that stands for absolute path `path` in the file sets.
    pub fn file_key(&self, path: &[u8]) -> FileKey {
        self.file_seed.hash_one(path)
    }

    /// Whether syscall number `code` is a fork-family call.
    pub fn is_fork(&self, code: i32) -> bool {
        crate::names::syscall_name(self.names, code.into())
            .is_some_and(|n| effect(n) == Effect::Fork)
    }

    /// A fresh id from `counter`.
    pub fn next(counter: &mut i64) -> i64 {
        let id = *counter;
        *counter += 1;
        id
    }
}

/// A path in the file sets, which only count distinct paths: its 64-bit
/// hash under a seed drawn per trace, not its bytes, so that millions of
/// paths cost 8 bytes each (issue #12: 2 M distinct paths). Two paths that
/// collide (odds about n²/2⁶⁵; a trace cannot aim at the random seed) are
/// counted as one.
pub type FileKey = u64;

/// A fork-family or spawn call, by the process that made it.
#[derive(Debug, Clone)]
pub struct ForkCall {
    /// The parent's pid.
    pub pid: i64,
    /// The parent's lifetime (`process_id`).
    pub process_id: i64,
    /// The call (`call_id`).
    pub call_id: i64,
    /// Syscall name.
    pub name: &'static str,
    /// CALL time and file offset.
    pub ts: i64,
    /// CALL file offset.
    pub offset: u64,
    /// The parent's image at the CALL (`exec_id`).
    pub image_id: i64,
}

impl ForkCall {
    /// Call `call_id` (`name`) of `p`, made at `ts`/`offset` from its
    /// current image.
    pub fn new(p: &Proc, call_id: i64, name: &'static str, ts: i64, offset: u64) -> Self {
        ForkCall {
            pid: p.row.pid,
            process_id: p.row.id,
            call_id,
            name,
            ts,
            offset,
            image_id: p.image_id,
        }
    }

    /// The pending call `c` of `p` (named `name` when its number is unknown).
    pub fn of(p: &Proc, c: &Pending, name: &'static str) -> Self {
        ForkCall {
            image_id: c.image_id,
            ..ForkCall::new(p, c.call_id, c.name.unwrap_or(name), c.ts, c.offset)
        }
    }
}

/// The lookups a pending call holds, at most. A lookup's row says whether
/// its call succeeded (`namei.success`), which the RET tells after the
/// NAMI records; no real call makes more than a few lookups, so this only
/// bounds the memory a damaged or hostile trace can take (a million NAMI
/// records in one call): the lookups past it are written at once, their
/// success unknown.
pub const HELD_LOOKUPS: usize = 16;

/// A lookup of a pending call, held until the call ends so that its row
/// can say whether the call succeeded. Its `seq` is its place among the
/// call's held lookups; its id, process, call and image are given when it
/// is written.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldLookup {
    /// Record time.
    pub ts: i64,
    /// File offset of the NAMI record.
    pub offset: u64,
    /// Command name on the record.
    pub comm: Vec<u8>,
    /// Path as recorded.
    pub path: Vec<u8>,
    /// The resolved path.
    pub resolved: Vec<u8>,
    /// How it was resolved.
    pub resolution: Resolution,
    /// What the call did to the path.
    pub access: Access,
}

/// A call whose RET has not come yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// Its `call_id`.
    pub call_id: i64,
    /// Syscall number.
    pub code: i32,
    /// Syscall name.
    pub name: Option<&'static str>,
    /// What it does to the model.
    pub effect: Effect,
    /// Argument count (inline words are `args[..min(nargs, MAX_ARGS)]`).
    pub nargs: usize,
    /// Argument words.
    pub args: [u64; MAX_ARGS],
    /// CALL time.
    pub ts: i64,
    /// CALL offset.
    pub offset: u64,
    /// NAMI records seen so far.
    pub namei: usize,
    /// First looked-up path (raw, resolved, absolute?), kept for the calls
    /// whose effect needs it.
    pub first_path: Option<(Vec<u8>, Vec<u8>, bool)>,
    /// Absolute paths it looked up, counted as files if it succeeds.
    pub lookups: Vec<FileKey>,
    /// Its first [`HELD_LOOKUPS`] lookups, written when it ends.
    pub held: Vec<HeldLookup>,
    /// exec argv collected from ARGS records.
    pub argv: Option<Vec<u8>>,
    /// exec environment collected from ENV records.
    pub envp: Option<Vec<u8>>,
    /// The process's image at the CALL (`exec_id`): the image that made it.
    pub image_id: i64,
    /// An exec passed its point of no return: a PROCCTOR/EMUL or the new
    /// command name was seen while it was pending (what makes a lost exec
    /// RET visible).
    pub exec_evidence: bool,
}

impl Pending {
    /// The inline argument words.
    pub fn args(&self) -> &[u64] {
        &self.args[..self.nargs.min(MAX_ARGS)]
    }

    /// Argument `i` as an int (fd, AT_FDCWD, fcntl command).
    pub fn int_arg(&self, i: usize) -> Option<i64> {
        self.args().get(i).map(|&w| i64::from(w as u32 as i32))
    }
}

/// One thread of a live process.
#[derive(Debug, Clone, PartialEq)]
pub struct Thread {
    /// `thread_id` (None where the dialect has no tids).
    pub id: Option<i64>,
    /// OS tid (0 when none).
    pub tid: i64,
    /// First record's time.
    pub first_ts: i64,
    /// Last record's time.
    pub last_ts: i64,
    /// Records.
    pub records: i64,
    /// Calls awaiting their RET (more than one only without tids).
    pub pending: Vec<Pending>,
}

/// One live process lifetime.
#[derive(Debug, Clone, PartialEq)]
pub struct Proc {
    /// Its row, filled as records come.
    pub row: ProcessRow,
    /// A record of it has been seen (first_ts is real).
    pub seen: bool,
    /// Current command name.
    pub comm: Vec<u8>,
    /// Working directory, when known.
    pub cwd: Option<Vec<u8>>,
    /// fds bound to a known absolute path.
    pub fds: HashMap<i32, Vec<u8>>,
    /// Threads by tid (0 when the dialect has none).
    pub threads: HashMap<i64, Thread>,
    /// exec rows written so far (the inherited image is 0).
    pub exec_seq: i64,
    /// Successful execs so far: the number of the current image.
    pub image: i64,
    /// `exec_id` of the current image.
    pub image_id: i64,
    /// Distinct absolute paths its successful calls looked up.
    pub files: HashSet<FileKey>,
    /// `exit` called or killed: the lifetime ends here, or at the PROCDTOR
    /// that follows on FreeBSD.
    pub exiting: bool,
    /// PROCDTOR seen: the lifetime ends after this record.
    pub dead: bool,
    /// Mac OS X vfork: an exec completed by the parent's RET whose row waits
    /// for the child's next record, the first to carry the new comm. Boxed:
    /// rare, and every live process would carry its room (issue #12).
    pub awaiting_comm: Option<Box<AwaitingExec>>,
}

/// An exec row whose command name is not known yet.
#[derive(Debug, Clone, PartialEq)]
pub struct AwaitingExec {
    /// `exec_id`.
    pub id: i64,
    /// `exec.seq`.
    pub seq: i64,
    /// The image number.
    pub image: i64,
    /// The time it took effect.
    pub ts: i64,
    /// The exec call.
    pub call_id: i64,
    /// `exec.calls_from`.
    pub calls_from: i64,
    /// Program path as passed, and resolved.
    pub path: Option<(Vec<u8>, Vec<u8>)>,
    /// argv and environment, where recorded.
    pub argv: Option<Vec<u8>>,
    /// Environment, where recorded.
    pub envp: Option<Vec<u8>>,
    /// cwd at the exec.
    pub cwd: Option<Vec<u8>>,
}

impl Proc {
    /// Something showed that this lifetime is ending: the first such
    /// evidence says how and when; records may still follow (a core file's
    /// NAMI, other threads' RETs, FreeBSD's PROCDTOR).
    pub fn end(&mut self, how: End, ts: i64) {
        if self.row.end_seen_by.is_none() {
            self.row.end_seen_by = Some(how);
            self.row.exit_ts = Some(ts);
        }
        self.row.exit_seen = true;
        self.exiting = true;
    }

    /// A new lifetime of `pid`.
    pub fn new(id: i64, pid: i64, comm: &[u8], ts: i64) -> Self {
        Proc {
            row: ProcessRow {
                id,
                pid,
                running_at_start: true,
                first_comm: comm.to_vec(),
                last_comm: comm.to_vec(),
                first_ts: ts,
                last_ts: ts,
                // Nothing else is known yet: no parent, no end, no counts.
                ..ProcessRow::default()
            },
            seen: false,
            comm: comm.to_vec(),
            cwd: None,
            fds: HashMap::new(),
            threads: HashMap::new(),
            exec_seq: 0,
            image: 0,
            image_id: 0,
            files: HashSet::new(),
            exiting: false,
            dead: false,
            awaiting_comm: None,
        }
    }
}

impl TraceState {
    /// Count one call `p` made: `dur` when both halves are known,
    /// `succeeded` when it returned (`None` without a return); `lookups` are
    /// the absolute paths it looked up.
    pub fn tally_call(
        &mut self,
        p: &mut Proc,
        code: i32,
        syscall: Option<&'static str>,
        dur: Option<i64>,
        succeeded: Option<bool>,
        lookups: Vec<FileKey>,
    ) {
        let s = self.syscalls.entry(code).or_insert_with(|| SyscallStatRow {
            code,
            syscall,
            ..SyscallStatRow::default()
        });
        s.calls += 1;
        p.row.calls += 1;
        match succeeded {
            None => s.no_return += 1,
            Some(false) => {
                s.failed += 1;
                p.row.failed_calls += 1;
            }
            Some(true) => p.files.extend(lookups),
        }
        if let Some(d) = dur {
            s.timed += 1;
            s.total_dur += d;
            s.max_dur = Some(s.max_dur.map_or(d, |m| m.max(d)));
        }
    }

    /// Count one call row that is a child's return (`child return`): in
    /// the syscall's `child_returns`, not in its calls nor the process's.
    pub fn tally_child_return(&mut self, code: i32, syscall: Option<&'static str>) {
        self.syscalls
            .entry(code)
            .or_insert_with(|| SyscallStatRow {
                code,
                syscall,
                ..SyscallStatRow::default()
            })
            .child_returns += 1;
    }

    /// `p` ended: count its files and add them to the trace's.
    pub fn tally_process(&mut self, p: &mut Proc) {
        p.row.files = p.files.len() as i64;
        // Merge the smaller set into the larger: one process that looked up
        // millions of paths (issue #12) is not held twice.
        if self.files.len() < p.files.len() {
            std::mem::swap(&mut self.files, &mut p.files);
        }
        self.files.extend(std::mem::take(&mut p.files));
    }

    /// The trace ended: write its syscall_stat rows.
    pub fn write_syscall_stats<S: Sink>(&self, sink: &mut S) -> Result<(), S::Error> {
        self.syscalls
            .values()
            .try_for_each(|s| sink.syscall_stat(s))
    }
}
