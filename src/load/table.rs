//! The tables rows are written to, each declared once: its name, its
//! columns in value order, and whether its first column is its INTEGER
//! PRIMARY KEY given by kt2sql. The encoder builds every row with the
//! column name written next to its value ([`named`]), checked against this
//! list whenever debug assertions are on; the writer builds its INSERTs
//! from it; a test checks it against `PRAGMA table_info` of the schema.

/// Declares [`Table`] and everything derived from the list of tables.
macro_rules! tables {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $name:literal, keyed: $keyed:literal, [$($col:literal),* $(,)?];
    )*) => {
        /// A table rows are written to.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Table {
            $( $(#[$doc])* $variant, )*
        }

        impl Table {
            /// Every table, in the order of a [`Batch`](super::encode::Batch)'s
            /// values.
            pub const ALL: &'static [Table] = &[$(Table::$variant),*];

            /// Its name in the schema.
            pub const fn name(self) -> &'static str {
                match self { $(Table::$variant => $name,)* }
            }

            /// Its columns, in the order a row's values come.
            pub const fn columns(self) -> &'static [&'static str] {
                match self { $(Table::$variant => &[$($col),*],)* }
            }

            /// Whether the first value of a row is the table's INTEGER
            /// PRIMARY KEY (otherwise SQLite picks the key).
            pub const fn keyed(self) -> bool {
                match self { $(Table::$variant => $keyed,)* }
            }
        }
    };
}

tables! {
    /// `process`.
    Process = "process", keyed: true, [
        "process_id", "trace_id", "pid", "parent_id", "running_at_start", "fork_syscall",
        "fork_call_id", "fork_ts", "fork_offset", "parent_exec_id", "first_comm", "last_comm",
        "first_ts", "last_ts", "exit_status", "exit_signal", "exit_ts", "exit_seen", "records",
        "dropped_events", "cut_by_damage", "calls", "failed_calls", "lookups",
        "unresolved_lookups", "files", "end_seen_by",
    ];
    /// `thread`.
    Thread = "thread", keyed: true, [
        "thread_id", "process_id", "tid", "first_ts", "last_ts", "records",
    ];
    /// `exec`.
    Exec = "exec", keyed: true, [
        "exec_id", "process_id", "seq", "image", "ts", "call_id", "path_id", "resolved_id",
        "comm", "argv", "envp", "success", "cwd_id",
    ];
    /// `call`.
    Call = "call", keyed: true, [
        "call_id", "process_id", "thread_id", "code", "syscall", "nargs", "args", "arg0",
        "arg1", "ts", "ret_ts", "dur", "retval", "error", "errno", "errno_name", "success",
        "call_offset", "ret_offset", "unpaired",
    ];
    /// `namei`.
    Namei = "namei", keyed: true, [
        "namei_id", "call_id", "process_id", "seq", "ts", "offset", "comm", "path_id",
        "resolved_id", "resolution", "exec_id", "coredump", "access",
    ];
    /// `event`.
    Event = "event", keyed: true, [
        "event_id", "trace_id", "process_id", "thread_id", "call_id", "ts", "offset", "kind",
        "fd", "dir", "len", "addr", "signo", "error", "code", "name", "data",
    ];
    /// `import_issue` (its id is SQLite's).
    Issue = "import_issue", keyed: false, [
        "trace_id", "offset", "severity", "kind", "message", "process_id",
    ];
    /// `path`.
    Path = "path", keyed: true, ["path_id", "path"];
    /// `syscall_stat`.
    SyscallStat = "syscall_stat", keyed: false, [
        "trace_id", "code", "syscall", "calls", "failed", "no_return", "timed", "total_dur",
        "max_dur",
    ];
}

/// How many tables rows are written to.
pub const TABLE_COUNT: usize = Table::ALL.len();

impl Table {
    /// Its position in [`Table::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `INSERT INTO name (columns…) VALUES`, to be followed by the value
    /// groups.
    pub fn insert_head(self) -> String {
        format!(
            "INSERT INTO {} ({}) VALUES",
            self.name(),
            self.columns().join(", ")
        )
    }
}

/// The values of a row of `table`, each given beside its column name; the
/// names are checked against [`Table::columns`] when debug assertions are
/// on (every test), so a value written under the wrong column fails there.
#[inline]
pub fn named<V, const N: usize>(table: Table, row: [(&'static str, V); N]) -> [V; N] {
    debug_assert!(
        row.iter()
            .map(|(c, _)| *c)
            .eq(table.columns().iter().copied()),
        "the values of a {} row are not in the order of its columns: {:?}",
        table.name(),
        row.iter().map(|(c, _)| *c).collect::<Vec<_>>()
    );
    row.map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    #[test]
    fn the_list_is_in_index_order() {
        for (i, t) in Table::ALL.iter().enumerate() {
            assert_eq!(t.index(), i);
        }
    }

    /// Each INSERT names exactly the schema's columns, in the schema's
    /// order, leaving out only the rowid key of a table whose key SQLite
    /// gives.
    #[test]
    fn columns_are_the_schemas() {
        let conn = Connection::open_in_memory().unwrap();
        crate::schema::create_tables(&conn).unwrap();
        for &t in Table::ALL {
            let mut stmt = conn
                .prepare(
                    "SELECT name, pk = 1 AND type = 'INTEGER' AND \
                     (SELECT COUNT(*) FROM pragma_table_info(?1) WHERE pk > 0) = 1 \
                     FROM pragma_table_info(?1) ORDER BY cid",
                )
                .unwrap();
            // (column, whether it is the rowid: an INTEGER PRIMARY KEY)
            let schema: Vec<(String, bool)> = stmt
                .query_map([t.name()], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert!(!schema.is_empty(), "no table {} in the schema", t.name());
            let expected: Vec<&str> = schema
                .iter()
                .filter(|(_, rowid)| t.keyed() || !rowid)
                .map(|(n, _)| n.as_str())
                .collect();
            assert_eq!(t.columns(), expected.as_slice(), "table {}", t.name());
            if t.keyed() {
                assert!(schema[0].1, "{}'s first column is its key", t.name());
            }
        }
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "not in the order of its columns")]
    fn a_value_under_the_wrong_column_is_caught() {
        named(Table::Path, [("path", 1), ("path_id", 2)]);
    }
}
