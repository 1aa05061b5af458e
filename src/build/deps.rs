//! `kt2sql deps` and `rdeps`'s rules: a file asked about named as the
//! trace names it, which programs run recipes and which start a compiler
//! run (the jobs whose commands count as one: `queries/deps.sql`), which
//! prerequisites are system files ([`super::system`]), which rows a make depfile lists,
//! how it names a path, and which paths `--under` and `--exclude` keep
//! ([`Tree`], which `compile-commands` applies to its sources too).

use std::borrow::Cow;

use super::compiler::{basename, is_compiler};
pub use super::system::is_system;

/// `file` as the trace names it: absolute, a relative name taken from
/// `cwd` (the directory the trace started in, `-d` at import), `.` and
/// `..` folded lexically (a symbolic link is not followed: the trace holds
/// the names the build looked up, not what they resolved to).
pub fn absolute(file: &str, cwd: &str) -> String {
    if file.starts_with('/') {
        return file.to_string();
    }
    let mut parts: Vec<&str> = cwd.split('/').filter(|p| !p.is_empty()).collect();
    for p in file.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `--under DIR` and `--exclude DIR…` (absolute directories): which
/// paths a report keeps.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tree<'a> {
    /// Only the paths in this directory tree.
    pub under: Option<&'a str>,
    /// Not the paths in these directory trees.
    pub exclude: &'a [String],
}

impl Tree<'_> {
    /// Whether absolute `path` is kept: in `under`'s tree (when given) and
    /// in none of `exclude`'s. A directory's tree holds the directory
    /// itself and every path below it, not a sibling sharing its prefix
    /// (`/w/src` holds `/w/src/a.c`, not `/w/src2/a.c`).
    pub fn keeps(&self, path: &[u8]) -> bool {
        self.under.is_none_or(|d| in_tree(path, d))
            && !self.exclude.iter().any(|d| in_tree(path, d))
    }
}

/// Whether `path` is `dir` or below it.
fn in_tree(path: &[u8], dir: &str) -> bool {
    let dir = dir.strip_suffix('/').unwrap_or(dir).as_bytes();
    path.starts_with(dir) && path.get(dir.len()).is_none_or(|&c| c == b'/')
}

/// Programs that run a build's recipes, each in a process of its own:
/// make in its GNU, BSD and portable names, and ninja (and its clone).
const MAKES: &[&[u8]] = &[b"make", b"gmake", b"bmake", b"pmake", b"ninja", b"samu"];

/// Whether the program at `path` runs recipes: each process it forks is
/// one recipe, every command in it part of one job (the shell that opens
/// `gen.h` for `sed x.in > gen.h`, and the sed that writes it).
pub fn runs_recipes(path: &[u8]) -> bool {
    MAKES.contains(&basename(path))
}

/// Whether the program at `path` starts a compiler run: a C-family
/// compiler driver ([`is_compiler`]). Every command below it (gcc's cc1,
/// as, collect2 and ld, which it forks) is part of that run, so the
/// object `as` writes was made from what cc1 read even when they talk
/// through a pipe (`cc -pipe`), which no file records.
pub fn starts_compiler_run(path: &[u8]) -> bool {
    is_compiler(basename(path))
}

/// Whether a row of this `kind` (`queries/deps.sql`'s and `rdeps.sql`'s
/// column) names a prerequisite of `deps` (a `source` or a `generated`
/// path) rather than a command or a path built.
pub fn is_prerequisite(kind: &str) -> bool {
    kind == "source" || kind == "generated"
}

/// Whether a prerequisite of this `kind` gets an empty rule of its own in
/// a depfile (`src/util.h:`, as `gcc -MP` writes): a source, so that make
/// does not stop when it is deleted or renamed and the rule naming it is
/// stale. Never a generated file: its rule is the Makefile's, and an empty
/// one would hide a missing one.
pub fn gets_empty_rule(kind: &str) -> bool {
    kind == "source"
}

/// `path` as a make depfile names it from `base`, the directory of the
/// command that wrote the target (`gcc -MD` names every file as that
/// compiler found it, from the directory it ran in): relative to `base`
/// when it is in it; when it is elsewhere in `tree` (the directory the
/// trace started in: the build's own tree) and so is `base`, relative
/// with `../` steps, as gcc names a header found through `-I../include`;
/// absolute otherwise (a system header, a file in /tmp), as gcc names
/// `/usr/include/stdio.h`.
pub fn make_name<'a>(path: &'a [u8], base: Option<&[u8]>, tree: Option<&[u8]>) -> Cow<'a, [u8]> {
    let Some(base) = base else {
        return Cow::Borrowed(path);
    };
    if let Some(rest) = below(path, base) {
        return Cow::Borrowed(rest);
    }
    let Some(tree) = tree else {
        return Cow::Borrowed(path);
    };
    if below(path, tree).is_none() || (below(base, tree).is_none() && !same_dir(base, tree)) {
        return Cow::Borrowed(path);
    }
    // The directories they share, then one `..` per directory of `base`
    // below those.
    let from: Vec<&[u8]> = base
        .split(|&c| c == b'/')
        .filter(|c| !c.is_empty())
        .collect();
    let to: Vec<&[u8]> = path
        .split(|&c| c == b'/')
        .filter(|c| !c.is_empty())
        .collect();
    let shared = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut name = b"../".repeat(from.len() - shared);
    name.extend_from_slice(&to[shared..].join(&b'/'));
    Cow::Owned(name)
}

/// `path` below directory `dir`, relative to it; `None` when it is not
/// below it (or is `dir` itself).
fn below<'a>(path: &'a [u8], dir: &[u8]) -> Option<&'a [u8]> {
    let dir = dir.strip_suffix(b"/").unwrap_or(dir);
    match path.strip_prefix(dir) {
        Some([b'/', rest @ ..]) if !rest.is_empty() => Some(rest),
        _ => None,
    }
}

