//! The live process lifetimes, by pid, and the policy that keeps memory
//! bounded: up to a limit they stay in memory; past it, the least recently
//! used half is written to the [`SpillFile`], and a spilled process is read
//! back when it is next asked for. A trace of millions of processes that
//! never exit (issue #12) then costs the model a map entry (pid → file
//! offset) per process instead of a whole `Proc`. Builds never come near
//! the limit, so ordinary imports never touch the file. The file's bytes
//! and records are [`super::spill`]'s.
//!
//! Knows nothing of records or rows. A failure of the file is kept in
//! [`Live::failure`] for the model to report; it never stops the import.

use std::io;

use foldhash::{HashMap, HashMapExt};

use super::spill::SpillFile;
use super::state::Proc;

/// Live processes kept in memory before the idle half is spilled: about
/// 20 MB of them at the 1.3 KB a quiet process takes.
pub const IN_MEMORY: usize = 16 << 10;

/// The live lifetimes by pid.
pub struct Live {
    hot: HashMap<i64, Hot>,
    /// Spilled processes: pid → offset of their record in the file.
    cold: HashMap<i64, u64>,
    file: Option<SpillFile>,
    limit: usize,
    /// Ticks at every use, to find the least recently used.
    clock: u64,
    /// Writing failed once: spilling is off.
    stopped: bool,
    /// The first failure of the spill file, for the model to report.
    pub failure: Option<Failure>,
}

/// A process in memory and when it was last used.
#[derive(Clone)]
struct Hot {
    used: u64,
    proc: Box<Proc>,
}

/// The live lifetimes left at the end of the trace, newest last (popped
/// from the back): those in memory by pid, the spilled ones by offset.
pub struct EndOrder {
    hot: Vec<(i64, i64)>,
    cold: Vec<(i64, u64)>,
}

impl EndOrder {
    /// The next lifetime, oldest first; `None` when all are taken.
    pub fn next(&mut self, live: &mut Live) -> Option<Box<Proc>> {
        loop {
            let hot_first = match (self.hot.last(), self.cold.last()) {
                (None, None) => return None,
                (Some(h), Some(c)) => h.0 < c.0,
                (h, _) => h.is_some(),
            };
            if hot_first {
                let (_, pid) = self.hot.pop()?;
                if let Some(h) = live.hot.remove(&pid) {
                    return Some(h.proc);
                }
            } else {
                let (_, off) = self.cold.pop()?;
                match live.read(off) {
                    Ok(p) => return Some(p),
                    Err(e) => live.lost(None, e),
                }
            }
        }
    }
}

/// What went wrong with the spill file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Writing failed: nothing was lost, spilling stopped (memory grows).
    Write(String),
    /// Reading back failed: the state of a live process is lost.
    Read {
        /// The process's pid, when known.
        pid: Option<i64>,
        /// Why.
        error: String,
    },
}

/// A copy of the lifetimes in memory, for a snapshot (`import --follow`,
/// whose model keeps every live process in memory: nothing is spilled, so
/// the copy is whole). The copy never spills.
impl Clone for Live {
    fn clone(&self) -> Live {
        debug_assert!(self.cold.is_empty(), "a spilled model is not copied");
        Live {
            hot: self.hot.clone(),
            cold: HashMap::new(),
            file: None,
            limit: usize::MAX,
            clock: self.clock,
            stopped: true,
            failure: None,
        }
    }
}

impl Live {
    /// Whether `f` holds for every live lifetime (false while some are
    /// spilled).
    pub fn all(&self, f: impl Fn(&Proc) -> bool) -> bool {
        self.cold.is_empty() && self.hot.values().all(|h| f(&h.proc))
    }

    /// An empty map that keeps up to `limit` processes in memory (at least 2).
    pub fn new(limit: usize) -> Live {
        Live {
            hot: HashMap::new(),
            cold: HashMap::new(),
            file: None,
            limit: limit.max(2),
            clock: 0,
            stopped: false,
            failure: None,
        }
    }

    /// Whether `pid` has a live lifetime.
    pub fn contains(&self, pid: i64) -> bool {
        self.hot.contains_key(&pid) || self.cold.contains_key(&pid)
    }

    /// The live lifetime of `pid`.
    pub fn get(&mut self, pid: i64) -> Option<&Proc> {
        self.get_mut(pid).map(|p| &*p)
    }

    /// The live lifetime of `pid`, read back if it was spilled.
    pub fn get_mut(&mut self, pid: i64) -> Option<&mut Proc> {
        if !self.hot.contains_key(&pid) {
            let p = self.unspill(pid)?;
            self.insert(pid, p);
        }
        self.clock += 1;
        let h = self.hot.get_mut(&pid)?;
        h.used = self.clock;
        Some(&mut h.proc)
    }

