//! A query's result collected in memory: owned [`Cell`]s in a
//! [`ResultSet`], and its generic renderings (CSV, JSON, an aligned text
//! table), written by the same streaming renderer ([`super::render`]). Byte
//! strings (TEXT or BLOB) are never printed raw: text and CSV escape them with
//! vis(3) rules ([`crate::text::vis`]), JSON gives a valid UTF-8 string
//! plus an exact `<column>_hex` field when the bytes are a BLOB or not UTF-8.

use std::borrow::Cow;
use std::io::{self, Write};

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::ToSql;

use super::render::{Format, Render, RowSink};
use crate::text::vis;

/// One SQL value, owned. TEXT keeps its bytes as stored (SQLite does not
/// guarantee they are UTF-8).
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// NULL.
    Null,
    /// INTEGER.
    Int(i64),
    /// REAL.
    Real(f64),
    /// TEXT, as stored.
    Text(Vec<u8>),
    /// BLOB.
    Blob(Vec<u8>),
}

impl From<ValueRef<'_>> for Cell {
    fn from(v: ValueRef<'_>) -> Cell {
        match v {
            ValueRef::Null => Cell::Null,
            ValueRef::Integer(i) => Cell::Int(i),
            ValueRef::Real(f) => Cell::Real(f),
            ValueRef::Text(b) => Cell::Text(b.to_vec()),
            ValueRef::Blob(b) => Cell::Blob(b.to_vec()),
        }
    }
}

/// An INTEGER value's integer, or `None` (rows read as SQLite hands them
/// over, without a [`Cell`]).
#[inline]
pub fn value_int(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(i),
        _ => None,
    }
}

/// A TEXT or BLOB value's bytes, or `None`.
#[inline]
pub fn value_bytes(v: ValueRef<'_>) -> Option<&[u8]> {
    match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(b),
        _ => None,
    }
}

impl Cell {
    /// Become `v`, reusing this cell's buffer when both are text or both
    /// blobs (rows read one after another keep their allocations). A buffer
    /// the cell gives up (text becoming NULL) is kept in `spare` for the
    /// next text or blob, so a column that is NULL in some rows does not
    /// allocate a buffer per row.
    pub fn set(&mut self, v: ValueRef<'_>, spare: &mut Vec<u8>) {
        let mut buf = match std::mem::replace(self, Cell::Null) {
            Cell::Text(b) | Cell::Blob(b) => b,
            _ => std::mem::take(spare),
        };
        *self = match v {
            ValueRef::Text(b) | ValueRef::Blob(b) => {
                buf.clear();
                buf.extend_from_slice(b);
                match v {
                    ValueRef::Text(_) => Cell::Text(buf),
                    _ => Cell::Blob(buf),
                }
            }
            v => {
                *spare = buf;
                Cell::from(v)
            }
        };
    }
}

impl ToSql for Cell {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            Cell::Null => ValueRef::Null,
            Cell::Int(i) => ValueRef::Integer(*i),
            Cell::Real(f) => ValueRef::Real(*f),
            Cell::Text(b) => ValueRef::Text(b),
            Cell::Blob(b) => ValueRef::Blob(b),
        }))
    }
}

impl Cell {
    /// A parameter value from the command line: an integer or a real
    /// number when it reads as one, else text; `'quoted'` is always text.
    pub fn parse_param(s: &str) -> Cell {
        if let Some(inner) = s.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
            return Cell::Text(inner.as_bytes().to_vec());
        }
        if let Ok(i) = s.parse::<i64>() {
            Cell::Int(i)
        } else if let Ok(f) = s.parse::<f64>() {
            Cell::Real(f)
        } else {
            Cell::Text(s.as_bytes().to_vec())
        }
    }

    /// The integer, if this is one.
    pub fn int(&self) -> Option<i64> {
        match self {
            Cell::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The bytes of a TEXT or BLOB.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Cell::Text(b) | Cell::Blob(b) => Some(b),
            _ => None,
        }
    }

    /// The bytes of a TEXT or BLOB, or the text of a number; empty for NULL.
    pub fn to_bytes(&self) -> Cow<'_, [u8]> {
        match self {
            Cell::Text(b) | Cell::Blob(b) => Cow::Borrowed(b),
            other => Cow::Owned(other.display().into_owned().into_bytes()),
        }
    }

    /// Safe text: empty for NULL, numbers as SQLite prints them, byte
    /// strings escaped with [`vis`].
    pub fn display(&self) -> Cow<'_, str> {
        match self {
            Cell::Null => Cow::Borrowed(""),
            Cell::Int(i) => Cow::Owned(i.to_string()),
            Cell::Real(f) => Cow::Owned(real(*f)),
            Cell::Text(b) | Cell::Blob(b) => vis(b),
        }
    }

    pub(super) fn is_number(&self) -> bool {
        matches!(self, Cell::Int(_) | Cell::Real(_))
    }
}

