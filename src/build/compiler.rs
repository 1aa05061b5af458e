//! Which executions are compilations, read from their program name and
//! argv alone (`kt2sql compile-commands`): the C-family compiler drivers
//! by name, the source files among their arguments, the `-o` output, and
//! the invocations that compile nothing (preprocess only, dependency
//! listing, clang's internal `-cc1`). Pure functions on bytes; no SQL.

/// Compiler drivers that may carry a cross prefix (`x86_64-unknown-openbsd-gcc`)
/// and a version (`gcc-12`, `clang17`, `clang++-17.0.6`).
const VERSIONED: &[&[u8]] = &[b"gcc", b"g++", b"clang", b"clang++", b"egcc", b"eg++"];

/// Compiler drivers known by this name only (a cross prefix allowed):
/// the system compiler, and `CC`/`cxx` as some systems call C++.
const PLAIN: &[&[u8]] = &[b"cc", b"c++", b"CC", b"cxx"];

/// File name suffixes of sources a C-family driver compiles or assembles
/// (GCC's "Options Controlling the Kind of Output"): C, preprocessed C,
/// Objective-C(++), C++, preprocessed C++, assembler with and without cpp.
/// Case matters: `.C` and `.M` are C++ and Objective-C++, `.S` is
/// assembler to preprocess. Headers (a precompiled header) are not sources.
const SOURCE_SUFFIXES: &[&str] = &[
    "c", "i", "m", "mi", "mm", "M", "mii", "cc", "cp", "cxx", "cpp", "CPP", "c++", "C", "ii", "s",
    "S", "sx",
];

/// Options whose value is the next argument (`-o out.s`, `-MF x.d`,
/// `-include x.h`): that argument is never a source, whatever its name.
const TAKES_NEXT: &[&str] = &[
    "-o",
    "-x",
    "-MF",
    "-MT",
    "-MQ",
    "-I",
    "-L",
    "-D",
    "-U",
    "-A",
    "-B",
    "-F",
    "-l",
    "-T",
    "-u",
    "-z",
    "-e",
    "-include",
    "-imacros",
    "-iquote",
    "-isystem",
    "-idirafter",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-imultilib",
    "-iframework",
    "-include-pch",
    "-ivfsoverlay",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xclang",
    "-Xanalyzer",
    "-mllvm",
    "-aux-info",
    "-dumpbase",
    "-dumpbase-ext",
    "-dumpdir",
    "-wrapper",
    "--sysroot",
    "-target",
    "--target",
    "-arch",
    "--param",
    "-working-directory",
];

/// Options after which nothing is compiled: preprocess only (`-E`), list
/// dependencies instead (`-M`, `-MM`, which imply `-E`), print the
/// commands without running them (`-###`), and clang's internal frontend
/// and assembler (`-cc1`, `-cc1as`), which the driver runs itself.
const NO_COMPILE: &[&str] = &["-E", "-M", "-MM", "-###", "-cc1", "-cc1as"];

/// Whether the option `opt` of a C-family compiler takes the next
/// argument as its value (`-o out.s`, `-I dir`: [`TAKES_NEXT`]).
pub fn takes_next(opt: &[u8]) -> bool {
    std::str::from_utf8(opt).is_ok_and(|o| TAKES_NEXT.contains(&o))
}

/// The last `/`-separated part of `path`.
pub fn basename(path: &[u8]) -> &[u8] {
    path.rsplit(|&c| c == b'/').next().unwrap_or(path)
}

/// Whether a program called `name` (a basename) is a C-family compiler
/// driver: `cc`, `c++`, `gcc`, `g++`, `clang`, `clang++`, OpenBSD's ports
/// `egcc`/`eg++`, each with a cross prefix (`x86_64-unknown-openbsd-gcc`),
/// the gcc and clang names with a version (`gcc-12`, `clang17`). Not
/// `cpp` or `clang-cpp` (preprocessors), not `as` (an assembler: it
/// compiles nothing and takes no compiler flags), not `cc1`/`cc1plus`
/// (the compiler proper, run by the driver with internal arguments), not
/// wrappers such as `ccache` or `distcc` (the compiler they run is an
/// execution of its own).
pub fn is_compiler(name: &[u8]) -> bool {
    if PLAIN.contains(&without_prefix(name)) {
        return true;
    }
    let unversioned = strip_version(name);
    VERSIONED.contains(&without_prefix(unversioned))
}

