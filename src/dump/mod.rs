//! dump: records → text, for `kt2sql dump`. Streams a decoder's records to
//! a writer as kdump(1) text or JSON Lines, filtered by pid/tid and type
//! (ktrace's trace points, [`points`]), optionally following a file that
//! is still being written ([`follow`]), or summarises the whole file
//! (`--info`). Knows nothing of SQLite.

pub mod data;
pub mod follow;
pub mod json;
pub mod points;
pub mod text;

use std::collections::BTreeMap;
use std::io::{self, Read, Write};

use crate::decode::{DecodeError, Decoder, Endianness};
use crate::record::Record;

/// Output format of `dump`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// kdump-style columns.
    Text,
    /// One JSON object per line.
    Jsonl,
}

/// What to dump.
#[derive(Debug, Clone)]
pub struct DumpOptions {
    /// Output format.
    pub format: Format,
    /// Keep records whose pid or tid is one of these (empty: all).
    pub pids: Vec<i64>,
    /// Keep records with these type labels ([`points::parse`]); `None`: all.
    pub types: Option<Vec<&'static str>>,
    /// How text lines look (kdump's options).
    pub text: text::TextOptions,
    /// Write out every record as soon as it is decoded (`-l`).
    pub flush_each: bool,
}

impl Default for DumpOptions {
    fn default() -> Self {
        DumpOptions {
            format: Format::Text,
            pids: Vec::new(),
            types: None,
            text: text::TextOptions::default(),
            flush_each: false,
        }
    }
}

impl DumpOptions {
    fn keeps(&self, r: &Record<'_>) -> bool {
        (self.pids.is_empty()
            || self.pids.contains(&r.pid)
            || r.tid.is_some_and(|t| self.pids.contains(&t)))
            && self
                .types
                .as_ref()
                .is_none_or(|t| t.contains(&r.body.label()))
    }
}

/// Output is written out in pieces of about this many bytes.
const BUF: usize = 1 << 16;

/// Write every kept record; returns the decode error that ended the file
/// early, if any (everything before it has been written).
pub fn dump<R: Read>(
    dec: &mut Decoder<R>,
    out: &mut dyn Write,
    opts: &DumpOptions,
) -> io::Result<Option<DecodeError>> {
    let abi = dec.abi();
    let mut fmt = text::TextFormatter::new(abi, opts.text);
    let names = abi.name_table();
    // Bytes, not a `String`: the formatters append text that is UTF-8 by
    // construction, and a `String` would check it again.
    let mut buf: Vec<u8> = Vec::with_capacity(BUF + (1 << 12));
    loop {
        let rec = match dec.next_record() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => {
                out.write_all(&buf)?;
                return Ok(Some(e));
            }
        };
        if !opts.keeps(&rec) {
            continue;
        }
        match opts.format {
            Format::Text => fmt.record(&rec, &mut buf),
            Format::Jsonl => json::record(&rec, names, &mut buf),
        }
        if buf.len() >= BUF || opts.flush_each {
            out.write_all(&buf)?;
            buf.clear();
            if opts.flush_each {
                out.flush()?;
            }
        }
    }
    out.write_all(&buf)?;
    Ok(None)
}

/// A whole-file summary (`dump --info`).
#[derive(Debug, Clone, Default)]
pub struct Info {
    /// Records by type label.
    pub by_type: BTreeMap<&'static str, u64>,
    /// Header versions seen.
    pub versions: BTreeMap<u8, u64>,
    /// Total records.
    pub records: u64,
    /// Smallest, largest, first and last timestamp.
    pub min_ts: Option<i64>,
    /// Largest timestamp.
    pub max_ts: Option<i64>,
    /// First record's timestamp.
    pub first_ts: Option<i64>,
    /// Last record's timestamp.
    pub last_ts: Option<i64>,
    /// Distinct pids.
    pub pids: std::collections::BTreeSet<i64>,
    /// Distinct tids.
    pub tids: std::collections::BTreeSet<i64>,
    /// Records with KTR_DROP.
    pub dropped: u64,
    /// Bytes decoded.
    pub bytes: u64,
    /// Why decoding stopped early.
    pub error: Option<DecodeError>,
}

/// Read the whole file and summarise it.
pub fn info<R: Read>(dec: &mut Decoder<R>) -> Info {
    let mut i = Info::default();
    loop {
        match dec.next_record() {
            Ok(Some(r)) => {
                *i.by_type.entry(r.body.label()).or_default() += 1;
                *i.versions.entry(r.version).or_default() += 1;
                i.records += 1;
                if r.pid > 0 {
                    i.pids.insert(r.pid);
                }
                i.tids.extend(r.tid);
                i.dropped += u64::from(r.dropped);
                i.first_ts.get_or_insert(r.ts);
                i.last_ts = Some(r.ts);
                i.min_ts = Some(i.min_ts.map_or(r.ts, |m| m.min(r.ts)));
                i.max_ts = Some(i.max_ts.map_or(r.ts, |m| m.max(r.ts)));
            }
            Ok(None) => break,
            Err(e) => {
                i.error = Some(e);
                break;
            }
        }
    }
    i.bytes = dec.offset();
    i
}

