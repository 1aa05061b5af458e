//! `kt2sql graph --format dot` against the truth's `build` section: one
//! node per path a command read or wrote and per command with an edge,
//! one edge per (writer, path) and (path, reader); with `--commands`, one
//! edge per producer -> consumer pair of the truth's flows, labelled with
//! how many flows (paths) it carries; system files left out unless
//! `--system`, and `--under` and `--exclude` choosing paths. File labels
//! are relative to the start directory; directories (a path another file
//! lies under) are left out, and a temporary file is folded into dashed
//! writer -> reader edges.

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
                None => match rest.strip_suffix(" [style=dashed];") {
                    Some(to) => (to, Some("dashed".to_string())),
                    None => (rest.trim_end_matches(';'), None),
                },
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

/// Which paths a graph keeps.
type Keep<'a> = dyn Fn(&str) -> bool + 'a;

/// Whether `path` is in the directory tree `dir`.
fn under(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    path == dir || path.starts_with(&format!("{dir}/"))
}

/// The nodes and edges the truth gives for the paths `keep` keeps, named
/// as [`check_graph`] names them: files and command -> file / file ->
/// command edges, or (`commands`) producer -> consumer edges labelled with
/// how many flows (paths) they carry; the commands those edges name.
fn truth_graph(b: &Value, keep: &Keep, commands: bool) -> (BTreeSet<String>, BTreeSet<String>) {
    let list = |v: &Value| -> Vec<String> { v.as_array().unwrap().iter().map(s).collect() };
    let mut nodes = BTreeSet::new();
    let mut edges = BTreeSet::new();
    if commands {
        let mut pairs: BTreeMap<(String, String), usize> = BTreeMap::new();
        for f in b["flows"].as_array().unwrap() {
            if keep(&s(&f["path"])) {
                *pairs
                    .entry((s(&f["producer"]), s(&f["consumer"])))
                    .or_default() += 1;
            }
        }
        for ((p, c), n) in pairs {
            edges.insert(format!("{p} -> {c} {n}"));
            nodes.extend([p, c]);
        }
        return (nodes, edges);
    }
    let files: Vec<&Value> = b["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            keep(&s(&f["path"]))
                && !(f["readers"].as_array().unwrap().is_empty()
                    && f["writers"].as_array().unwrap().is_empty())
        })
        .collect();
    // Directories: the paths another kept file lies under.
    let dirs: BTreeSet<String> = files
        .iter()
        .flat_map(|f| {
            let p = s(&f["path"]);
            let idx: Vec<usize> = p
                .match_indices('/')
                .map(|(i, _)| i)
                .filter(|&i| i > 0)
                .collect();
            idx.into_iter().map(move |i| p[..i].to_string())
        })
        .collect();
    for f in files {
        let (p, readers, writers) = (s(&f["path"]), list(&f["readers"]), list(&f["writers"]));
        if dirs.contains(&p) {
            continue;
        }
        if f["role"] == "temporary" {
            for w in &writers {
                for r in readers.iter().filter(|r| *r != w) {
                    edges.insert(format!("{w} -> {r} dashed"));
                    nodes.extend([w.clone(), r.clone()]);
                }
            }
            continue;
        }
        nodes.insert(format!("file {p}"));
        for w in writers {
            edges.insert(format!("{w} -> file {p} -"));
            nodes.insert(w);
        }
        for r in readers {
            edges.insert(format!("file {p} -> {r} -"));
            nodes.insert(r);
        }
    }
    (nodes, edges)
}

/// `graph` against the truth: by default without the system files; with
/// `--system`, every path a command read or wrote but device and pseudo
/// files; `--under` and
/// `--exclude`; `--commands` with the same filters. Only the commands
/// with an edge are drawn.
pub fn check_graph(db: &Path, b: &Value, ids: &BTreeMap<i64, String>, start: &str, ctx: &str) {
    let dot = |extra: &[&str]| -> String {
        let out = kt2sql().arg("graph").arg(db).args(extra).output().unwrap();
        assert!(out.status.success(), "{ctx}: graph {extra:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.starts_with("digraph build {") && text.ends_with("}\n"),
            "{ctx}"
        );
        // A drawing Graphviz scales down to a size a viewer opens.
        assert!(text.contains("    size=\"100,100\";"), "{ctx}");
        text
    };
    let system = |p: &str| kt2sql::build::system::is_system(p.as_bytes(), &[start.as_bytes()]);
    let obj = format!("{start}/obj");
    let log = format!("{obj}/build.log");
    let cases: [(&[&str], &Keep<'_>); 3] = [
        (&[], &|p| !system(p)),
        // Never a device or pseudo file (/dev/null), even with --system.
        (&["--system"], &|p| !super::build::is_pseudo(p)),
        (&["--under", &obj, "--exclude", &log], &|p| {
            under(p, &obj) && !under(p, &log) && !system(p)
        }),
    ];
    for (args, keep) in cases {
        for commands in [false, true] {
            let mut args = args.to_vec();
            if commands {
                args.push("--commands");
            }
            let (nodes, edges) = parse(&dot(&args));
            let name = |node: &str| -> String {
                match node.strip_prefix('c') {
                    Some(id) => ids[&id.parse::<i64>().unwrap()].clone(),
                    // Labels are relative to the start directory.
                    None => match nodes[node].as_str() {
                        "." => format!("file {start}"),
                        l if l.starts_with('/') => format!("file {l}"),
                        l => format!("file {start}/{l}"),
                    },
                }
            };
            let got: BTreeSet<String> = nodes.keys().map(|n| name(n)).collect();
            assert_eq!(
                got.len(),
                nodes.len(),
                "{ctx}: one node per command and file"
            );
            let (want_nodes, want_edges) = truth_graph(b, keep, commands);
            assert_same(&got, &want_nodes, &format!("{ctx}: graph {args:?} nodes"));
            let got: BTreeSet<String> = edges
                .iter()
                .map(|(f, t, l)| {
                    format!("{} -> {} {}", name(f), name(t), l.as_deref().unwrap_or("-"))
                })
                .collect();
            assert_eq!(got.len(), edges.len(), "{ctx}: graph edges are distinct");
            assert_same(&got, &want_edges, &format!("{ctx}: graph {args:?} edges"));
            if args.is_empty() {
                assert!(!want_edges.is_empty(), "{ctx}: a graph");
            }
        }
    }
}
