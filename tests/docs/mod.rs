//! The documentation stays true: the shipped example trace is what its
//! generator writes, README.md explains every table and column of the
//! schema and names every subcommand, and the README's test command is the
//! one CI runs.

use std::collections::BTreeSet;

use rusqlite::Connection;

use crate::util::{example_trace, manifest_dir, writer::TraceWriter};

mod module_maps;

fn readme() -> String {
    std::fs::read_to_string(manifest_dir().join("README.md")).expect("README.md")
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
fn readme_explains_every_table_view_and_column() {
    let conn = Connection::open_in_memory().unwrap();
    for (name, sql) in kt2sql::schema::SCHEMA {
        conn.execute_batch(sql)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let mut objects = conn
        // `_`-prefixed views are helpers of other views (style guide 4.4).
        .prepare(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') \
             AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_%' ESCAPE '\\'",
        )
        .unwrap();
    let names: Vec<String> = objects
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let readme = readme();
    let mut missing = BTreeSet::new();
    for table in &names {
        let heading = format!("#### `{table}`");
        let Some(at) = readme.find(&heading) else {
            missing.insert(table.clone());
            continue;
        };
        let section = &readme[at..];
        let section = &section[..section[heading.len()..]
            .find("#### ")
            .map_or(section.len(), |e| e + heading.len())];
        let mut cols = conn
            .prepare(&format!("SELECT name FROM pragma_table_xinfo('{table}')"))
            .unwrap();
        for col in cols
            .query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .map(Result::unwrap)
        {
            if !section.contains(&format!("| `{col}` |")) {
                missing.insert(format!("{table}.{col}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README.md does not explain {missing:?}; regenerate its schema reference with tools/schema_doc.py"
    );
}

#[test]
fn readme_names_every_subcommand() {
    let help = assert_cmd::Command::cargo_bin("kt2sql")
        .unwrap()
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
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
    for c in commands {
        assert!(
            readme.contains(&format!("### `kt2sql {c}")),
            "README.md has no section for `kt2sql {c}`"
        );
    }
}

/// The README's list of canned queries is `query --list`'s, in its order,
/// and its `man --dir` listing is the files the command writes.
#[test]
fn readme_lists_every_canned_query_and_manual_page() {
    let readme = readme();
    let run = |args: &[&str]| {
        let out = assert_cmd::Command::cargo_bin("kt2sql")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let listed: Vec<String> = run(&["query", "--list"])
        .lines()
        .filter(|l| l.contains("  (queries/"))
        .map(|l| l.split_whitespace().next().unwrap().to_owned())
        .collect();
    assert!(listed.len() > 20, "{listed:?}");
    let start = readme
        .find("and columns, in this order: ")
        .expect("README lists the queries");
    let end = start + readme[start..].find('.').unwrap();
    let named: Vec<String> = readme[start..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    assert_eq!(
        named, listed,
        "README's query list vs `kt2sql query --list`"
    );

    let dir = tempfile::tempdir().unwrap();
    run(&["man", "--dir", dir.path().to_str().unwrap()]);
    let mut pages: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    pages.sort();
    let start = readme
        .find("$ kt2sql man --dir /tmp/man && ls /tmp/man\n")
        .expect("README shows man --dir");
    let shown: Vec<&str> = readme[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert_eq!(
        shown, pages,
        "README's man --dir listing vs the files written"
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