/// `--info` as text.
pub fn info_text<R: Read>(dec: &Decoder<R>, i: &Info, path: &str, size: u64) -> String {
    use std::fmt::Write as _;
    let abi = dec.abi();
    let mut s = String::new();
    let order = match abi.endianness {
        Endianness::Little => "little-endian",
        Endianness::Big => "big-endian",
    };
    let versions: Vec<String> = i.versions.keys().map(|v| v.to_string()).collect();
    let size_of = |v: u8| abi.layout(v.into()).map_or(0, |l| l.size);
    let sizes: Vec<String> = i.versions.keys().map(|&v| size_of(v).to_string()).collect();
    let _ = writeln!(
        s,
        "file:            {} ({size} bytes)",
        crate::text::vis(path.as_bytes())
    );
    let _ = writeln!(s, "dialect:         {abi}");
    let _ = writeln!(s, "system:          {}", abi.system_name());
    let _ = writeln!(s, "header version:  {}", versions.join(", "));
    let _ = writeln!(s, "header size:     {} bytes", sizes.join(", "));
    let _ = writeln!(s, "word size:       {} bits", abi.width.bits());
    let _ = writeln!(s, "byte order:      {order}");
    let _ = writeln!(s, "records:         {}", i.records);
    for (label, n) in &i.by_type {
        let _ = writeln!(s, "  {label:<14} {n}");
    }
    let _ = writeln!(
        s,
        "processes:       {} pids, {} tids",
        i.pids.len(),
        i.tids.len()
    );
    let _ = writeln!(s, "dropped flags:   {}", i.dropped);
    if let (Some(a), Some(b)) = (i.min_ts, i.max_ts) {
        let _ = writeln!(s, "first record:    {}", iso(i.first_ts.unwrap_or(a)));
        let _ = writeln!(s, "last record:     {}", iso(i.last_ts.unwrap_or(b)));
        // i128: a damaged file's times may lie at both ends of i64.
        let span = (i128::from(b) - i128::from(a)) as f64 / 1e9;
        let _ = writeln!(s, "time span:       {span:.6} s");
    }
    match &i.error {
        None => {
            let _ = writeln!(s, "decoded:         all {} bytes", i.bytes);
        }
        Some(e) => {
            let _ = writeln!(
                s,
                "decoded:         {} of {size} bytes; stopped: {e}",
                i.bytes
            );
        }
    }
    s
}

/// `--info --format jsonl`: what [`info_text`] says, as one JSON object
/// on one line: `file`, `size`, `dialect`, `system`, `header_versions`,
/// `header_sizes`, `word_bits`, `byte_order`, `records`, `by_type` (an
/// object of counts by type label), `pids`, `tids`, `dropped`,
/// `first_record`, `last_record` (RFC 3339, or null), `span_ns`,
/// `decoded_bytes` and `stopped` (why decoding stopped early, or null).
pub fn info_json<R: Read>(dec: &Decoder<R>, i: &Info, path: &str, size: u64) -> String {
    use crate::json::Obj;
    let abi = dec.abi();
    let list = |v: Vec<String>| format!("[{}]", v.join(","));
    let versions = list(i.versions.keys().map(|v| v.to_string()).collect());
    let sizes = list(
        i.versions
            .keys()
            .map(|&v| abi.layout(v.into()).map_or(0, |l| l.size).to_string())
            .collect(),
    );
    let mut by_type = String::new();
    let mut o = Obj::new(&mut by_type);
    for (label, n) in &i.by_type {
        o.int(label, n);
    }
    o.end();
    let mut s = String::new();
    let mut o = Obj::new(&mut s);
    o.bytes("file", path.as_bytes())
        .int("size", size)
        .str("dialect", &abi.to_string())
        .str("system", abi.system_name())
        .raw("header_versions", &versions)
        .raw("header_sizes", &sizes)
        .int("word_bits", abi.width.bits())
        .str(
            "byte_order",
            match abi.endianness {
                Endianness::Little => "little-endian",
                Endianness::Big => "big-endian",
            },
        )
        .int("records", i.records)
        .raw("by_type", &by_type)
        .int("pids", i.pids.len())
        .int("tids", i.tids.len())
        .int("dropped", i.dropped)
        .name("first_record", i.first_ts.or(i.min_ts).map(iso).as_deref())
        .name("last_record", i.last_ts.or(i.max_ts).map(iso).as_deref())
        .opt(
            "span_ns",
            i.min_ts
                .zip(i.max_ts)
                .map(|(a, b)| i128::from(b) - i128::from(a)),
        )
        .int("decoded_bytes", i.bytes)
        .name(
            "stopped",
            i.error.as_ref().map(|e| e.to_string()).as_deref(),
        );
    o.end();
    s.push('\n');
    s
}

/// RFC 3339 UTC with nanoseconds.
pub fn iso(ts: i64) -> String {
    let sec = ts.div_euclid(1_000_000_000);
    let ns = ts.rem_euclid(1_000_000_000) as u32;
    match chrono::DateTime::from_timestamp(sec, ns) {
        Some(t) => t.format("%Y-%m-%dT%H:%M:%S%.9fZ").to_string(),
        None => format!("{ts} ns"),
    }
}
