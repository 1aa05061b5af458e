//! What the manual pages say beyond `--help`: the EXIT STATUS, EXAMPLES
//! and SEE ALSO sections of every page, and for `kt2sql-lint(1)` what
//! each hazard kind means (the kinds are build analysis's:
//! [`kt2sql::build::hazard`]). Each text is declared once; `kt2sql man`
//! ([`super::shell`]) appends them to the pages clap_mangen renders.

use std::io::Write;

use kt2sql::build::hazard::{HAZARDS, HAZARDS_NOTE};

/// The exit codes, as `main` returns them.
const EXIT_STATUS: &str = "0 on success. 1 when the work was done but data was lost \
(a damaged or cut trace: records skipped). 2 when nothing was done: a wrong argument, \
a missing or unreadable file or database, an unknown --trace or -p (also import \
--strict at the first damage). 130 when an import was interrupted (Ctrl-C); nothing \
is written then.";

/// The exit codes of `kt2sql diff`, as diff(1)'s.
const DIFF_EXIT_STATUS: &str = "0 when the two builds are the same (in the sections \
compared), 1 when they differ, 2 on trouble: a wrong argument, a file that is not a \
kt2sql database of this version, an unknown trace.";

/// The exit codes of `kt2sql lint`, which fails when it finds a hazard.
const LINT_EXIT_STATUS: &str = "0 when no hazard was reported (or with --exit-zero; those \
the --baseline accepts are not reported). 1 when at least one was: a CI job running lint \
fails on a hazard. 2 when nothing was done: a wrong argument, a missing or unreadable \
database or baseline, an unknown --trace or -p.";

/// Examples of the page of `name` (`kt2sql` or `kt2sql-COMMAND`): each a
/// command line and what it does.
fn examples(name: &str) -> &'static [(&'static str, &'static str)] {
    match name {
        "kt2sql" => &[
            ("ktrace -i -f ktrace.out make", "trace a build"),
            ("kt2sql ktrace.out build.db", "import the trace"),
            ("kt2sql tree build.db", "show its process tree"),
        ],
        "kt2sql-import" => &[
            (
                "kt2sql import -d /usr/src ktrace.out build.db",
                "import a trace started in /usr/src",
            ),
            (
                "kt2sql import - build.db < ktrace.out",
                "import from standard input",
            ),
            (
                "kt2sql import ktrace.out --to parquet farm/",
                "add the trace to a Parquet dataset instead",
            ),
        ],
        "kt2sql-dump" => &[
            ("kt2sql dump ktrace.out", "print the records as kdump does"),
            ("kt2sql dump -f - < ktrace.out", "read standard input"),
        ],
        "kt2sql-tree" => &[
            ("kt2sql tree build.db", "the process tree"),
            (
                "kt2sql tree -p 117 -v build.db",
                "one subtree with its calls",
            ),
        ],
        "kt2sql-files" => &[
            ("kt2sql files build.db", "every path the trace looked up"),
            (
                "kt2sql files -p 117 --format csv build.db",
                "those of one subtree, as CSV",
            ),
        ],
        "kt2sql-stats" => &[(
            "kt2sql stats --top 5 build.db",
            "the summary with the five busiest calls",
        )],
        "kt2sql-sql" => &[(
            "kt2sql sql build.db 'SELECT count(*) FROM process'",
            "run read-only SQL",
        )],
        "kt2sql-query" => &[
            ("kt2sql query --list", "list the canned queries"),
            ("kt2sql query build.db slow_calls", "run one"),
        ],
        "kt2sql-schema" => &[
            ("kt2sql schema", "the documented schema"),
            ("kt2sql schema build_hazard", "one view of it"),
        ],
        "kt2sql-completions" => &[(
            "kt2sql completions bash > /etc/bash_completion.d/kt2sql",
            "install bash completion",
        )],
        "kt2sql-man" => &[("kt2sql man --dir /usr/local/man/man1", "write every page")],
        "kt2sql-inputs" => &[
            ("kt2sql inputs build.db", "the sources the build read"),
            (
                "kt2sql inputs -p 117 --under src build.db",
                "those one subtree read under src",
            ),
        ],
        "kt2sql-outputs" => &[
            ("kt2sql outputs build.db", "what the build left behind"),
            (
                "kt2sql outputs -p 117 build.db",
                "what one subtree left behind",
            ),
        ],
        "kt2sql-lint" => &[
            ("kt2sql lint build.db", "the build's hazards"),
            (
                "kt2sql lint --allow /usr/src --allow /usr/include build.db",
                "also reads outside two directories",
            ),
            (
                "kt2sql lint --kind race --exit-zero build.db",
                "only races, and exit 0 whatever it finds",
            ),
            (
                "kt2sql lint -p 117 build.db",
                "the hazards one subtree is in",
            ),
            (
                "kt2sql lint --format json build.db > lint-baseline.json",
                "accept the hazards found today ...",
            ),
            (
                "kt2sql lint --baseline lint-baseline.json --exclude tests build.db",
                "... and fail only on new ones, leaving out the tests directory",
            ),
        ],
        "kt2sql-deps" => &[
            (
                "kt2sql deps build.db obj/main.o",
                "what obj/main.o was built from",
            ),
            (
                "kt2sql deps --format make build.db obj/main.o",
                "the same as a make depfile",
            ),
            (
                "kt2sql deps --sources build.db obj/prog",
                "the sources obj/prog was built from, transitively",
            ),
        ],
        "kt2sql-rdeps" => &[
            (
                "kt2sql rdeps build.db include/gen.h",
                "what would rebuild if include/gen.h changed",
            ),
            (
                "kt2sql rdeps --format make build.db include/gen.h",
                "the same as make rules",
            ),
        ],
        "kt2sql-graph" => &[
            (
                "kt2sql graph build.db | dot -Tsvg > build.svg",
                "draw the build",
            ),
            (
                "kt2sql graph --commands -p 117 build.db",
                "the commands of one subtree",
            ),
            (
                "kt2sql graph --under src --exclude src/tests build.db",
                "only the paths under src, but not src/tests",
            ),
        ],
        "kt2sql-compile-commands" => &[(
            "kt2sql compile-commands build.db > compile_commands.json",
            "a compilation database for clangd",
        )],
        "kt2sql-diff" => &[
            (
                "kt2sql diff yesterday.db today.db",
                "what changed between two builds",
            ),
            (
                "kt2sql diff --only commands,files --map /home/a/src=/home/b/src a.db b.db",
                "two checkouts in different places, without the times",
            ),
            (
                "kt2sql diff --format json builds.db:1 builds.db:2",
                "two traces of one database, as JSON",
            ),
        ],
        "kt2sql-timeline" => &[
            (
                "kt2sql timeline build.db > trace.json",
                "open in chrome://tracing or Perfetto",
            ),
            (
                "kt2sql timeline --format svg -p 117 build.db > t.svg",
                "one subtree as a picture",
            ),
        ],
        "kt2sql-export" => &[
            (
                "kt2sql export build.db farm/",
                "add the database's traces to a Parquet dataset",
            ),
            (
                "kt2sql export --force build.db farm/",
                "replace them if the dataset holds them already",
            ),
        ],
        "kt2sql-serve" => &[
            (
                "kt2sql serve build.db",
                "look at the build in the browser (Datasette, on 127.0.0.1)",
            ),
            (
                "kt2sql serve build.db --write-config site/",
                "write the configuration and pages for a Datasette of your own",
            ),
        ],
        "kt2sql-watch" => &[
            (
                "kt2sql watch -d \"$PWD\" build.ktrace build.db",
                "follow a build's trace into build.db and watch it; q ends both",
            ),
            (
                "kt2sql watch build.db",
                "watch a build that kt2sql import --follow is importing",
            ),
            (
                "kt2sql watch --once --format json build.db",
                "print what runs now, once, as JSON",
            ),
        ],
        _ => &[],
    }
}