    /// Make `p` the live lifetime of `pid`.
    pub fn insert(&mut self, pid: i64, p: Box<Proc>) {
        self.forget_cold(pid);
        self.clock += 1;
        self.hot.insert(
            pid,
            Hot {
                used: self.clock,
                proc: p,
            },
        );
        if self.hot.len() > self.limit {
            self.spill_idle();
        }
    }

    /// Take the live lifetime of `pid` out.
    pub fn remove(&mut self, pid: i64) -> Option<Box<Proc>> {
        match self.hot.remove(&pid) {
            Some(h) => Some(h.proc),
            None => self.unspill(pid),
        }
    }

    /// Take every live lifetime out, in the order they began (by
    /// `process_id`), through [`EndOrder::next`]. Spilled ones are read
    /// back one at a time, their map freed first.
    pub fn end_order(&mut self) -> EndOrder {
        let mut hot: Vec<(i64, i64)> = self
            .hot
            .iter()
            .map(|(&pid, h)| (h.proc.row.id, pid))
            .collect();
        hot.sort_unstable_by(|a, b| b.cmp(a));
        // Front to back through the file, each offset's pid replaced by
        // its process's id in place: the list is all that stays in memory.
        let mut cold: Vec<(i64, u64)> = std::mem::take(&mut self.cold).into_iter().collect();
        cold.sort_unstable_by_key(|&(_, off)| off);
        cold.retain_mut(|e| match self.peek_id(e.1) {
            Ok(id) => {
                e.0 = id;
                true
            }
            Err(err) => {
                self.lost(Some(e.0), err);
                false
            }
        });
        cold.sort_unstable_by(|a, b| b.cmp(a));
        EndOrder { hot, cold }
    }

    /// The `process_id` of the record at `off`, without decoding the rest:
    /// a `Proc`'s form begins with its row, and the row with its id.
    fn peek_id(&mut self, off: u64) -> io::Result<i64> {
        self.file()?.peek(off)
    }

    fn unspill(&mut self, pid: i64) -> Option<Box<Proc>> {
        let off = self.cold.remove(&pid)?;
        match self.file().and_then(|f| f.take(off)) {
            Ok(p) => Some(Box::new(p)),
            Err(e) => {
                self.lost(Some(pid), e);
                None
            }
        }
    }

    /// Drop the spilled record of `pid`, if any: its bytes are dead.
    fn forget_cold(&mut self, pid: i64) {
        if let (Some(off), Some(f)) = (self.cold.remove(&pid), self.file.as_mut()) {
            f.forget(off);
        }
    }

    fn lost(&mut self, pid: Option<i64>, e: io::Error) {
        self.failure.get_or_insert(Failure::Read {
            pid,
            error: e.to_string(),
        });
    }

    /// Read the record at `off`, at the end of the trace.
    fn read(&mut self, off: u64) -> io::Result<Box<Proc>> {
        self.file()?.read(off).map(Box::new)
    }

    fn file(&mut self) -> io::Result<&mut SpillFile> {
        self.file
            .as_mut()
            .ok_or_else(|| io::Error::other("no spill file"))
    }

    /// Write the least recently used half of the processes in memory to
    /// the file. On a write failure they stay in memory and spilling stops.
    fn spill_idle(&mut self) {
        if self.stopped {
            return;
        }
        let mut used: Vec<u64> = self.hot.values().map(|h| h.used).collect();
        let mid = used.len() / 2;
        let (_, &mut cut, _) = used.select_nth_unstable(mid);
        let mut idle: Vec<i64> = self
            .hot
            .iter()
            .filter(|(_, h)| h.used < cut)
            .map(|(&pid, _)| pid)
            .collect();
        // In the order they began, which is the order the end of the trace
        // reads them back in.
        idle.sort_unstable_by_key(|pid| self.hot[pid].proc.row.id);
        if let Err(e) = self.write(&idle) {
            self.stopped = true;
            self.failure.get_or_insert(Failure::Write(e.to_string()));
        }
    }

