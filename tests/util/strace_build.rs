//! Real builds as BSD traces: run a shell command under `strace -f` in a
//! directory, then `../shared/tools/strace2kt.py` writes the trace each
//! dialect's kernel would have written for it, with its truth JSON. The
//! test skips (failing when CI=true) when strace is missing or ptrace is
//! refused here.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{shared_dir, skip};

/// The strace log of `sh -c script` run in `dir`, or `None` after saying
/// why it cannot be recorded here.
pub fn record(dir: &Path, script: &str) -> Option<PathBuf> {
    let log = dir.with_extension("strace");
    let run = Command::new("strace")
        .args(["-f", "-ttt", "-T", "-v", "-s", "4096", "-y"])
        .args(["-e", "raw=read,write,pread64,pwrite64", "-o"])
        .arg(&log)
        .args(["sh", "-c", script])
        .current_dir(dir)
        .output();
    let out = match run {
        Err(e) => {
            skip(&format!("strace not runnable ({e})"));
            return None;
        }
        Ok(o) => o,
    };
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("ptrace") || err.contains("Operation not permitted") {
        skip(&format!(
            "ptrace refused: {}",
            err.lines().next().unwrap_or("")
        ));
        return None;
    }
    assert!(out.status.success(), "{script}: {err}");
    Some(log)
}

/// `log` written as a `dialect` trace started in `dir`, and its truth.
pub fn convert(log: &Path, dir: &Path, dialect: &str) -> (PathBuf, serde_json::Value) {
    let shared = shared_dir().expect("../shared");
    let trace = log.with_extension(format!("{dialect}.ktrace"));
    let truth = log.with_extension(format!("{dialect}.json"));
    let out = Command::new("python3")
        .arg(shared.join("tools/strace2kt.py"))
        .arg(log)
        .args(["--dialect", dialect, "--start-cwd"])
        .arg(dir)
        .arg("-o")
        .arg(&trace)
        .arg("--truth")
        .arg(&truth)
        .output()
        .expect("run python3 strace2kt.py");
    assert!(
        out.status.success(),
        "strace2kt {dialect}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let truth = serde_json::from_slice(&std::fs::read(&truth).unwrap()).unwrap();
    (trace, truth)
}
