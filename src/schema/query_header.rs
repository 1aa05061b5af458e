//! The self-documenting header of a query file: the comment block at its
//! top holds a description, then `@param NAME text` and `@column NAME text`
//! lines (continued on more-indented comment lines). Parsed here for
//! `kt2sql query --list` and checked by tests: every `$param` the SQL uses
//! must be declared, and nothing declared may go unused. A parameter whose
//! text says `(required)` has no default: `kt2sql query` refuses to run
//! the query without it.

/// One query file and what its header says.
#[derive(Debug, Clone)]
pub struct Query {
    /// File name (`slow_calls.sql`).
    pub file: &'static str,
    /// File stem (`slow_calls`), the query's one name; the CLI also
    /// accepts it with hyphens (`slow-calls`).
    pub name: &'static str,
    /// The whole file.
    pub sql: &'static str,
    /// The prose before the first `@` line, paragraphs separated by `\n\n`.
    pub description: String,
    /// `@param` lines: (name without the `$`, text).
    pub params: Vec<(String, String)>,
    /// `@column` lines: (name, text).
    pub columns: Vec<(String, String)>,
}

impl Query {
    /// Parse the header of `sql`, the text of `file`.
    pub fn parse(file: &'static str, sql: &'static str) -> Query {
        let mut q = Query {
            file,
            name: file.strip_suffix(".sql").unwrap_or(file),
            sql,
            description: String::new(),
            params: Vec::new(),
            columns: Vec::new(),
        };
        let mut prose: Vec<String> = vec![String::new()];
        // Which list the last `@` line went to, for continuation lines.
        let mut last: Option<bool> = None;
        for line in sql.lines() {
            let Some(text) = line.strip_prefix("--") else {
                break;
            };
            let trimmed = text.trim();
            if let Some(rest) = trimmed.strip_prefix('@') {
                let (tag, rest) = split_word(rest);
                let (name, body) = split_word(rest);
                let entry = (name.to_string(), body.to_string());
                match tag {
                    "param" => {
                        q.params.push(entry);
                        last = Some(true);
                    }
                    "column" => {
                        q.columns.push(entry);
                        last = Some(false);
                    }
                    _ => last = None,
                }
            } else if let Some(is_param) = last {
                let list = if is_param {
                    &mut q.params
                } else {
                    &mut q.columns
                };
                if let Some((_, body)) = list.last_mut() {
                    if !trimmed.is_empty() {
                        body.push(' ');
                        body.push_str(trimmed);
                    }
                }
            } else if trimmed.is_empty() {
                if !prose.last().is_some_and(String::is_empty) {
                    prose.push(String::new());
                }
            } else {
                let para = prose.last_mut().expect("never empty");
                if !para.is_empty() {
                    para.push(' ');
                }
                para.push_str(trimmed);
            }
        }
        prose.retain(|p| !p.is_empty());
        q.description = prose.join("\n\n");
        q
    }

    /// The parameters that must be given: those whose text says
    /// `(required)` (a missing one binds NULL, which they do not take as
    /// "no filter").
    pub fn required(&self) -> impl Iterator<Item = &(String, String)> {
        self.params
            .iter()
            .filter(|(_, text)| text.contains("(required)"))
    }

    /// The first sentence of the description (for one-line listings).
    pub fn summary(&self) -> &str {
        let d = self.description.split("\n\n").next().unwrap_or("");
        match d.find(". ").or_else(|| d.find(": ")) {
            Some(i) => &d[..=i],
            None => d,
        }
    }

    /// Named parameters the SQL body uses (`$name`, the spelling SQLite,
    /// DuckDB and Spark share), in order of first use, ignoring comments
    /// and string literals.
    pub fn used_params(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for line in self.sql.lines() {
            let mut in_str = false;
            for (i, c) in line.char_indices() {
                match c {
                    '\'' => in_str = !in_str,
                    '-' if !in_str && line[i..].starts_with("--") => break,
                    '$' if !in_str => {
                        let name: String = line[i + 1..]
                            .chars()
                            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                            .collect();
                        if !name.is_empty() && !out.contains(&name) {
                            out.push(name);
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }
}

/// `"word  rest of text"` → `("word", "rest of text")`.
fn split_word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], s[i..].trim()),
        None => (s, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQL: &str = "-- Top things. More words\n-- here.\n--\n-- Second paragraph.\n--\n\
        -- @param  pid   Only this pid\n--                (default: all).\n\
        -- @param  file  This file (required).\n\
        -- @column n     A count.\nSELECT '$x', n FROM t -- $y\nWHERE pid = $pid OR $pid IS NULL;\n";

    #[test]
    fn header_is_parsed() {
        let q = Query::parse("top.sql", SQL);
        assert_eq!(q.name, "top");
        assert_eq!(
            q.description,
            "Top things. More words here.\n\nSecond paragraph."
        );
        assert_eq!(q.summary(), "Top things.");
        assert_eq!(
            q.params,
            vec![
                ("pid".into(), "Only this pid (default: all).".into()),
                ("file".into(), "This file (required).".into())
            ]
        );
        let required: Vec<&str> = q.required().map(|(k, _)| k.as_str()).collect();
        assert_eq!(required, ["file"]);
        assert_eq!(q.columns, vec![("n".into(), "A count.".into())]);
        assert_eq!(q.used_params(), vec!["pid".to_string()]);
    }
}
