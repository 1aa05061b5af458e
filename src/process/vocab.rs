//! The fixed vocabularies the model's rows carry: each enum's variants with
//! the string stored for each in its column, declared once by
//! [`vocabulary!`]. The strings are the ones the schema's comments, the
//! views and the queries compare against; nothing else here.

/// Declares a fieldless enum whose every variant is stored as a fixed
/// string: the variant, its doc and its string side by side, and from them
/// `as_str` (its [`Vocabulary`] word) and `ALL` (every variant in declaration order, so `X as usize`
/// is its index).
macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        pub enum $name:ident in $column:literal {
            $( $(#[$doc:meta])* $variant:ident = $text:literal, )*
        }
    ) => {
        $(#[$meta])*
        pub enum $name {
            $( $(#[$doc])* $variant, )*
        }

        impl $name {
            /// Every value, in declaration order (`X as usize` is its index).
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            #[doc = concat!("The name stored in `", $column, "`.")]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )*
                }
            }
        }

        impl Vocabulary for $name {
            #[inline]
            fn word(self) -> &'static str {
                self.as_str()
            }
        }
    };
}

/// A vocabulary: a fieldless enum stored as one fixed word per variant.
pub trait Vocabulary: Copy {
    /// The word stored for it.
    fn word(self) -> &'static str;
}

vocabulary! {
    /// Severity of an import issue.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    pub enum Severity in "import_issue.severity" {
        /// Worth knowing; nothing lost.
        Info = "info",
        /// A guess was made (ambiguous pairing, unknown parent).
        Warning = "warning",
        /// Records or bytes could not be used.
        DataLoss = "data_loss",
    }
}

vocabulary! {
    /// How a looked-up path was made absolute.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Resolution in "namei.resolution" {
        /// The path was absolute already.
        Absolute = "absolute",
        /// Relative to the process's working directory.
        Cwd = "cwd",
        /// Relative to the directory an `*at` call's fd argument was opened on.
        Dirfd = "dirfd",
        /// Relative, and its base is not known: left relative.
        Unknown = "unknown base",
    }
}

vocabulary! {
    /// What a lookup's call did to the path (`namei.access`), decided from the
    /// call, its flags and the lookup's position (`syscall::access`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Access in "namei.access" {
        /// Opened for reading only (a directory too).
        Read = "read",
        /// Opened for writing (O_WRONLY, O_RDWR or O_TRUNC) without O_CREAT,
        /// or truncated.
        Write = "write",
        /// Created, or opened with O_CREAT: creat, mkdir, mkfifo, mknod,
        /// symlink's and link's new name, a dying process's core file.
        Create = "create",
        /// Removed: unlink, rmdir.
        Delete = "delete",
        /// The source (first lookup) of a rename.
        RenameFrom = "rename-from",
        /// The target (second lookup) of a rename.
        RenameTo = "rename-to",
        /// The program and runtime-linker lookups of an exec or posix_spawn.
        Exec = "exec",
        /// The file's attributes changed, not its contents: chmod, chown,
        /// utimes, chflags, ….
        Attr = "attr",
        /// Looked at, not opened: stat, access, readlink, chdir, pathconf,
        /// link's existing name, and any call not named above.
        Probe = "probe",
    }
}

vocabulary! {
    /// What showed that a process lifetime ended.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum End in "process.end_seen_by" {
        /// Its `exit` call.
        Exit = "exit",
        /// A PSIG of a signal whose default action kills, with SIG_DFL.
        Signal = "signal",
        /// The core file it looked up as it died (a NAMI made by no call).
        Core = "core",
        /// FreeBSD's PROCDTOR (written whatever `ktrace -t` says).
        Procdtor = "procdtor",
        /// Its parent's `wait4`/`wait6` RET returned its pid: nothing of its own
        /// showed the end (`ktrace -t cn` records no PSIG).
        Wait = "wait",
    }
}

