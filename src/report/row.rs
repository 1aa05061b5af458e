//! A query's rows read by column name: a typed row is declared once with
//! [`typed_row!`] (a struct whose fields are named as the query's
//! columns, each of a type that reads an SQL value: [`FromValue`]), and a
//! [`RowReader`] finds where each of its columns is, once per statement,
//! from the statement's own column names. A query that loses or renames
//! a column fails there, naming the query and the column, rather than
//! shifting another column's meaning; a column added anywhere changes
//! nothing.
//!
//! Reading a row is then a field per column straight from SQLite's value
//! (no per-row lookup, no copy into [`Cell`]s first), so the readers of
//! millions of rows (`tree -v`, `timeline --calls`) pay nothing for it. A
//! typed row may borrow its text from the row (`Call<'r>`), for a caller
//! that pulls the rows itself.
//!
//! It never runs a query: [`super::run`] does (`each_as`), or the caller
//! with a statement of its own.

use std::borrow::Cow;
use std::marker::PhantomData;

use rusqlite::types::ValueRef;

use super::result_set::{value_bytes, value_int, Cell, ResultSet};
use crate::Error;

/// A struct read from a query's rows, one field per column it needs, the
/// field named as the column. Declared with [`typed_row!`], which writes
/// this; a row that borrows from the row it is read from implements it
/// on its `'static` form, `Row<'r>` being the borrowing one.
pub trait TypedRow {
    /// The registered queries (file stems) whose rows it reads; none for
    /// rows the code makes itself.
    const QUERIES: &'static [&'static str];
    /// Its fields' column names, in declaration order.
    const COLUMNS: &'static [&'static str];
    /// The row read from values that live for `'r`.
    type Row<'r>;
    /// The row whose column `COLUMNS[k]` is `value(at[k])`.
    fn read<'r>(at: &[usize], value: impl Fn(usize) -> ValueRef<'r>) -> Self::Row<'r>;
}

/// A field of a typed row: what it makes of its column's SQL value. The
/// readers' long-standing conventions: an integer is 0 when the value is
/// not one (NULL), bytes are empty for NULL and the text of a number for
/// a number; `Option`s say "not there" instead.
pub trait FromValue<'r>: Sized {
    /// The field's value from the column's.
    fn from_value(v: ValueRef<'r>) -> Self;
}

impl<'r> FromValue<'r> for i64 {
    #[inline]
    fn from_value(v: ValueRef<'r>) -> Self {
        value_int(v).unwrap_or(0)
    }
}

impl<'r> FromValue<'r> for Option<i64> {
    #[inline]
    fn from_value(v: ValueRef<'r>) -> Self {
        value_int(v)
    }
}

impl<'r> FromValue<'r> for Option<&'r [u8]> {
    #[inline]
    fn from_value(v: ValueRef<'r>) -> Self {
        value_bytes(v)
    }
}

impl<'r> FromValue<'r> for Cow<'r, [u8]> {
    /// The bytes of a TEXT or BLOB, borrowed; else [`Cell::to_bytes`].
    #[inline]
    fn from_value(v: ValueRef<'r>) -> Self {
        match value_bytes(v) {
            Some(b) => Cow::Borrowed(b),
            None => Cow::Owned(Cell::from(v).to_bytes().into_owned()),
        }
    }
}

impl<'r> FromValue<'r> for Vec<u8> {
    /// [`Cell::to_bytes`], owned.
    #[inline]
    fn from_value(v: ValueRef<'r>) -> Self {
        Cow::<[u8]>::from_value(v).into_owned()
    }
}

impl<'r> FromValue<'r> for Option<Vec<u8>> {
    #[inline]
    fn from_value(v: ValueRef<'r>) -> Self {
        value_bytes(v).map(<[u8]>::to_vec)
    }
}

