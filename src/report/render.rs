//! Query results written as they arrive: a [`Render`] takes each row from
//! SQLite and writes it at once (CSV, JSON, JSON Lines, or an aligned
//! table), so memory stays flat whatever the size of the result. The table
//! is the one format that must see rows before it can print: its column
//! widths come from the first [`WIDTH_ROWS`] rows, and a wider value later
//! only pushes the rest of its line to the right. A collected
//! [`ResultSet`](super::ResultSet) is written through the same renderer.

use std::borrow::Cow;
use std::io::{self, Write};

use super::json::Obj;
use super::result_set::Cell;
use crate::text::{all_plain, push_spaces, vis, vis_plain, Digits};

/// Rows an aligned table holds back to size its columns.
pub const WIDTH_ROWS: usize = 1000;

/// How rows are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns with a header and a line of dashes.
    Table,
    /// CSV with a header line (RFC 4180 quoting, `\n` line ends).
    Csv,
    /// One JSON array of row objects per result, one row per line.
    Json,
    /// One JSON object per row and line, no header.
    Jsonl,
}

/// Where a query's rows go, one result (statement) after another.
pub trait RowSink {
    /// A result with these columns begins.
    fn start(&mut self, columns: &[String]) -> io::Result<()>;
    /// One row, as long as the columns.
    fn row(&mut self, row: &[Cell]) -> io::Result<()>;
    /// The current result is complete.
    fn end(&mut self) -> io::Result<()>;
}

/// Writes results in one [`Format`]. Several results are separated by a
/// blank line (table, CSV); JSON gives one array per result, JSON Lines
/// just more lines.
pub struct Render<'w> {
    out: &'w mut dyn Write,
    format: Format,
    columns: Vec<String>,
    /// Results started so far.
    results: usize,
    /// Rows of the current result written (or held) so far.
    rows: u64,
    /// Table rows held back until the widths are known.
    held: Vec<Vec<Cell>>,
    /// Table column widths, once known.
    widths: Option<Vec<usize>>,
    /// Reused for a JSON object.
    buf: String,
    /// Reused for a table or CSV line.
    line: Vec<u8>,
}

impl<'w> Render<'w> {
    /// A writer of `format` onto `out`.
    pub fn new(out: &'w mut dyn Write, format: Format) -> Self {
        Render {
            out,
            format,
            columns: Vec::new(),
            results: 0,
            rows: 0,
            held: Vec::new(),
            widths: None,
            buf: String::new(),
            line: Vec::new(),
        }
    }

    fn json_object(&mut self, row: &[Cell]) {
        self.buf.clear();
        let mut o = Obj::new(&mut self.buf);
        for (k, v) in self.columns.iter().zip(row) {
            o.cell(k, v);
        }
        o.end();
    }

    /// Fix the table's widths from the held rows, print the header and them.
    fn flush_held(&mut self) -> io::Result<()> {
        let held = std::mem::take(&mut self.held);
        let mut widths: Vec<usize> = self.columns.iter().map(|c| vis_width(c)).collect();
        for row in &held {
            for (w, c) in widths.iter_mut().zip(row) {
                *w = (*w).max(c.display().chars().count());
            }
        }
        let head = self
            .columns
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{:<w$}", vis(c.as_bytes())))
            .collect();
        writeln!(self.out, "{}", line(head))?;
        let dashes = widths.iter().map(|w| "-".repeat(*w)).collect();
        writeln!(self.out, "{}", line(dashes))?;
        self.widths = Some(widths);
        for row in &held {
            self.table_line(row)?;
        }
        Ok(())
    }

    /// One row in its columns: numbers to the right, the rest to the left,
    /// two spaces between, trailing spaces dropped (as [`line`] joins the
    /// header). Written into a reused buffer: a table may have millions of
    /// rows. Text of printable ASCII (most cells) is copied as it is, its
    /// width its length; the rest goes through [`Cell::display`].
    fn table_line(&mut self, row: &[Cell]) -> io::Result<()> {
        let widths = self.widths.as_deref().unwrap_or_default();
        let out = &mut self.line;
        out.clear();
        let mut digits = Digits::default();
        // Spaces owed before the next byte (separators and padding), written
        // only when a later cell has something to show: the line's trailing
        // blanks are trimmed anyway, and most lines end in empty cells.
        let mut owed = 0;
        for (i, (c, &w)) in row.iter().zip(widths).enumerate() {
            if i > 0 {
                owed += 2;
            }
            let shown;
            let (s, width): (&[u8], usize) = match c {
                Cell::Int(v) => {
                    let d = digits.int_bytes(*v);
                    (d, d.len())
                }
                Cell::Text(b) if all_plain(b) => (b, b.len()),
                c => {
                    shown = c.display();
                    (shown.as_bytes(), shown.chars().count())
                }
            };
            let pad = w.saturating_sub(width);
            if c.is_number() {
                owed += pad;
            }
            if !s.is_empty() {
                push_spaces(out, owed);
                owed = 0;
                out.extend_from_slice(s);
            }
            if !c.is_number() {
                owed += pad;
            }
        }
        self.out.write_all(trim_end(out))?;
        self.out.write_all(b"\n")
    }

