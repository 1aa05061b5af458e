//! `kt2sql compile-commands`: a JSON compilation database
//! (`compile_commands.json`, the format clangd, clang-tidy and Bear use)
//! written as the rows of `queries/commands.sql` come: one entry per
//! source file of each command [`crate::build::compile_db`] takes, with
//! the argv exactly as recorded. A source the build removed is asked of
//! `queries/removed.sql` (one indexed lookup per source path and trace,
//! remembered: a build compiles most sources once, a repeated one many
//! times). Only the sources `--under`/`--exclude` keep are entries
//! ([`Tree`], on the source's absolute path). Where the trace
//! holds no argv, nothing is written and the caller says which recordings
//! have it. This file reads the stored argv and writes the JSON; which
//! commands are entries is decided in `build`.

use std::collections::HashMap;
use std::io::Write;

use rusqlite::types::ValueRef;

use super::row::typed_row;
use super::{each_as, prepare_as, Cell, Database, Scope};
use crate::build::compile_db::{source_path, Cwd, Summary};
use crate::build::deps::Tree;
use crate::json::{json_str, json_str_list};
use crate::Error;

typed_row! {
    /// A row of `queries/commands.sql`: one command, as recorded.
    struct Command<'r> from "commands" {
        command_id: Cell,
        trace_id: Option<i64>,
        cwd: ValueRef<'r>,
        path: Option<&'r [u8]>,
        argv: ValueRef<'r>,
    }
}

typed_row! {
    /// The row of `queries/removed.sql`: whether the build removed a path.
    struct Removed from "removed" {
        removed: i64,
    }
}

/// Write the compilation database of `scope` to `out`, in the order the
/// commands started; nothing at all when no command in scope has argv
/// (`Summary::with_argv == 0`), `[]` when argv exists but no compiler
/// compiled anything. Write errors come back as [`Error::Io`] naming
/// "the compile_commands output". With `keep_removed`, the entries of
/// sources the build removed are written too; else they are counted in
/// [`Summary::removed`]. Only the sources `tree` keeps are entries (the
/// others counted in [`Summary::outside`]).
pub fn write(
    db: &Database,
    scope: Scope,
    keep_removed: bool,
    tree: Tree,
    out: &mut dyn Write,
) -> Result<Summary, Error> {
    let mut sum = Summary::default();
    let (mut removed, context, was) = prepare_as::<Removed>(db, "removed", &[])?;
    let mut gone: HashMap<(Option<i64>, String), bool> = HashMap::new();
    each_as::<Command<'static>>(db, "commands", &scope.params(), |r| {
        let (id, trace, path) = (r.command_id, r.trace_id, r.path);
        let Some(argv) = words(r.argv) else {
            sum.no_argv(path);
            return Ok(());
        };
        let argv = argv.ok_or_else(|| Error::Refused {
            path: db.path.clone(),
            reason: format!(
                "command {}: its argv is not a JSON array of strings (a damaged database?)",
                id.display()
            ),
        })?;
        let cwd = match r.cwd {
            ValueRef::Text(d) => Cwd::Text(d),
            ValueRef::Blob(_) => Cwd::NotUtf8,
            _ => Cwd::Unknown,
        };
        let Some((dir, c)) = sum.with_argv(path, &argv, cwd) else {
            return Ok(());
        };
        for &src in &c.sources {
            // Both are UTF-8 here (checked by `with_argv`).
            let dir = std::str::from_utf8(dir).unwrap_or_default();
            let file = std::str::from_utf8(&argv[src]).unwrap_or_default();
            let source = source_path(dir, file);
            if !tree.keeps(source.as_bytes()) {
                sum.outside += 1;
                continue;
            }
            if !keep_removed {
                let key = (trace, source);
                let was_removed = match gone.get(&key) {
                    Some(&g) => g,
                    None => {
                        let g: i64 = removed
                            .query_row(
                                rusqlite::named_params! {"$path": key.1, "$trace": key.0},
                                |r| Ok(was.row(r).removed),
                            )
                            .map_err(crate::schema::sql_err(context.clone()))?;
                        *gone.entry(key).or_default() = g == 1;
                        g == 1
                    }
                };
                if was_removed {
                    sum.removed += 1;
                    continue;
                }
            }
            let output = c.output.map(|o| o.name(&argv));
            let entry = entry(dir.as_bytes(), &argv, &argv[src], output);
            let lead = if sum.entries == 0 { "[\n" } else { ",\n" };
            out.write_all(lead.as_bytes()).map_err(out_err)?;
            out.write_all(entry.as_bytes()).map_err(out_err)?;
            sum.entries += 1;
        }
        Ok(())
    })?;
    let end = match (sum.with_argv, sum.entries) {
        (0, _) => "",
        (_, 0) => "[]\n",
        _ => "\n]\n",
    };
    out.write_all(end.as_bytes()).map_err(out_err)?;
    Ok(sum)
}