/// A REAL the way the sqlite3 shell prints it (`%!.15g`): 15 significant
/// digits, at least one digit after the point.
pub fn real(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN"
        } else if f > 0.0 {
            "Inf"
        } else {
            "-Inf"
        }
        .into();
    }
    if f == 0.0 {
        return "0.0".into();
    }
    let sci = format!("{f:.14e}");
    let (mant, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("integer exponent");
    let trim = |s: &str| {
        let s = s.trim_end_matches('0');
        if s.ends_with('.') {
            format!("{s}0")
        } else {
            s.to_string()
        }
    };
    if !(-4..15).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mant), exp.abs())
    } else {
        trim(&format!("{f:.*}", (14 - exp).max(0) as usize))
    }
}

/// A query's result: column names and rows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultSet {
    /// Column names as the query spells them.
    pub columns: Vec<String>,
    /// The rows, each as long as `columns`.
    pub rows: Vec<Vec<Cell>>,
}

/// A result collected: the columns of the (last) result started, its rows
/// appended.
impl RowSink for ResultSet {
    fn start(&mut self, columns: &[String]) -> io::Result<()> {
        self.columns = columns.to_vec();
        Ok(())
    }
    fn row(&mut self, row: &[Cell]) -> io::Result<()> {
        self.rows.push(row.to_vec());
        Ok(())
    }
    fn end(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl ResultSet {
    /// The index of column `name`. Panics when there is none (for tests
    /// that look into a result; the reports read their rows as typed rows,
    /// [`super::row`], which say which query lacks which column).
    pub fn col(&self, name: &str) -> usize {
        self.columns
            .iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("query result has no column {name:?}"))
    }

    /// CSV: a header line, then one line per row (RFC 4180 quoting, `\n`
    /// line ends, NULL as an empty field, byte strings escaped).
    pub fn write_csv(&self, out: &mut dyn Write) -> io::Result<()> {
        self.write(out, Format::Csv)
    }

    /// JSON: an array with one object per row, keys in column order, one
    /// row per line.
    pub fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        self.write(out, Format::Json)
    }

    /// An aligned text table: header, dashes, rows; numbers right-aligned.
    pub fn write_table(&self, out: &mut dyn Write) -> io::Result<()> {
        self.write(out, Format::Table)
    }

    /// The rows in `format`, through the same writer as a streamed result.
    pub fn write(&self, out: &mut dyn Write, format: Format) -> io::Result<()> {
        let mut r = Render::new(out, format);
        r.start(&self.columns)?;
        for row in &self.rows {
            r.row(row)?;
        }
        r.end()
    }
}

/// Several result sets as one CSV table, the rule of every report with
/// more than one section (`stats`, …): a first column `section` naming
/// each row's section (the key the JSON document gives it), then every
/// section's columns in order of first appearance, a column shared by
/// name across sections once; a row leaves the columns of other sections
/// empty. Sections follow one another in the order given.
pub fn write_sections_csv(out: &mut dyn Write, sections: &[(&str, &ResultSet)]) -> io::Result<()> {
    let mut columns = vec!["section".to_string()];
    for (_, t) in sections {
        for c in &t.columns {
            if !columns.contains(c) {
                columns.push(c.clone());
            }
        }
    }
    let mut r = Render::new(out, Format::Csv);
    r.start(&columns)?;
    for (name, t) in sections {
        let at: Vec<usize> = t
            .columns
            .iter()
            .map(|c| columns.iter().position(|x| x == c).unwrap_or(0))
            .collect();
        for row in &t.rows {
            let mut line = vec![Cell::Null; columns.len()];
            line[0] = Cell::Text(name.as_bytes().to_vec());
            for (cell, &i) in row.iter().zip(&at) {
                line[i] = cell.clone();
            }
            r.row(&line)?;
        }
    }
    r.end()
}

