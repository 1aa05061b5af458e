//! What a command is called where a picture has room for one short line
//! (`kt2sql timeline --format svg`'s rows): what it made or what it ran,
//! read from its argv alone, its paths relative to the directory the trace
//! started in (`-d` at import). Pure functions on bytes; no SQL.
//!
//! The rule, the first that applies: a command with a `-o FILE` that is
//! not a temporary file is `comm → FILE` (a compile, a link, an
//! assembly); one that compiles sources ([`super::compiler::compilation`])
//! is `comm SOURCE` (`+N` more); a compiler or one of its passes that
//! does neither is its comm and operands (the arguments that are no
//! option nor an option's value); any other is its comm and arguments,
//! the absolute paths among them made relative. A command with no argv (a
//! forked copy before its exec, or a trace recorded without argv) is its
//! comm.

use super::compiler::{basename, compilation, is_compiler, takes_next};
use crate::process::path::resolve;

/// The compiler's own passes and the tools it runs, named by their
/// operands when they make nothing worth naming (`cc1 -E … lj_arch.h`).
const TOOLCHAIN: &[&[u8]] = &[
    b"cc1",
    b"cc1plus",
    b"cc1obj",
    b"cpp",
    b"as",
    b"ld",
    b"collect2",
    b"lto1",
];

/// Options of the compiler's passes with a value in the next argument
/// beyond the driver's ([`takes_next`]).
const PASS_TAKES_NEXT: &[&[u8]] = &[b"-imultiarch", b"-dumpbase", b"-auxbase", b"-MD", b"-MMD"];

/// Directories whose files are a build's temporaries (`cc -pipe`-less
/// compilers write their `.s` there): an output there says nothing.
const TEMP_DIRS: &[&[u8]] = &[b"/tmp/", b"/var/tmp/", b"/usr/tmp/"];

/// Whether `path` (absolute) is in a temporary directory.
pub fn is_temporary(path: &[u8]) -> bool {
    TEMP_DIRS.iter().any(|d| path.starts_with(d))
}

/// `path` as seen from `start`: relative to it when inside it (`.` for
/// `start` itself), else unchanged. A relative `path` is first taken from
/// `cwd` (the command's working directory) when known, `.` and `..`
/// folded lexically.
pub fn relative(path: &[u8], cwd: Option<&[u8]>, start: Option<&[u8]>) -> Vec<u8> {
    let abs = match (path.first(), cwd) {
        (Some(b'/'), _) | (_, Some(_)) => resolve(cwd, path),
        (_, None) => return path.to_vec(),
    };
    let Some(start) = start else { return abs };
    let start = start.strip_suffix(b"/").unwrap_or(start);
    match abs.strip_prefix(start) {
        Some([]) => b".".to_vec(),
        Some([b'/', rest @ ..]) => rest.to_vec(),
        _ => abs,
    }
}

/// The `-o FILE` (or `-oFILE`) of any program, the last when repeated.
fn output(argv: &[Vec<u8>]) -> Option<&[u8]> {
    let mut out = None;
    for (i, a) in argv.iter().enumerate().skip(1) {
        if a == b"-o" {
            out = argv.get(i + 1).map(Vec::as_slice);
        } else if a.len() > 2 && a.starts_with(b"-o") && !a.starts_with(b"-obj") {
            out = Some(&a[2..]);
        }
    }
    out
}

/// The label of a command: `comm` and its argv (argv\[0\] is the program
/// and is not shown), `cwd` its working directory and `start` the trace's
/// start directory, cut to `max` characters (an ellipsis ends a cut one).
pub fn command(
    comm: &[u8],
    argv: Option<&[Vec<u8>]>,
    cwd: Option<&[u8]>,
    start: Option<&[u8]>,
    max: usize,
) -> String {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut s = text(comm);
    let argv = argv.unwrap_or_default();
    if argv.len() > 1 {
        let out = output(argv).map(|o| relative(o, cwd, start));
        if let Some(o) = out.filter(|o| !is_temporary(o)) {
            s.push_str(" → ");
            s.push_str(&text(&o));
        } else if let Some(c) = compilation(argv) {
            s.push(' ');
            s.push_str(&text(&relative(&argv[c.sources[0]], cwd, start)));
            if c.sources.len() > 1 {
                s.push_str(&format!(" +{}", c.sources.len() - 1));
            }
        } else if is_compiler(comm) || TOOLCHAIN.contains(&basename(comm)) {
            let mut skip = false;
            for a in &argv[1..] {
                let value = std::mem::replace(
                    &mut skip,
                    takes_next(a) || PASS_TAKES_NEXT.contains(&a.as_slice()),
                );
                if value || (a.starts_with(b"-") && a.len() > 1) {
                    continue;
                }
                s.push(' ');
                s.push_str(&text(&relative(a, None, start)));
                if s.chars().count() > max {
                    break;
                }
            }
        } else {
            for a in &argv[1..] {
                s.push(' ');
                match a.first() {
                    Some(b'/') => s.push_str(&text(&relative(a, None, start))),
                    _ => s.push_str(&text(a)),
                }
                if s.chars().count() > max {
                    break;
                }
            }
        }
    }
    cut(&s, max)
}

