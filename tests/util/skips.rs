//! How many tests skip without `../shared`: the tests whose body calls
//! `require_shared!` or skips saying `../shared not found`, counted in the
//! sources, and said once on stderr past the harness's capture, so a plain
//! `cargo test` shows the count.

use std::io::Write;
use std::path::Path;

/// Names of the `#[test]` functions under `dir` (this file aside) that
/// skip without `../shared` (a function's body ends at the first line that
/// is only `}` at its indentation).
fn needing_shared(dir: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            needing_shared(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("util/skips.rs") {
            let src = std::fs::read_to_string(&p).unwrap();
            for part in src.split("#[test]").skip(1) {
                let Some(at) = part.find("fn ") else { continue };
                let name: String = part[at + 3..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let indent = part[..at].rsplit('\n').next().unwrap_or("");
                let end = part.find(&format!("\n{indent}}}\n")).unwrap_or(part.len());
                let body = &part[..end];
                if body.contains("require_shared!(")
                    || body.contains("skip(\"../shared not found\")")
                {
                    out.push(name);
                }
            }
        }
    }
}

#[test]
fn the_tests_that_skip_without_shared_are_counted() {
    let mut names = Vec::new();
    needing_shared(&super::manifest_dir().join("tests"), &mut names);
    assert!(
        names.len() > 10,
        "the scan finds the corpus tests: {names:?}"
    );
    assert!(names.iter().any(|n| n == "corpus_reports"), "{names:?}");
    assert!(
        names
            .iter()
            .any(|n| n == "a_trickling_reader_gives_the_same_records"),
        "{names:?}"
    );
    assert!(names.iter().all(|n| !n.is_empty()), "{names:?}");
    if super::shared_dir().is_none() {
        let _ = writeln!(
            std::io::stderr(),
            "note: ../shared not found: {} tests skip (the real corpus and ktcompose \
             live there; each says `skipping <test>`; CI=true makes them fail)",
            names.len()
        );
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            super::skip("../shared not found");
        }
    }
}
