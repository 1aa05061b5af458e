//! `kt2sql graph --format dot` against the truth's `build` section: one
//! node per command and per path a command read or wrote, one edge per
//! (writer, path) and (path, reader); with `--commands`, one edge per
//! producer -> consumer pair of the truth's flows, labelled with how many
//! flows (paths) it carries.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use super::build::{assert_same, s};
use super::kt2sql;

/// Edges as (from, to, label).
type Edges = Vec<(String, String, Option<String>)>;

/// The dot output's nodes (node id -> label) and edges (`from -> to` or
/// `from -> to label`), node ids not yet translated.
fn parse(dot: &str) -> (BTreeMap<String, String>, Edges) {
    let mut nodes = BTreeMap::new();
    let mut edges = Vec::new();
    for l in dot.lines().map(str::trim) {
        if let Some((from, rest)) = l.split_once(" -> ") {
            let (to, label) = match rest.split_once(" [label=\"") {
                Some((to, l)) => (to, Some(l.trim_end_matches("\"];").to_string())),
                None => (rest.trim_end_matches(';'), None),
            };
            edges.push((from.to_string(), to.to_string(), label));
        } else if let Some((id, rest)) = l.split_once(" [label=\"") {
            let label = &rest[..rest.find("\", shape=").expect("a node has a shape")];
            nodes.insert(
                id.to_string(),
                label.replace("\\\"", "\"").replace("\\\\", "\\"),
            );
        }
    }
    (nodes, edges)
}

pub fn check_graph(db: &Path, b: &Value, ids: &BTreeMap<i64, String>, ctx: &str) {
    let dot = |extra: &[&str]| -> String {
        let out = kt2sql().arg("graph").arg(db).args(extra).output().unwrap();
        assert!(out.status.success(), "{ctx}: graph {extra:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.starts_with("digraph build {") && text.ends_with("}\n"),
            "{ctx}"
        );
        text
    };
    let list = |v: &Value| -> Vec<String> { v.as_array().unwrap().iter().map(s).collect() };
    let files = b["files"].as_array().unwrap();
    let touched = files.iter().filter(|f| {
        !f["readers"].as_array().unwrap().is_empty() || !f["writers"].as_array().unwrap().is_empty()
    });
    let commands: BTreeSet<String> = b["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| s(&c["id"]))
        .collect();

    // Files and commands.
    let (nodes, edges) = parse(&dot(&[]));
    let name = |node: &str| -> String {
        match node.strip_prefix('c') {
            Some(id) => ids[&id.parse::<i64>().unwrap()].clone(),
            None => format!("file {}", nodes[node]),
        }
    };
    let got: BTreeSet<String> = nodes.keys().map(|n| name(n)).collect();
    assert_eq!(
        got.len(),
        nodes.len(),
        "{ctx}: one node per command and file"
    );
    let mut want = commands.clone();
    want.extend(touched.clone().map(|f| format!("file {}", s(&f["path"]))));
    assert_same(&got, &want, &format!("{ctx}: graph nodes"));
    let got: BTreeSet<String> = edges
        .iter()
        .map(|(f, t, _)| format!("{} -> {}", name(f), name(t)))
        .collect();
    assert_eq!(got.len(), edges.len(), "{ctx}: graph edges are distinct");
    let mut want = BTreeSet::new();
    for f in touched {
        let p = s(&f["path"]);
        want.extend(
            list(&f["writers"])
                .iter()
                .map(|w| format!("{w} -> file {p}")),
        );
        want.extend(
            list(&f["readers"])
                .iter()
                .map(|r| format!("file {p} -> {r}")),
        );
    }
    assert_same(&got, &want, &format!("{ctx}: graph edges"));

    // Commands only: the per-pair summary of the flows.
    let (nodes, edges) = parse(&dot(&["--commands"]));
    let got: BTreeSet<String> = nodes.keys().map(|n| name(n)).collect();
    assert_same(&got, &commands, &format!("{ctx}: graph --commands nodes"));
    let got: BTreeSet<String> = edges
        .iter()
        .map(|(f, t, l)| format!("{} -> {} {}", name(f), name(t), l.as_deref().unwrap_or("?")))
        .collect();
    let mut pairs: BTreeMap<(String, String), usize> = BTreeMap::new();
    for f in b["flows"].as_array().unwrap() {
        *pairs
            .entry((s(&f["producer"]), s(&f["consumer"])))
            .or_default() += 1;
    }
    let want: BTreeSet<String> = pairs
        .iter()
        .map(|((p, c), n)| format!("{p} -> {c} {n}"))
        .collect();
    assert_same(&got, &want, &format!("{ctx}: graph --commands edges"));
}
