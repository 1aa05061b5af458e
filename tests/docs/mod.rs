//! The documentation stays true: the shipped example trace is what its
//! generator writes; README.md stays short, names every command and links
//! into docs/; docs/ has a section per command, lists every canned query
//! and manual page, and its schema reference is generated (schema.rs);
//! every relative link resolves; the user docs name no development-only
//! path; the README's test command is the one CI runs; and no module of
//! `src/` uses a layer above it in src/lib.rs's map (`layers.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod layers;
mod module_maps;
// The README's examples run and print what it shows.
mod readme_examples;
mod schema;

use crate::util::{example_trace, manifest_dir, writer::TraceWriter};

/// The README may not grow back into a manual (about 500 lines).
const README_MAX_LINES: usize = 500;

fn read(rel: &str) -> String {
    std::fs::read_to_string(manifest_dir().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn readme() -> String {
    read("README.md")
}

/// README.md and every docs/*.md, as (path relative to the repository, text).
fn user_docs() -> Vec<(String, String)> {
    let mut docs = vec![("README.md".to_owned(), readme())];
    let mut names: Vec<String> = std::fs::read_dir(manifest_dir().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".md"))
        .collect();
    names.sort();
    for n in names {
        let rel = format!("docs/{n}");
        let text = read(&rel);
        docs.push((rel, text));
    }
    docs
}

fn run(args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("kt2sql")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn shipped_example_trace_is_the_generators_output() {
    let abi = "freebsd-v1:le:64".parse().unwrap();
    let recs = example_trace::script();
    let bytes = TraceWriter::new(abi).records(recs.iter()).bytes();
    let shipped = std::fs::read(manifest_dir().join("example/build.ktrace")).unwrap();
    assert!(
        bytes == shipped,
        "example/build.ktrace is stale: run `cargo run --example make_example -- example/build.ktrace`"
    );
}

#[test]
fn readme_stays_short() {
    let lines = readme().lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines (at most {README_MAX_LINES}): move details into docs/"
    );
}

/// Every command of `--help` has an example in the README and a section
/// (a heading naming `kt2sql COMMAND`) in docs/.
#[test]
fn every_subcommand_is_documented() {
    let help = run(&["--help"]);
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(!commands.is_empty(), "no commands in --help:\n{help}");
    let readme = readme();
    let docs = user_docs();
    for c in commands {
        let named = |text: &str| {
            text.match_indices(&format!("kt2sql {c}")).any(|(i, m)| {
                !text[i + m.len()..].starts_with(|ch: char| ch == '-' || ch.is_alphanumeric())
            })
        };
        assert!(named(&readme), "README.md has no example of `kt2sql {c}`");
        let heading = docs.iter().skip(1).any(|(_, text)| {
            text.lines()
                .filter(|l| l.starts_with('#'))
                .any(|l| named(l) && l.contains(&format!("`kt2sql {c}")))
        });
        assert!(heading, "no docs/*.md has a section on `kt2sql {c}`");
    }
}

/// docs/sql.md's list of canned queries is `query --list`'s, in its order,
/// and docs/cli.md's `man --dir` listing is the files the command writes.
#[test]
fn docs_list_every_canned_query_and_manual_page() {
    let sql = read("docs/sql.md");
    let listed: Vec<String> = run(&["query", "--list"])
        .lines()
        .filter(|l| l.contains("  (queries/"))
        .map(|l| l.split_whitespace().next().unwrap().to_owned())
        .collect();
    assert!(listed.len() > 20, "{listed:?}");
    let start = sql
        .find("and columns, in this order: ")
        .expect("docs/sql.md lists the queries");
    let end = start + sql[start..].find('.').unwrap();
    let named: Vec<String> = sql[start..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    assert_eq!(
        named, listed,
        "docs/sql.md's query list vs `kt2sql query --list`"
    );

    let cli = read("docs/cli.md");
    let dir = tempfile::tempdir().unwrap();
    run(&["man", "--dir", dir.path().to_str().unwrap()]);
    let mut pages: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    pages.sort();
    let start = cli
        .find("$ kt2sql man --dir /tmp/man && ls /tmp/man\n")
        .expect("docs/cli.md shows man --dir");
    let shown: Vec<&str> = cli[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert_eq!(
        shown, pages,
        "docs/cli.md's man --dir listing vs the files written"
    );
}

/// GitHub's anchor for a heading: lower case, punctuation other than `-`
/// and `_` dropped, spaces made `-`; a repeated heading gets `-1`, `-2`, ….
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        out.insert(if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        *n += 1;
    }
    out
}

/// The relative link targets of a Markdown text, outside code blocks and
/// code spans: `[text](target)` and `![alt](target)`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans so `[x](y)` inside backticks is not a link.
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let tail = &rest[at + 2..];
            let Some(end) = tail.find(')') else { break };
            let target = &tail[..end];
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push(target.to_owned());
            }
            rest = &tail[end..];
        }
    }
    out
}

/// Every relative link of README.md and docs/*.md names a file that exists
/// and, after a `#`, a heading of that file.
#[test]
fn every_relative_link_resolves() {
    let root = manifest_dir();
    let mut broken = Vec::new();
    let mut count = 0;
    for (rel, text) in user_docs() {
        let dir = Path::new(&rel).parent().unwrap().to_path_buf();
        for target in links(&text) {
            count += 1;
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                root.join(&rel)
            } else {
                root.join(&dir).join(file)
            };
            if !path.exists() {
                broken.push(format!("{rel}: {target} (no such file)"));
                continue;
            }
            if let Some(anchor) = anchor {
                let target_text = std::fs::read_to_string(&path).unwrap_or_default();
                if !anchors(&target_text).contains(anchor) {
                    broken.push(format!("{rel}: {target} (no such heading)"));
                }
            }
        }
    }
    assert!(count > 30, "only {count} links found: is the parser right?");
    assert!(broken.is_empty(), "broken links: {broken:#?}");
}

/// The user documentation names no development-only path and no issue
/// numbers; README.md may do so in its Development section only.
#[test]
fn user_docs_name_no_development_paths() {
    let mut found = Vec::new();
    for (rel, text) in user_docs() {
        let text = match (rel.as_str(), text.find("\n## Development")) {
            ("README.md", Some(at)) => text[..at].to_owned(),
            _ => text,
        };
        for word in [
            "../shared",
            "shared/docs",
            "shared/tools",
            "bench/NOTES.md",
            "issue #",
        ] {
            if text.contains(word) {
                found.push(format!("{rel}: {word}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "development-only references in user docs: {found:?}"
    );
}

#[test]
fn readme_test_command_is_what_ci_runs() {
    let ci = std::fs::read_to_string(manifest_dir().join(".ci/run")).unwrap();
    assert!(
        readme().contains("\ncargo test\n"),
        "README.md must give `cargo test` as the test command"
    );
    assert!(
        ci.lines().any(|l| l.trim() == "cargo test"),
        ".ci/run must run `cargo test`"
    );
}
