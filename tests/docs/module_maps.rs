//! A module's `//!` map names its files: every file of `src/import/` and
//! `src/report/` is named in its `mod.rs` docs (as `` `name.rs` `` or as a
//! link `` [`name`] ``), and every `` `name.rs` `` those docs name exists, so
//! a newcomer following the map finds each file and no file is left off it.

use std::collections::BTreeSet;

use crate::util::manifest_dir;

/// The module doc of `dir/mod.rs` and the gaps between it and `dir`.
fn gaps(dir: &str) -> Vec<String> {
    let root = manifest_dir().join(dir);
    let text = std::fs::read_to_string(root.join("mod.rs")).expect("mod.rs");
    let doc: String = text
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    // Backquoted words: the odd pieces between backquotes.
    let quoted: BTreeSet<&str> = doc.split('`').skip(1).step_by(2).collect();
    let mut gaps = Vec::new();
    for entry in std::fs::read_dir(&root).expect("module directory") {
        let path = entry.expect("directory entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let stem = match name.strip_suffix(".rs") {
            Some("mod") => continue,
            Some(stem) => stem.to_string(),
            None if path.join("mod.rs").is_file() => name.clone(),
            None => continue,
        };
        let linked = doc.contains(&format!("[`{stem}`]"));
        if !linked && !quoted.contains(format!("{stem}.rs").as_str()) {
            gaps.push(format!("{dir}/mod.rs does not name {name}"));
        }
    }
    for file in quoted
        .iter()
        .filter(|q| q.ends_with(".rs") && !q.contains('/'))
    {
        if !root.join(file).is_file() {
            gaps.push(format!("{dir}/mod.rs names {file}, which is not in {dir}"));
        }
    }
    gaps
}

#[test]
fn import_and_report_docs_name_each_of_their_files() {
    let gaps: Vec<String> = ["src/import", "src/report"]
        .iter()
        .flat_map(|dir| gaps(dir))
        .collect();
    assert!(
        gaps.is_empty(),
        "module maps out of date:\n{}",
        gaps.join("\n")
    );
}