/// `name` without a cross prefix: what follows its last `-`.
fn without_prefix(name: &[u8]) -> &[u8] {
    match name.iter().rposition(|&c| c == b'-') {
        Some(i) => &name[i + 1..],
        None => name,
    }
}

/// `name` without a version suffix: `gcc-12.2.0` → `gcc`, `clang17` →
/// `clang`; unchanged without one.
fn strip_version(name: &[u8]) -> &[u8] {
    let digits = name
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_digit() || **c == b'.')
        .count();
    let rest = &name[..name.len() - digits];
    let version = &name[rest.len()..];
    let well_formed = !version.is_empty()
        && version[0].is_ascii_digit()
        && !version.ends_with(b".")
        && !version.windows(2).any(|w| w == b"..")
        && version.iter().filter(|&&c| c == b'.').count() <= 2;
    if !well_formed {
        return name;
    }
    rest.strip_suffix(b"-").unwrap_or(rest)
}

/// Whether `arg` names a source file by its suffix ([`SOURCE_SUFFIXES`]).
pub fn is_source(arg: &[u8]) -> bool {
    let name = basename(arg);
    let Some(dot) = name.iter().rposition(|&c| c == b'.') else {
        return false;
    };
    dot > 0 && std::str::from_utf8(&name[dot + 1..]).is_ok_and(|ext| SOURCE_SUFFIXES.contains(&ext))
}

/// What one compiler execution compiles: indexes into its argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compilation {
    /// Each source file argument, in argv order.
    pub sources: Vec<usize>,
    /// The `-o FILE` argument (`-oFILE` too); the last one when repeated.
    pub output: Option<Output>,
}

/// Where the `-o` value is in argv.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// `-o FILE`: the whole argument at this index.
    Next(usize),
    /// `-oFILE`: the argument at this index, after its `-o`.
    Joined(usize),
}

impl Output {
    /// The output file's name, out of `argv`.
    pub fn name<'a>(&self, argv: &'a [Vec<u8>]) -> &'a [u8] {
        match *self {
            Output::Next(i) => &argv[i],
            Output::Joined(i) => &argv[i][2..],
        }
    }
}

