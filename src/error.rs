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
    /// An SQLite operation failed; `context` says on which database and
    /// what was being done.
    #[error("{context}: {source}")]
    Sqlite {
        /// Database and operation, e.g. `trace.db: writing table call`.
        context: String,
        /// The cause.
        source: rusqlite::Error,
    },
    /// The import would destroy or misuse a file, or was asked for nothing.
    #[error("{}: {reason}", path.display())]
    Refused {
        /// The file concerned.
        path: PathBuf,
        /// Why, and which flag would help.
        reason: String,
    },
    /// The import was cancelled (Ctrl-C, through [`crate::import::Progress::cancelled`]);
    /// nothing was written: the target, or the database appended to, is as
    /// it was, and the temporary file is gone.
    #[error("{}: interrupted; the database was not written", path.display())]
    Interrupted {
        /// The target database.
        path: PathBuf,
    },
    /// A Parquet dataset could not be written or read as one.
    #[error("{}: {message}", path.display())]
    Dataset {
        /// The dataset directory or file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}
