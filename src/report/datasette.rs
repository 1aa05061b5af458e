//! The Datasette configuration of `kt2sql serve`, generated from the same
//! declarations as everything else: every table, view and column described
//! by the schema's comments ([`crate::schema::doc`]), every canned query
//! (`queries/*.sql`) with its header's title and parameters, facets, sorts
//! and labels, and the pages that show the pictures. Text only: which
//! pictures there are, and running Datasette, are the command's
//! (`src/cli/serve.rs`); this module reads no database.
//!
//! Datasette binds a canned query's `:name` parameters as text, and a
//! parameter left empty in its form as `''`; `kt2sql query` binds
//! `--param` values typed (an integer when the value reads as one) and an
//! absent one as NULL. [`canned_sql`] rewrites each `$name` of a query
//! into an expression that gives the same value, so the rows are the same.
//!
//! Datasette has one time limit for all queries; the canned queries,
//! whose time grows with the build, get a longer one ([`TimeLimits`])
//! through the small plugin [`PLUGIN`] (`kt2sql_time_limits.py`, Datasette's
//! `asgi_wrapper` hook), configured in the metadata's `plugins`.

use serde_json::{json, Map, Value};

use crate::schema::doc;
use crate::schema::{queries, Query};

/// The URL under which Datasette serves the generated pictures
/// (`--static kt2sql-pictures:DIR`).
pub const STATIC_MOUNT: &str = "kt2sql-pictures";

/// The plugin that gives each request its time limit, written into the
/// configuration's `plugins/` directory as [`PLUGIN_FILE`].
pub const PLUGIN: &str = include_str!("kt2sql_time_limits.py");

/// The plugin's file name (its module name in Datasette).
pub const PLUGIN_FILE: &str = "kt2sql_time_limits.py";

/// The time limits (milliseconds): a query that runs longer is stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeLimits {
    /// SQL typed into the form, the tables' and views' pages.
    pub sql: u64,
    /// Every canned query.
    pub canned: u64,
}

impl TimeLimits {
    /// Datasette's own `sql_time_limit_ms`: the longest limit, which the
    /// plugin shortens for every request that has a shorter one.
    pub fn server(&self) -> u64 {
        self.sql.max(self.canned)
    }
}

/// The columns offered as facets wherever a table or view has them: the
/// values people count by (the syscall, the errno, the command, the access
/// kind, the hazard kind, the system).
const FACETS: &[&str] = &[
    "syscall",
    "errno_name",
    "comm",
    "last_comm",
    "access",
    "effect",
    "kind",
    "system",
];

/// The column that names a row of a table, shown by Datasette beside
/// every link to it (a `process_id` shows the command, not a number).
const LABELS: &[(&str, &str)] = &[
    ("trace", "path"),
    ("process", "last_comm"),
    ("thread", "tid"),
    ("path", "path"),
    ("exec", "comm"),
    ("call", "syscall"),
];

/// Default sorts: (table, column, descending).
const SORTS: &[(&str, &str, bool)] = &[
    ("process", "first_ts", false),
    ("syscall_stat", "calls", true),
];

/// The README's questions that a browser answers, each with the page that
/// answers it, relative to the database's page (a canned query's name, a
/// table, or `/PAGE` for a page of the server). A test checks that every
/// question of the README's table is here or is one a browser cannot
/// answer.
pub const QUESTIONS: &[(&str, &str)] = &[
    ("Which processes ran, who forked and exec'd what?", "tree"),
    (
        "Which files did the build look up, and who looked up each?",
        "files_verbose",
    ),
    (
        "How big was it, where did the time go, what went wrong at import?",
        "syscall_top",
    ),
    ("What are the build's sources?", "inputs"),
    ("What did the build leave behind?", "outputs"),
    ("Races, double writes, reads outside the tree?", "lint"),
    ("What was this file built from? (a depfile)", "deps"),
    ("What rebuilds if this file changes?", "deps?reverse=1"),
    ("Draw commands and the files between them", "/graph"),
    (
        "What is running now, for how long, what just failed? (while the build runs)",
        "running_commands",
    ),
    (
        "Where did the time go, what is the critical path?",
        "/timeline",
    ),
    ("Anything else, in SQL", "?sql="),
    ("The reports' SQL, with parameters", "#queries"),
    ("What does this table or column hold?", "#tables"),
];

/// The pages of pictures: (page name, title).
pub const PAGES: &[(&str, &str)] = &[
    ("timeline", "Timeline and critical path"),
    ("graph", "Build graph"),
    ("charts", "Calls per syscall, parallelism over time"),
];

