//! The tables rows are written to, as the one list of
//! [`model_tables!`](crate::process::rows) declares them: their names,
//! their columns in value order, and whether their first column is their
//! INTEGER PRIMARY KEY given by kt2sql. The writer builds its INSERTs from
//! them, [`crate::load::next_ids`] reads the ids to continue from them; a test
//! checks them against `PRAGMA table_info` of the schema.

use crate::process::rows::{model_tables, IdBase};

/// Declares [`Table`] and [`id_base`] from the list of tables.
macro_rules! tables {
    ($(
        $(#[$meta:meta])*
        $table:ident = $name:literal, key: $key:ident $(($id:ident))?,
        $(sink: $method:ident,)? $(spilled: $spilled:ident,)?
        struct $row:ident $(<$lt:lifetime>)? {
            $( $( $(#[$doc:meta])* $field:ident: $ty:ty )? => $column:literal $(as $how:ident)?, )*
        }
    )*) => {
        /// A table rows are written to.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Table {
            $( #[doc = concat!("`", $name, "`.")] $table, )*
        }

        impl Table {
            /// Every table, in the order of a [`Batch`](crate::load::encode::Batch)'s
            /// values.
            pub const ALL: &'static [Table] = &[$(Table::$table),*];

            /// Its name in the schema.
            pub const fn name(self) -> &'static str {
                match self { $(Table::$table => $name,)* }
            }

            /// Its columns, in the order a row's values come.
            pub const fn columns(self) -> &'static [&'static str] {
                match self { $(Table::$table => &[$($column),*],)* }
            }

            /// Whether the first value of a row is the table's INTEGER
            /// PRIMARY KEY (otherwise SQLite picks the key).
            pub const fn keyed(self) -> bool {
                match self { $(Table::$table => keyed!($key),)* }
            }
        }

        /// The first id of every table whose ids the model gives, from
        /// `next(table)`.
        pub fn id_base<E>(mut next: impl FnMut(Table) -> Result<i64, E>) -> Result<IdBase, E> {
            Ok(IdBase {
                $( $( $id: next(Table::$table)?, )? )*
            })
        }
    };
}

/// Whether a table whose key comes from `model`, `paths` or `sqlite` has
/// its key as its first column.
macro_rules! keyed {
    (model) => {
        true
    };
    (paths) => {
        true
    };
    (sqlite) => {
        false
    };
}

model_tables!(tables);

/// How many tables rows are written to.
pub const TABLE_COUNT: usize = Table::ALL.len();

impl Table {
    /// Its position in [`Table::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `INSERT OR FAIL INTO name (columns…) VALUES`, to be followed by the
    /// value groups.
    ///
    /// OR FAIL rather than the default ABORT: to undo the rows a failing
    /// multi-row INSERT has already added, ABORT makes SQLite copy every
    /// page the statement changes into a statement journal first (2 % of
    /// the writing thread). FAIL keeps those rows, which changes nothing
    /// here: any failed INSERT fails the import, whose transaction is then
    /// rolled back (or whose temporary file is removed) as a whole.
    pub fn insert_head(self) -> String {
        format!(
            "INSERT OR FAIL INTO {} ({}) VALUES",
            self.name(),
            self.columns().join(", ")
        )
    }
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
}