/// Several result sets as JSON Lines, the rule of every report with more
/// than one section: one object per row and line, a first key `section`
/// naming its section (the key the JSON document gives it), then the
/// section's own columns only.
pub fn write_sections_jsonl(
    out: &mut dyn Write,
    sections: &[(&str, &ResultSet)],
) -> io::Result<()> {
    let mut r = Render::new(out, Format::Jsonl);
    let mut line = Vec::new();
    for (name, t) in sections {
        let mut columns = vec!["section".to_string()];
        columns.extend(t.columns.iter().cloned());
        r.start(&columns)?;
        for row in &t.rows {
            line.clear();
            line.push(Cell::Text(name.as_bytes().to_vec()));
            line.extend_from_slice(row);
            r.row(&line)?;
        }
        r.end()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_as_json_lines_keep_their_own_columns() {
        let other = ResultSet {
            columns: vec!["n".into()],
            rows: vec![vec![Cell::Int(7)], vec![Cell::Null]],
        };
        let mut v = Vec::new();
        write_sections_jsonl(&mut v, &[("files", &table()), ("kinds", &other)]).unwrap();
        let text = String::from_utf8(v).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), table().rows.len() + 2, "{text}");
        assert!(lines[0].starts_with(r#"{"section":"files","#), "{text}");
        assert_eq!(lines[lines.len() - 2], r#"{"section":"kinds","n":7}"#);
        assert_eq!(lines[lines.len() - 1], r#"{"section":"kinds","n":null}"#);
    }

    #[test]
    fn sections_share_one_csv_table() {
        let other = ResultSet {
            columns: vec!["n".into(), "kind".into()],
            rows: vec![vec![Cell::Int(7), Cell::Text(b"x".to_vec())]],
        };
        let mut v = Vec::new();
        write_sections_csv(&mut v, &[("files", &table()), ("kinds", &other)]).unwrap();
        assert_eq!(
            String::from_utf8(v).unwrap(),
            "section,path,n,kind\nfiles,\"/a,b\",3,\nfiles,/x\\377\\n,,\nkinds,,7,x\n"
        );
    }

    fn table() -> ResultSet {
        ResultSet {
            columns: vec!["path".into(), "n".into()],
            rows: vec![
                vec![Cell::Text(b"/a,b".to_vec()), Cell::Int(3)],
                vec![Cell::Blob(b"/x\xff\n".to_vec()), Cell::Null],
            ],
        }
    }

    fn render(f: impl Fn(&ResultSet, &mut dyn Write) -> io::Result<()>) -> String {
        let mut v = Vec::new();
        f(&table(), &mut v).unwrap();
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn csv_quotes_and_escapes() {
        assert_eq!(
            render(ResultSet::write_csv),
            "path,n\n\"/a,b\",3\n/x\\377\\n,\n"
        );
    }

    #[test]
    fn json_keeps_exact_bytes_in_hex() {
        assert_eq!(
            render(ResultSet::write_json),
            "[\n{\"path\":\"/a,b\",\"n\":3},\n{\"path\":\"/x\u{fffd}\\n\",\"path_hex\":\"2f78ff0a\",\"n\":null}\n]\n"
        );
    }

    #[test]
    fn table_aligns() {
        assert_eq!(
            render(ResultSet::write_table),
            "path      n\n--------  -\n/a,b      3\n/x\\377\\n\n"
        );
    }

    #[test]
    fn reals_print_like_sqlite() {
        assert_eq!(real(1.5), "1.5");
        assert_eq!(real(3.0), "3.0");
        assert_eq!(real(0.1), "0.1");
        assert_eq!(real(1e20), "1.0e+20");
        assert_eq!(real(-2.5e-7), "-2.5e-07");
        assert_eq!(Cell::parse_param("12"), Cell::Int(12));
        assert_eq!(Cell::parse_param("'12'"), Cell::Text(b"12".to_vec()));
    }
}
