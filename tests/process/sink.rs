//! A sink that keeps every row the model emits, and the report-shaped
//! views of them the truth JSON describes (tree, file lists, subtrees).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::convert::Infallible;

use serde_json::{json, Value};

use kt2sql::process::*;

/// An owned namei row.
#[derive(Debug, Clone)]
pub struct Namei {
    pub call_id: Option<i64>,
    pub exec_id: i64,
    pub coredump: bool,
    pub process_id: i64,
    pub path: String,
    pub resolved: String,
    pub resolution: Resolution,
}

/// An owned exec row.
#[derive(Debug, Clone)]
pub struct Exec {
    pub id: i64,
    pub process_id: i64,
    pub seq: i64,
    pub image: Option<i64>,
    pub call_id: Option<i64>,
    pub path: Option<String>,
    pub resolved: Option<String>,
    pub comm: String,
    pub success: bool,
}

/// An owned call row (what the tests need of it).
#[derive(Debug, Clone)]
pub struct Call {
    pub id: i64,
    pub process_id: i64,
    pub code: i32,
    pub ts: Option<i64>,
    pub ret_ts: Option<i64>,
    pub syscall: Option<&'static str>,
    pub success: Option<bool>,
    pub ret_offset: Option<u64>,
    pub unpaired: Option<Unpaired>,
}

/// Every row, as emitted.
#[derive(Debug, Default)]
pub struct Collected {
    pub processes: Vec<ProcessRow>,
    pub threads: Vec<ThreadRow>,
    pub execs: Vec<Exec>,
    pub calls: Vec<Call>,
    pub namei: Vec<Namei>,
    pub events: usize,
    pub issues: Vec<IssueRow>,
    pub syscall_stats: Vec<SyscallStatRow>,
}

