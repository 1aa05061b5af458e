//! Decode errors: what went wrong, at which byte offset, in which record.
//! The hot loop produces a small [`DecodeErrorKind`]; the decoder attaches
//! the offset and record index once, at the record boundary.

use thiserror::Error;

/// A decode failure with its position in the file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct DecodeError {
    /// Byte offset of the record header where decoding stopped.
    pub offset: u64,
    /// Index of the record that could not be decoded (= records decoded before it).
    pub record: u64,
    /// What went wrong.
    pub kind: DecodeErrorKind,
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            // About the whole file: a position would only be noise.
            DecodeErrorKind::Empty
            | DecodeErrorKind::Sqlite
            | DecodeErrorKind::Unrecognized(_)
            | DecodeErrorKind::Ambiguous(_) => write!(f, "{}", self.kind),
            _ => write!(
                f,
                "{} at byte offset {} (record #{})",
                self.kind, self.offset, self.record
            ),
        }
    }
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The file ends inside a record.
    #[error("truncated {what}: need {need} bytes, {have} left")]
    Truncated {
        /// "record header" or "record payload".
        what: &'static str,
        /// Bytes the record needs from this offset.
        need: u64,
        /// Bytes left in the file.
        have: u64,
    },
    /// A length field that cannot be right.
    #[error("record length {len} is impossible ({why})")]
    BadLength {
        /// The length as read (a signed int32 or an unsigned size_t).
        len: i128,
        /// Why it was refused.
        why: &'static str,
    },
    /// A record that breaks its type's rules ([`super::rules`]): damage.
    #[error("bad record: {0}")]
    BadRecord(super::rules::Breach),
    /// A header version this dialect does not define.
    #[error("unsupported {family} header version {version}")]
    BadVersion {
        /// System name.
        family: &'static str,
        /// Version as read.
        version: u16,
    },
    /// The input holds no bytes.
    #[error("empty: no records (expected a ktrace.out file)")]
    Empty,
    /// The input is an SQLite database (it begins with
    /// [`crate::schema::SQLITE_MAGIC`]), perhaps one kt2sql wrote.
    #[error("an SQLite database, not a ktrace file")]
    Sqlite,
    /// No dialect fits the file.
    #[error("not a ktrace file: {0}")]
    Unrecognized(String),
    /// Several dialects fit equally well.
    #[error("ambiguous trace: {0}; choose one with --dialect")]
    Ambiguous(String),
    /// Reading failed.
    #[error("read error: {0}")]
    Io(String),
}
