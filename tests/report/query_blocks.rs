//! The shared SQL blocks: each is written once, in `queries/blocks/NAME.sql`,
//! and expanded into every query file that states it (a query file runs
//! alone in the `sqlite3` shell, so it cannot borrow another's CTEs). In a
//! file, a block is the lines between
//!
//! ```text
//!   -- block: NAME
//!   …
//!   -- end block: NAME
//! ```
//!
//! and must equal `queries/blocks/NAME.sql` with every non-empty line
//! indented as its `-- block:` line. `KT2SQL_UPDATE_QUERIES=1 cargo test
//! --test integration query_blocks` writes the expansions into the files
//! (edit the block, then run it); without it, a file that differs from its
//! expansion fails.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::util::manifest_dir;

/// The directories whose `*.sql` files may hold blocks.
const DIRS: [&str; 2] = ["queries", "schema"];

/// Every `queries/blocks/*.sql`, by name.
fn blocks() -> BTreeMap<String, String> {
    let dir = manifest_dir().join("queries/blocks");
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "sql") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            out.insert(name, std::fs::read_to_string(&path).unwrap());
        }
    }
    out
}

/// The `*.sql` files of [`DIRS`], in order.
fn sql_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for d in DIRS {
        for e in std::fs::read_dir(manifest_dir().join(d)).unwrap() {
            let path = e.unwrap().path();
            if path.is_file() && path.extension().is_some_and(|x| x == "sql") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `text` with every block replaced by its expansion, and the names of the
/// blocks it holds; a panic names a marker out of place.
fn expand(path: &Path, text: &str, blocks: &BTreeMap<String, String>) -> (String, Vec<String>) {
    let (mut out, mut used) = (String::new(), Vec::new());
    let mut open: Option<(String, usize)> = None;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let at = format!("{}:{}", path.display(), i + 1);
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let body = body.trim_end();
        if let Some(name) = body.strip_prefix("-- block: ") {
            assert!(open.is_none(), "{at}: a block inside a block");
            let block = blocks
                .get(name)
                .unwrap_or_else(|| panic!("{at}: no queries/blocks/{name}.sql"));
            out.push_str(line);
            for b in block.split_inclusive('\n') {
                if b.trim().is_empty() {
                    out.push_str(b.trim_start_matches([' ', '\t']));
                } else {
                    out.push_str(indent);
                    out.push_str(b);
                }
            }
            used.push(name.to_string());
            open = Some((name.to_string(), i + 1));
        } else if let Some(name) = body.strip_prefix("-- end block: ") {
            match open.take() {
                Some((n, _)) if n == name => out.push_str(line),
                _ => panic!("{at}: `end block: {name}` closes no open block {name}"),
            }
        } else if open.is_none() {
            out.push_str(line);
        }
    }
    if let Some((name, line)) = open {
        panic!("{}:{line}: block {name} is never ended", path.display());
    }
    (out, used)
}

/// Every query and schema file equals its expansion (with
/// `KT2SQL_UPDATE_QUERIES=1`, is rewritten to it), and every block is
/// used.
#[test]
fn every_sql_file_equals_its_expansion() {
    let blocks = blocks();
    let update = std::env::var("KT2SQL_UPDATE_QUERIES").is_ok_and(|v| v == "1");
    let mut uses: BTreeMap<String, usize> = blocks.keys().map(|k| (k.clone(), 0)).collect();
    let mut stale = Vec::new();
    for path in sql_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let (expanded, used) = expand(&path, &text, &blocks);
        for name in used {
            *uses.get_mut(&name).unwrap() += 1;
        }
        if expanded == text {
            continue;
        }
        if update {
            std::fs::write(&path, &expanded).unwrap();
            eprintln!("updated {}", path.display());
        } else {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "these files differ from the expansion of their blocks (queries/blocks/*.sql); \
         run KT2SQL_UPDATE_QUERIES=1 cargo test --test integration query_blocks and review \
         the diff: {stale:?}"
    );
    let unused: Vec<&String> = uses
        .iter()
        .filter(|(_, n)| **n == 0)
        .map(|(k, _)| k)
        .collect();
    assert!(unused.is_empty(), "blocks no file uses: {unused:?}");
}

/// The expansion itself: indentation, blank lines, a file that changes.
#[test]
fn a_block_expands_indented_as_its_marker() {
    let blocks = BTreeMap::from([("b".to_string(), "x\n\n  y\n".to_string())]);
    let text = "a\n    -- block: b\nold\n    -- end block: b\nz\n";
    let (out, used) = expand(Path::new("t.sql"), text, &blocks);
    assert_eq!(
        out,
        "a\n    -- block: b\n    x\n\n      y\n    -- end block: b\nz\n"
    );
    assert_eq!(used, ["b"]);
    let (again, _) = expand(Path::new("t.sql"), &out, &blocks);
    assert_eq!(again, out, "an expanded file is its own expansion");
}

#[test]
#[should_panic(expected = "never ended")]
fn an_unended_block_is_refused() {
    let blocks = BTreeMap::from([("b".to_string(), "x\n".to_string())]);
    expand(Path::new("t.sql"), "-- block: b\nx\n", &blocks);
}
