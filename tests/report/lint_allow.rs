//! `kt2sql lint`'s `read-outside` hazards against the truth's `build`
//! section: with `--allow DIR`, every path some command other than the
//! tracer read outside the allowed directories; without, none.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::build::{assert_same, s};
use super::kt2sql;

fn under(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    path == dir || dir.is_empty() || path.starts_with(&format!("{dir}/"))
}

/// `lint`'s `read-outside` paths with `args`.
fn outside(db: &Path, args: &[&str], ctx: &str) -> BTreeSet<String> {
    let out = kt2sql()
        .arg("lint")
        .arg(db)
        .args(args)
        .args(["--all", "--format", "csv"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let rows = text.lines().count().saturating_sub(1);
    let code = i32::from(rows > 0);
    assert_eq!(out.status.code(), Some(code), "{ctx}: lint {args:?}");
    let rows = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>());
    let rows = rows.filter(|r| r[0] == "read-outside");
    rows.map(|r| r[1].to_string()).collect()
}

pub fn check_read_outside(db: &Path, b: &Value, start_cwd: &str, ctx: &str) {
    // The tracer: ktrace, the image 0 of a root, before it execs the build.
    let commands = b["commands"].as_array().unwrap().iter();
    let tracer: BTreeSet<String> = commands
        .filter(|c| c["comm"] == "ktrace" && c["parent"].is_null() && c["image"] == 0)
        .map(|c| s(&c["id"]))
        .collect();
    assert_eq!(tracer.len(), 1, "{ctx}: one tracer");
    let read: Vec<String> = b["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            let readers = f["readers"].as_array().unwrap().iter();
            readers.map(s).any(|r| !tracer.contains(&r))
        })
        .map(|f| s(&f["path"]))
        .collect();
    assert!(
        read.iter().any(|p| !under(p, start_cwd)),
        "{ctx}: a build reads outside its start directory"
    );
    assert!(
        outside(db, &[], ctx).is_empty(),
        "{ctx}: lint without --allow"
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
fn under_a_directory() {
    assert!(under("/usr/src/a", "/usr/src/") && !under("/usr/srcx", "/usr/src"));
    assert!(under("/usr/src", "/usr/src") && under("/etc", "/"));
}
