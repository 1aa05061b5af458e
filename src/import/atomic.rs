//! Atomic creation or replacement of the target database: everything is
//! written to a temporary file in the target's directory, which is fsynced
//! and renamed over the target (or, when it must not replace one, linked to
//! its name) only when the import succeeded. Any failure drops the
//! [`TempTarget`], which removes the temporary file; the target is never
//! opened for writing.
//!
//! Naming: `.<target name>.kt2sql-tmp-<pid>` beside the target (same
//! directory, so the rename stays on one filesystem). Ctrl-C makes the
//! import fail (`Progress::cancelled`), which drops the file at once. A
//! process killed outright (SIGKILL, a second Ctrl-C, a crash) leaves its
//! file behind; the next import into the same target removes such files
//! when their pid is no longer running and they belong to the same user,
//! and otherwise leaves them alone (they never affect the target).

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::Error;

/// Infix between the target's name and the pid.
const TAG: &str = ".kt2sql-tmp-";

/// A temporary database file beside `target`, removed on drop unless
/// [`TempTarget::commit`] renamed it over the target.
#[derive(Debug)]
pub struct TempTarget {
    path: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl TempTarget {
    /// Create the (empty) temporary file and clean up stale ones.
    pub fn create(target: &Path) -> Result<Self, Error> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| Error::Io { path, source }
        };
        let prefix = prefix(target);
        let path = dir_of(target).join(tmp_name(&prefix, std::process::id()));
        // A file of our own pid is from a dead process that had this pid.
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&path)(e)),
            _ => {}
        }
        // Errors name the target: the user knows no temporary file.
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io(target))?;
        let tmp = TempTarget {
            path,
            target: target.to_owned(),
            committed: false,
        };
        tmp.remove_stale(&prefix);
        Ok(tmp)
    }

    /// The temporary file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flush the finished file to disk and rename it over the target.
    /// Unless `replace`, a target that appeared meanwhile (another import
    /// creating it at the same time) is left alone and this fails with
    /// `AlreadyExists`: the temporary file is linked to the target's name,
    /// which cannot replace a file, instead of renamed.
    pub fn commit(mut self, replace: bool) -> Result<(), Error> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| Error::Io { path, source }
        };
        File::open(&self.path)
            .and_then(|f| f.sync_all())
            .map_err(io(&self.path))?;
        if replace {
            fs::rename(&self.path, &self.target).map_err(io(&self.target))?;
        } else {
            match fs::hard_link(&self.path, &self.target) {
                Ok(()) => {
                    let _ = fs::remove_file(&self.path);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    return Err(io(&self.target)(e));
                }
                // No hard links here (some filesystems): look, then rename.
                Err(_) if fs::symlink_metadata(&self.target).is_ok() => {
                    return Err(io(&self.target)(std::io::ErrorKind::AlreadyExists.into()));
                }
                Err(_) => fs::rename(&self.path, &self.target).map_err(io(&self.target))?,
            }
        }
        self.committed = true;
        // Make the rename itself durable. Not every platform can open a
        // directory for this; the data is safe either way.
        if let Ok(d) = File::open(dir_of(&self.target)) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// Remove temporary files of this target left by processes that died.
    fn remove_stale(&self, prefix: &OsString) {
        let Ok(entries) = fs::read_dir(dir_of(&self.target)) else {
            return;
        };
        let ours = std::process::id();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = stale_pid(&name, prefix) else {
                continue;
            };
            if pid != ours && same_owner(&entry.path(), &self.path) && !pid_alive(pid) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

impl Drop for TempTarget {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

fn dir_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// `.<name>.kt2sql-tmp-`
fn prefix(target: &Path) -> OsString {
    let mut p = OsString::from(".");
    p.push(target.file_name().unwrap_or(target.as_os_str()));
    p.push(TAG);
    p
}

fn tmp_name(prefix: &OsString, pid: u32) -> OsString {
    let mut n = prefix.clone();
    n.push(pid.to_string());
    n
}

/// The pid in a temporary file's name (with or without an SQLite `-journal`
/// style suffix), if `name` is one of this target's temporary files.
fn stale_pid(name: &OsString, prefix: &OsString) -> Option<u32> {
    let rest = name
        .as_encoded_bytes()
        .strip_prefix(prefix.as_encoded_bytes())?;
    let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    let (num, suffix) = rest.split_at(digits);
    if num.is_empty() || !(suffix.is_empty() || suffix.starts_with(b"-")) {
        return None;
    }
    std::str::from_utf8(num).ok()?.parse().ok()
}

#[cfg(unix)]
fn same_owner(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::symlink_metadata(a), fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.is_file() && a.uid() == b.uid(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_owner(_a: &Path, _b: &Path) -> bool {
    false
}

/// Whether a process with this pid exists. With procfs (Linux) look there;
/// otherwise ask `kill -0`. A file of ours whose pid `kill -0` cannot signal
/// was written by a process of our user that is gone (a living one we could
/// signal). When in doubt, report alive: the file is then kept.
fn pid_alive(pid: u32) -> bool {
    if Path::new("/proc/self").exists() {
        return Path::new(&format!("/proc/{pid}")).exists();
    }
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_or(true, |s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_are_recognised() {
        let p = prefix(Path::new("out/trace.db"));
        assert_eq!(p, ".trace.db.kt2sql-tmp-");
        assert_eq!(stale_pid(&tmp_name(&p, 42), &p), Some(42));
        assert_eq!(
            stale_pid(&".trace.db.kt2sql-tmp-42-journal".into(), &p),
            Some(42)
        );
        assert_eq!(stale_pid(&".trace.db.kt2sql-tmp-".into(), &p), None);
        assert_eq!(stale_pid(&".trace.db.kt2sql-tmp-4x".into(), &p), None);
        assert_eq!(stale_pid(&".other.db.kt2sql-tmp-42".into(), &p), None);
    }

    #[test]
    fn dropped_temp_is_removed_and_stale_ones_cleaned() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.db");
        // A pid that cannot be running (above any pid_max).
        let stale = dir.path().join(".t.db.kt2sql-tmp-4294967295");
        fs::write(&stale, b"x").unwrap();
        let tmp = TempTarget::create(&target).unwrap();
        assert!(tmp.path().exists());
        assert!(!stale.exists(), "stale temp file of a dead pid survived");
        let path = tmp.path().to_owned();
        drop(tmp);
        assert!(!path.exists());
        assert!(!target.exists());
    }

    #[test]
    fn commit_renames_over_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.db");
        fs::write(&target, b"old").unwrap();
        let tmp = TempTarget::create(&target).unwrap();
        fs::write(tmp.path(), b"new").unwrap();
        let path = tmp.path().to_owned();
        tmp.commit(true).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert!(!path.exists());
    }

    #[test]
    fn commit_without_replace_leaves_a_target_that_appeared() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("t.db");
        let tmp = TempTarget::create(&target).unwrap();
        fs::write(tmp.path(), b"mine").unwrap();
        fs::write(&target, b"theirs").unwrap();
        let path = tmp.path().to_owned();
        let err = tmp.commit(false).unwrap_err();
        assert!(
            matches!(&err, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists),
            "{err}"
        );
        assert_eq!(fs::read(&target).unwrap(), b"theirs");
        assert!(!path.exists(), "the temporary file stayed");
        let tmp = TempTarget::create(&dir.path().join("new.db")).unwrap();
        fs::write(tmp.path(), b"mine").unwrap();
        let path = tmp.path().to_owned();
        tmp.commit(false).unwrap();
        assert_eq!(fs::read(dir.path().join("new.db")).unwrap(), b"mine");
        assert!(!path.exists());
    }
}
