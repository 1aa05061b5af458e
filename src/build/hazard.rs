//! The hazard kinds `kt2sql lint` reports, each with what it means: the
//! words of the `build_hazard` view's `kind` column, then the one kind
//! `lint` adds itself (`read-outside`, checked only with `--allow`). The
//! rules that find them are SQL (`schema/0004_reports.sql`,
//! `queries/lint.sql`); `lint --kind` and the manual page take the words
//! and their meanings from here, and a test ties the two. What lint
//! leaves out by default (device files, a job's own temporaries) is
//! `queries/lint.sql`'s `left_out` step; its words for the manual page
//! are [`HAZARDS_NOTE`].

/// The hazard kinds `kt2sql lint` reports, each with what it means.
pub const HAZARDS: [(&str, &str); 5] = [
    (
        "double-write",
        "commands of two or more process lifetimes wrote the path: one row per writer after the first, each with the first writer.",
    ),
    (
        "race",
        "a command read a path that a command running at the same time wrote: neither process an ancestor of the other, their lifetimes overlap.",
    ),
    (
        "used-then-changed",
        "a command read the path, and later a command of another lifetime wrote it.",
    ),
    (
        "ghost-later-created",
        "a lookup of the path failed, and later a command outside that process's subtree created it.",
    ),
    (
        "read-outside",
        "the build read a path outside the directories --allow names, with the first command that read it (not the tracer: ktrace before it executes the build). Checked only with --allow.",
    ),
];

/// What no hazard is made of, what a row is, and what lint leaves out
/// unless asked.
pub const HAZARDS_NOTE: &str = "Two commands of one process lifetime never make a hazard. \
Each row is one hazard: its kind, its path and the two commands in it (one for read-outside); \
the summary on stderr counts the rows. Left out unless asked for: the hazards of device and \
pseudo files (paths in /dev, /proc and /sys; --devices keeps them), and those of a job's own \
temporaries (--temporaries keeps them): paths the build created and removed again, every \
lookup of which was made below one process that ran no make, as the conftest files a \
configure script writes, compiles, runs and removes (two recipes of one make sharing a \
temporary stay a hazard); and those of makefiles (--makefiles keeps them): the files a make \
read that the build wrote, its makefiles and what they include (automake's .deps/*.Po), which recipes rewrite for \
make's next run. Neither is a ghost-later-created a command that tried to remove the path \
(rm -f), nor a double-write, used-then-changed or ghost-later-created two children of one \
process that is not make made one after the other (a script's successive commands, as a diff \
of a header not there yet and the mv that puts it in place). --all keeps every hazard.";

#[cfg(test)]
mod tests {
    use super::HAZARDS;

    /// The text of `CREATE VIEW IF NOT EXISTS name` up to the next
    /// statement, in the schema files.
    fn view(name: &str) -> &'static str {
        let head = format!("CREATE VIEW IF NOT EXISTS {name} (");
        let (_, sql) = crate::schema::SCHEMA
            .iter()
            .find(|(_, sql)| sql.contains(&head))
            .expect("the view is in the schema");
        let body = &sql[sql.find(&head).unwrap()..];
        let end = body[head.len()..]
            .find("\nCREATE ")
            .map_or(body.len(), |e| e + head.len());
        &body[..end]
    }

    /// The view's kinds are those its `kind` column's comment names, in
    /// their order, each one a literal its SQL yields; the kinds after them
    /// are `lint`'s own, each a literal of `queries/lint.sql` and not of
    /// the view.
    #[test]
    fn the_kinds_are_the_views_then_lints() {
        let sql = view("build_hazard");
        let columns = &sql[..sql.find(") AS").unwrap()];
        let at = columns.find("\n  kind,").expect("a kind column");
        let comment: Vec<&str> = columns[..at]
            .lines()
            .rev()
            .take_while(|l| l.trim_start().starts_with("--"))
            .collect();
        let comment: String = comment.into_iter().rev().collect();
        let named: Vec<&str> = comment.split('`').skip(1).step_by(2).collect();
        let kinds: Vec<&str> = HAZARDS.iter().map(|(k, _)| *k).collect();
        assert_eq!(named, kinds[..named.len()], "build_hazard's kind column");
        for kind in &named {
            assert!(
                sql.contains(&format!("'{kind}'")),
                "build_hazard yields {kind}"
            );
        }
        let lint = crate::schema::query("lint").expect("queries/lint.sql").sql;
        for kind in &kinds[named.len()..] {
            let literal = format!("'{kind}'");
            assert!(lint.contains(&literal), "lint.sql yields {kind}");
            assert!(!sql.contains(&literal), "{kind} is lint's, not the view's");
        }
    }
}
