//! The messages an import fails with. SQLite and I/O errors are reworded
//! here to name the target database (not the temporary file the user
//! never sees) and to say what would help: a lock held too long, a target
//! that appeared meanwhile, a database of another schema version. Decides
//! nothing: the callers pick which error applies.

use std::path::Path;
use std::time::Duration;

use super::ImportMode;
use crate::schema::SCHEMA_VERSION;
use crate::Error;

/// The import will not go on: `path` and why.
pub(super) fn refused(path: &Path, reason: &str) -> Error {
    Error::Refused {
        path: path.to_owned(),
        reason: reason.to_owned(),
    }
}

/// A target created by another process while this import wrote its own:
/// theirs is kept, and this import says so.
pub(super) fn appeared(e: Error, db: &Path, mode: ImportMode) -> Error {
    match &e {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists => {
            let again = match mode {
                ImportMode::Append => "run the import again to append to it",
                _ => "use --append to add to it or --force to replace it",
            };
            refused(
                db,
                &format!(
                    "was created by another process during this import; it was left \
                          alone and nothing was written ({again})"
                ),
            )
        }
        _ => e,
    }
}

/// SQLite gave up waiting for a lock: say so, and what would help.
pub(super) fn busy(e: Error, db: &Path, waited: Duration) -> Error {
    use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
    match &e {
        Error::Sqlite {
            source: rusqlite::Error::SqliteFailure(f, _),
            ..
        } if matches!(f.code, DatabaseBusy | DatabaseLocked) => refused(
            db,
            &format!(
                "another process kept the database locked for {} s (another import, or a \
                 long transaction of another program); nothing was appended \
                 (--busy-timeout SECONDS waits longer)",
                waited.as_secs()
            ),
        ),
        _ => e,
    }
}

/// Name the target database in SQL errors (the temporary file's name means
/// nothing to the user).
pub(super) fn in_db(e: Error, db: &Path) -> Error {
    match e {
        Error::Sqlite { context, source } => Error::Sqlite {
            context: format!("{}: {context}", db.display()),
            source,
        },
        Error::Interrupted { .. } => Error::Interrupted {
            path: db.to_owned(),
        },
        other => other,
    }
}

/// An `--append` target of another schema version.
pub(super) fn other_version(db: &Path, v: i64) -> Error {
    refused(
        db,
        &format!(
            "has kt2sql schema version {v}, this kt2sql writes version \
             {SCHEMA_VERSION}; cannot append (use --force to replace it)"
        ),
    )
}
