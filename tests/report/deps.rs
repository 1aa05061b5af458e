//! `kt2sql deps` against the truth's `build` section: the sources a file
//! was built from, transitively (the commands that wrote it, the commands
//! whose output they read through the truth's flows, …, and the `source`
//! paths any of them read), in csv and as a make depfile.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use super::build::{assert_same, s};
use super::kt2sql;

/// The truth's transitive sources of `file`.
fn truth_sources(b: &Value, file: &str) -> BTreeSet<String> {
    let files: BTreeMap<String, &Value> = b["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (s(&f["path"]), f))
        .collect();
    let names = |v: &Value| -> Vec<String> { v.as_array().unwrap().iter().map(s).collect() };
    let mut cmds: BTreeSet<String> = names(&files[file]["writers"]).into_iter().collect();
    loop {
        let more: Vec<String> = b["flows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| cmds.contains(&s(&f["consumer"])))
            .map(|f| s(&f["producer"]))
            .filter(|p| !cmds.contains(p))
            .collect();
        if more.is_empty() {
            break;
        }
        cmds.extend(more);
    }
    let sources = files.values().filter(|f| f["role"] == "source");
    let read = sources.filter(|f| names(&f["readers"]).iter().any(|r| cmds.contains(r)));
    read.map(|f| s(&f["path"])).collect()
}

/// Undo [`kt2sql::report::depfile::escape`] on one make rule: the target
/// and its prerequisites, split at unescaped blanks.
fn parse_rule(line: &str) -> (String, Vec<String>) {
    let mut words = vec![String::new()];
    let mut target = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some(' ' | '#' | ':' | '\\')) => {
                words.last_mut().unwrap().push(chars.next().unwrap())
            }
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                words.last_mut().unwrap().push('$');
            }
            ':' if target.is_none() => target = Some(words.pop().unwrap()),
            ' ' => words.push(String::new()),
            c => words.last_mut().unwrap().push(c),
        }
    }
    words.retain(|w| !w.is_empty());
    (target.expect("a make rule has a colon"), words)
}

/// Every file the build wrote: `deps --format csv` and `--format make`
/// give its transitive sources as the truth does.
pub fn check_deps(db: &Path, b: &Value, ctx: &str) {
    let files = b["files"].as_array().unwrap().iter();
    let written: Vec<String> = files
        .filter(|f| !f["writers"].as_array().unwrap().is_empty())
        .map(|f| s(&f["path"]))
        .collect();
    if written.is_empty() {
        return;
    }
    let run = |format: &str| -> String {
        let out = kt2sql()
            .arg("deps")
            .arg(db)
            .args(&written)
            .args(["--format", format])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{ctx}: deps --format {format}: {err}");
        String::from_utf8(out.stdout).unwrap()
    };
    let csv = run("csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("file,kind,path,pid,comm"),
        "{ctx}: deps header"
    );
    let mut got: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for l in lines {
        let r: Vec<&str> = l.split(',').collect();
        if r[1] == "source" {
            got.entry(r[0].into()).or_default().insert(r[2].into());
        }
    }
    let make = run("make");
    let rules: BTreeMap<String, BTreeSet<String>> = make
        .lines()
        .map(|l| {
            let (t, d) = parse_rule(l);
            (t, d.into_iter().collect())
        })
        .collect();
    assert_eq!(rules.len(), written.len(), "{ctx}: one make rule per file");
    for f in &written {
        let want = truth_sources(b, f);
        let empty = BTreeSet::new();
        assert_same(
            got.get(f).unwrap_or(&empty),
            &want,
            &format!("{ctx}: deps {f}"),
        );
        assert_same(&rules[f], &want, &format!("{ctx}: deps --format make {f}"));
    }
}

#[test]
fn parse_rule_reads_escapes_back() {
    let (t, d) = parse_rule("obj/a\\ b.o: /s/\\#x.c /s/$$y.h  /s/c\\:d");
    assert_eq!(t, "obj/a b.o");
    assert_eq!(d, ["/s/#x.c", "/s/$y.h", "/s/c:d"]);
}
