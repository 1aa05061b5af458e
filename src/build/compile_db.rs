//! Which commands become entries of a compilation database
//! (`compile_commands.json`) and why the others are left out: only a
//! compiler execution ([`super::compiler`]) whose argv the trace recorded,
//! in a known absolute working directory, with an argv and directory that
//! JSON can hold exactly (UTF-8), one entry per source file that still
//! exists after the build, as Bear writes them: a source the build
//! removed (configure's `conftest.c`, a probe in `/tmp`) gives none unless
//! every entry is asked for, nor one outside the directories asked for
//! (`--under`, `--exclude`: [`super::deps::Tree`], on the source's path). A command line is never rebuilt from other
//! records. The [`Summary`] counts what was left out, for the caller's
//! error and notes.

use super::compiler::{self, basename, Compilation};
use crate::text::is_utf8;

/// What a run found, for the caller's error or notes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Commands in scope whose argv the trace recorded. When 0, nothing
    /// was written (not even `[]`).
    pub with_argv: u64,
    /// Entries written.
    pub entries: u64,
    /// Executions of a compiler program (by name) without argv: left out.
    pub without_argv: u64,
    /// Compilations whose working directory is unknown: left out (the
    /// format needs an absolute directory).
    pub without_cwd: u64,
    /// Compilations whose argv or directory is not UTF-8, which a JSON
    /// string cannot hold exactly: left out.
    pub not_utf8: u64,
    /// Entries whose source file the build removed (its last change of
    /// the path was a removal): left out, unless every entry is kept.
    pub removed: u64,
    /// Entries whose source file is outside `--under` or in an
    /// `--exclude` directory: left out.
    pub outside: u64,
}

/// A command's working directory as the database holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cwd<'a> {
    /// Held as text: these bytes (a relative one is not known well enough).
    Text(&'a [u8]),
    /// Held as bytes that are not UTF-8.
    NotUtf8,
    /// Not known.
    Unknown,
}

impl Summary {
    /// A command whose argv the trace did not record, run from `path` (its
    /// executable, when known): left out, and counted when that program is
    /// a compiler.
    pub fn no_argv(&mut self, path: Option<&[u8]>) {
        let name = path.map(basename).unwrap_or_default();
        self.without_argv += u64::from(compiler::is_compiler(name));
    }

    /// A command with its argv recorded, run from `path` (or, unknown,
    /// argv\[0\]) in `cwd`: the directory and what it compiles when its
    /// entries are to be written; `None` when it is no compiler, compiles
    /// nothing, or is left out (counted): its directory unknown, or not
    /// UTF-8 with its argv.
    pub fn with_argv<'a>(
        &mut self,
        path: Option<&[u8]>,
        argv: &[Vec<u8>],
        cwd: Cwd<'a>,
    ) -> Option<(&'a [u8], Compilation)> {
        self.with_argv += 1;
        let program = path.or(argv.first().map(Vec::as_slice));
        if !program.is_some_and(|p| compiler::is_compiler(basename(p))) {
            return None;
        }
        let c = compiler::compilation(argv)?;
        let dir = match cwd {
            Cwd::Text(d) if d.starts_with(b"/") => d,
            Cwd::NotUtf8 => {
                self.not_utf8 += 1;
                return None;
            }
            _ => {
                self.without_cwd += 1;
                return None;
            }
        };
        if !is_utf8(dir) || !argv.iter().all(|a| is_utf8(a)) {
            self.not_utf8 += 1;
            return None;
        }
        Some((dir, c))
    }
}

/// A compilation's source `file` as the trace names paths: absolute,
/// taken from the directory `dir` the compiler ran in when relative,
/// with `.` and `..` folded as the import folds a path it resolves.
pub fn source_path(dir: &str, file: &str) -> String {
    match file.strip_prefix('/') {
        Some(rest) => super::deps::absolute(rest, "/"),
        None => super::deps::absolute(file, dir),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<Vec<u8>> {
        words.iter().map(|w| w.as_bytes().to_vec()).collect()
    }

    #[test]
    fn only_compilations_in_a_known_utf8_directory_are_entries() {
        let mut s = Summary::default();
        let cc = argv(&["cc", "-c", "a.c"]);
        let (dir, c) = s.with_argv(None, &cc, Cwd::Text(b"/src")).unwrap();
        assert_eq!((dir, c.sources), (&b"/src"[..], vec![2]));
        // The executable's path decides, not argv[0].
        assert!(s
            .with_argv(Some(b"/bin/sh"), &cc, Cwd::Text(b"/src"))
            .is_none());
        assert!(s
            .with_argv(None, &argv(&["cc", "-o", "p", "a.o"]), Cwd::Text(b"/src"))
            .is_none());
        assert!(s.with_argv(None, &cc, Cwd::Text(b"src")).is_none());
        assert!(s.with_argv(None, &cc, Cwd::Unknown).is_none());
        assert!(s.with_argv(None, &cc, Cwd::NotUtf8).is_none());
        let bad = vec![b"cc".to_vec(), b"-c".to_vec(), b"\xff.c".to_vec()];
        assert!(s.with_argv(None, &bad, Cwd::Text(b"/src")).is_none());
        s.no_argv(Some(b"/usr/bin/clang"));
        s.no_argv(Some(b"/bin/sh"));
        s.no_argv(None);
        let want = Summary {
            with_argv: 7,
            entries: 0,
            without_argv: 1,
            without_cwd: 2,
            not_utf8: 2,
            removed: 0,
            outside: 0,
        };
        assert_eq!(s, want);
    }

    #[test]
    fn sources_are_named_as_the_trace_names_paths() {
        assert_eq!(source_path("/w/obj", "../src/a.c"), "/w/src/a.c");
        assert_eq!(source_path("/w", "./conftest.c"), "/w/conftest.c");
        assert_eq!(source_path("/w", "/tmp//x/../d.c"), "/tmp/d.c");
    }
}