    /// Move `pids` from memory to the file (one too big to spill stays),
    /// compacting the file when it holds too many dead bytes.
    fn write(&mut self, pids: &[i64]) -> io::Result<()> {
        if self.file.is_none() {
            self.file = Some(SpillFile::create()?);
        }
        let f = self.file.as_mut().expect("created above");
        let hot = &self.hot;
        let placed = f.append(pids.iter().map(|&pid| (pid, &*hot[&pid].proc)))?;
        for (pid, off) in placed {
            self.hot.remove(&pid);
            self.cold.insert(pid, off);
        }
        if f.wants_compaction() {
            let cold = self.cold.iter().map(|(&pid, &off)| (off, pid)).collect();
            let moved = f.compact(cold)?;
            self.cold.extend(moved);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::rows::{Access, End, Resolution};
    use crate::process::spill::SLACK;
    use crate::process::state::{AwaitingExec, HeldLookup, Pending, Thread};
    use crate::process::syscall::Effect;

    /// A process with every field away from its default.
    fn busy(pid: i64) -> Box<Proc> {
        let mut p = Proc::new(pid * 10, pid, b"cc\xff", 1_000 + pid);
        p.seen = true;
        p.cwd = Some(b"/usr/src".to_vec());
        p.fds.insert(3, b"/usr/src/a.c".to_vec());
        p.files.extend([u64::MAX, 7]);
        p.exec_seq = 2;
        p.image = 1;
        p.image_id = -5;
        p.row.fork_syscall = Some("vfork".into());
        p.row.exit_status = Some(-1);
        p.end(End::Core, 99);
        p.threads.insert(
            77,
            Thread {
                id: Some(4),
                tid: 77,
                first_ts: 1,
                last_ts: i64::MAX,
                records: 3,
                pending: vec![Pending {
                    call_id: 9,
                    code: 59,
                    name: Some("execve"),
                    effect: Effect::Exec,
                    nargs: 3,
                    args: [u64::MAX; crate::record::MAX_ARGS],
                    ts: i64::MIN,
                    offset: 12,
                    namei: 1,
                    first_path: Some((b"cc".to_vec(), b"/usr/bin/cc".to_vec(), false)),
                    lookups: vec![1, 2],
                    held: vec![HeldLookup {
                        ts: 5,
                        offset: 13,
                        comm: b"sh".to_vec(),
                        path: b"cc".to_vec(),
                        resolved: b"/usr/bin/cc".to_vec(),
                        resolution: Resolution::Cwd,
                        access: Access::Exec,
                    }],
                    argv: Some(b"cc\0-c\0".to_vec()),
                    envp: None,
                    image_id: 3,
                    exec_evidence: true,
                }],
            },
        );
        p.awaiting_comm = Some(Box::new(AwaitingExec {
            id: 1,
            seq: 2,
            image: 3,
            ts: 4,
            call_id: 5,
            calls_from: 6,
            path: Some((b"a".to_vec(), b"/a".to_vec())),
            argv: None,
            envp: Some(vec![0, 255]),
            cwd: None,
        }));
        Box::new(p)
    }

    #[test]
    fn spilled_processes_come_back_whole() {
        let mut live = Live::new(4);
        for pid in 1..=100 {
            live.insert(pid, busy(pid));
        }
        assert!(live.cold.len() >= 90, "spilled: {}", live.cold.len());
        assert!(live.hot.len() <= 4);
        assert_eq!(live.get(50), Some(&*busy(50)));
        live.get_mut(50).unwrap().row.records = 5;
        for pid in 1..=30 {
            live.get(pid); // restore some, spilling the rest again
        }
        assert_eq!(
            live.get(50).unwrap().row.records,
            5,
            "changes survive a spill"
        );
        assert_eq!(live.remove(7), Some(busy(7)));
        assert!(!live.contains(7) && live.contains(8) && !live.contains(101));
        let mut order = live.end_order();
        let mut ended = Vec::new();
        while let Some(p) = order.next(&mut live) {
            ended.push(p.row.id);
        }
        let ids: Vec<i64> = (1..=100)
            .filter(|&pid| pid != 7)
            .map(|pid| pid * 10)
            .collect();
        assert_eq!(ended, ids, "every lifetime, oldest first");
        assert_eq!(live.failure, None);
    }

    #[test]
    fn dead_bytes_are_compacted_away() {
        let mut live = Live::new(2);
        for pid in 1..=3 {
            live.insert(pid, busy(pid));
        }
        // Round-robin over more processes than fit: every use rewrites one.
        let mut longest = 0;
        for round in 0..20_000 {
            live.get(1 + round % 3);
            longest = longest.max(live.file.as_ref().unwrap().len());
        }
        let f = live.file.as_ref().unwrap();
        assert!(longest > SLACK, "the file grew past the slack ({longest})");
        assert!(
            f.len() <= 2 * f.live() + SLACK,
            "file {} live {}",
            f.len(),
            f.live()
        );
        for pid in 1..=3 {
            assert_eq!(live.get(pid).map(|p| p.row.pid), Some(pid));
        }
    }

    #[test]
    fn damaged_spill_bytes_are_a_reported_loss_not_a_panic() {
        let mut live = Live::new(2);
        for pid in 1..=3 {
            live.insert(pid, busy(pid));
        }
        let (&pid, &off) = live.cold.iter().next().unwrap();
        let f = live.file.as_mut().unwrap();
        f.overwrite(off + 4, &[0xff; 8]).unwrap();
        assert!(live.get(pid).is_none());
        assert!(matches!(live.failure, Some(Failure::Read { pid: p, .. }) if p == Some(pid)));
        assert!(!live.contains(pid));
    }
}
