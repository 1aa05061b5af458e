//! How many tests skip without `../shared` (the development corpus), said
//! at the end of `cargo test`: cargo runs the test binaries in name order,
//! this one after `integration`, and it has no harness, so its line is not
//! captured. The tests are counted in the sources: those whose body calls
//! `require_shared!` or skips saying `../shared not found`. With `CI=true`
//! a missing `../shared` fails the run here too.

#[path = "util/shared.rs"]
mod shared;

use std::path::Path;

/// Names of the `#[test]` functions under `dir` (this file aside) that
/// skip without `../shared` (a function's body ends at the first line that
/// is only `}` at its indentation).
fn needing_shared(dir: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            needing_shared(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("tests/skips.rs") {
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

fn main() {
    let mut names = Vec::new();
    needing_shared(&shared::manifest_dir().join("tests"), &mut names);
    // The scan finds what it must: the corpus tests, a test in a helper.
    for known in [
        "corpus_reports",
        "committed_fixtures_are_what_ktcompose_writes",
    ] {
        assert!(names.iter().any(|n| n == known), "{known}: {names:?}");
    }
    assert!(names.iter().all(|n| !n.is_empty()), "{names:?}");
    if shared::shared_dir().is_some() {
        return;
    }
    eprintln!(
        "note: {} tests skipped: they need the development corpus, ../shared \
         (real traces, ktcompose, strace builds), which is not here; each said \
         `skipping <test>` above",
        names.len()
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        eprintln!("error: CI=true, so tests must not skip");
        std::process::exit(1);
    }
}
