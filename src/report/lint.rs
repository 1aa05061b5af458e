//! `kt2sql lint`: the rows of `queries/lint.sql` passed on to a renderer
//! as they come, counted by kind, so the command can print a summary
//! line per kind and fail when it reported a hazard. A row is one hazard
//! (a kind, a path and the commands in it), and the summary counts the
//! rows printed. The text table of a lint that found nothing prints
//! nothing, not even its header: a clean build is silent. The hazard rules
//! are the build views' (`build_hazard`) and the query's (what is left
//! out by default); this only counts what they give, and holds back the
//! rows a [`Baseline`] accepts.
//!
//! A baseline is an earlier `lint --format json` output: each of its rows
//! accepts one hazard of the same identity, which does not depend on pids
//! or times: the kind, the path relative to the directory the trace
//! started in (`rel_path`) and the two command names (`comm`,
//! `other_comm`).

use std::collections::HashMap;
use std::io;

use std::borrow::Cow;

use serde_json::Value;

use super::json::Obj;
use super::row::{typed_row, RowReader};
use super::{Cell, RowSink};

typed_row! {
    /// What [`Tally`] reads of a row of `queries/lint.sql`.
    struct Hazard<'r> from "lint" {
        kind: Cow<'r, [u8]>,
        path: Cow<'r, [u8]>,
    }
}

/// The columns that make a hazard's identity, in the order the identity
/// lists them: a JSON row's fields of those names (and the `_hex` form of
/// a value that is not UTF-8).
const IDENTITY: [&str; 4] = ["kind", "rel_path", "comm", "other_comm"];

/// The identity of a JSON row of lint's: the values of its [`IDENTITY`]
/// fields (and their `_hex` forms), missing ones as null, as one JSON text.
fn identity(row: &serde_json::Map<String, Value>) -> String {
    let mut key = Vec::with_capacity(IDENTITY.len() * 2);
    for name in IDENTITY {
        for k in [name.to_string(), format!("{name}_hex")] {
            key.push(row.get(&k).cloned().unwrap_or(Value::Null));
        }
    }
    Value::Array(key).to_string()
}

/// The hazards a CI job accepts: how many of each identity an earlier
/// `lint --format json` listed.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    left: HashMap<String, u64>,
}

impl Baseline {
    /// Read a `lint --format json` output (a JSON array of row objects,
    /// each with at least `kind` and `rel_path`). The error says what is
    /// wrong, without the file's name (the caller adds it).
    pub fn parse(text: &[u8]) -> Result<Baseline, String> {
        let what = "not a `kt2sql lint --format json` output";
        let v: Value = serde_json::from_slice(text)
            .map_err(|e| format!("{what}: invalid JSON at line {}: {e}", e.line()))?;
        let rows = v
            .as_array()
            .ok_or_else(|| format!("{what}: not a JSON array"))?;
        let mut left: HashMap<String, u64> = HashMap::new();
        for (i, row) in rows.iter().enumerate() {
            let obj = row
                .as_object()
                .ok_or_else(|| format!("{what}: row {} is not an object", i + 1))?;
            for k in ["kind", "rel_path"] {
                let there = obj.contains_key(k) || obj.contains_key(&format!("{k}_hex"));
                if !there {
                    return Err(format!("{what}: row {} has no {k}", i + 1));
                }
            }
            *left.entry(identity(obj)).or_default() += 1;
        }
        Ok(Baseline { left })
    }

    /// Whether the baseline accepts the hazard whose identity columns,
    /// named `names`, hold `cells`: a row of its identity not yet used is
    /// used up.
    fn accepts(&mut self, names: &[&str], cells: &[&Cell]) -> bool {
        if self.left.is_empty() {
            return false;
        }
        let mut text = String::new();
        let mut o = Obj::new(&mut text);
        for (k, v) in names.iter().zip(cells) {
            o.cell(k, v);
        }
        o.end();
        let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(&text) else {
            return false;
        };
        match self.left.get_mut(&identity(&obj)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
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
    baseline: Option<Baseline>,
    /// Where the identity columns are, found at the first row.
    identity_at: Vec<usize>,
    accepted: u64,
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
            baseline: None,
            identity_at: Vec::new(),
            accepted: 0,
        }
    }

    /// Hold back the rows `baseline` accepts: they are neither passed on
    /// nor counted by kind, only in [`Tally::accepted`].
    pub fn with_baseline(mut self, baseline: Option<Baseline>) -> Self {
        self.baseline = baseline;
        self
    }

    /// The kinds of the rows passed on, in the order of their first row.
    pub fn counts(&self) -> &[KindCount] {
        &self.counts
    }

