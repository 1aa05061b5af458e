//! Where the crate and `../shared` (the development corpus: real traces,
//! ktcompose) are. Kept apart from the other helpers so that the `skips`
//! test binary can include it alone.

use std::path::PathBuf;

/// The crate's root directory.
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` next to the crate, if it is there (with its corpus and tools).
pub fn shared_dir() -> Option<PathBuf> {
    let d = manifest_dir().join("../shared");
    (d.join("corpus").is_dir() && d.join("tools").is_dir()).then(|| d.canonicalize().unwrap_or(d))
}