/// Whether `a` and `b` name one directory (a trailing `/` aside).
fn same_dir(a: &[u8], b: &[u8]) -> bool {
    a.strip_suffix(b"/").unwrap_or(a) == b.strip_suffix(b"/").unwrap_or(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_names_are_taken_from_the_directory_and_folded() {
        assert_eq!(absolute("/abs/x.o", "/w"), "/abs/x.o");
        assert_eq!(absolute("obj/x.o", "/w/src"), "/w/src/obj/x.o");
        assert_eq!(absolute("./../x.o", "/w/src/"), "/w/x.o");
        assert_eq!(absolute("../../../x", "/w"), "/x");
        assert_eq!(absolute("x", "/"), "/x");
    }

    #[test]
    fn trees_hold_a_directory_and_what_is_below_it() {
        let ex = ["/w/src/gen".to_string()];
        let t = Tree {
            under: Some("/w/src/"),
            exclude: &ex,
        };
        assert!(t.keeps(b"/w/src/a.c") && t.keeps(b"/w/src"));
        assert!(!t.keeps(b"/w/src2/a.c") && !t.keeps(b"/w/a.c"));
        assert!(!t.keeps(b"/w/src/gen/x.c") && t.keeps(b"/w/src/gen.c"));
        assert!(Tree::default().keeps(b"/anything"));
    }

    #[test]
    fn makes_run_recipes() {
        assert!(runs_recipes(b"/usr/bin/make"));
        assert!(runs_recipes(b"/usr/local/bin/gmake"));
        assert!(!runs_recipes(b"/usr/bin/makeinfo"));
        assert!(!runs_recipes(b"/bin/sh"));
    }

    #[test]
    fn compiler_drivers_start_a_run() {
        assert!(starts_compiler_run(b"/usr/bin/cc"));
        assert!(starts_compiler_run(
            b"/usr/local/bin/x86_64-unknown-openbsd-gcc"
        ));
        assert!(!starts_compiler_run(
            b"/usr/lib/gcc/x86_64-linux-gnu/12/cc1"
        ));
        assert!(!starts_compiler_run(b"/usr/bin/as"));
        assert!(!starts_compiler_run(b"/bin/sh"));
    }

    #[test]
    fn system_files_are_in_system_directories_outside_the_build() {
        let starts: [&[u8]; 1] = [b"/usr/src/build"];
        assert!(is_system(b"/usr/include/stdio.h", &starts));
        assert!(is_system(b"/lib/libc.so.7", &starts));
        assert!(is_system(b"/usr/lib", &starts));
        assert!(!is_system(b"/usr/libfoo/x.h", &starts));
        assert!(!is_system(b"/usr/src/build/include/gen.h", &starts));
        assert!(!is_system(b"/tmp/w/src/a.c", &starts));
        let inside: [&[u8]; 1] = [b"/usr/share/proj/"];
        assert!(!is_system(b"/usr/share/proj/a.c", &inside));
        assert!(is_system(b"/usr/share/misc/magic", &inside));
    }

    #[test]
    fn a_depfile_lists_prerequisites_and_empty_rules_for_sources() {
        assert!(is_prerequisite("source") && is_prerequisite("generated"));
        assert!(!is_prerequisite("command") && !is_prerequisite("built"));
        assert!(gets_empty_rule("source"));
        assert!(!gets_empty_rule("generated"));
    }

    #[test]
    fn make_names_are_relative_to_the_start_directory() {
        let s = Some(&b"/w/proj"[..]);
        let n = |p: &'static [u8], base| make_name(p, base, None).into_owned();
        assert_eq!(n(b"/w/proj/src/a.c", s), b"src/a.c");
        assert_eq!(n(b"/w/proj/src/a.c", Some(b"/w/proj/")), b"src/a.c");
        assert_eq!(n(b"/w/project/a.c", s), b"/w/project/a.c");
        assert_eq!(n(b"/w/proj", s), b"/w/proj");
        assert_eq!(n(b"/usr/include/stdio.h", s), b"/usr/include/stdio.h");
        assert_eq!(n(b"/w/proj/a.c", None), b"/w/proj/a.c");
    }

    #[test]
    fn make_names_from_a_subdirectory_step_up_within_the_tree() {
        let tree = Some(&b"/w/proj"[..]);
        let n = |p: &'static [u8], base: &'static [u8]| {
            String::from_utf8(make_name(p, Some(base), tree).into_owned()).unwrap()
        };
        assert_eq!(n(b"/w/proj/src/lj_arch.h", b"/w/proj/src"), "lj_arch.h");
        assert_eq!(n(b"/w/proj/include/u.h", b"/w/proj/src"), "../include/u.h");
        assert_eq!(n(b"/w/proj/a/b/x.h", b"/w/proj/c/d/"), "../../a/b/x.h");
        assert_eq!(n(b"/w/proj/x.h", b"/w/proj/sub"), "../x.h");
        assert_eq!(n(b"/w/proj/sub/x.h", b"/w/proj"), "sub/x.h");
        // Outside the tree: absolute, as gcc names a system header.
        assert_eq!(
            n(b"/usr/include/stdio.h", b"/w/proj/src"),
            "/usr/include/stdio.h"
        );
        assert_eq!(n(b"/w/other/x.h", b"/w/proj/src"), "/w/other/x.h");
        // A writer outside the tree names the tree's files absolutely.
        assert_eq!(n(b"/w/proj/x.h", b"/tmp/b"), "/w/proj/x.h");
    }
}