    /// The rows the baseline accepted (not passed on).
    pub fn accepted(&self) -> u64 {
        self.accepted
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
        if self.reader.is_none() {
            let reader = RowReader::new(&self.names, "queries/lint.sql");
            self.reader = Some(reader.map_err(io::Error::other)?);
            if self.baseline.is_some() {
                let at = IDENTITY.map(|c| self.names.iter().position(|n| n == c).ok_or(c));
                self.identity_at = at
                    .into_iter()
                    .collect::<Result<_, _>>()
                    .map_err(|c| io::Error::other(format!("queries/lint.sql: no column {c}")))?;
            }
        }
        if let Some(b) = self.baseline.as_mut() {
            let cells: Vec<&Cell> = self.identity_at.iter().map(|&i| &row[i]).collect();
            if b.accepts(&IDENTITY, &cells) {
                self.accepted += 1;
                return Ok(());
            }
        }
        self.begin()?;
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

/// The summary lines of `counts`, one per kind (`3 race on 1 path`: its
/// rows, and the distinct paths among them), then, when there were rows,
/// what a row is; then, when a baseline held `accepted` rows back, how
/// many.
pub fn summary(counts: &[KindCount], accepted: Option<u64>) -> Vec<String> {
    let s = |n: u64| if n == 1 { "" } else { "s" };
    let mut lines: Vec<String> = counts
        .iter()
        .map(|c| format!("{} {} on {} path{}", c.rows, c.kind, c.paths, s(c.paths)))
        .collect();
    let rows: u64 = counts.iter().map(|c| c.rows).sum();
    if rows > 0 {
        lines.push(format!(
            "{rows} hazard{}, one per row: a kind, a path and the commands in it",
            s(rows)
        ));
    }
    if let Some(n) = accepted {
        lines.push(format!(
            "{n} more in the baseline, not shown{}",
            if rows == 0 { "; no new hazard" } else { "" }
        ));
    }
    lines
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
        let lines = summary(t.counts(), None);
        assert_eq!(
            lines,
            [
                "3 double-write on 2 paths",
                "2 race on 1 path",
                "5 hazards, one per row: a kind, a path and the commands in it"
            ]
            .map(String::from)
        );
    }

    fn hazard(kind: &str, rel: &str, comm: &str, other: Option<&str>) -> Vec<Cell> {
        let text = |s: &str| Cell::Text(s.as_bytes().to_vec());
        vec![
            text(kind),
            text(&format!("/top/{rel}")),
            text(rel),
            text(comm),
            other.map_or(Cell::Null, text),
        ]
    }

    #[test]
    fn a_baseline_accepts_one_row_per_row_of_its_own() {
        let base = br#"[{"kind":"double-write","path":"/old/a","rel_path":"a","comm":"sh","other_comm":"cc","pid":7},
            {"kind":"read-outside","rel_path":"/etc/x","comm":"cc","other_comm":null}]"#;
        let base = Baseline::parse(base).unwrap();
        let mut out = Vec::new();
        let mut render = Render::new(&mut out, Format::Csv);
        let mut t = Tally::new(&mut render, true).with_baseline(Some(base));
        let cols = ["kind", "path", "rel_path", "comm", "other_comm"].map(String::from);
        t.start(&cols).unwrap();
        for r in [
            hazard("double-write", "a", "sh", Some("cc")),
            hazard("double-write", "a", "sh", Some("cc")),
            hazard("double-write", "a", "sh", Some("ld")),
            hazard("read-outside", "/etc/x", "cc", None),
        ] {
            t.row(&r).unwrap();
        }
        t.end().unwrap();
        assert_eq!(t.accepted(), 2);
        let lines = summary(t.counts(), Some(t.accepted()));
        assert_eq!(lines[0], "2 double-write on 1 path");
        assert_eq!(lines[2], "2 more in the baseline, not shown");
        drop(t);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "kind,path,rel_path,comm,other_comm\n\
             double-write,/top/a,a,sh,cc\n\
             double-write,/top/a,a,sh,ld\n"
        );
    }

    #[test]
    fn a_garbled_baseline_says_what_is_wrong() {
        for (text, want) in [
            (&b"{\"kind\": 1}"[..], "not a JSON array"),
            (b"[{\"kind\": \"race\"}]", "row 1 has no rel_path"),
            (b"[1]", "row 1 is not an object"),
            (b"[{", "invalid JSON at line 1"),
        ] {
            let err = Baseline::parse(text).unwrap_err();
            assert!(err.contains(want), "{err}");
            assert!(err.starts_with("not a `kt2sql lint --format json` output"));
        }
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