impl<'r> FromValue<'r> for String {
    /// [`Cell::display`]: safe text.
    #[inline]
    fn from_value(v: ValueRef<'r>) -> Self {
        Cell::from(v).display().into_owned()
    }
}

impl<'r> FromValue<'r> for Option<String> {
    /// [`Cell::display`], or `None` for NULL.
    #[inline]
    fn from_value(v: ValueRef<'r>) -> Self {
        match v {
            ValueRef::Null => None,
            v => Some(String::from_value(v)),
        }
    }
}

impl<'r> FromValue<'r> for ValueRef<'r> {
    /// The value as SQLite gives it (to tell TEXT from BLOB, or to pass
    /// it on).
    #[inline]
    fn from_value(v: ValueRef<'r>) -> Self {
        v
    }
}

impl<'r> FromValue<'r> for Cell {
    #[inline]
    fn from_value(v: ValueRef<'r>) -> Self {
        Cell::from(v)
    }
}

/// A cell as the value SQLite would hand over.
#[inline]
pub fn value_of(c: &Cell) -> ValueRef<'_> {
    match c {
        Cell::Null => ValueRef::Null,
        Cell::Int(i) => ValueRef::Integer(*i),
        Cell::Real(f) => ValueRef::Real(*f),
        Cell::Text(b) => ValueRef::Text(b),
        Cell::Blob(b) => ValueRef::Blob(b),
    }
}

/// Where the columns of typed row `T` are in one statement's rows:
/// resolved once, then each row read by position.
pub struct RowReader<T> {
    at: Vec<usize>,
    row: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for RowReader<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowReader").field("at", &self.at).finish()
    }
}

impl<T: TypedRow> RowReader<T> {
    /// Find `T`'s columns among `names`, a statement's column names;
    /// `sql` names the statement (`queries/tree.sql`) in the error when
    /// one is missing, or there twice.
    pub fn new<S: AsRef<str>>(names: &[S], sql: &str) -> Result<Self, Error> {
        let at = T::COLUMNS
            .iter()
            .map(|&c| {
                let mut found = names.iter().enumerate().filter(|(_, n)| n.as_ref() == c);
                match (found.next(), found.next()) {
                    (Some((i, _)), None) => Ok(i),
                    (None, _) => Err(missing(names, sql, c, "no column")),
                    (Some(_), Some(_)) => Err(missing(names, sql, c, "two columns")),
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(RowReader {
            at,
            row: PhantomData,
        })
    }

    /// Find `T`'s columns in a result read in memory.
    pub fn of_set(set: &ResultSet, sql: &str) -> Result<Self, Error> {
        Self::new(&set.columns, sql)
    }

    /// Find `T`'s columns in the rows `stmt` will give.
    pub fn of_statement(stmt: &rusqlite::Statement<'_>, sql: &str) -> Result<Self, Error> {
        Self::new(&stmt.column_names(), sql)
    }

    /// Row `row` of the statement, as `T`.
    #[inline]
    pub fn row<'r>(&self, row: &'r rusqlite::Row<'_>) -> T::Row<'r> {
        // The positions come from this statement's names: always in range.
        T::read(&self.at, |i| row.get_ref(i).unwrap_or(ValueRef::Null))
    }

    /// A row of cells, as `T`.
    #[inline]
    pub fn cells<'r>(&self, cells: &'r [Cell]) -> T::Row<'r> {
        T::read(&self.at, |i| value_of(&cells[i]))
    }

    /// Every row of `set`, as `T`.
    pub fn all<'s>(&'s self, set: &'s ResultSet) -> impl Iterator<Item = T::Row<'s>> + 's {
        self.rows(&set.rows)
    }

    /// Every row of `rows`, as `T`.
    pub fn rows<'s>(&'s self, rows: &'s [Vec<Cell>]) -> impl Iterator<Item = T::Row<'s>> + 's {
        rows.iter().map(|r| self.cells(r))
    }

    /// Where column `name` of `T` is (for a caller that copies the row
    /// whole, then changes one cell).
    pub fn position(&self, name: &str) -> Option<usize> {
        let k = T::COLUMNS.iter().position(|&c| c == name)?;
        Some(self.at[k])
    }
}

