//! A pid seen again after its process exited is a new process lifetime
//! (ktcompose never reuses pids, so the test writer makes the trace).

use kt2sql::decode::Decoder;
use kt2sql::process::{Model, ModelOptions};

use super::sink::{Collected, Rows};
use crate::util::example_trace::{sys, Script};
use crate::util::writer::TraceWriter;

const SH: i64 = 700;
const CHILD: i64 = 701;

/// sh forks pid 701 twice: the first runs `cc` in /a and exits; the
/// second, after sh's chdir to /b, runs `ld`.
fn trace() -> Vec<u8> {
    let mut s = Script::default();
    s.ctor(SH, "sh");
    s.path_call(SH, "sh", sys::CHDIR, &[0x1000], "/a", Ok(0));
    for (dir, tool) in [("/a", "cc"), ("/b", "ld")] {
        if dir == "/b" {
            s.path_call(SH, "sh", sys::CHDIR, &[0x1000], dir, Ok(0));
        }
        s.call(SH, "sh", 2, &[]); // fork
        s.ctor(CHILD, "sh");
        s.ret(CHILD, "sh", 2, 0, 0);
        s.ret(SH, "sh", 2, 0, CHILD);
        s.exec(CHILD, "sh", &format!("/usr/bin/{tool}"), tool);
        s.path_call(CHILD, tool, sys::OPEN, &[0x1000, 0], "out", Ok(3));
        s.exit(CHILD, tool, 0);
        s.call(SH, "sh", sys::WAIT4, &[CHILD as u64, 0, 0, 0]);
        s.ret(SH, "sh", sys::WAIT4, 0, CHILD);
    }
    let abi = "freebsd-v1:le:64".parse().unwrap();
    TraceWriter::new(abi).records(s.records().iter()).bytes()
}

#[test]
fn a_reused_pid_is_a_new_process() {
    let bytes = trace();
    let mut dec = Decoder::new(&bytes[..], None, Some(bytes.len() as u64)).unwrap();
    let mut m = Model::new(
        dec.abi(),
        ModelOptions {
            start_cwd: Some(b"/".to_vec()),
            ..ModelOptions::default()
        },
    );
    let mut sink = Collected::default();
    while let Some(r) = dec.next_record().unwrap() {
        m.record(&r, &mut sink).unwrap();
    }
    let totals = m.finish(&mut sink).unwrap();
    let rows = Rows::new(sink, totals);
    rows.check_summaries("pid reuse");
    let lifetimes: Vec<_> = rows.c.processes.iter().filter(|p| p.pid == CHILD).collect();
    assert_eq!(lifetimes.len(), 2, "pid {CHILD} ran twice: two lifetimes");
    let sh = rows.c.processes.iter().find(|p| p.pid == SH).unwrap();
    for p in &lifetimes {
        assert_eq!(p.parent_id, Some(sh.id), "both forked by sh");
        assert!(p.exit_seen && p.exit_status == Some(0));
    }
    let edges = [("700.1", "701.1"), ("700.1", "701.2")];
    let want: Vec<(String, String)> = edges.map(|(a, b)| (a.into(), b.into())).into();
    assert_eq!(rows.forks(), want);
    // Each lifetime has its own image and resolves against the cwd it inherited.
    let files = rows.files(None);
    assert!(
        files.n.contains("/a/out") && files.n.contains("/b/out"),
        "{:?}",
        files.n
    );
    let tree = serde_json::to_string(&rows.tree()).unwrap();
    assert_eq!(
        tree,
        r#"[[700,"sh",[[701,"sh",[]],[701,"cc",[]],[701,"sh",[]],[701,"ld",[]]]]]"#
    );
}