/// Text escaped for roff: backslashes, and a leading `.` or `'`.
fn roff(text: &str) -> String {
    let t = text.replace('\\', "\\e");
    match t.starts_with(['.', '\'']) {
        true => format!("\\&{t}"),
        false => t,
    }
}

/// Append the sections of page `name` (`kt2sql` or `kt2sql-COMMAND`);
/// `pages` are the other pages' names, listed on `kt2sql(1)`.
pub fn write_sections(out: &mut dyn Write, name: &str, pages: &[String]) -> std::io::Result<()> {
    if name == "kt2sql-lint" {
        writeln!(out, ".SH HAZARDS")?;
        for (kind, what) in HAZARDS {
            writeln!(out, ".TP\n\\fB{kind}\\fR\n{}", roff(what))?;
        }
        writeln!(out, ".PP\n{HAZARDS_NOTE}")?;
    }
    let status = match name {
        "kt2sql-diff" => DIFF_EXIT_STATUS,
        "kt2sql-lint" => LINT_EXIT_STATUS,
        _ => EXIT_STATUS,
    };
    writeln!(out, ".SH \"EXIT STATUS\"\n{}", roff(status))?;
    writeln!(out, ".SH EXAMPLES")?;
    for (line, what) in examples(name) {
        writeln!(
            out,
            ".PP\n{}:\n.PP\n.RS\n.nf\n{}\n.fi\n.RE",
            roff(what),
            roff(line)
        )?;
    }
    writeln!(out, ".SH \"SEE ALSO\"")?;
    let mut see: Vec<String> = match name {
        "kt2sql" => pages.iter().map(|p| format!("{p}(1)")).collect(),
        _ => vec!["kt2sql(1)".to_string()],
    };
    see.extend(["ktrace(1)", "kdump(1)", "sqlite3(1)"].map(String::from));
    writeln!(out, "{}", see.join(", "))
}
