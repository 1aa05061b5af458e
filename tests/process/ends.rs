//! How a lifetime ends, on hand-built traces (the test writer) for what
//! ktcompose does not write: a core file after a fatal signal (a real
//! OpenBSD 5.9 trace ends `PSIG SIGABRT SIG_DFL`, `NAMI "pg.core"`), a core
//! file after an `exit` call, and a kill seen only by the parent's wait
//! (`ktrace -t cn`) followed by the pid's reuse.

use kt2sql::decode::Decoder;
use kt2sql::process::{End, Model, ModelOptions};
use kt2sql::record::{Body, Psig, Record};

use super::sink::{Collected, Rows};
use crate::util::records::{call, rec, ret, T0};
use crate::util::writer::TraceWriter;

const SH: i64 = 700;
const CHILD: i64 = 701;
/// OpenBSD syscall numbers.
const EXIT: i32 = 1;
const FORK: i32 = 2;
const OPEN: i32 = 5;
const WAIT4: i32 = 11;
const CHDIR: i32 = 12;

/// Records of an OpenBSD trace, one every microsecond.
#[derive(Default)]
struct Trace {
    recs: Vec<Record<'static>>,
}

impl Trace {
    fn add(&mut self, pid: i64, comm: &str, body: Body<'static>) {
        let t = T0 + 1000 * self.recs.len() as i64;
        self.recs.push(rec(pid, Some(pid + 100_000), comm, t, body));
    }

    fn nami(&mut self, pid: i64, comm: &str, path: &str) {
        self.add(pid, comm, Body::Namei(path.as_bytes().to_vec().into()));
    }

    /// sh forks CHILD, whose records come before sh's RET (it ran first).
    fn fork(&mut self) {
        self.add(SH, "sh", call(FORK, &[]));
        self.add(CHILD, "sh", ret(FORK, 0, 0));
        self.add(SH, "sh", ret(FORK, 0, CHILD));
    }

    /// sh reaps CHILD.
    fn wait(&mut self) {
        self.add(SH, "sh", call(WAIT4, &[CHILD as u64, 0, 0, 0]));
        self.add(SH, "sh", ret(WAIT4, 0, CHILD));
    }

    /// Model the trace (cwd `/`) and return its rows.
    fn rows(self) -> Rows {
        let abi = "openbsd:le:64".parse().unwrap();
        let bytes = TraceWriter::new(abi).records(&self.recs).bytes();
        let mut dec = Decoder::new(&bytes[..], Some(abi), Some(bytes.len() as u64)).unwrap();
        let opts = ModelOptions {
            start_cwd: Some(b"/".to_vec()),
            ..ModelOptions::default()
        };
        let mut m = Model::new(dec.abi(), opts);
        let mut sink = Collected::default();
        while let Some(r) = dec.next_record().unwrap() {
            m.record(&r, &mut sink).unwrap();
        }
        let totals = m.finish(&mut sink).unwrap();
        let rows = Rows::new(sink, totals);
        rows.check_summaries("hand-built");
        rows
    }
}

fn sigabrt() -> Body<'static> {
    Body::Psig(Psig {
        signo: 6,
        action: 0,
        code: 0,
        mask: 0,
    })
}

#[test]
fn a_core_file_after_a_fatal_signal_belongs_to_the_dying_process() {
    let mut t = Trace::default();
    t.add(SH, "sh", call(CHDIR, &[0x1000]));
    t.nami(SH, "sh", "/work");
    t.add(SH, "sh", ret(CHDIR, 0, 0));
    t.fork();
    t.add(CHILD, "sh", sigabrt());
    t.nami(CHILD, "sh", "pg.core");
    t.wait();
    let rows = t.rows();
    let lives: Vec<_> = rows.c.processes.iter().filter(|p| p.pid == CHILD).collect();
    assert_eq!(lives.len(), 1, "the core NAMI starts no new lifetime");
    let p = lives[0];
    assert_eq!(p.end_seen_by, Some(End::Signal));
    assert_eq!(p.exit_signal, Some(6));
    assert_eq!(Rows::exit(p), serde_json::json!({"signal": 6}));
    let files = rows.files(None);
    assert!(files.n.contains("/work/pg.core"), "{:?}", files.n);
    assert_eq!(
        files.n_v["/work/pg.core"],
        serde_json::json!([["coredump", "sh", CHILD]])
    );
}

#[test]
fn a_core_file_after_exit_stays_in_the_lifetime() {
    let mut t = Trace::default();
    t.fork();
    t.add(CHILD, "sh", call(EXIT, &[3]));
    t.nami(CHILD, "sh", "/sh.core");
    t.wait();
    let rows = t.rows();
    let lives: Vec<_> = rows.c.processes.iter().filter(|p| p.pid == CHILD).collect();
    assert_eq!(lives.len(), 1);
    assert_eq!(
        lives[0].end_seen_by,
        Some(End::Exit),
        "the first evidence says how"
    );
    assert_eq!(lives[0].exit_status, Some(3));
    assert!(rows.files(None).n.contains("/sh.core"));
}

#[test]
fn a_kill_seen_only_by_wait_then_the_pid_reused() {
    let mut t = Trace::default();
    // -t cn: no PSIG, no exit: the child just stops writing.
    t.fork();
    t.add(CHILD, "sh", call(OPEN, &[0x1000, 0]));
    t.nami(CHILD, "sh", "/a");
    t.add(CHILD, "sh", ret(OPEN, 0, 3));
    t.wait();
    // The pid is free again: sh forks it anew, the child's RET first.
    t.fork();
    t.add(CHILD, "sh", call(OPEN, &[0x1000, 0]));
    t.nami(CHILD, "sh", "/b");
    t.add(CHILD, "sh", ret(OPEN, 0, 3));
    t.add(CHILD, "sh", call(EXIT, &[0]));
    t.wait();
    let rows = t.rows();
    let lives: Vec<_> = rows.c.processes.iter().filter(|p| p.pid == CHILD).collect();
    assert_eq!(lives.len(), 2, "the wait ended the first lifetime");
    assert_eq!(lives[0].end_seen_by, Some(End::Wait));
    assert_eq!(Rows::exit(lives[0]), serde_json::json!({"signal": null}));
    assert_eq!(lives[1].end_seen_by, Some(End::Exit));
    assert_eq!(Rows::exit(lives[1]), serde_json::json!({"status": 0}));
    let sh = rows.c.processes.iter().find(|p| p.pid == SH).unwrap();
    assert!(lives.iter().all(|p| p.parent_id == Some(sh.id)));
    let kinds: Vec<_> = rows.c.issues.iter().map(|i| i.kind.as_str()).collect();
    assert_eq!(kinds, ["end-inferred"], "one inference, said once");
    let v = rows.files(None).n_v;
    assert_eq!(v["/a"], serde_json::json!([["open", "sh", CHILD]]));
    assert_eq!(v["/b"], serde_json::json!([["open", "sh", CHILD]]));
}
