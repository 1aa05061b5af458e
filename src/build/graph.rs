//! The build graph's nodes as `kt2sql graph` draws them: commands, and
//! files with the role `build_file` gives them (`queries/graph_nodes.sql`
//! names both). Edges need no model of their own: a command writes a file,
//! a file is read by a command, or (`--commands`) output flowed from one
//! command to another.

/// A file's role in the build, the first that applies (`build_file.role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Its last write or removal removed it.
    Temporary,
    /// Written by one command, read later by another (`build_flow`).
    Intermediate,
    /// Written, present at the end.
    Output,
    /// Read, never written or removed.
    Source,
    /// Only stat-like lookups of it succeeded.
    Probe,
    /// No lookup of it succeeded.
    Ghost,
}

impl Role {
    /// Every role, in `build_file`'s order of precedence.
    pub const ALL: [Role; 6] = [
        Role::Temporary,
        Role::Intermediate,
        Role::Output,
        Role::Source,
        Role::Probe,
        Role::Ghost,
    ];

    /// The role as the views write it.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Temporary => "temporary",
            Role::Intermediate => "intermediate",
            Role::Output => "output",
            Role::Source => "source",
            Role::Probe => "probe",
            Role::Ghost => "ghost",
        }
    }

    /// The role the views call `name`.
    pub fn named(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Whether the build made it and it stayed (an output, or an
    /// intermediate another command read).
    pub fn is_product(self) -> bool {
        matches!(self, Role::Output | Role::Intermediate)
    }
}

/// A node of the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node {
    /// A command (one process image).
    Command,
    /// A file, with its role (`None`: one no view gives).
    File(Option<Role>),
}

impl Node {
    /// The node of a `graph_nodes` row: its `kind` and `role` columns.
    pub fn of(kind: &str, role: &str) -> Node {
        match kind {
            "command" => Node::Command,
            _ => Node::File(Role::named(role)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_is_one_the_build_views_write() {
        let schema: String = crate::schema::SCHEMA.iter().map(|(_, sql)| *sql).collect();
        for r in Role::ALL {
            assert_eq!(Role::named(r.name()), Some(r));
            assert!(schema.contains(&format!("'{}'", r.name())), "{r:?}");
        }
        assert_eq!(Node::of("command", ""), Node::Command);
        assert_eq!(Node::of("file", "source"), Node::File(Some(Role::Source)));
        assert_eq!(Node::of("file", "what"), Node::File(None));
    }
}
