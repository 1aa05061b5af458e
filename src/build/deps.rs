//! `kt2sql deps`'s rules: a file asked about named as the trace names it,
//! and which of its dependencies a make depfile lists.

/// `file` as the trace names it: absolute, a relative name taken from
/// `cwd` (the directory `kt2sql deps` runs in), `.` and `..` folded
/// lexically (a symbolic link is not followed: the trace holds the names
/// the build looked up, not what they resolved to).
pub fn absolute(file: &str, cwd: &str) -> String {
    if file.starts_with('/') {
        return file.to_string();
    }
    let mut parts: Vec<&str> = cwd.split('/').filter(|p| !p.is_empty()).collect();
    for p in file.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Whether a dependency of this `kind` (`queries/deps.sql`'s column) is a
/// prerequisite in a make depfile: the sources only, the files make can
/// watch; the commands a file was built by are not.
pub fn in_depfile(kind: &str) -> bool {
    kind == "source"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_names_are_taken_from_the_directory_and_folded() {
        assert_eq!(absolute("/abs/x.o", "/w"), "/abs/x.o");
        assert_eq!(absolute("obj/x.o", "/w/src"), "/w/src/obj/x.o");
        assert_eq!(absolute("./../x.o", "/w/src/"), "/w/x.o");
        assert_eq!(absolute("../../../x", "/w"), "/x");
        assert_eq!(absolute("x", "/"), "/x");
    }

    #[test]
    fn a_depfile_lists_sources_only() {
        assert!(in_depfile("source"));
        assert!(!in_depfile("command"));
    }
}
