//! Shared test helpers: where `../shared` (real corpus, ktcompose) is and
//! how to skip without it, golden files with an update switch, running
//! ktcompose into a temporary directory (or taking the committed fixture
//! made with the same arguments), and decoding a byte slice fully.
//! The record writer and record generators live in the submodules.

#![allow(dead_code)]

pub mod arb;
pub mod example_trace;
pub mod fixtures;
pub mod peak;
pub mod records;
mod shared;
pub mod strace_build;
pub mod truth;
pub mod writer;

pub use shared::{manifest_dir, shared_dir};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use kt2sql::decode::{Abi, DecodeError, Decoder};
use kt2sql::record::Record;

/// Whether python3 runs.
pub fn have_python() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Report a skipped test, or fail it when `CI=true` (CI must not skip silently).
/// The line goes straight to stderr, past the test harness's capture, so
/// a plain `cargo test` shows every skip.
pub fn skip(why: &str) {
    let t = std::thread::current();
    let name = t.name().unwrap_or("test");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{name}: {why} (not skipped because CI=true)");
    }
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "skipping {name}: {why}");
}

/// `let shared = require_shared!();` — the shared dir, or return from the
/// test after printing why. `require_shared!(python)` also needs python3.
#[macro_export]
macro_rules! require_shared {
    () => {
        match $crate::util::shared_dir() {
            Some(d) => d,
            None => {
                $crate::util::skip("../shared not found");
                return;
            }
        }
    };
    (python) => {{
        let d = $crate::require_shared!();
        if !$crate::util::have_python() {
            $crate::util::skip("python3 not found (needed for ktcompose)");
            return;
        }
        d
    }};
}

/// Compare `actual` with `tests/golden/<name>`; with `UPDATE_GOLDEN=1`
/// rewrite the file instead.
pub fn assert_golden(name: &str, actual: &str) {
    let path = manifest_dir().join("tests/golden").join(name);
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        eprintln!("updated {}", path.display());
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with UPDATE_GOLDEN=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        let (e, a): (Vec<_>, Vec<_>) = (expected.lines().collect(), actual.lines().collect());
        let at = e
            .iter()
            .zip(&a)
            .position(|(x, y)| x != y)
            .unwrap_or(e.len().min(a.len()));
        let show = |v: &[&str]| v[at.saturating_sub(2)..(at + 3).min(v.len())].join("\n");
        panic!(
            "{} differs from the output at line {}\n--- golden:\n{}\n--- actual:\n{}\n\
             (run with UPDATE_GOLDEN=1 to accept the new output)",
            path.display(),
            at + 1,
            show(&e),
            show(&a)
        );
    }
}

/// A trace written by ktcompose, with its truth JSON; the files live as long
/// as this value.
pub struct Composed {
    pub trace: PathBuf,
    pub truth: serde_json::Value,
    /// The truth as ktcompose wrote it.
    pub truth_file: PathBuf,
    _dir: tempfile::TempDir,
}

/// The trace `ktcompose.py --dialect D --seed S [extra…]` writes: the
/// committed fixture made with these arguments, or else ktcompose run into
/// a temporary directory (call `require_shared!(python)` first then).
pub fn compose(dialect: &str, seed: u64, extra: &[&str]) -> Composed {
    composed_from(dialect, seed, extra, fixtures::find(dialect, seed, extra))
}

/// Run ktcompose, committed fixture or not. Call `require_shared!(python)` first.
pub fn ktcompose(dialect: &str, seed: u64, extra: &[&str]) -> Composed {
    composed_from(dialect, seed, extra, None)
}

fn composed_from(
    dialect: &str,
    seed: u64,
    extra: &[&str],
    fixture: Option<fixtures::Fixture>,
) -> Composed {
    let dir = tempfile::tempdir().unwrap();
    let (trace, truth_file) = (dir.path().join("t.out"), dir.path().join("t.json"));
    match fixture {
        Some(f) => f.unpack(&trace, &truth_file),
        None => run_ktcompose(dialect, seed, extra, &trace, &truth_file),
    }
    let truth = serde_json::from_slice(&std::fs::read(&truth_file).unwrap()).unwrap();
    Composed {
        trace,
        truth,
        truth_file,
        _dir: dir,
    }
}

