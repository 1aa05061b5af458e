//! The crate's error type: every failure names the file it concerns.

use std::path::PathBuf;

use crate::decode::DecodeError;

/// Anything kt2sql can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A trace could not be decoded.
    #[error("{}: {source}", path.display())]
    Decode {
        /// The trace file.
        path: PathBuf,
        /// Where and why.
        source: DecodeError,
    },
}
