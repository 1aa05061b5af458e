//! `kt2sql lint`: the rows of `queries/lint.sql` passed on to a renderer
//! as they come, counted by kind, so the command can print a summary
//! line per kind and fail when it reported a hazard. The text table of a
//! lint that found nothing prints nothing, not even its header: a clean
//! build is silent. The hazard rules are the build views' (`build_hazard`)
//! and the query's; this only counts what they give.

use std::io;

use std::borrow::Cow;

use super::row::{typed_row, RowReader};
use super::{Cell, RowSink};

typed_row! {
    /// What [`Tally`] reads of a row of `queries/lint.sql`.
    struct Hazard<'r> from "lint" {
        kind: Cow<'r, [u8]>,
        path: Cow<'r, [u8]>,
    }
}

/// How many rows, and paths, a kind had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindCount {
    /// The hazard kind (`race`).
    pub kind: String,
    /// Its rows.
    pub rows: u64,
    /// The distinct paths among them.
    pub paths: u64,
}

impl KindCount {
    /// Hazards of the kind: one per path for `double-write` (its rows
    /// list the writers), else one per row.
    pub fn hazards(&self) -> u64 {
        match self.kind.as_str() {
            "double-write" => self.paths,
            _ => self.rows,
        }
    }
}

/// A [`RowSink`] that counts lint rows by kind and distinct paths (the
/// columns so named) before handing them on. The query sorts by
/// kind then path, so a change of either is a new path.
pub struct Tally<'s> {
    inner: &'s mut dyn RowSink,
    /// Whether a result without rows still gets its header (CSV, JSON),
    /// or prints nothing (the text table).
    header_when_empty: bool,
    columns: Option<Vec<String>>,
    /// Where the kind and path are, found at the first row.
    reader: Option<RowReader<Hazard<'static>>>,
    names: Vec<String>,
    started: bool,
    last: Option<(Vec<u8>, Vec<u8>)>,
    counts: Vec<KindCount>,
}

impl<'s> Tally<'s> {
    /// Count what goes to `inner`.
    pub fn new(inner: &'s mut dyn RowSink, header_when_empty: bool) -> Self {
        Tally {
            inner,
            header_when_empty,
            columns: None,
            reader: None,
            names: Vec::new(),
            started: false,
            last: None,
            counts: Vec::new(),
        }
    }

    /// The kinds seen, in the order of their first row.
    pub fn counts(&self) -> &[KindCount] {
        &self.counts
    }

    fn begin(&mut self) -> io::Result<()> {
        if !self.started {
            self.started = true;
            let columns = self.columns.take().unwrap_or_default();
            self.inner.start(&columns)?;
        }
        Ok(())
    }
}

impl RowSink for Tally<'_> {
    fn start(&mut self, columns: &[String]) -> io::Result<()> {
        self.columns = Some(columns.to_vec());
        self.names = columns.to_vec();
        self.reader = None;
        self.started = false;
        if self.header_when_empty {
            self.begin()?;
        }
        Ok(())
    }

    fn row(&mut self, row: &[Cell]) -> io::Result<()> {
        self.begin()?;
        if self.reader.is_none() {
            let reader = RowReader::new(&self.names, "queries/lint.sql");
            self.reader = Some(reader.map_err(io::Error::other)?);
        }
        let h = self.reader.as_ref().expect("just found").cells(row);
        let key = (h.kind.into_owned(), h.path.into_owned());
        let new_kind = self.last.as_ref().is_none_or(|(k, _)| *k != key.0);
        if new_kind {
            self.counts.push(KindCount {
                kind: String::from_utf8_lossy(&key.0).into_owned(),
                rows: 0,
                paths: 0,
            });
        }
        let c = self.counts.last_mut().expect("a kind was pushed");
        c.rows += 1;
        if new_kind || self.last.as_ref().is_some_and(|(_, p)| *p != key.1) {
            c.paths += 1;
        }
        self.last = Some(key);
        self.inner.row(row)
    }

    fn end(&mut self) -> io::Result<()> {
        match self.started {
            true => self.inner.end(),
            false => Ok(()),
        }
    }
}

/// The summary lines of `counts`, one per kind: `2 race on 1 path`.
pub fn summary(counts: &[KindCount]) -> Vec<String> {
    let s = |n: u64| if n == 1 { "" } else { "s" };
    counts
        .iter()
        .map(|c| {
            format!(
                "{} {} on {} path{}",
                c.hazards(),
                c.kind,
                c.paths,
                s(c.paths)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Format, Render};

    fn row(kind: &str, path: &str) -> Vec<Cell> {
        vec![
            Cell::Text(kind.as_bytes().to_vec()),
            Cell::Text(path.as_bytes().to_vec()),
        ]
    }

    #[test]
    fn counts_rows_and_paths_by_kind() {
        let mut out = Vec::new();
        let mut render = Render::new(&mut out, Format::Csv);
        let mut t = Tally::new(&mut render, true);
        t.start(&["kind".into(), "path".into()]).unwrap();
        for (k, p) in [
            ("double-write", "/a"),
            ("double-write", "/a"),
            ("double-write", "/b"),
            ("race", "/b"),
            ("race", "/b"),
        ] {
            t.row(&row(k, p)).unwrap();
        }
        t.end().unwrap();
        let lines = summary(t.counts());
        assert_eq!(
            lines,
            ["2 double-write on 2 paths", "2 race on 1 path"].map(String::from)
        );
    }

    #[test]
    fn an_empty_table_prints_nothing_but_csv_its_header() {
        for (format, empty, want) in [(Format::Table, false, ""), (Format::Csv, true, "kind\n")] {
            let mut out = Vec::new();
            {
                let mut render = Render::new(&mut out, format);
                let mut t = Tally::new(&mut render, empty);
                t.start(&["kind".into()]).unwrap();
                t.end().unwrap();
                assert!(t.counts().is_empty());
            }
            assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }
}

#[cfg(test)]
mod row_tests {
    use crate::report::row::check;

    #[test]
    fn typed_rows_read_their_queries() {
        check::<super::Hazard<'static>>();
    }
}
