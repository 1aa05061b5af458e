//! The temporary database flushed to disk while it is written. A new
//! database is fsynced once, before it is renamed into place
//! ([`super::atomic`]); left to that one call, the whole file (about a third
//! of the trace's size) goes to the disk after the last row, while the
//! import waits. The [`WriteBack`] thread calls `fdatasync` on the file
//! every [`EVERY`] meanwhile, so the pages SQLite has handed to the kernel
//! go to the disk during the load and the index builds, and the final fsync
//! finds little left to write.
//!
//! Linux reports a failed writeback once per open file description that
//! existed when it failed, so an error this thread sees would not reach the
//! final fsync (which opens the file anew): [`WriteBack::finish`] returns
//! it, and the import fails.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::Error;

/// How often the file is flushed while it is written.
pub const EVERY: Duration = Duration::from_millis(500);

/// The flushing thread; stopped by [`WriteBack::finish`] or when dropped.
#[derive(Debug)]
pub struct WriteBack {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<std::io::Result<()>>>,
    /// Named in an error (the target: the user knows no temporary file).
    target: PathBuf,
}

impl WriteBack {
    /// Start flushing `file` (the temporary database of `target`).
    pub fn start(file: &Path, target: &Path) -> Result<Self, Error> {
        let io = |source| Error::Io {
            path: target.to_owned(),
            source,
        };
        let f = File::open(file).map_err(io)?;
        let (stop, stopped) = channel::<()>();
        let thread = std::thread::Builder::new()
            .name("kt2sql-sync".into())
            .spawn(move || loop {
                match stopped.recv_timeout(EVERY) {
                    Err(RecvTimeoutError::Timeout) => f.sync_data()?,
                    // Told to stop, or the import went away.
                    _ => return Ok(()),
                }
            })
            .map_err(io)?;
        Ok(WriteBack {
            stop: Some(stop),
            thread: Some(thread),
            target: target.to_owned(),
        })
    }

    /// Stop flushing: the first error a flush met, if any.
    pub fn finish(mut self) -> Result<(), Error> {
        match self.stop_and_join() {
            Ok(()) => Ok(()),
            Err(source) => Err(Error::Io {
                path: self.target.clone(),
                source,
            }),
        }
    }

    fn stop_and_join(&mut self) -> std::io::Result<()> {
        drop(self.stop.take());
        match self.thread.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(flushed)) => flushed,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
        }
    }
}

impl Drop for WriteBack {
    fn drop(&mut self) {
        // The import failed: the file is about to be removed.
        let _ = self.stop_and_join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thread flushes while the file grows and stops when told.
    #[test]
    fn flushes_until_finished() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.db");
        std::fs::write(&file, b"").unwrap();
        let wb = WriteBack::start(&file, &dir.path().join("target.db")).unwrap();
        std::fs::write(&file, vec![7u8; 1 << 16]).unwrap();
        std::thread::sleep(EVERY + EVERY / 2);
        wb.finish().unwrap();
        assert_eq!(std::fs::metadata(&file).unwrap().len(), 1 << 16);
    }

    /// A file that cannot be opened names the target.
    #[test]
    fn a_missing_file_names_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.db");
        let err = WriteBack::start(&dir.path().join("gone"), &target).unwrap_err();
        assert!(
            matches!(&err, Error::Io { path, .. } if path == &target),
            "{err}"
        );
    }
}