/// The compilation an argv asks for (argv\[0\] is the program and is not
/// read): `None` when it compiles nothing: no source argument (a link of
/// objects, `--version`) or an option of [`NO_COMPILE`]. An argument
/// after an option of [`TAKES_NEXT`] is that option's value; `@FILE`
/// (a response file, whose contents the trace does not hold) and `-` (the
/// standard input) are not sources; nor is a file of another language
/// chosen with `-x`: sources are told by their suffix only.
pub fn compilation(argv: &[Vec<u8>]) -> Option<Compilation> {
    let mut c = Compilation {
        sources: Vec::new(),
        output: None,
    };
    let mut i = 1;
    while i < argv.len() {
        let arg = argv[i].as_slice();
        let opt = std::str::from_utf8(arg).unwrap_or("");
        if NO_COMPILE.contains(&opt) {
            return None;
        }
        if opt == "-o" {
            c.output = (i + 1 < argv.len()).then_some(Output::Next(i + 1));
        } else if arg.starts_with(b"-o") && !arg.starts_with(b"-obj") {
            // `-oFILE`; clang's `-objcmt-…` and Darwin's `-object` are not.
            c.output = Some(Output::Joined(i));
        }
        if TAKES_NEXT.contains(&opt) {
            i += 2;
            continue;
        }
        if !arg.starts_with(b"-") && !arg.starts_with(b"@") && is_source(arg) {
            c.sources.push(i);
        }
        i += 1;
    }
    (!c.sources.is_empty()).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<Vec<u8>> {
        words.iter().map(|w| w.as_bytes().to_vec()).collect()
    }

    #[test]
    fn compiler_names() {
        for yes in [
            "cc",
            "c++",
            "gcc",
            "g++",
            "clang",
            "clang++",
            "egcc",
            "eg++",
            "gcc-12",
            "gcc12",
            "g++-12.2.0",
            "clang-17",
            "clang++-17.0.6",
            "x86_64-unknown-openbsd-gcc",
            "x86_64-unknown-openbsd-gcc-12",
            "aarch64-linux-gnu-g++",
            "x86_64-unknown-linux-gnu-clang",
            "x86_64-unknown-openbsd-cc",
            "CC",
        ] {
            assert!(is_compiler(yes.as_bytes()), "{yes}");
        }
        for no in [
            "cpp",
            "clang-cpp",
            "ecpp",
            "as",
            "ld",
            "cc1",
            "cc1plus",
            "ccache",
            "distcc",
            "gcc-ar",
            "gcc-nm",
            "clang-tidy",
            "clang-format",
            "make",
            "sh",
            "cc-12",
            "gcc-",
            "gcc-1.2.3.4",
            "gcc-12.",
            "",
        ] {
            assert!(!is_compiler(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn sources_by_suffix() {
        for yes in [
            "a.c",
            "../src/a.c",
            "b.cc",
            "c.cpp",
            "d.cxx",
            "e.c++",
            "f.C",
            "g.m",
            "h.mm",
            "i.s",
            "j.S",
            "k.i",
            "l.ii",
            "m.sx",
            "/abs/n.CPP",
        ] {
            assert!(is_source(yes.as_bytes()), "{yes}");
        }
        for no in [
            "a.o", "a.h", "a.hpp", "prog", "lib.a", "x.so", ".c", "dir.c/x", "a.f90",
        ] {
            assert!(!is_source(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn a_compile_names_its_sources_and_output() {
        let a = argv(&["cc", "-O2", "-I../include", "-c", "../src/f1.c"]);
        assert_eq!(
            compilation(&a),
            Some(Compilation {
                sources: vec![4],
                output: None
            })
        );
        let a = argv(&["gcc", "-c", "a.c", "b.cpp", "-o", "x.o"]);
        let c = compilation(&a).unwrap();
        assert_eq!(c.sources, vec![2, 3]);
        assert_eq!(c.output.unwrap().name(&a), b"x.o");
        let a = argv(&["clang", "-S", "x.c", "-ox.s"]);
        let c = compilation(&a).unwrap();
        assert_eq!(c.sources, vec![2]);
        assert_eq!(c.output.unwrap().name(&a), b"x.s");
        let a = argv(&["clang", "-objcmt-migrate-literals", "-c", "a.m"]);
        assert_eq!(compilation(&a).unwrap().output, None);
        // Compile and link in one go is a compilation too.
        let a = argv(&["cc", "-o", "prog", "main.c", "util.o", "-lutil"]);
        assert_eq!(compilation(&a).unwrap().sources, vec![3]);
    }

    #[test]
    fn option_values_are_not_sources() {
        let a = argv(&[
            "cc", "-S", "-o", "x.s", "-MF", "d.c", "-include", "p.c", "y.c",
        ]);
        let c = compilation(&a).unwrap();
        assert_eq!(c.sources, vec![8]);
        assert_eq!(c.output.unwrap().name(&a), b"x.s");
        let a = argv(&["cc", "-c", "@args.c", "-", "-x", "c", "noext"]);
        assert_eq!(compilation(&a), None);
    }

    #[test]
    fn links_and_preprocessing_compile_nothing() {
        for words in [
            &["cc", "-o", "prog", "f1.o", "f2.o", "-lutil"][..],
            &["cc", "-E", "a.c"],
            &["cc", "-M", "a.c"],
            &["cc", "-MM", "-I.", "a.c", "b.c"],
            &["clang", "-###", "-c", "a.c"],
            &["cc", "-cc1"],
            &["clang", "-cc1", "-emit-obj", "-o", "a.o", "a.c"],
            &["cc", "--version"],
            &["cc"],
        ] {
            assert_eq!(compilation(&argv(words)), None, "{words:?}");
        }
        // -MD and -MMD write a depfile beside a real compilation.
        let a = argv(&["cc", "-MD", "-MF", "a.d", "-c", "a.c"]);
        assert_eq!(compilation(&a).unwrap().sources, vec![5]);
    }
}