/// The Datasette metadata (`datasette serve -m metadata.json`) for the
/// database `db` (its name in Datasette: the file stem), with the
/// plugin's configuration for `limits`.
pub fn metadata(db: &str, limits: TimeLimits) -> Value {
    let mut tables = Map::new();
    let shadowed: Vec<&str> = queries().iter().map(|q| q.name).collect();
    for o in doc::objects() {
        tables.insert(
            o.name.clone(),
            table(&o, shadowed.contains(&o.name.as_str())),
        );
    }
    let mut canned = Map::new();
    let mut canned_limits = Map::new();
    for q in queries() {
        canned.insert(q.name.to_string(), canned_query(&q));
        canned_limits.insert(q.name.to_string(), json!(limits.canned));
    }
    json!({
        "title": format!("kt2sql: {db}"),
        "description_html": front_page(db),
        "plugins": {
            "kt2sql-time-limits": {
                "database": db,
                "default": limits.sql,
                "queries": canned_limits,
            }
        },
        "databases": {
            db: {
                "description_html": front_page(db),
                "tables": tables,
                "queries": canned,
            }
        }
    })
}

/// One table's or view's metadata. A view shadowed by a canned query of
/// the same name (Datasette shows the query at that URL) is hidden.
fn table(o: &doc::Object, shadowed: bool) -> Value {
    let mut t = Map::new();
    let mut description = o.doc.clone();
    if shadowed {
        description.push_str(" (Hidden here: the canned query of the same name has its URL.)");
        t.insert("hidden".into(), json!(true));
    }
    if o.name.starts_with('_') {
        t.insert("hidden".into(), json!(true));
    }
    t.insert("description".into(), json!(description));
    let columns: Map<String, Value> = o.cols.iter().map(|(c, d)| (c.clone(), json!(d))).collect();
    let units: Map<String, Value> = o
        .cols
        .iter()
        .filter(|(c, d)| is_duration(c, d))
        .map(|(c, _)| (c.clone(), json!("ns")))
        .collect();
    let has = |c: &str| o.cols.iter().any(|(n, _)| n == c);
    let facets: Vec<&str> = FACETS.iter().copied().filter(|c| has(c)).collect();
    t.insert("columns".into(), Value::Object(columns));
    if !units.is_empty() {
        t.insert("units".into(), Value::Object(units));
    }
    if !facets.is_empty() {
        t.insert("facets".into(), json!(facets));
    }
    if let Some((_, label)) = LABELS.iter().find(|(n, _)| *n == o.name) {
        t.insert("label_column".into(), json!(label));
    }
    if let Some((_, col, desc)) = SORTS.iter().find(|(n, _, _)| *n == o.name) {
        let key = if *desc { "sort_desc" } else { "sort" };
        t.insert(key.into(), json!(col));
    }
    Value::Object(t)
}

/// A column holding a duration in nanoseconds (Datasette shows its unit):
/// `dur`, `*_dur`, whose comment says `(ns)`. Timestamps are nanoseconds
/// too, but since the epoch: a unit would not make them readable.
fn is_duration(name: &str, comment: &str) -> bool {
    (name == "dur" || name.ends_with("_dur")) && comment.contains("ns")
}

/// One canned query: the query's SQL with its parameters in Datasette's
/// form, its title (the header's first sentence), its description (the
/// header's prose, parameters and columns) and its parameters.
fn canned_query(q: &Query) -> Value {
    let mut description = q.description.clone();
    for (k, v) in &q.params {
        description.push_str(&format!("\n\nParameter {k}: {v}"));
    }
    let params: Vec<&str> = q.params.iter().map(|(k, _)| k.as_str()).collect();
    json!({
        "title": title(q),
        "description": description,
        "sql": canned_sql(q),
        "params": params,
    })
}

/// A canned query's title: its summary up to the first `: `, ` (` or
/// `, ` when that leaves a phrase (the rest is in the description), or the
/// whole summary when another query's would be the same.
fn title(q: &Query) -> String {
    let short = short_title(q);
    match queries()
        .iter()
        .any(|o| o.name != q.name && short_title(o) == short)
    {
        true => q.summary().trim_end_matches(['.', ':']).to_string(),
        false => short,
    }
}

/// [`title`] cut short.
fn short_title(q: &Query) -> String {
    let summary = q.summary().trim_end_matches(['.', ':']);
    let cut = [": ", " (", ", "]
        .iter()
        .filter_map(|sep| summary.find(sep))
        .filter(|at| *at >= 12)
        .min();
    cut.map_or(summary, |at| &summary[..at]).to_string()
}