vocabulary! {
    /// Why a call row has no return, or no call.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Unpaired in "call.unpaired" {
        /// `exit`: never returns.
        Exit = "exit",
        /// A thread-exit call.
        ThreadExit = "thread exit",
        /// Another thread's exec replaced the image, or the process died.
        ProcessGone = "process gone",
        /// A later CALL on the same thread came first (the RET was lost).
        Superseded = "superseded",
        /// The trace ended first.
        EndOfTrace = "end of trace",
        /// A RET whose CALL is not in the trace and was made (the tracer's
        /// own ktrace RET, a call whose CALL record was lost).
        NoCall = "no call",
        /// Mac OS X vfork: the child's execve has no RET of its own; the
        /// parent's `RET execve <child>` ended it (its time and offset are used).
        VforkParent = "returned in vfork parent",
        /// A child's return from the call that created it: a forked
        /// child's first RET (fork, vfork, rfork, …) or a new thread's
        /// (`__tfork`, `thr_new`, `_lwp_create`). Recorded, but no call the
        /// child made: `call_made` and every count of calls leave it out.
        ChildReturn = "child return",
        /// Still in flight in a snapshot of a trace being followed
        /// (`import --follow`): its RET may yet come.
        Running = "running",
    }
}

vocabulary! {
    /// What an import issue is about. Every kind the importer writes is here,
    /// in the order the schema's comment on `import_issue.kind` lists them.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum IssueKind in "import_issue.kind" {
        /// The file holds no records.
        Empty = "empty",
        /// Bytes in the middle could not be decoded and were skipped.
        Skipped = "skipped",
        /// Decoding stopped before the end of the file.
        Truncated = "truncated",
        /// The kernel flagged lost records (FreeBSD KTR_DROP).
        DroppedEvents = "dropped-events",
        /// A thread's next CALL came before this call's RET.
        SupersededCall = "superseded-call",
        /// Two same-numbered calls outstanding without thread ids.
        AmbiguousPairing = "ambiguous-pairing",
        /// A RET whose CALL is not in the trace (and is not expected to be).
        ReturnWithoutCall = "return-without-call",
        /// A pid appeared that no fork, spawn or wait in the trace claimed.
        UnknownParent = "unknown-parent",
        /// A pid was forked again before its previous lifetime was seen to end.
        PidReused = "pid-reused",
        /// A fork edge whose fork RET is missing, inferred from the parent's
        /// wait RET returning the child.
        ForkInferred = "fork-inferred",
        /// A child's parent, guessed at a posix_spawn, corrected by the wait RET
        /// that reaped it.
        ParentCorrected = "parent-corrected",
        /// An exec whose RET is missing, inferred from the new image's records.
        ExecInferred = "exec-inferred",
        /// A process's end inferred from its parent's wait RET.
        EndInferred = "end-inferred",
        /// The temporary file idle live processes are spilled to failed.
        SpillFailed = "spill-failed",
        /// Lookups left relative: the base directory was unknown (one issue
        /// per trace, with the count).
        UnresolvedLookups = "unresolved-lookups",
    }
}

#[cfg(test)]
mod tests {
    use super::{Access, IssueKind};

    /// The schema's comment on `import_issue.kind` names exactly the kinds
    /// the importer writes.
    #[test]
    fn the_schema_lists_every_issue_kind() {
        let schema = include_str!("../../schema/0001_tables.sql");
        let table = &schema[schema.find("CREATE TABLE import_issue").unwrap()..];
        let comment: String = table[..table.find("kind TEXT").unwrap()]
            .lines()
            .rev()
            .skip(1)
            .take_while(|l| l.trim_start().starts_with("--"))
            .collect();
        let named: std::collections::BTreeSet<&str> =
            comment.split('`').skip(1).step_by(2).collect();
        let kinds: std::collections::BTreeSet<&str> =
            IssueKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(named, kinds);
    }

    /// `_access_class` classifies exactly the access kinds the importer
    /// writes to `namei.access` ([`Access::as_str`]), each once.
    #[test]
    fn the_access_classes_are_the_importers_access_kinds() {
        let all = [
            Access::Read,
            Access::Write,
            Access::Create,
            Access::Delete,
            Access::RenameFrom,
            Access::RenameTo,
            Access::Exec,
            Access::Attr,
            Access::Probe,
        ];
        for a in all {
            // No wildcard: a new kind does not compile until it is listed.
            match a {
                Access::Read
                | Access::Write
                | Access::Create
                | Access::Delete
                | Access::RenameFrom
                | Access::RenameTo
                | Access::Exec
                | Access::Attr
                | Access::Probe => {}
            }
        }
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        crate::schema::create_tables(&conn).unwrap();
        crate::schema::create_indexes_and_views(&conn).unwrap();
        let mut st = conn
            .prepare("SELECT access FROM _access_class ORDER BY access")
            .unwrap();
        let sql: Vec<String> = st
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let mut rust: Vec<&str> = all.iter().map(|a| a.as_str()).collect();
        rust.sort_unstable();
        assert_eq!(sql, rust);
    }
}
