//! `dump -l`: read a trace that is still being written (`ktrace -i make &
//! kt2sql dump -l`). [`Follow`] wraps the file: where the file ends for
//! now it waits and reads again, so the decoder sees a stream that only
//! ends when [`Follow::stop`] is set (Ctrl-C). Records are decoded as
//! their bytes arrive. Before that, [`wait_for_start`] waits, as kdump -l
//! does, while the file is empty or too short to tell its dialect.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::decode::{detect, Abi, DecodeErrorKind, Decoder};

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

/// Wait until the regular file at `path` holds enough to decode: bytes a
/// dialect is detected from (any byte at all when `abi` is given), or bytes
/// that more bytes would not make a trace (the decoder then says why).
/// Returns `false` when `stop` was set first. Anything but a regular file
/// (a pipe, whose bytes a look would consume) is not waited for.
pub fn wait_for_start(path: &Path, abi: Option<Abi>, stop: &AtomicBool) -> io::Result<bool> {
    if !std::fs::metadata(path)?.is_file() {
        return Ok(true);
    }
    let mut head = Vec::new();
    loop {
        head.clear();
        File::open(path)?
            .take(detect::SAMPLE_BYTES as u64)
            .read_to_end(&mut head)?;
        if !too_short(&head, abi) {
            return Ok(true);
        }
        if stop.load(Ordering::SeqCst) {
            return Ok(false);
        }
        std::thread::sleep(POLL);
    }
}

/// `head`, all a growing file holds for now, does not tell its dialect yet.
fn too_short(head: &[u8], abi: Option<Abi>) -> bool {
    if abi.is_some() {
        return head.is_empty();
    }
    match Decoder::new(head, None, Some(head.len() as u64)) {
        Ok(_) => false,
        Err(e) => {
            matches!(
                e.kind,
                DecodeErrorKind::Empty
                    | DecodeErrorKind::Unrecognized(_)
                    | DecodeErrorKind::Ambiguous(_)
            ) && detect::wants_more(head)
        }
    }
}

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
    fn waits_while_the_file_is_too_short_to_tell_its_dialect() {
        let trace =
            std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("example/build.ktrace"))
                .unwrap();
        // Empty, a partial header, a partial first record: more may come.
        for n in [0, 3, 40] {
            assert!(too_short(&trace[..n], None), "{n} bytes");
        }
        assert!(!too_short(&trace, None));
        // Given the dialect, any byte will do; no bytes are never a trace.
        let abi = Some("freebsd-v1:le:64".parse().unwrap());
        assert!(!too_short(&trace[..3], abi));
        assert!(too_short(&[], abi));
        // Bytes no dialect reads a record from stay no trace; fewer than
        // a header could still become one.
        let script = "#!/bin/sh\n".to_owned() + &"echo hello, world\n".repeat(20);
        assert!(!too_short(script.as_bytes(), None));
        assert!(too_short(&script.as_bytes()[..20], None));
    }

    #[test]
    fn ends_like_a_file_until_started() {
        let mut f = Follow::new(&b"xy"[..]);
        let mut got = Vec::new();
        f.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"xy");
    }
}
