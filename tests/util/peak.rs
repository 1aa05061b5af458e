//! A command's peak resident memory, exactly: GNU time's `%M`, the maximum
//! resident set of the process it forks and waits for.
//!
//! Two easier measures are wrong. Sampling `/proc/PID/status`'s `VmHWM`
//! misses a process that starts and ends between two samples (a 20 KiB
//! "peak" for a report that ran in a few milliseconds). The kernel's own
//! figure for a child of the test, `wait4`'s `ru_maxrss`, counts the test
//! process too: Linux carries the high-water mark of the memory a process
//! replaces at exec into its maximum, and a spawned child execs from its
//! parent's memory (a 300 MB parent gives `/bin/true` a 300 MB peak).
//! GNU time is a small program: the child it forks starts from its ~1 MB.

use std::path::{Path, PathBuf};
use std::process::Command;

/// GNU time, where Debian's `time` package puts it.
const TIME: &str = "/usr/bin/time";

/// Whether GNU time is here to measure with; if not, the test is skipped
/// with the reason printed (and fails when `CI=true`).
pub fn usable() -> bool {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("peak");
    let ok = Command::new(TIME)
        .args(["-f", "%M", "-o"])
        .arg(&out)
        .arg("true")
        .output()
        .is_ok_and(|o| o.status.success())
        && kib_in(&out).is_some();
    if !ok {
        super::skip("GNU time (/usr/bin/time, Debian's `time` package) not found");
    }
    ok
}

/// `program`, run under GNU time: spawn the command (with whatever
/// arguments and pipes the caller adds), wait for it, then read its peak
/// with [`Measured::kib`].
pub struct Measured {
    _dir: tempfile::TempDir,
    out: PathBuf,
}

impl Measured {
    pub fn command(program: impl AsRef<std::ffi::OsStr>) -> (Command, Measured) {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("peak");
        let mut cmd = Command::new(TIME);
        cmd.args(["-f", "%M", "-o"])
            .arg(&out)
            .arg("--")
            .arg(program);
        (cmd, Measured { _dir: dir, out })
    }

    /// The peak resident set, KiB, of the command once it has ended.
    pub fn kib(&self) -> u64 {
        kib_in(&self.out).unwrap_or_else(|| {
            panic!(
                "GNU time wrote no figure: {:?}",
                std::fs::read_to_string(&self.out)
            )
        })
    }
}

/// The figure GNU time wrote: its last line (a line saying how the command
/// ended comes first when it did not exit with 0).
fn kib_in(path: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().last()?.trim().parse().ok()
}
