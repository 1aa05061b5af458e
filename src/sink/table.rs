//! The tables rows are written to, as the one list of
//! [`model_tables!`](crate::process::rows) declares them: their names,
//! their columns in value order, and whether their first column is their
//! INTEGER PRIMARY KEY given by kt2sql; and each row as a [`Row`], the one
//! visitor of its columns: the SQLite encoder and the dataset's builders
//! both take a row's values from [`Row::put_columns`], and the dataset's
//! column kinds from [`Row::forms`]. The SQLite writer builds its INSERTs
//! from the tables, `load::next_ids` reads the ids to continue from them;
//! a test checks them against `PRAGMA table_info` of the schema.

use super::columns::{derived, stored, Column, Columns, Form};
use super::trace::TraceContext;
use crate::process::rows::{
    model_tables, Access, CallRow, End, EventRow, ExecRow, IdBase, IssueKind, IssueRow, NameiRow,
    PathRow, ProcessRow, Resolution, Severity, SyscallStatRow, ThreadRow, Unpaired,
};

/// A row of a table: its columns put into any [`Columns`], in the
/// table's order, each in the form its declaration gives.
pub trait Row {
    /// Its table.
    const TABLE: Table;
    /// Put its columns into `c`, those derived from the row with `ctx`.
    fn put_columns<C: Columns>(&self, ctx: &TraceContext, c: &mut C) -> Result<(), C::Error>;
    /// Each column's form and whether it may be NULL, in its table's
    /// order.
    fn forms() -> Vec<(Form, bool)>;
}

/// Declares [`Table`], [`id_base`] and each row's [`Row`] from the list of
/// tables.
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
            /// Every table, in the order a batch of the SQLite encoder
            /// holds their values.
            pub const ALL: &'static [Table] = &[$(Table::$table),*];

            /// Its name in the schema.
            pub const fn name(self) -> &'static str {
                match self { $(Table::$table => $name,)* }
            }

            /// Its columns, in the order a row puts them.
            pub const fn columns(self) -> &'static [&'static str] {
                match self { $(Table::$table => &[$($column),*],)* }
            }

            /// Whether the first column of a row is the table's INTEGER
            /// PRIMARY KEY (otherwise SQLite picks the key).
            pub const fn keyed(self) -> bool {
                match self { $(Table::$table => keyed!($key),)* }
            }

            /// Each column's form and whether it may be NULL, in
            /// [`Table::columns`]' order.
            pub fn forms(self) -> Vec<(Form, bool)> {
                match self { $(Table::$table => <$row as Row>::forms(),)* }
            }
        }

        /// The first id of every table whose ids the model gives, from
        /// `next(table)`.
        pub fn id_base<E>(mut next: impl FnMut(Table) -> Result<i64, E>) -> Result<IdBase, E> {
            Ok(IdBase {
                $( $( $id: next(Table::$table)?, )? )*
            })
        }

        $(
            impl $(<$lt>)? Row for $row $(<$lt>)? {
                const TABLE: Table = Table::$table;

                #[inline]
                fn put_columns<C: Columns>(
                    &self,
                    ctx: &TraceContext,
                    c: &mut C,
                ) -> Result<(), C::Error> {
                    let _ = ctx;
                    $( Column::put(value!(self ctx [$($field)?] [$($how)?]), c)?; )*
                    Ok(())
                }

                fn forms() -> Vec<(Form, bool)> {
                    vec![$( form!([$($ty)?] [$($how)?]), )*]
                }
            }
        )*
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

/// One column's value: a field as its type says, a field stored as its
/// `as` says, or a value derived from the row and its trace.
macro_rules! value {
    ($row:ident $ctx:ident [$field:ident] []) => {
        &$row.$field
    };
    ($row:ident $ctx:ident [$field:ident] [$how:ident]) => {
        &stored::$how($row.$field)
    };
    ($row:ident $ctx:ident [] [$how:ident]) => {
        &derived::$how($row, $ctx)
    };
}

/// One column's form and whether it may be NULL.
macro_rules! form {
    ([$ty:ty] []) => {
        (<$ty as Column>::FORM, <$ty as Column>::NULLABLE)
    };
    ([$ty:ty] [$how:ident]) => {
        stored::form::<$ty, _>(stored::$how)
    };
    ([] [$how:ident]) => {
        derived::form::<Self, _>(derived::$how)
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
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;

    /// Puts the form of each value it is given, `Path` for a path.
    #[derive(Default)]
    struct Forms(Vec<Form>);

    impl Columns for Forms {
        type Error = ();
        fn int(&mut self, _: Option<i64>) {
            self.0.push(Form::Int);
        }
        fn name(&mut self, _: Option<&'static str>) {
            self.0.push(Form::Name);
        }
        fn text(&mut self, _: Option<&str>) {
            self.0.push(Form::Text);
        }
        fn recorded(&mut self, _: Option<&[u8]>) {
            self.0.push(Form::Recorded);
        }
        fn path(&mut self, _: Option<&[u8]>) -> Result<(), ()> {
            self.0.push(Form::Path);
            Ok(())
        }
        fn blob(&mut self, _: Option<&[u8]>) {
            self.0.push(Form::Blob);
        }
        fn args(&mut self, _: &[u64]) {
            self.0.push(Form::Args);
        }
    }

    /// A row puts one value per column of its table, each through the
    /// method of the form `forms` gives it: what the dataset's builders
    /// are made from is what the rows put.
    fn puts_its_forms<R: Row>(row: &R) {
        let ctx = TraceContext {
            trace_id: 1,
            word_bits: 64,
            names: crate::names::Numbering::FreeBsd,
        };
        let mut put = Forms::default();
        row.put_columns(&ctx, &mut put).unwrap();
        let declared: Vec<Form> = R::forms().into_iter().map(|(f, _)| f).collect();
        assert_eq!(put.0, declared, "{}", R::TABLE.name());
        assert_eq!(put.0.len(), R::TABLE.columns().len());
        assert_eq!(R::TABLE.forms(), R::forms());
    }

    #[test]
    fn rows_put_the_forms_they_declare() {
        puts_its_forms(&ProcessRow::default());
        puts_its_forms(&SyscallStatRow::default());
        puts_its_forms(&PathRow { id: 1, path: b"/" });
        puts_its_forms(&IssueRow {
            offset: None,
            severity: Severity::Info,
            kind: IssueKind::Truncated,
            message: String::new(),
            process_id: None,
        });
        puts_its_forms(&CallRow {
            id: 1,
            process_id: 1,
            thread_id: None,
            code: 5,
            syscall: Some("open"),
            args: &[1, 2],
            ts: Some(1),
            ret_ts: None,
            retval: None,
            error: None,
            errno: None,
            success: None,
            call_offset: None,
            ret_offset: None,
            unpaired: Some(Unpaired::EndOfTrace),
        });
        puts_its_forms(&ExecRow {
            id: 1,
            process_id: 1,
            seq: 0,
            image: Some(0),
            ts: 0,
            call_id: None,
            calls_from: 1,
            path: Some(b"/bin/sh"),
            resolved: None,
            comm: b"sh",
            argv: Some(b"sh\0"),
            envp: None,
            success: true,
            cwd: None,
        });
    }

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
