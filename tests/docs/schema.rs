//! docs/schema.md is generated from the `--` comments of the embedded
//! schema (`kt2sql::schema::SCHEMA`, the very SQL every database is made
//! with) and compared byte for byte; `UPDATE_GOLDEN=1 cargo test
//! schema_reference` rewrites it. The SQL comments are the one source: the
//! comment block right above a CREATE describes the table, view or index,
//! the comment lines above a column describe the column, and a file's
//! first comment block describes the file.

use std::collections::BTreeSet;

use rusqlite::Connection;

use kt2sql::schema::doc::{parse, Object};

use crate::util::manifest_dir;

/// A file's header comment as Markdown: paragraphs joined into lines,
/// `  * item` lines as a list, other indented lines as a code block.
fn render_header(header: &[String], out: &mut String) {
    let mut para: Vec<&str> = Vec::new();
    let mut code: Vec<&str> = Vec::new();
    let flush = |para: &mut Vec<&str>, code: &mut Vec<&str>, out: &mut String| {
        if !para.is_empty() {
            out.push_str(&para.join(" "));
            out.push_str("\n\n");
            para.clear();
        }
        if !code.is_empty() {
            out.push_str("```sql\n");
            for c in code.iter() {
                out.push_str(c.trim());
                out.push('\n');
            }
            out.push_str("```\n\n");
            code.clear();
        }
    };
    let mut in_list = false;
    for line in header {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() {
            flush(&mut para, &mut code, out);
            if in_list {
                out.push('\n');
                in_list = false;
            }
        } else if indent > 0 && trimmed.starts_with("* ") {
            flush(&mut para, &mut code, out);
            out.push_str("- ");
            out.push_str(&trimmed[2..]);
            out.push('\n');
            in_list = true;
        } else if in_list && indent > 0 {
            // continuation of the list item above
            out.pop();
            out.push(' ');
            out.push_str(trimmed);
            out.push('\n');
        } else if indent > 0 {
            if !para.is_empty() {
                out.push_str(&para.join(" "));
                out.push_str("\n\n");
                para.clear();
            }
            code.push(line);
        } else {
            if !code.is_empty() {
                flush(&mut Vec::new(), &mut code, out);
            }
            para.push(trimmed);
        }
    }
    flush(&mut para, &mut code, out);
    if in_list {
        out.push('\n');
    }
}

