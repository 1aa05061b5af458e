//! The documented schema as text (`kt2sql schema`): the `schema/*.sql`
//! files, the comment block and statement of one table, view or index,
//! or the list of tables and views.
//! Reads the embedded SQL only, never a database.

use crate::schema;

/// The documented schema: every `schema/*.sql` file in order under a
/// `-- schema/NAME` line, or with `name`, the comment block and statement
/// that create that table, view or index (`None` when there is none).
pub fn schema_text(name: Option<&str>) -> Option<String> {
    let Some(name) = name else {
        let files: Vec<String> = schema::SCHEMA
            .iter()
            .map(|(file, sql)| format!("-- schema/{file}\n\n{}", sql.trim_end()))
            .collect();
        return Some(files.join("\n\n") + "\n");
    };
    let defines = |line: &str| defined(line).is_some_and(|(_, n)| n.eq_ignore_ascii_case(name));
    schema::SCHEMA.iter().find_map(|(_, sql)| {
        sql.split("\n\n")
            .find(|block| block.lines().any(defines))
            .map(|block| format!("{}\n", block.trim()))
    })
}

/// Every table and view of the schema as (kind, name), in schema order:
/// `("table", "trace")`, `("view", "call_detail")`.
pub fn schema_objects() -> Vec<(&'static str, &'static str)> {
    schema::SCHEMA
        .iter()
        .flat_map(|(_, sql)| sql.lines())
        .filter_map(defined)
        .filter(|(kind, _)| *kind != "index")
        .collect()
}

/// What a `CREATE TABLE|VIEW|INDEX` line defines: (kind, name).
fn defined(line: &str) -> Option<(&'static str, &str)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (kind, at) = match words.as_slice() {
        ["CREATE", "TABLE", ..] => ("table", 2),
        ["CREATE", "VIEW", ..] => ("view", 2),
        ["CREATE", "UNIQUE", "INDEX", ..] => ("index", 3),
        ["CREATE", "INDEX", ..] => ("index", 2),
        _ => return None,
    };
    let rest = match &words[at..] {
        ["IF", "NOT", "EXISTS", tail @ ..] => tail,
        tail => tail,
    };
    rest.first()
        .map(|w| (kind, w.trim_end_matches('(')))
        .filter(|(_, n)| !n.is_empty())
}
