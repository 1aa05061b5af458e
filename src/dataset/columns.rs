//! The dataset's columns: for every table, its SQLite columns in the
//! schema's order (the names and their order come from the DDL), each with
//! the Parquet form its values take. For the model's tables that form comes
//! from the stored [`Form`] of each column ([`Table::forms`], from the one
//! declaration of the rows): an integer, a fixed string, a recorded byte
//! string or raw data, and whether it may be NULL; a test checks that this
//! agrees with the DDL's NOT NULL. The `trace`
//! table, written by [`crate::sink::trace`], and `tree_node`, written by
//! [`crate::sink::tree`], take their forms from the DDL.
//!
//! Every file adds the trace key (see [`super`]) as its first column, and
//! a recorded byte string (lossless TEXT-or-BLOB in SQLite) adds a
//! `<column>_bytes` companion after it, holding the exact bytes when they
//! are not UTF-8 (and the column then holding them with U+FFFD in place
//! of each bad sequence).

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use rusqlite::Connection;

use crate::schema::sql_err;
use crate::sink::columns::Form;
use crate::sink::table::Table;
use crate::Error;

/// The name of the trace key column every file of the dataset starts with.
pub const TRACE_KEY: &str = "trace_key";

/// The suffix of a byte string's companion column.
pub const BYTES_SUFFIX: &str = "_bytes";

/// The form a column's values take in Parquet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// INT64: integers, flags (0/1), times (ns), ids.
    Int,
    /// DOUBLE.
    Real,
    /// STRING: text kt2sql writes (names, vocabularies, JSON).
    Text,
    /// STRING plus a BINARY `<name>_bytes` companion: recorded bytes, UTF-8
    /// or not.
    Bytes,
    /// BINARY: raw data.
    Blob,
}

impl Kind {
    /// The Arrow type of the column itself.
    pub fn data_type(self) -> DataType {
        match self {
            Kind::Int => DataType::Int64,
            Kind::Real => DataType::Float64,
            Kind::Text | Kind::Bytes => DataType::Utf8,
            Kind::Blob => DataType::Binary,
        }
    }

    /// As written in the documentation (Parquet physical type and logical
    /// annotation).
    pub fn parquet_name(self) -> &'static str {
        match self {
            Kind::Int => "INT64",
            Kind::Real => "DOUBLE",
            Kind::Text | Kind::Bytes => "STRING",
            Kind::Blob => "BINARY",
        }
    }
}

/// One SQLite column in the dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Its name, as in SQLite.
    pub name: String,
    /// Its form.
    pub kind: Kind,
    /// Whether it may be NULL (SQLite's column is not NOT NULL).
    pub nullable: bool,
}

/// A table of the dataset: its name and its SQLite columns in order.
#[derive(Debug, Clone)]
pub struct TableColumns {
    /// Its name (and its directory).
    pub name: &'static str,
    /// Its SQLite columns.
    pub columns: Vec<Column>,
}

impl TableColumns {
    /// The Arrow schema of its files: the trace key, then each column
    /// (with its `_bytes` companion where it has one).
    pub fn schema(&self) -> Arc<Schema> {
        let mut fields = vec![Field::new(TRACE_KEY, DataType::Utf8, false)];
        for c in &self.columns {
            fields.push(Field::new(&c.name, c.kind.data_type(), c.nullable));
            if c.kind == Kind::Bytes {
                fields.push(Field::new(
                    format!("{}{BYTES_SUFFIX}", c.name),
                    DataType::Binary,
                    true,
                ));
            }
        }
        Arc::new(Schema::new(fields))
    }

    /// The position of each column in the order the model's rows give
    /// their values ([`Table::columns`]).
    pub fn positions_of(&self, names: &[&str]) -> Vec<usize> {
        names
            .iter()
            .map(|n| {
                self.columns
                    .iter()
                    .position(|c| c.name == *n)
                    .expect("every declared column is in the schema")
            })
            .collect()
    }
}

impl Kind {
    /// The kind of a model table's column, from its stored form.
    pub fn of(form: Form) -> Kind {
        match form {
            Form::Int | Form::Path => Kind::Int,
            Form::Name | Form::Text | Form::Args => Kind::Text,
            Form::Recorded => Kind::Bytes,
            Form::Blob => Kind::Blob,
        }
    }
}

