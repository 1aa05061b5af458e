//! A trace file still being written: [`wait_for_start`] waits, as kdump -l
//! does, while the file is empty or too short to tell its dialect (`dump
//! -l` and `import --follow` both start with it).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::{detect, Abi, DecodeErrorKind, Decoder};

/// How long to wait before looking again.
const POLL: Duration = Duration::from_millis(100);

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
}
