//! What the schema's `--` comments say: the comment block right above a
//! `CREATE` describes the table, view or index, the comment lines above a
//! column describe the column, and a file's first comment block describes
//! the file. One parser for every reader of those comments: the generated
//! `docs/schema.md` (a test) and the Datasette configuration of `kt2sql
//! serve` ([`crate::report::datasette`]). Reads the embedded SQL only.

/// What one `CREATE` statement declares, with its comments.
#[derive(Debug, Clone)]
pub struct Object {
    /// `table`, `view` or `index`.
    pub kind: &'static str,
    /// Its name.
    pub name: String,
    /// The comment block above it, its lines joined by spaces.
    pub doc: String,
    /// For a table or view, its columns with their comments; for an index,
    /// one entry: the indexed `table(columns)`.
    pub cols: Vec<(String, String)>,
}

/// A comment line's text: `--` and one following space removed, the rest
/// (indentation included) kept.
fn comment_text(line: &str) -> Option<&str> {
    let t = line.trim_start().strip_prefix("--")?;
    Some(t.strip_prefix(' ').unwrap_or(t))
}

/// Every table and view of every schema file, in schema order.
pub fn objects() -> Vec<Object> {
    super::SCHEMA
        .iter()
        .flat_map(|(_, sql)| parse(sql).1)
        .filter(|o| o.kind != "index")
        .collect()
}

/// The file's first comment block (up to its first non-comment line), and
/// every CREATE TABLE, VIEW and INDEX with the comment block right above it.
pub fn parse(sql: &str) -> (Vec<String>, Vec<Object>) {
    let lines: Vec<&str> = sql.lines().collect();
    let header: Vec<String> = lines
        .iter()
        .map_while(|l| comment_text(l))
        .map(str::to_owned)
        .collect();
    let mut objects = Vec::new();
    let mut comment: Vec<String> = Vec::new();
    // An index written right below another without a comment of its own
    // shares the comment above the group.
    let mut group_doc: Option<String> = None;
    let mut i = header.len();
    while i < lines.len() {
        let line = lines[i].trim();
        if let Some(t) = comment_text(line) {
            comment.push(t.to_owned());
            i += 1;
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let doc = std::mem::take(&mut comment).join(" ");
        if words.first() != Some(&"CREATE") {
            group_doc = None;
            i += 1;
            continue;
        }
        let rest: Vec<&str> = words[1..]
            .iter()
            .copied()
            .filter(|w| !matches!(*w, "UNIQUE" | "IF" | "NOT" | "EXISTS"))
            .collect();
        let name = rest
            .get(1)
            .map_or("", |n| n.trim_end_matches('('))
            .to_owned();
        if rest.first() == Some(&"INDEX") {
            // CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table(cols);
            let on = line
                .find(" ON ")
                .map_or("", |at| line[at + 4..].trim_end_matches(';'))
                .to_owned();
            let doc = match (doc.is_empty(), &group_doc) {
                (true, Some(shared)) => shared.clone(),
                _ => doc,
            };
            group_doc = Some(doc.clone());
            objects.push(Object {
                kind: "index",
                name,
                doc,
                cols: vec![(on, String::new())],
            });
            i += 1;
            continue;
        }
        group_doc = None;
        let kind = if rest.first() == Some(&"TABLE") {
            "table"
        } else {
            "view"
        };
        let (cols, next) = columns(&lines, i + 1);
        i = next;
        objects.push(Object {
            kind,
            name,
            doc,
            cols,
        });
    }
    (header, objects)
}

/// The columns of the statement whose body starts at `lines[i]`, each with
/// the comment lines above it, and the line after the body.
fn columns(lines: &[&str], mut i: usize) -> (Vec<(String, String)>, usize) {
    let mut cols = Vec::new();
    let mut ccomment: Vec<String> = Vec::new();
    while i < lines.len() {
        let l = lines[i].trim();
        i += 1;
        if let Some(t) = comment_text(l) {
            ccomment.push(t.trim().to_owned());
            continue;
        }
        let upper = l.to_ascii_uppercase();
        if l.starts_with(')') || upper.starts_with("AS") || upper.starts_with("SELECT") {
            break;
        }
        // A column named by a keyword is quoted (`"offset"`).
        let word: String = l
            .trim_start_matches('"')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let constraint =
            ["PRIMARY", "UNIQUE", "FOREIGN", "CHECK"].contains(&word.to_ascii_uppercase().as_str());
        if !word.is_empty() && !constraint {
            cols.push((word, ccomment.join(" ")));
        }
        ccomment.clear();
    }
    (cols, i)
}
