//! What `kt2sql serve` writes and says without running Datasette: the
//! install hint, `--write-config DIR` (metadata from the schema's comments
//! and the queries' headers, the pages, the pictures), and the README's
//! questions on the front page.

use std::process::Command;

use serde_json::Value;

use kt2sql::report::datasette::{self, QUESTIONS};
use kt2sql::schema::{doc, queries};

use super::build;
use crate::util::manifest_dir;

/// With no datasette on PATH, serve says in one line how to install it
/// and exits 2.
#[test]
fn without_datasette_serve_says_how_to_install_it() {
    let b = build();
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kt2sql"))
        .arg("serve")
        .arg(&b.db)
        .env("PATH", empty.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("pipx install datasette"), "{err}");
    assert!(err.contains("python3 -m pip install"), "{err}");
    assert!(out.stdout.is_empty());
}

/// `--write-config DIR`: every table, view and column described as the
/// schema's comments say, every canned query with its title, parameters
/// and SQL, the labels and facets, the three pages and their pictures,
/// and the command to serve them.
#[test]
fn write_config_comes_from_the_schema_and_the_queries() {
    let b = build();
    let dir = b.dir.path().join("config");
    let out = Command::new(env!("CARGO_BIN_EXE_kt2sql"))
        .args(["serve", "--write-config"])
        .arg(&dir)
        .arg(&b.db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let meta: Value =
        serde_json::from_slice(&std::fs::read(dir.join("metadata.json")).unwrap()).unwrap();
    let db = &meta["databases"]["build"];
    let objects = doc::objects();
    assert!(objects.len() > 20);
    for o in &objects {
        let t = &db["tables"][&o.name];
        assert!(t["description"].as_str().unwrap().starts_with(&o.doc));
        for (c, d) in &o.cols {
            assert_eq!(t["columns"][c].as_str(), Some(d.as_str()), "{}.{c}", o.name);
        }
    }
    assert_eq!(db["tables"]["process"]["label_column"], "last_comm");
    assert_eq!(db["tables"]["call"]["units"]["dur"], "ns");
    assert_eq!(db["tables"]["call"]["units"]["ts"], Value::Null);
    for (table, facet) in [
        ("call", "syscall"),
        ("call", "errno_name"),
        ("build_access", "access"),
        ("build_hazard", "kind"),
        ("command", "comm"),
    ] {
        let facets = db["tables"][table]["facets"].as_array().unwrap();
        assert!(facets.contains(&facet.into()), "{table}: {facets:?}");
    }
    for q in queries() {
        let c = &db["queries"][q.name];
        let params: Vec<&str> = q.params.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(c["params"], serde_json::json!(params), "{}", q.name);
        assert_eq!(c["sql"], datasette::canned_sql(&q), "{}", q.name);
        // No `$name` is left: every parameter is Datasette's `:name`.
        let sql: &'static str = Box::leak(c["sql"].as_str().unwrap().to_string().into_boxed_str());
        let served = kt2sql::schema::Query::parse("served.sql", sql);
        assert_eq!(served.used_params(), Vec::<String>::new(), "{}", q.name);
        assert!(c["description"]
            .as_str()
            .unwrap()
            .starts_with(&q.description));
    }
    let timeline = std::fs::read_to_string(dir.join("static/timeline.svg")).unwrap();
    let commands = b.truth["build"]["commands"].as_array().unwrap().len();
    assert_eq!(timeline.matches("<g class=\"cmd\"").count(), commands);
    for page in ["timeline", "graph", "charts"] {
        let html = std::fs::read_to_string(dir.join(format!("templates/pages/{page}.html")));
        assert!(html.unwrap().starts_with("{% extends \"base.html\" %}"));
    }
    let charts = std::fs::read_to_string(dir.join("templates/pages/charts.html")).unwrap();
    assert!(charts.contains("Calls per syscall") && charts.contains("Processes running"));
    let serve = std::fs::read_to_string(dir.join("serve.sh")).unwrap();
    assert!(
        serve.contains("'--immutable'") && serve.contains("'127.0.0.1'"),
        "{serve}"
    );
}

/// `--write-config` never writes into a directory that holds files.
#[test]
fn write_config_refuses_a_directory_with_files() {
    let b = build();
    let dir = b.dir.path().join("full");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("metadata.json"), "mine").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kt2sql"))
        .args(["serve", "--write-config"])
        .arg(&dir)
        .arg(&b.db)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("not empty") && err.contains("full"), "{err}");
    assert_eq!(std::fs::read(dir.join("metadata.json")).unwrap(), b"mine");
}

/// The questions of the README's question -> command table: each one a
/// database answers is linked from the database's front page, and the
/// others (a trace, two databases, files to write) are these.
#[test]
fn the_readme_questions_are_on_the_front_page() {
    const ELSEWHERE: &[&str] = &[
        "What is in this trace file, record by record?",
        "Load a trace (or several) into a database",
        "Query a build while it is still running",
        "`compile_commands.json` for clangd",
        "What changed since the last build?",
        "Many builds in one dataset for DuckDB or Spark",
        "Look at a build in the browser",
    ];
    let readme = std::fs::read_to_string(manifest_dir().join("README.md")).unwrap();
    let table = &readme[readme.find("| question | command | guide |").unwrap()..];
    let questions: Vec<&str> = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('|').nth(1).unwrap().trim())
        .collect();
    assert!(questions.len() > 10);
    for q in &questions {
        assert!(
            QUESTIONS.iter().any(|(x, _)| x == q) || ELSEWHERE.contains(q),
            "README question {q:?} is neither on serve's front page nor answered elsewhere"
        );
    }
    let front = datasette::metadata("b", datasette::TimeLimits { sql: 1, canned: 1 })["databases"]
        ["b"]["description_html"]
        .as_str()
        .unwrap()
        .to_string();
    for (q, _) in QUESTIONS {
        assert!(questions.contains(q), "{q:?} is not in the README");
        assert!(front.contains(&datasette::escape(q)), "{q}");
    }
}
