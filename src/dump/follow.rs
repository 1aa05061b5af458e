//! `dump -l`: read a trace that is still being written (`ktrace -i make &
//! kt2sql dump -l`). [`Follow`] wraps the file: where the file ends for
//! now it waits and reads again, so the decoder sees a stream that only
//! ends when [`Follow::stop`] is set (Ctrl-C). Records are decoded as
//! their bytes arrive. Before that, [`wait_for_start`] waits, as kdump -l
//! does, while the file is empty or too short to tell its dialect
//! (`decode::growing`, shared with `import --follow`).

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long to wait before looking for more bytes.
const POLL: Duration = Duration::from_millis(100);

/// A reader that waits at the end of its input instead of ending.
pub struct Follow<R> {
    inner: R,
    following: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
}

impl<R: Read> Follow<R> {
    /// Wrap `inner`; it ends like a plain reader until [`Follow::start`].
    pub fn new(inner: R) -> Self {
        Follow {
            inner,
            following: Arc::new(AtomicBool::new(false)),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Wait for more at the end from now on (after the dialect is detected
    /// from what the file holds already).
    pub fn start(&self) {
        self.following.store(true, Ordering::SeqCst);
    }

    /// The flag that ends the stream at the next wait (set it from a
    /// Ctrl-C handler or another thread).
    pub fn stop(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// The flag [`Follow::start`] sets, to start following from outside
    /// once the reader has moved into a decoder.
    pub fn following(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.following)
    }
}

impl<R: Read> Read for Follow<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.inner.read(buf)?;
            if n > 0
                || buf.is_empty()
                || !self.following.load(Ordering::SeqCst)
                || self.stop.load(Ordering::SeqCst)
            {
                return Ok(n);
            }
            std::thread::sleep(POLL);
        }
    }
}

pub use crate::decode::growing::wait_for_start;

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn waits_for_bytes_written_later_and_ends_on_stop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("growing");
        let mut w = std::fs::File::create(&path).unwrap();
        w.write_all(b"ab").unwrap();
        let mut f = Follow::new(std::fs::File::open(&path).unwrap());
        f.start();
        let stop = f.stop();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(250));
            w.write_all(b"cd").unwrap();
            std::thread::sleep(Duration::from_millis(250));
            stop.store(true, Ordering::SeqCst);
        });
        let mut got = Vec::new();
        f.read_to_end(&mut got).unwrap();
        writer.join().unwrap();
        assert_eq!(got, b"abcd");
    }

    #[test]
    fn ends_like_a_file_until_started() {
        let mut f = Follow::new(&b"xy"[..]);
        let mut got = Vec::new();
        f.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"xy");
    }
}
