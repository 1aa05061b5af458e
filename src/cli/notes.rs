//! What a report cannot show because of how the database was imported,
//! said on stderr as `kt2sql: note:` lines with what to do (lookups left
//! relative, their base directory unknown), and the relative directories of `--under`
//! and `--allow` resolved against the start directory (`-d`) the trace was
//! imported with. Both read `kt2sql::report::start_dirs`; nothing here
//! writes to standard output. The commands these notes and the errors of
//! the other commands advise name the database as a shell takes it
//! ([`quote_path`]).

use std::path::Path;

use rusqlite::Connection;

use kt2sql::build::deps::absolute;
use kt2sql::report::{self, Scope, StartDir};

use super::anyhow_lite::Result;

/// A path as the user would type it again in a shell hint.
pub fn quote_path(p: &Path) -> String {
    let s = kt2sql::text::path(p);
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Why lookups stayed relative, and what resolves them: `-d` at import
/// when a trace with such lookups was imported without it; else their
/// base is not in the trace (the process model's own reason: a directory
/// fd, or the cwd of a process already running when tracing began).
/// `them`/`their` agree with the count.
pub fn why_relative(dirs: &[StartDir], them: &str, their: &str) -> String {
    let without_d = dirs.iter().any(|d| d.relative > 0 && d.start_cwd.is_none());
    if without_d {
        format!(
            "importing with -d DIR, the directory the traced command started in, resolves {them}"
        )
    } else {
        format!(
            "-d at import does not resolve {them}: {their} base, a directory fd or the \
             working directory of a process already running when tracing began, is not \
             in the trace"
        )
    }
}

/// `kt2sql files --unresolved DB` in `scope`: the command that lists the
/// lookups left relative.
pub fn list_command(db: &Path, scope: Scope) -> String {
    let mut list = format!("kt2sql files --unresolved {}", quote_path(db));
    if let Some(pid) = scope.pid {
        list.push_str(&format!(" -p {pid}"));
    }
    if let Some(t) = scope.trace {
        list.push_str(&format!(" --trace {t}"));
    }
    list
}

/// The note of a build report (`inputs`, `outputs`, `lint`): its rows
/// are absolute paths only, so the lookups `scope` left relative are not
/// in it; how many, and what resolves them.
pub fn relative_left_out(conn: &Connection, db: &Path, scope: Scope) -> Result<()> {
    let dirs = report::start_dirs(conn, scope)?;
    let n: i64 = dirs.iter().map(|d| d.relative).sum();
    if n == 0 {
        return Ok(());
    }
    let (lookups, are, them, their) = if n == 1 {
        ("lookup", "is", "it", "its")
    } else {
        ("lookups", "are", "them", "their")
    };
    eprintln!(
        "kt2sql: note: {n} {lookups} stayed relative (base directory unknown) and {are} \
         not in this report ({} lists {them}; {})",
        list_command(db, scope),
        why_relative(&dirs, them, their)
    );
    Ok(())
}

/// `dirs`, given to `flag` (`--under`, `--allow`), made absolute: a
/// relative one is taken from the start directory of the traces in scope
/// (`.` and `..` folded), as `-d` resolved the trace's own paths; refused
/// when a trace has none, or when they differ, since the paths in the
/// database are absolute and a relative one would match nothing.
pub fn resolve_dirs(
    conn: &Connection,
    db: &Path,
    trace: Option<i64>,
    flag: &str,
    dirs: Vec<String>,
) -> Result<Vec<String>> {
    resolve(conn, db, trace, (flag, "directory"), dirs)
}

/// [`resolve_dirs`] for `what` = (the argument, `directory` or `path`).
pub fn resolve(
    conn: &Connection,
    db: &Path,
    trace: Option<i64>,
    (flag, noun): (&str, &str),
    dirs: Vec<String>,
) -> Result<Vec<String>> {
    let Some(rel) = dirs.iter().find(|d| !d.starts_with('/')) else {
        return Ok(dirs);
    };
    let starts = report::start_dirs(conn, Scope { trace, pid: None })?;
    let refuse = |why: String| -> Result<Vec<String>> {
        Err(format!(
            "{}: {flag} {rel}: a relative {noun}, and {why}: give an absolute path",
            db.display()
        )
        .into())
    };
    if let Some(d) = starts.iter().find(|d| d.start_cwd.is_none()) {
        return refuse(format!(
            "trace {} was imported without -d, so what it is relative to is unknown",
            d.trace
        ));
    }
    let mut cwds: Vec<&[u8]> = starts
        .iter()
        .filter_map(|d| d.start_cwd.as_deref())
        .collect();
    cwds.sort();
    cwds.dedup();
    let cwd = match cwds[..] {
        [] => return refuse("the database holds no trace".into()),
        [one] => one,
        _ => return refuse("the traces started in different directories (give --trace)".into()),
    };
    let Ok(cwd) = std::str::from_utf8(cwd) else {
        return refuse("the start directory is not UTF-8".into());
    };
    Ok(dirs.iter().map(|d| absolute(d, cwd)).collect())
}