    /// One CSV line, into the reused buffer.
    fn csv_line(&mut self, row: &[Cell]) -> io::Result<()> {
        let out = &mut self.line;
        out.clear();
        let mut digits = Digits::default();
        for (i, c) in row.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            match c {
                Cell::Null => {}
                Cell::Int(v) => out.extend_from_slice(digits.int_bytes(*v)),
                Cell::Text(b) if b.iter().all(|&c| vis_plain(c) && c != b',' && c != b'"') => {
                    // csv_field quotes a field with a space at either end.
                    if b.first() == Some(&b' ') || b.last() == Some(&b' ') {
                        out.extend_from_slice(csv_field(&c.display()).as_bytes());
                    } else {
                        out.extend_from_slice(b);
                    }
                }
                c => out.extend_from_slice(csv_field(&c.display()).as_bytes()),
            }
        }
        out.push(b'\n');
        self.out.write_all(out)
    }
}

/// `line` without its trailing whitespace, as `str::trim_end` drops it:
/// spaces (the only ASCII whitespace [`vis`] leaves), and Unicode
/// whitespace when the line ends in a character that is not ASCII.
fn trim_end(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && line[end - 1] == b' ' {
        end -= 1;
    }
    match end.checked_sub(1).map(|i| line[i]) {
        Some(last) if last >= 0x80 => match std::str::from_utf8(&line[..end]) {
            Ok(s) => s.trim_end().as_bytes(),
            Err(_) => &line[..end],
        },
        _ => &line[..end],
    }
}

impl RowSink for Render<'_> {
    fn start(&mut self, columns: &[String]) -> io::Result<()> {
        if self.results > 0 && matches!(self.format, Format::Table | Format::Csv) {
            writeln!(self.out)?;
        }
        self.results += 1;
        self.rows = 0;
        self.columns = columns.to_vec();
        self.widths = None;
        match self.format {
            Format::Csv => {
                let header: Vec<Cow<'_, str>> = columns.iter().map(|c| csv_field(c)).collect();
                writeln!(self.out, "{}", header.join(","))
            }
            Format::Json => writeln!(self.out, "["),
            Format::Table | Format::Jsonl => Ok(()),
        }
    }

    fn row(&mut self, row: &[Cell]) -> io::Result<()> {
        self.rows += 1;
        match self.format {
            Format::Csv => self.csv_line(row),
            Format::Json => {
                self.json_object(row);
                let sep = if self.rows > 1 { ",\n" } else { "" };
                write!(self.out, "{sep}{}", self.buf)
            }
            Format::Jsonl => {
                self.json_object(row);
                writeln!(self.out, "{}", self.buf)
            }
            Format::Table if self.widths.is_some() => self.table_line(row),
            Format::Table => {
                self.held.push(row.to_vec());
                if self.held.len() >= WIDTH_ROWS {
                    self.flush_held()?;
                }
                Ok(())
            }
        }
    }

    fn end(&mut self) -> io::Result<()> {
        match self.format {
            Format::Json if self.rows > 0 => writeln!(self.out, "\n]"),
            Format::Json => writeln!(self.out, "]"),
            Format::Table if self.widths.is_none() => self.flush_held(),
            _ => Ok(()),
        }
    }
}

fn vis_width(s: &str) -> usize {
    vis(s.as_bytes()).chars().count()
}

/// Columns joined by two spaces, without trailing blanks.
fn line(parts: Vec<String>) -> String {
    parts.join("  ").trim_end().to_string()
}

/// Quote a CSV field when it holds a comma, a quote, a line end or
/// surrounding spaces.
fn csv_field(s: &str) -> Cow<'_, str> {
    let needs = s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ');
    if needs {
        Cow::Owned(format!("\"{}\"", s.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(format: Format, results: &[(&[&str], Vec<Vec<Cell>>)]) -> String {
        let mut v = Vec::new();
        let mut r = Render::new(&mut v, format);
        for (cols, rows) in results {
            let cols: Vec<String> = cols.iter().map(|c| c.to_string()).collect();
            r.start(&cols).unwrap();
            for row in rows {
                r.row(row).unwrap();
            }
            r.end().unwrap();
        }
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn several_results_follow_each_other() {
        let one = (&["a"][..], vec![vec![Cell::Int(1)]]);
        let two = (&["b", "c"][..], vec![vec![Cell::Int(2), Cell::Null]]);
        let both = [one, two];
        assert_eq!(render(Format::Csv, &both), "a\n1\n\nb,c\n2,\n");
        assert_eq!(render(Format::Table, &both), "a\n-\n1\n\nb  c\n-  -\n2\n");
        assert_eq!(
            render(Format::Json, &both),
            "[\n{\"a\":1}\n]\n[\n{\"b\":2,\"c\":null}\n]\n"
        );
        assert_eq!(
            render(Format::Jsonl, &both),
            "{\"a\":1}\n{\"b\":2,\"c\":null}\n"
        );
    }

    #[test]
    fn empty_results_keep_their_header() {
        let none = [(&["a", "b"][..], vec![])];
        assert_eq!(render(Format::Csv, &none), "a,b\n");
        assert_eq!(render(Format::Table, &none), "a  b\n-  -\n");
        assert_eq!(render(Format::Json, &none), "[\n]\n");
        assert_eq!(render(Format::Jsonl, &none), "");
    }

    #[test]
    fn table_widths_come_from_the_first_rows() {
        let mut rows: Vec<Vec<Cell>> = (0..WIDTH_ROWS)
            .map(|_| vec![Cell::Text(b"x".to_vec()), Cell::Int(1)])
            .collect();
        rows.push(vec![Cell::Text(b"longer".to_vec()), Cell::Int(22)]);
        let text = render(Format::Table, &[(&["s", "n"][..], rows)]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "s  n");
        assert_eq!(lines[2], "x  1");
        assert_eq!(lines.last(), Some(&"longer  22"));
        assert_eq!(lines.len(), WIDTH_ROWS + 3);
    }
}
