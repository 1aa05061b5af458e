//! The composed traces committed in `tests/fixtures/composed/`, each with
//! its truth: `tools/make_fixtures.sh` writes them with ktcompose from the
//! manifest there. [`super::compose`] takes one when a test asks for the
//! same dialect, seed and arguments, so such tests run without `../shared`.

use std::path::{Path, PathBuf};

/// A manifest line: the fixture's name and the ktcompose arguments it was
/// made with.
#[derive(Debug)]
pub struct Fixture {
    pub name: String,
    pub dialect: String,
    pub seed: u64,
    pub extra: Vec<String>,
}

/// The directory of the fixtures and their manifest.
pub fn dir() -> PathBuf {
    super::manifest_dir().join("tests/fixtures/composed")
}

/// Every fixture the manifest lists.
pub fn manifest() -> Vec<Fixture> {
    let text = std::fs::read_to_string(dir().join("manifest")).unwrap();
    let lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    lines
        .map(|l| {
            let mut w = l.split_whitespace().map(String::from);
            let (name, dialect, seed) = (w.next().unwrap(), w.next().unwrap(), w.next().unwrap());
            Fixture {
                name,
                dialect,
                seed: seed.parse().unwrap(),
                extra: w.collect(),
            }
        })
        .collect()
}

/// The `--faithful` fixtures (every dialect, with and without `--hazards`),
/// which the model, report, build and decode tests check against their
/// truth; the others are the small shapes of single tests.
pub fn faithful() -> Vec<Fixture> {
    let mut all = manifest();
    all.retain(|f| f.extra == ["--faithful"] || f.extra == ["--faithful", "--hazards"]);
    all
}

/// The fixture made with exactly these arguments, if one is committed.
pub fn find(dialect: &str, seed: u64, extra: &[&str]) -> Option<Fixture> {
    manifest()
        .into_iter()
        .find(|f| f.dialect == dialect && f.seed == seed && f.extra == extra)
}

/// The fixture made with exactly these arguments; a test's part that
/// must run without `../shared` asks with this, so a fixture missing from
/// the manifest fails it rather than running ktcompose.
pub fn committed(dialect: &str, seed: u64, extra: &[&str]) -> Fixture {
    find(dialect, seed, extra).unwrap_or_else(|| {
        panic!(
            "no committed fixture is ktcompose --dialect {dialect} --seed {seed} {extra:?}: \
             add it to {}/manifest and run tools/make_fixtures.sh",
            dir().display()
        )
    })
}

impl Fixture {
    /// The ktcompose arguments after the dialect and seed.
    pub fn args(&self) -> Vec<&str> {
        self.extra.iter().map(String::as_str).collect()
    }

    /// The committed file `NAME.<ext>.zst`, decompressed.
    pub fn read(&self, ext: &str) -> Vec<u8> {
        let path = dir().join(format!("{}.{ext}.zst", self.name));
        let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        zstd::decode_all(file).unwrap()
    }

    /// Write the trace and the truth to `trace` and `truth`.
    pub fn unpack(&self, trace: &Path, truth: &Path) {
        std::fs::write(trace, self.read("ktrace")).unwrap();
        std::fs::write(truth, self.read("json")).unwrap();
    }
}

/// Each fixture file is one the manifest names, and each name has both.
#[test]
fn the_fixtures_are_the_manifests() {
    let mut want: Vec<String> = manifest()
        .iter()
        .flat_map(|f| {
            [
                format!("{}.json.zst", f.name),
                format!("{}.ktrace.zst", f.name),
            ]
        })
        .collect();
    want.sort();
    let mut have: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "manifest")
        .collect();
    have.sort();
    assert_eq!(have, want, "run tools/make_fixtures.sh");
}

/// The committed fixtures are what ktcompose writes today for their
/// arguments (ktcompose is deterministic for a seed).
#[test]
fn committed_fixtures_are_what_ktcompose_writes() {
    crate::require_shared!(python);
    for f in manifest() {
        let fresh = super::ktcompose(&f.dialect, f.seed, &f.args());
        let stale = |what| format!("{}: {what} differs; run tools/make_fixtures.sh", f.name);
        assert!(
            std::fs::read(&fresh.trace).unwrap() == f.read("ktrace"),
            "{}",
            stale("trace")
        );
        let truth = std::fs::read(&fresh.truth_file).unwrap();
        assert!(truth == f.read("json"), "{}", stale("truth"));
    }
}
