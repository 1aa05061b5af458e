//! `kt2sql lint`'s `read-outside` hazards against the truth's `build`
//! section: with `--allow DIR`, every path some command read outside the
//! allowed directories; without, the top directories of the paths read
//! outside the start directory.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::build::{assert_same, s};
use super::kt2sql;

fn under(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    path == dir || dir.is_empty() || path.starts_with(&format!("{dir}/"))
}

fn top(path: &str) -> String {
    match path[1..].find('/') {
        Some(i) => path[..=i].to_string(),
        None => path.to_string(),
    }
}

/// `lint`'s `read-outside` paths with `args`.
fn outside(db: &Path, args: &[&str], ctx: &str) -> BTreeSet<String> {
    let out = kt2sql()
        .arg("lint")
        .arg(db)
        .args(args)
        .args(["--format", "csv"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{ctx}: lint {args:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let rows = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>());
    let rows = rows.filter(|r| r[0] == "read-outside");
    rows.map(|r| r[1].to_string()).collect()
}

pub fn check_read_outside(db: &Path, b: &Value, start_cwd: &str, ctx: &str) {
    let read: Vec<String> = b["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["readers"].as_array().unwrap().is_empty())
        .map(|f| s(&f["path"]))
        .collect();
    let want: BTreeSet<String> = read
        .iter()
        .filter(|p| !under(p, start_cwd))
        .map(|p| top(p))
        .collect();
    assert!(
        !want.is_empty(),
        "{ctx}: a build reads outside its start directory"
    );
    assert_same(
        &outside(db, &[], ctx),
        &want,
        &format!("{ctx}: lint read-outside"),
    );
    let allow = ["/usr/src", "/lib"];
    let want: BTreeSet<String> = read
        .iter()
        .filter(|p| !allow.iter().any(|d| under(p, d)))
        .cloned()
        .collect();
    let got = outside(db, &["--allow", "/usr/src/", "--allow", "/lib"], ctx);
    assert_same(&got, &want, &format!("{ctx}: lint --allow"));
    assert!(
        outside(db, &["--allow", "/"], ctx).is_empty(),
        "{ctx}: --allow /"
    );
}

#[test]
fn top_and_under() {
    assert_eq!(top("/usr/include/stdio.h"), "/usr");
    assert_eq!(top("/etc"), "/etc");
    assert!(under("/usr/src/a", "/usr/src/") && !under("/usr/srcx", "/usr/src"));
}
