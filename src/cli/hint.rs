//! What to tell someone who gave a database where a trace goes (`dump`,
//! import): what the file is and what reads it. The reverse, a trace where
//! a database goes, is [`kt2sql::report::open`]'s.

use std::path::Path;

use kt2sql::schema::{self, Existing};

/// Why `path`, an SQLite file (the decoder's [`Sqlite`] refusal), is not
/// a trace: a kt2sql database is named as one, with the commands that read
/// it; any other SQLite file only as SQLite. Only a regular file is looked
/// into (a pipe's bytes are gone).
///
/// [`Sqlite`]: kt2sql::decode::DecodeErrorKind::Sqlite
pub fn database_not_trace(path: &Path) -> String {
    let p = kt2sql::text::path(path);
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    match regular.then(|| schema::inspect(path)) {
        Some(Ok(Existing::Current | Existing::OtherVersion(_))) => format!(
            "{p}: this is a kt2sql database (SQLite), not a ktrace file: \
             read it with `kt2sql tree|files|stats|sql {p}`"
        ),
        Some(_) => format!("{p}: an SQLite database (not one kt2sql wrote), not a ktrace file"),
        None => format!("{p}: an SQLite database, not a ktrace file"),
    }
}

/// [`database_not_trace`] when `e` is the decoder's refusal of an SQLite
/// file, else `e` as it is.
pub fn explain(e: kt2sql::Error) -> super::anyhow_lite::Error {
    match e {
        kt2sql::Error::Decode { path, source }
            if source.kind == kt2sql::decode::DecodeErrorKind::Sqlite =>
        {
            database_not_trace(&path).into()
        }
        e => e.into(),
    }
}