/// argv as words: `None` when not recorded, `Some(None)` when stored in a
/// form kt2sql never writes. TEXT is a JSON array; a BLOB holds the raw
/// NUL-separated bytes (argv that is not UTF-8).
pub(super) fn words(argv: ValueRef<'_>) -> Option<Option<Vec<Vec<u8>>>> {
    match argv {
        ValueRef::Null => None,
        ValueRef::Text(t) => {
            Some(json_str_list(t).map(|w| w.into_iter().map(String::into_bytes).collect()))
        }
        ValueRef::Blob(b) => {
            let body = b.strip_suffix(b"\0").unwrap_or(b);
            Some(Some(if b.is_empty() {
                Vec::new()
            } else {
                body.split(|&c| c == 0).map(<[u8]>::to_vec).collect()
            }))
        }
        ValueRef::Integer(_) | ValueRef::Real(_) => Some(None),
    }
}

/// One entry, indented as an element of the top-level array, without the
/// separator after it.
fn entry(dir: &[u8], argv: &[Vec<u8>], file: &[u8], output: Option<&[u8]>) -> String {
    let mut s = String::from("  {\n    \"directory\": ");
    json_str(&mut s, dir);
    s.push_str(",\n    \"arguments\": [");
    for (i, a) in argv.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        json_str(&mut s, a);
    }
    s.push_str("],\n    \"file\": ");
    json_str(&mut s, file);
    if let Some(o) = output {
        s.push_str(",\n    \"output\": ");
        json_str(&mut s, o);
    }
    s.push_str("\n  }");
    s
}

/// An I/O error on the output.
fn out_err(source: std::io::Error) -> Error {
    Error::Io {
        path: "the compile_commands output".into(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::row::value_of;

    #[test]
    fn entries_escape_what_json_needs() {
        let argv: Vec<Vec<u8>> = ["cc", "-DMSG=\"hi\\n\"", "-c", "dir with space/a.c"]
            .iter()
            .map(|w| w.as_bytes().to_vec())
            .collect();
        let e = entry(b"/src/\"q\"", &argv, &argv[3], Some(b"a.o"));
        assert_eq!(
            e,
            "  {\n    \"directory\": \"/src/\\\"q\\\"\",\n    \"arguments\": [\"cc\", \
             \"-DMSG=\\\"hi\\\\n\\\"\", \"-c\", \"dir with space/a.c\"],\n    \"file\": \
             \"dir with space/a.c\",\n    \"output\": \"a.o\"\n  }"
        );
    }

    #[test]
    fn argv_reads_both_encodings() {
        let text = Cell::Text(br#"["cc","-c","a.c"]"#.to_vec());
        let blob = Cell::Blob(b"cc\0-c\0\xffa.c\0".to_vec());
        let w = |v: &[&[u8]]| Some(Some(v.iter().map(|b| b.to_vec()).collect::<Vec<_>>()));
        assert_eq!(words(value_of(&text)), w(&[b"cc", b"-c", b"a.c"]));
        assert_eq!(words(value_of(&blob)), w(&[b"cc", b"-c", b"\xffa.c"]));
        assert_eq!(words(value_of(&Cell::Null)), None);
        assert_eq!(words(value_of(&Cell::Text(b"cc -c".to_vec()))), Some(None));
    }
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::Command<'static>>();
        check::<super::Removed>();
    }
}