/// The error of a column `T` needs that `names` lacks (or has twice).
fn missing<S: AsRef<str>>(names: &[S], sql: &str, column: &str, what: &str) -> Error {
    let list: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    Error::Sqlite {
        context: format!(
            "{sql} has {what} {column:?} (its columns: {}): its rows cannot be read",
            list.join(", ")
        ),
        source: rusqlite::Error::InvalidColumnName(column.to_string()),
    }
}

/// Declare a typed row: a struct, each field named as a column of the
/// queries it is read from (`from "a", "b"`; without `from`, of rows the
/// code makes itself), and its [`TypedRow`]. A struct with a lifetime
/// borrows its text from the row; the lifetime must be its only generic.
///
/// ```ignore
/// typed_row! {
///     /// One row of `queries/parallelism.sql`.
///     struct Running from "parallelism" {
///         ts: i64,
///         running: i64,
///     }
/// }
/// ```
macro_rules! typed_row {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident <$lt:lifetime> $(from $($query:literal),+)? {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name<$lt> {
            $( $(#[$fmeta])* $fvis $field: $ty, )*
        }
        impl $crate::report::row::TypedRow for $name<'static> {
            const QUERIES: &'static [&'static str] = &[$($($query),+)?];
            const COLUMNS: &'static [&'static str] = &[$(stringify!($field)),*];
            type Row<$lt> = $name<$lt>;
            #[inline]
            fn read<$lt>(
                at: &[usize],
                value: impl Fn(usize) -> rusqlite::types::ValueRef<$lt>,
            ) -> $name<$lt> {
                let mut at = at.iter();
                $name {
                    $( $field: $crate::report::row::FromValue::from_value(
                        value(*at.next().expect("a position per column")),
                    ), )*
                }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(from $($query:literal),+)? {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$fmeta])* $fvis $field: $ty, )*
        }
        impl $crate::report::row::TypedRow for $name {
            const QUERIES: &'static [&'static str] = &[$($($query),+)?];
            const COLUMNS: &'static [&'static str] = &[$(stringify!($field)),*];
            type Row<'r> = $name;
            #[inline]
            fn read<'r>(
                at: &[usize],
                value: impl Fn(usize) -> rusqlite::types::ValueRef<'r>,
            ) -> $name {
                let mut at = at.iter();
                $name {
                    $( $field: $crate::report::row::FromValue::from_value(
                        value(*at.next().expect("a position per column")),
                    ), )*
                }
            }
        }
    };
}
pub(crate) use typed_row;