fn run_ktcompose(dialect: &str, seed: u64, extra: &[&str], trace: &Path, truth: &Path) {
    let shared = shared_dir().unwrap_or_else(|| {
        panic!(
            "ktcompose {dialect} {seed} {extra:?}: no fixture in {} has these arguments, \
             and ../shared is not there (require_shared! skips the test)",
            fixtures::dir().display()
        )
    });
    let out = Command::new("python3")
        .arg(shared.join("tools/ktcompose.py"))
        .args(["--dialect", dialect, "--seed", &seed.to_string(), "-o"])
        .arg(trace)
        .arg("--truth")
        .arg(truth)
        .args(extra)
        .output()
        .expect("run python3 ktcompose.py");
    assert!(
        out.status.success(),
        "ktcompose {dialect} {seed} {extra:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Everything one decoder run gives.
#[derive(Debug)]
pub struct Decoded {
    pub abi: Abi,
    pub records: Vec<Record<'static>>,
    /// The error that ended decoding, if any.
    pub error: Option<DecodeError>,
    /// The decoder's offset at the end (the input length after a clean end).
    pub end: u64,
}

impl Decoded {
    /// Record count per `Body::label()`.
    pub fn by_label(&self) -> BTreeMap<&'static str, u64> {
        let mut m = BTreeMap::new();
        for r in &self.records {
            *m.entry(r.body.label()).or_insert(0) += 1;
        }
        m
    }
}

/// Decode `bytes` to the end (detecting the dialect unless `abi` is given).
/// `Err` when the decoder cannot even start.
pub fn decode(bytes: &[u8], abi: Option<Abi>) -> Result<Decoded, DecodeError> {
    let mut d = Decoder::new(bytes, abi, Some(bytes.len() as u64))?;
    let mut records = Vec::new();
    let error = loop {
        match d.next_record() {
            Ok(Some(r)) => records.push(r.into_owned()),
            Ok(None) => break None,
            Err(e) => break Some(e),
        }
    };
    Ok(Decoded {
        abi: d.abi(),
        records,
        error,
        end: d.offset(),
    })
}

/// A corpus file's path under `shared`.
pub fn corpus(shared: &Path, name: &str) -> PathBuf {
    shared.join("corpus").join(format!("{name}.ktrace"))
}

/// The real samples: (file stem, dialect the corpus README names, records).
pub const CORPUS: &[(&str, &str, usize)] = &[
    ("freebsd14-amd64", "freebsd-v1:le:64", 609),
    ("freebsd9-i386", "freebsd-v0:le:32", 1489),
    ("openbsd73-amd64", "openbsd:le:64", 553),
    ("netbsd10-amd64", "netbsd-v2:le:64", 238),
    ("macosx104-ppc", "darwin:be:32", 854),
];

/// The dialects `ktcompose.py --list-dialects` writes.
pub const COMPOSE_DIALECTS: &[&str] = &[
    "freebsd-v1-amd64",
    "freebsd-v0-amd64",
    "freebsd-v0-i386",
    "openbsd-amd64",
    "netbsd-v2-amd64",
    "netbsd-v0-i386",
    "darwin-ppc",
];

/// A JSON array of strings (a truth list) as a sorted set.
pub fn strings(v: &serde_json::Value) -> std::collections::BTreeSet<String> {
    v.as_array()
        .expect("a JSON array")
        .iter()
        .map(|s| s.as_str().expect("a string").to_string())
        .collect()
}

/// A byte string as printable ASCII with `\xNN` escapes.
pub fn escape(b: &[u8]) -> String {
    b.iter()
        .flat_map(|&c| std::ascii::escape_default(c))
        .map(char::from)
        .collect()
}