/// `s` cut to `max` characters, the last one an ellipsis when cut;
/// control characters (a newline in `sh -c`) shown as spaces.
fn cut(s: &str, max: usize) -> String {
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.chars().count() <= max {
        return s;
    }
    let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
    t.push('…');
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<Vec<u8>> {
        words.iter().map(|w| w.as_bytes().to_vec()).collect()
    }

    fn label(comm: &str, words: &[&str], cwd: &str) -> String {
        let a = argv(words);
        command(
            comm.as_bytes(),
            Some(&a),
            Some(cwd.as_bytes()),
            Some(b"/w/gzip".as_slice()),
            40,
        )
    }

    #[test]
    fn paths_are_relative_to_the_start() {
        let start = Some(b"/w/gzip/".as_slice());
        assert_eq!(relative(b"/w/gzip/lib/a.o", None, start), b"lib/a.o");
        assert_eq!(relative(b"/w/gzip", None, start), b".");
        assert_eq!(relative(b"/w/gzipx/a", None, start), b"/w/gzipx/a");
        assert_eq!(relative(b"a.o", Some(b"/w/gzip/lib"), start), b"lib/a.o");
        assert_eq!(relative(b"../x.h", Some(b"/w/gzip/lib"), start), b"x.h");
        assert_eq!(relative(b"a.o", None, start), b"a.o");
        assert_eq!(
            relative(b"/w/gzip/./lib//a.o", None, None),
            b"/w/gzip/lib/a.o"
        );
    }

    #[test]
    fn a_command_is_named_by_what_it_made_or_ran() {
        // What it made, relative to the start directory.
        assert_eq!(
            label("cc", &["gcc", "-c", "-o", "lib/x.o", "lib/x.c"], "/w/gzip"),
            "cc → lib/x.o"
        );
        assert_eq!(
            label(
                "as",
                &["as", "--64", "-o", "gzip.o", "/tmp/cc1.s"],
                "/w/gzip"
            ),
            "as → gzip.o"
        );
        assert_eq!(
            label("ld", &["ld", "-ogzip", "a.o"], "/w/gzip/src"),
            "ld → src/gzip"
        );
        // A temporary output says less than the source compiled.
        assert_eq!(
            label(
                "cc1",
                &[
                    "/usr/lib/cc1",
                    "-quiet",
                    "-I",
                    ".",
                    "deflate.c",
                    "-o",
                    "/tmp/ccX.s"
                ],
                "/w/gzip"
            ),
            "cc1 deflate.c"
        );
        assert_eq!(
            label("cc", &["cc", "-c", "a.c", "b.c", "c.c"], "/w/gzip/lib"),
            "cc lib/a.c +2"
        );
        // A compiler that makes nothing to name: its operands.
        assert_eq!(
            label(
                "gcc",
                &["gcc", "-O2", "-I", "inc", "-E", "lj_arch.h", "-dM"],
                "/w/gzip"
            ),
            "gcc lj_arch.h"
        );
        assert_eq!(
            label(
                "cc1",
                &[
                    "cc1",
                    "-E",
                    "-quiet",
                    "-imultiarch",
                    "x86_64",
                    "-",
                    "-o",
                    "/tmp/a"
                ],
                "/w/gzip"
            ),
            "cc1 -"
        );
        // Anything else: what it ran, absolute paths made relative.
        assert_eq!(
            label("sh", &["/bin/sh", "-c", "cd lib && make all"], "/w/gzip"),
            "sh -c cd lib && make all"
        );
        assert_eq!(
            label("sed", &["sed", "-f", "/w/gzip/x.sed", "/etc/x"], "/"),
            "sed -f x.sed /etc/x"
        );
        // Cut to fit, and no argv: the comm.
        let long = label("echo", &["echo", &"x".repeat(100)], "/");
        assert_eq!(long.chars().count(), 40);
        assert!(long.ends_with('…'), "{long}");
        assert_eq!(command(b"make", None, None, None, 40), "make");
        assert_eq!(label("sh", &["sh", "-c", "a\nb"], "/"), "sh -c a b");
    }
}