/// The SQL of `q` as a Datasette canned query: the header (which the
/// description carries) left out, and each `$name` outside comments and
/// string literals replaced by [`param`]`(name)`.
pub fn canned_sql(q: &Query) -> String {
    let mut out = String::with_capacity(q.sql.len() * 2);
    let mut body = q.sql.lines().skip_while(|l| l.starts_with("--"));
    for line in body.by_ref() {
        let mut in_str = false;
        let mut rest = line.char_indices().peekable();
        while let Some((i, c)) = rest.next() {
            match c {
                '\'' => {
                    in_str = !in_str;
                    out.push(c);
                }
                '-' if !in_str && line[i..].starts_with("--") => {
                    out.push_str(&line[i..]);
                    break;
                }
                '$' if !in_str => {
                    let name: String = line[i + 1..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if name.is_empty() {
                        out.push(c);
                        continue;
                    }
                    out.push_str(&param(&name));
                    for _ in 0..name.len() {
                        rest.next();
                    }
                }
                _ => out.push(c),
            }
        }
        out.push('\n');
    }
    out
}

/// The value `kt2sql query --param NAME=VALUE` binds, from Datasette's
/// text `:name`: NULL when empty, an integer or a real when the text is
/// exactly one, the text inside `'quotes'`, else the text.
pub fn param(name: &str) -> String {
    let p = format!(":{name}");
    format!(
        "(CASE WHEN {p} = '' THEN NULL \
         WHEN CAST({p} AS INTEGER) || '' = {p} THEN CAST({p} AS INTEGER) \
         WHEN CAST({p} AS REAL) || '' = {p} THEN CAST({p} AS REAL) \
         WHEN {p} LIKE '''%''' AND length({p}) > 1 THEN substr({p}, 2, length({p}) - 2) \
         ELSE {p} END)"
    )
}

/// The database page's introduction: the README's questions, each a link
/// to the page that answers it, and the pictures.
fn front_page(db: &str) -> String {
    let mut html = String::from(
        "<p>A build recorded with ktrace, imported by kt2sql. \
         Every table, view and column is described; the canned queries below \
         take their parameters in a form.</p>\n<ul>\n",
    );
    for (question, to) in QUESTIONS {
        let href = match to.strip_prefix('/') {
            Some(page) => format!("/{page}"),
            None if to.starts_with('?') || to.starts_with('#') => format!("/{db}{to}"),
            None => format!("/{db}/{to}"),
        };
        html.push_str(&format!(
            "<li><a href=\"{}\">{}</a></li>\n",
            escape(&href),
            escape(question)
        ));
    }
    html.push_str("</ul>\n<p>Pictures:");
    for (i, (page, title)) in PAGES.iter().enumerate() {
        let sep = if i == 0 { " " } else { ", " };
        html.push_str(&format!("{sep}<a href=\"/{page}\">{}</a>", escape(title)));
    }
    html.push_str(".</p>");
    html
}

/// A page of the server (Datasette's `templates/pages/NAME.html`): Datasette's
/// own layout, a heading, a link back to the database and `body` (HTML).
/// Braces are written as character references, so nothing in `body` is
/// read as a template.
pub fn page(db: &str, title: &str, body: &str) -> String {
    let body = body.replace('{', "&#123;").replace('}', "&#125;");
    format!(
        "{{% extends \"base.html\" %}}\n\
         {{% block title %}}{t}{{% endblock %}}\n\
         {{% block content %}}\n\
         <style>.kt2sql-picture svg {{ max-width: 100%; height: auto; }}</style>\n\
         <h1>{t}</h1>\n\
         <p><a href=\"/{d}\">{d}</a>: the database, its tables and canned queries.</p>\n\
         {body}\n\
         {{% endblock %}}\n",
        t = escape(title),
        d = escape(db),
    )
}

/// An SVG picture for inlining into a page: without its XML declaration,
/// scaled to the page's width.
pub fn inline_svg(svg: &str) -> String {
    let svg = match svg.find("<svg") {
        Some(at) => &svg[at..],
        None => svg,
    };
    format!("<div class=\"kt2sql-picture\">{svg}</div>")
}

/// `s` with the characters HTML gives a meaning escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_become_typed_named_ones() {
        let q = crate::schema::query("syscall_top").unwrap();
        let sql = canned_sql(&q);
        assert!(!sql.contains('$'), "{sql}");
        assert!(sql.contains(&param("trace")));
        assert!(sql.trim_start().starts_with("SELECT"), "{sql}");
    }

    #[test]
    fn a_parameter_binds_what_kt2sql_query_binds() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let typed = |v: &str| -> String {
            conn.query_row(
                &format!("SELECT typeof({0}) || ':' || {0}", param("x")),
                rusqlite::named_params! {":x": v},
                |r| r.get::<_, Option<String>>(0),
            )
            .unwrap()
            .unwrap_or_else(|| "null".into())
        };
        assert_eq!(typed(""), "null");
        assert_eq!(typed("12"), "integer:12");
        assert_eq!(typed("1.5"), "real:1.5");
        assert_eq!(typed("'12'"), "text:12");
        assert_eq!(typed("/usr/src"), "text:/usr/src");
    }

    #[test]
    fn every_table_and_query_is_described() {
        let m = metadata("b", TimeLimits { sql: 5, canned: 7 });
        assert_eq!(m["plugins"]["kt2sql-time-limits"]["default"], 5);
        assert_eq!(m["plugins"]["kt2sql-time-limits"]["queries"]["lint"], 7);
        let db = &m["databases"]["b"];
        assert_eq!(db["tables"]["process"]["label_column"], "last_comm");
        assert!(db["tables"]["call"]["facets"]
            .as_array()
            .unwrap()
            .contains(&json!("syscall")));
        assert_eq!(db["tables"]["call"]["units"]["dur"], "ns");
        for q in queries() {
            assert!(db["queries"][q.name]["title"].as_str().is_some());
        }
    }
}