/// What every typed row's test asks: each query it reads, prepared on an
/// empty database, has every column it reads, and its header documents
/// each (`@column`).
#[cfg(test)]
pub(crate) fn check<T: TypedRow>() {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    crate::schema::create_tables(&conn).unwrap();
    crate::schema::create_indexes_and_views(&conn).unwrap();
    assert!(!T::QUERIES.is_empty());
    for name in T::QUERIES {
        let q = super::query(name).unwrap_or_else(|| panic!("no query {name}"));
        let stmt = conn.prepare(q.sql).unwrap();
        let sql = format!("queries/{}", q.file);
        if let Err(e) = RowReader::<T>::of_statement(&stmt, &sql) {
            panic!("{e}");
        }
        for c in T::COLUMNS {
            let documented = q.columns.iter().any(|(n, _)| n == c);
            assert!(documented, "{sql} has no `@column {c}` line");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{each_as, Scope};

    typed_row! {
        /// parallelism.sql's columns, one of them misspelt.
        #[allow(dead_code)]
        struct Misspelt from "parallelism" {
            ts: i64,
            runing: i64,
        }
    }

    typed_row! {
        /// A row read from cells, borrowing.
        struct Borrowed<'r> from "parallelism" {
            name: Cow<'r, [u8]>,
            n: i64,
            maybe: Option<i64>,
            raw: ValueRef<'r>,
            shown: String,
        }
    }

    #[test]
    fn a_column_the_query_lacks_is_an_error_naming_both() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        crate::schema::create_tables(&conn).unwrap();
        crate::schema::create_indexes_and_views(&conn).unwrap();
        let got = each_as::<Misspelt>(&conn, "parallelism", &Scope::default().params(), |_| {
            panic!("no row is read")
        });
        let e = got.expect_err("runing is no column").to_string();
        assert!(e.contains("queries/parallelism.sql"), "{e}");
        assert!(e.contains("no column \"runing\""), "{e}");
        assert!(e.contains("(its columns: ts, running)"), "{e}");
    }

    #[test]
    fn columns_are_found_by_name_wherever_they_are() {
        let names = ["shown", "extra", "raw", "maybe", "n", "name"];
        let r = RowReader::<Borrowed<'static>>::new(&names, "a test").unwrap();
        let cells = [
            Cell::Real(1.5),
            Cell::Int(99),
            Cell::Blob(b"\xff".to_vec()),
            Cell::Null,
            Cell::Int(7),
            Cell::Int(12),
        ];
        let b = r.cells(&cells);
        assert_eq!(&*b.name, b"12");
        assert_eq!(b.n, 7);
        assert_eq!(b.maybe, None);
        assert_eq!(b.raw, ValueRef::Blob(b"\xff"));
        assert_eq!(b.shown, "1.5");
        assert_eq!(r.position("n"), Some(4));
        // A column there twice is as much an error as one missing.
        let twice = ["name", "n", "maybe", "raw", "shown", "n"];
        let e = RowReader::<Borrowed<'static>>::new(&twice, "a test").unwrap_err();
        assert!(
            e.to_string().contains("a test has two columns \"n\""),
            "{e}"
        );
    }

    typed_row! {
        /// A row of the code's own SQL (`collect_sql_as`).
        #[derive(Debug)]
        struct Own {
            id: i64,
            label: Vec<u8>,
        }
    }

    #[test]
    fn the_codes_own_sql_is_read_by_name_and_bound_by_name() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let sql = "SELECT 'x' || :n AS label, 7 AS extra, :n + 1 AS id";
        let rows: Vec<Own> =
            crate::report::collect_sql_as(&conn, sql, &[("n", Cell::Int(4))], "a lookup").unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].id, rows[0].label.as_slice()), (5, &b"x4"[..]));
        // A column the statement lacks fails before a row, naming both.
        let e = crate::report::collect_sql_as::<Own>(&conn, "SELECT 1 AS id", &[], "a lookup")
            .unwrap_err()
            .to_string();
        assert!(e.contains("a lookup has no column \"label\""), "{e}");
        // A parameter the statement does not take is refused.
        let e = crate::report::collect_sql_as::<Own>(
            &conn,
            "SELECT 1 AS id, '' AS label",
            &[("pid", Cell::Int(1))],
            "a lookup",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("a lookup"), "{e}");
    }

    #[test]
    fn every_field_type_reads_null_as_the_readers_always_did() {
        let null = ValueRef::Null;
        assert_eq!(i64::from_value(null), 0);
        assert_eq!(Vec::<u8>::from_value(null), b"");
        assert_eq!(Option::<Vec<u8>>::from_value(null), None);
        assert_eq!(Option::<&[u8]>::from_value(null), None);
        assert_eq!(String::from_value(null), "");
        assert_eq!(Cell::from_value(null), Cell::Null);
        assert_eq!(i64::from_value(ValueRef::Real(2.0)), 0);
        assert_eq!(Vec::<u8>::from_value(ValueRef::Integer(-3)), b"-3");
    }
}