/// The declared kind of each column of each model table, and whether it
/// may be NULL, by table and column name.
type Declared = BTreeMap<&'static str, BTreeMap<&'static str, (Kind, bool)>>;

/// Every model table's declared columns.
fn declared() -> Declared {
    Table::ALL
        .iter()
        .map(|t| {
            let forms = t.forms().into_iter().map(|(f, null)| (Kind::of(f), null));
            (t.name(), t.columns().iter().copied().zip(forms).collect())
        })
        .collect()
}

/// The `trace` columns holding recorded bytes (the file's path and
/// `--start-dir`, stored losslessly by [`crate::sink::trace::start_values`]).
const TRACE_BYTES: &[&str] = &["path", "start_cwd"];

/// The table of the tree order ([`crate::sink::tree`]), the last of
/// the dataset's: written once a trace's rows are all in, its forms from
/// the DDL (every column an integer).
pub const TREE_NODE: &str = "tree_node";

/// Every table of the dataset, `trace` first, then the model's tables in
/// the order a batch writes them, then `tree_node`.
pub fn tables() -> Result<Vec<TableColumns>, Error> {
    let conn = Connection::open_in_memory().map_err(sql_err("opening memory".into()))?;
    crate::schema::create_tables(&conn)?;
    let declared = declared();
    let names = std::iter::once("trace")
        .chain(Table::ALL.iter().map(|t| t.name()))
        .chain([TREE_NODE]);
    names
        .map(|name| {
            let ddl = ddl_columns(&conn, name)?;
            let forms = declared.get(name);
            let columns = ddl
                .into_iter()
                .map(|(col, ty, notnull)| {
                    let kind = match forms.and_then(|f| f.get(col.as_str())) {
                        Some(&(kind, _)) => kind,
                        None if TRACE_BYTES.contains(&col.as_str()) && name == "trace" => {
                            Kind::Bytes
                        }
                        None => match ty.as_str() {
                            "INTEGER" => Kind::Int,
                            "REAL" => Kind::Real,
                            "BLOB" => Kind::Blob,
                            _ => Kind::Text,
                        },
                    };
                    let nullable = match forms.and_then(|f| f.get(col.as_str())) {
                        Some(&(_, nullable)) => nullable,
                        None => !notnull,
                    };
                    Column {
                        name: col,
                        kind,
                        nullable,
                    }
                })
                .collect();
            Ok(TableColumns { name, columns })
        })
        .collect()
}

/// A table's columns in the DDL: name, declared type, NOT NULL (a rowid
/// key counts as NOT NULL).
pub fn ddl_columns(conn: &Connection, table: &str) -> Result<Vec<(String, String, bool)>, Error> {
    let mut stmt = conn
        .prepare("SELECT name, type, \"notnull\" OR pk > 0 FROM pragma_table_info(?1) ORDER BY cid")
        .map_err(sql_err(format!("reading the columns of {table}")))?;
    let rows = stmt
        .query_map([table], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .map_err(sql_err(format!("reading the columns of {table}")))?;
    rows.collect::<Result<_, _>>()
        .map_err(sql_err(format!("reading the columns of {table}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The declaration's forms agree with the DDL: an `Option` exactly
    /// where the column may be NULL, an integer exactly where it is
    /// INTEGER, text or bytes where it is TEXT, raw data where BLOB.
    #[test]
    fn declared_forms_agree_with_the_ddl() {
        let conn = Connection::open_in_memory().unwrap();
        crate::schema::create_tables(&conn).unwrap();
        let declared = declared();
        for table in tables().unwrap() {
            let ddl = ddl_columns(&conn, table.name).unwrap();
            assert_eq!(
                ddl.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
                table
                    .columns
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
            );
            for ((name, ty, notnull), c) in ddl.iter().zip(&table.columns) {
                let at = format!("{}.{name}", table.name);
                assert_eq!(c.nullable, !notnull, "{at}: NULL allowed");
                let ok = match c.kind {
                    Kind::Int => ty == "INTEGER",
                    Kind::Real => ty == "REAL",
                    Kind::Text | Kind::Bytes => ty == "TEXT",
                    Kind::Blob => ty == "BLOB",
                };
                assert!(ok, "{at}: {:?} for {ty}", c.kind);
            }
            // Every declared column is in the DDL.
            for col in declared.get(table.name).into_iter().flat_map(|d| d.keys()) {
                assert!(table.columns.iter().any(|c| c.name == *col), "{col}");
            }
        }
    }
}