/// The whole of docs/schema.md.
fn render(schema: &[(&str, &str)]) -> String {
    let mut out = String::from(
        "# Schema reference\n\n\
         <!-- Generated from the comments in schema/*.sql: do not edit. \
         `UPDATE_GOLDEN=1 cargo test schema_reference` rewrites this file. -->\n\n\
         Every table, view and index of a kt2sql database, with the comment \
         the SQL gives it and each of its columns. Views whose names start \
         with `_` are helpers of other views and are left out. `kt2sql schema` \
         prints the SQL itself, `kt2sql schema NAME` one statement with its \
         comments. The guide to using these from SQL is [sql.md](sql.md).\n\n\
         The tables of a Parquet dataset (`kt2sql import --to parquet`, \
         `kt2sql export`; [datasets.md](datasets.md)) have the same columns, \
         under the same names, typed as the Parquet column of each table \
         says: `INT64` (integers, flags, nanoseconds), `DOUBLE`, `STRING` or \
         `BINARY`, *optional* where the SQLite column may be NULL and \
         required elsewhere. Every file of a dataset starts with a required \
         `STRING` column `trace_key`, the trace's key, and a column of \
         recorded bytes (TEXT or BLOB in SQLite) has an optional `BINARY` \
         companion `<column>_bytes` holding the exact bytes when they are \
         not UTF-8 (the column itself then holds them with U+FFFD for each \
         bad sequence).\n\n",
    );
    let dataset = kt2sql::dataset::columns::tables().unwrap();
    for (file, sql) in schema {
        let (header, objects) = parse(sql);
        out.push_str(&format!("## `schema/{file}`\n\n"));
        render_header(&header, &mut out);
        let indexes: Vec<&Object> = objects.iter().filter(|o| o.kind == "index").collect();
        if !indexes.is_empty() {
            out.push_str("| index | on | why |\n|---|---|---|\n");
            for o in &indexes {
                out.push_str(&format!(
                    "| `{}` | `{}` | {} |\n",
                    o.name,
                    o.cols[0].0,
                    o.doc.replace('|', "\\|")
                ));
            }
            out.push('\n');
        }
        for o in objects.iter().filter(|o| o.kind != "index") {
            if o.name.starts_with('_') {
                continue; // helper views of other views (style guide 4.4)
            }
            out.push_str(&format!("### `{}` ({})\n\n", o.name, o.kind));
            if !o.doc.is_empty() {
                out.push_str(&o.doc);
                out.push_str("\n\n");
            }
            let parquet = dataset
                .iter()
                .find(|t| o.kind == "table" && t.name == o.name);
            match parquet {
                Some(_) => out.push_str("| column | Parquet | meaning |\n|---|---|---|\n"),
                None => out.push_str("| column | meaning |\n|---|---|\n"),
            }
            for (c, d) in &o.cols {
                let d = d.replace('|', "\\|");
                match parquet {
                    Some(t) => {
                        let col = t.columns.iter().find(|x| x.name == *c).unwrap();
                        out.push_str(&format!("| `{c}` | {} | {d} |\n", parquet_type(col)));
                    }
                    None => out.push_str(&format!("| `{c}` | {d} |\n")),
                }
            }
            out.push('\n');
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// A dataset column's Parquet type as the reference writes it.
fn parquet_type(c: &kt2sql::dataset::columns::Column) -> String {
    use kt2sql::dataset::columns::Kind;
    let mut t = format!("`{}`", c.kind.parquet_name());
    if c.nullable {
        t.push_str(" optional");
    }
    if c.kind == Kind::Bytes {
        t.push_str(&format!(" + `{}_bytes`", c.name));
    }
    t
}

fn schema_md() -> std::path::PathBuf {
    manifest_dir().join("docs/schema.md")
}

/// docs/schema.md is exactly what the schema's comments generate.
#[test]
fn schema_reference_is_generated() {
    let generated = render(kt2sql::schema::SCHEMA);
    let path = schema_md();
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &generated).unwrap();
        eprintln!("updated {}", path.display());
        return;
    }
    let shipped = std::fs::read_to_string(&path).unwrap_or_default();
    if shipped != generated {
        let at = shipped
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(shipped.lines().count().min(generated.lines().count()));
        panic!(
            "docs/schema.md differs from the schema's comments from line {}: \
             run `UPDATE_GOLDEN=1 cargo test schema_reference` and review the diff",
            at + 1
        );
    }
}

/// The generator finds every table, view and column SQLite finds, and
/// each has a comment saying what it holds.
#[test]
fn schema_reference_explains_every_table_view_and_column() {
    let conn = Connection::open_in_memory().unwrap();
    for (name, sql) in kt2sql::schema::SCHEMA {
        conn.execute_batch(sql)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let mut documented = BTreeSet::new();
    let mut missing = BTreeSet::new();
    for (_, sql) in kt2sql::schema::SCHEMA {
        for o in parse(sql).1 {
            if o.kind == "index" || o.name.starts_with('_') {
                continue;
            }
            if o.doc.is_empty() {
                missing.insert(format!("{} (no comment above it)", o.name));
            }
            for (c, d) in &o.cols {
                if d.is_empty() {
                    missing.insert(format!("{}.{c} (no comment above it)", o.name));
                }
                documented.insert(format!("{}.{c}", o.name));
            }
        }
    }
    let names: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') \
             AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_%' ESCAPE '\\'",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut actual = BTreeSet::new();
    for table in &names {
        let mut cols = conn
            .prepare(&format!("SELECT name FROM pragma_table_xinfo('{table}')"))
            .unwrap();
        for col in cols
            .query_map([], |r| r.get::<_, String>(0))
            .unwrap()
            .map(Result::unwrap)
        {
            actual.insert(format!("{table}.{col}"));
        }
    }
    for gone in actual.difference(&documented) {
        missing.insert(format!("{gone} (not found by the generator)"));
    }
    for extra in documented.difference(&actual) {
        missing.insert(format!("{extra} (not a column SQLite knows)"));
    }
    assert!(missing.is_empty(), "schema reference: {missing:?}");
}
