//! The documented schema as text (`kt2sql schema`): the `schema/*.sql`
//! files, or the comment block and statement of one table, view or index.
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
    let defines = |line: &str| {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = match words.as_slice() {
            ["CREATE", "TABLE" | "VIEW", ..] => 2,
            ["CREATE", "UNIQUE", "INDEX", ..] => 3,
            ["CREATE", "INDEX", ..] => 2,
            _ => return false,
        };
        let rest = &words[at..];
        let rest = match rest {
            ["IF", "NOT", "EXISTS", tail @ ..] => tail,
            tail => tail,
        };
        rest.first()
            .is_some_and(|w| w.trim_end_matches('(').eq_ignore_ascii_case(name))
    };
    schema::SCHEMA.iter().find_map(|(_, sql)| {
        sql.split("\n\n")
            .find(|block| block.lines().any(defines))
            .map(|block| format!("{}\n", block.trim()))
    })
}