fn s(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl Sink for Collected {
    type Error = Infallible;
    fn process(&mut self, r: &ProcessRow) -> Result<(), Infallible> {
        self.processes.push(r.clone());
        Ok(())
    }
    fn thread(&mut self, r: &ThreadRow) -> Result<(), Infallible> {
        self.threads.push(r.clone());
        Ok(())
    }
    fn exec(&mut self, r: &ExecRow<'_>) -> Result<(), Infallible> {
        self.execs.push(Exec {
            id: r.id,
            process_id: r.process_id,
            seq: r.seq,
            image: r.image,
            call_id: r.call_id,
            path: r.path.map(s),
            resolved: r.resolved.map(s),
            comm: s(r.comm),
            success: r.success,
        });
        Ok(())
    }
    fn call(&mut self, r: &CallRow<'_>) -> Result<(), Infallible> {
        self.calls.push(Call {
            id: r.id,
            process_id: r.process_id,
            code: r.code,
            ts: r.ts,
            ret_ts: r.ret_ts,
            syscall: r.syscall,
            success: r.success,
            ret_offset: r.ret_offset,
            unpaired: r.unpaired,
        });
        Ok(())
    }
    fn namei(&mut self, r: &NameiRow<'_>) -> Result<(), Infallible> {
        self.namei.push(Namei {
            call_id: r.call_id,
            exec_id: r.exec_id,
            coredump: r.coredump,
            process_id: r.process_id,
            path: s(r.path),
            resolved: s(r.resolved),
            resolution: r.resolution,
        });
        Ok(())
    }
    fn event(&mut self, _: &EventRow<'_>) -> Result<(), Infallible> {
        self.events += 1;
        Ok(())
    }
    fn issue(&mut self, r: &IssueRow) -> Result<(), Infallible> {
        self.issues.push(r.clone());
        Ok(())
    }
    fn syscall_stat(&mut self, r: &SyscallStatRow) -> Result<(), Infallible> {
        self.syscall_stats.push(r.clone());
        Ok(())
    }
}

/// The file lists of a set of processes.
#[derive(Debug, Default)]
pub struct Files {
    pub pids: BTreeSet<i64>,
    pub n: BTreeSet<String>,
    pub n_a: BTreeSet<String>,
    pub n_v: Value,
    pub n_a_v: Value,
}

/// Rows plus indexes over them.
pub struct Rows {
    pub c: Collected,
    pub totals: Totals,
    proc_by_id: HashMap<i64, usize>,
    call_by_id: HashMap<i64, usize>,
}

impl Rows {
    pub fn new(c: Collected, totals: Totals) -> Self {
        let proc_by_id = c
            .processes
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id, i))
            .collect();
        let call_by_id = c.calls.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
        Rows {
            c,
            totals,
            proc_by_id,
            call_by_id,
        }
    }

    fn proc(&self, id: i64) -> &ProcessRow {
        &self.c.processes[self.proc_by_id[&id]]
    }

    fn exec(&self, id: i64) -> &Exec {
        self.c.execs.iter().find(|e| e.id == id).expect("exec row")
    }

    fn call(&self, id: i64) -> &Call {
        &self.c.calls[self.call_by_id[&id]]
    }

    /// (parent lifetime key, child lifetime key), sorted.
    pub fn forks(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self
            .c
            .processes
            .iter()
            .filter_map(|p| p.parent_id.map(|pp| (self.key(self.proc(pp)), self.key(p))))
            .collect();
        v.sort();
        v
    }

    /// Successful exec images of process `id`, in order.
    fn images(&self, id: i64) -> Vec<&Exec> {
        let mut v: Vec<&Exec> = self
            .c
            .execs
            .iter()
            .filter(|e| e.process_id == id && e.success)
            .collect();
        v.sort_by_key(|e| e.seq);
        v
    }

    /// The truth's key of a lifetime: `<pid>.<n>`, n counting the pid's
    /// lifetimes in the order they began.
    pub fn key(&self, p: &ProcessRow) -> String {
        let n = self
            .c
            .processes
            .iter()
            .filter(|q| q.pid == p.pid && q.id <= p.id)
            .count();
        format!("{}.{n}", p.pid)
    }

    /// How the process ended, as the truth writes it: `{"status": n}`,
    /// `{"signal": n}`, `{"signal": null}` (killed, signal unknown: its end
    /// was seen by a core file, a PROCDTOR or a reaping wait without an
    /// `exit` call), or null.
    pub fn exit(p: &ProcessRow) -> Value {
        match (p.exit_status, p.exit_signal, p.end_seen_by) {
            (_, Some(sig), _) => json!({"signal": sig}),
            (Some(st), None, _) => json!({"status": st}),
            (None, None, Some(End::Core | End::Procdtor | End::Wait)) => json!({"signal": null}),
            _ => Value::Null,
        }
    }

    /// Lifetime key → the truth's per-process summary.
    pub fn process_summary(&self) -> BTreeMap<String, Value> {
        let mut out = BTreeMap::new();
        for p in &self.c.processes {
            let execs: Vec<Value> = self
                .images(p.id)
                .iter()
                .filter(|e| e.seq > 0)
                .map(|e| json!([e.path, e.resolved, e.comm]))
                .collect();
            let mut tids: Vec<i64> = self
                .c
                .threads
                .iter()
                .filter(|t| t.process_id == p.id)
                .map(|t| t.tid)
                .collect();
            tids.sort();
            let tids = if tids.is_empty() {
                Value::Null
            } else {
                json!(tids)
            };
            let parent = p.parent_id.map(|pp| self.key(self.proc(pp)));
            let first_comm = self.images(p.id)[0].comm.clone();
            out.insert(
                self.key(p),
                json!({"parent": parent, "exit": Self::exit(p), "execs": execs, "tids": tids, "first_comm": first_comm}),
            );
        }
        out
    }

    /// ptrace.py -t: nested [pid, comm, children] per image.
    pub fn tree(&self) -> Value {
        let mut kids: HashMap<i64, Vec<&ProcessRow>> = HashMap::new();
        let mut roots: Vec<&ProcessRow> = Vec::new();
        for p in &self.c.processes {
            match p.parent_id {
                Some(pp) => kids.entry(pp).or_default().push(p),
                None => roots.push(p),
            }
        }
        roots.sort_by_key(|p| p.first_ts);
        let mut out = Vec::new();
        for r in roots {
            out.extend(self.nodes(r, &kids));
        }
        Value::Array(out)
    }

    /// Where a child hangs under its parent: the model's fork offset (the
    /// fork RET; a Mac OS X vfork child's own `RET vfork`; a lost RET's CALL).
    fn fork_ret_offset(&self, p: &ProcessRow) -> u64 {
        p.fork_offset.unwrap_or(0)
    }

    fn nodes(&self, p: &ProcessRow, kids: &HashMap<i64, Vec<&ProcessRow>>) -> Vec<Value> {
        let images = self.images(p.id);
        let mut children: Vec<&ProcessRow> = kids.get(&p.id).cloned().unwrap_or_default();
        children.sort_by_key(|c| self.fork_ret_offset(c));
        let image_ends: Vec<u64> = images
            .iter()
            .map(|e| e.call_id.and_then(|c| self.call(c).ret_offset).unwrap_or(0))
            .collect();
        images
            .iter()
            .enumerate()
            .map(|(i, img)| {
                let sub: Vec<Value> = children
                    .iter()
                    .filter(|c| {
                        let at = self.fork_ret_offset(c);
                        at >= image_ends[i] && image_ends.get(i + 1).is_none_or(|&next| at < next)
                    })
                    .flat_map(|c| self.nodes(c, kids))
                    .collect();
                json!([p.pid, img.comm, sub])
            })
            .collect()
    }

    /// The counters the model keeps besides the rows (process.calls …,
    /// syscall_stat, trace files, the tree links) equal what the rows say.
    pub fn check_summaries(&self, ctx: &str) {
        let succeeded = |c: &Call| c.success == Some(true);
        // syscall_stat: code → [calls, failed, no_return, timed, total, max,
        // child_returns]: a child's return is no call made.
        let child = |c: &Call| c.unpaired == Some(Unpaired::ChildReturn);
        let mut want: BTreeMap<i32, [i64; 7]> = BTreeMap::new();
        for c in &self.c.calls {
            let e = want.entry(c.code).or_insert([0, 0, 0, 0, 0, -1, 0]);
            e[0] += i64::from(!child(c));
            e[6] += i64::from(child(c));
            // No return: no RET seen (an exec-inferred one succeeded all the same).
            e[1] += i64::from(c.success == Some(false));
            e[2] += i64::from(c.ret_offset.is_none());
            if let (Some(a), Some(b)) = (c.ts, c.ret_ts) {
                e[3] += 1;
                e[4] += b - a;
                e[5] = e[5].max(b - a);
            }
        }
        let got: BTreeMap<i32, [i64; 7]> = self
            .c
            .syscall_stats
            .iter()
            .map(|s| {
                let v = [s.calls, s.failed, s.no_return, s.timed, s.total_dur];
                let m = s.max_dur.unwrap_or(-1);
                (s.code, [v[0], v[1], v[2], v[3], v[4], m, s.child_returns])
            })
            .collect();
        assert_eq!(
            got.len(),
            self.c.syscall_stats.len(),
            "{ctx}: one row per code"
        );
        assert_eq!(got, want, "{ctx}: syscall_stat");
        let mut all_files = BTreeSet::new();
        for p in &self.c.processes {
            let calls: Vec<&Call> = self
                .c
                .calls
                .iter()
                .filter(|c| c.process_id == p.id && !child(c))
                .collect();
            let failed = calls.iter().filter(|c| c.success == Some(false)).count();
            let lookups: Vec<&Namei> = self
                .c
                .namei
                .iter()
                .filter(|n| n.process_id == p.id)
                .collect();
            let unresolved = lookups
                .iter()
                .filter(|n| !super::is_resolved(n.resolution))
                .count();
            let files: BTreeSet<&str> = lookups
                .iter()
                .filter(|n| super::is_resolved(n.resolution))
                .filter(|n| n.coredump || n.call_id.is_some_and(|c| succeeded(self.call(c))))
                .map(|n| n.resolved.as_str())
                .collect();
            let id = p.id;
            assert_eq!(p.calls, calls.len() as i64, "{ctx}: process {id} calls");
            assert_eq!(
                p.failed_calls, failed as i64,
                "{ctx}: process {id} failed_calls"
            );
            assert_eq!(
                p.lookups,
                lookups.len() as i64,
                "{ctx}: process {id} lookups"
            );
            assert_eq!(
                p.unresolved_lookups, unresolved as i64,
                "{ctx}: process {id} unresolved"
            );
            assert_eq!(p.files, files.len() as i64, "{ctx}: process {id} files");
            all_files.extend(files);
            // Images are numbered in seq order; failed execs are not images.
            let mut execs: Vec<&Exec> =
                self.c.execs.iter().filter(|e| e.process_id == id).collect();
            execs.sort_by_key(|e| e.seq);
            let mut n = 0;
            for e in &execs {
                let want = e.success.then(|| {
                    n += 1;
                    n - 1
                });
                assert_eq!(
                    e.image, want,
                    "{ctx}: process {id} exec seq {} image",
                    e.seq
                );
            }
            // The fork links: RET offset, and the parent's image current then.
            let Some(pp) = p.parent_id else {
                assert_eq!(
                    (p.fork_offset, p.parent_exec_id),
                    (None, None),
                    "{ctx}: root {id}"
                );
                continue;
            };
            let at = self.fork_ret_offset(p);
            assert_eq!(p.fork_offset, Some(at), "{ctx}: process {id} fork_offset");
            let image = self
                .images(pp)
                .into_iter()
                .rfind(|e| e.call_id.and_then(|c| self.call(c).ret_offset).unwrap_or(0) <= at)
                .map(|e| e.id);
            assert_eq!(
                p.parent_exec_id, image,
                "{ctx}: process {id} parent_exec_id"
            );
        }
        assert_eq!(
            self.totals.files,
            all_files.len() as i64,
            "{ctx}: trace files"
        );
    }

    /// Members of the subtree of `pid` (every lifetime of it) or all processes.
    fn members(&self, pid: Option<i64>) -> BTreeSet<i64> {
        let Some(pid) = pid else {
            return self.c.processes.iter().map(|p| p.id).collect();
        };
        let mut set: BTreeSet<i64> = self
            .c
            .processes
            .iter()
            .filter(|p| p.pid == pid)
            .map(|p| p.id)
            .collect();
        loop {
            let before = set.len();
            for p in &self.c.processes {
                if p.parent_id.is_some_and(|pp| set.contains(&pp)) {
                    set.insert(p.id);
                }
            }
            if set.len() == before {
                return set;
            }
        }
    }

    /// The `-n`, `-n -a` and `-v` lists of a subtree (or of everything).
    pub fn files(&self, pid: Option<i64>) -> Files {
        let members = self.members(pid);
        let mut f = Files {
            pids: members.iter().map(|&id| self.proc(id).pid).collect(),
            ..Files::default()
        };
        let mut v: BTreeMap<String, BTreeSet<(i64, String, String)>> = BTreeMap::new();
        let mut av: BTreeMap<String, BTreeSet<(i64, String, String)>> = BTreeMap::new();
        for n in self
            .c
            .namei
            .iter()
            .filter(|n| members.contains(&n.process_id))
        {
            if !super::is_resolved(n.resolution) {
                continue;
            }
            let call = n.call_id.map(|c| self.call(c));
            let name = match call {
                _ if n.coredump => "coredump",
                Some(c) => c.syscall.unwrap_or("?"),
                None => "?",
            };
            let ok = n.coredump || call.is_some_and(|c| c.success == Some(true));
            // The image that made the call names it (ptrace.py -v).
            let comm = self.exec(n.exec_id).comm.clone();
            let ent = (self.proc(n.process_id).pid, name.to_string(), comm);
            f.n_a.insert(n.resolved.clone());
            av.entry(n.resolved.clone())
                .or_default()
                .insert(ent.clone());
            if ok {
                f.n.insert(n.resolved.clone());
                v.entry(n.resolved.clone()).or_default().insert(ent);
            }
        }
        let render = |m: BTreeMap<String, BTreeSet<(i64, String, String)>>| {
            let obj: serde_json::Map<String, Value> = m
                .into_iter()
                .map(|(k, set)| {
                    (
                        k,
                        Value::Array(
                            set.into_iter()
                                .map(|(pid, sc, comm)| json!([sc, comm, pid]))
                                .collect(),
                        ),
                    )
                })
                .collect();
            Value::Object(obj)
        };
        f.n_v = render(v);
        f.n_a_v = render(av);
        f
    }

    /// (pid, syscall, raw path) of lookups left relative.
    pub fn unresolved(&self) -> BTreeSet<(i64, String, String)> {
        self.c
            .namei
            .iter()
            .filter(|n| !super::is_resolved(n.resolution))
            .map(|n| {
                let call = n.call_id.map(|c| self.call(c));
                (
                    self.proc(n.process_id).pid,
                    call.and_then(|c| c.syscall).unwrap_or("?").to_string(),
                    n.path.clone(),
                )
            })
            .collect()
    }

    /// Calls with both CALL and RET.
    pub fn paired(&self) -> i64 {
        self.c.calls.iter().filter(|c| c.unpaired.is_none()).count() as i64
    }

    /// (CALLs without RET, RETs without CALL).
    pub fn unpaired_count(&self) -> (i64, i64) {
        let no_ret = self
            .c
            .calls
            .iter()
            .filter(|c| {
                c.unpaired
                    .is_some_and(|u| !matches!(u, Unpaired::NoCall | Unpaired::ChildReturn))
            })
            .count();
        let no_call = self
            .c
            .calls
            .iter()
            .filter(|c| matches!(c.unpaired, Some(Unpaired::NoCall | Unpaired::ChildReturn)))
            .count();
        (no_ret as i64, no_call as i64)
    }
}
