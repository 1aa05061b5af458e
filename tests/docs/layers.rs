//! The library's layers stay one-way: `src/lib.rs` lists its modules,
//! lowest first, and no module uses one listed after it. Every
//! `crate::` path of every `src/**.rs` file of the library (`use` lines,
//! grouped `crate::{…}` imports and paths inside code; not comments) is
//! checked against that list (lines that are comments are left out; a
//! comment after code is read with it), so the order is declared once, in
//! the map a reader sees first.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::manifest_dir;

/// Named by every layer: the crate's error type, which every layer
/// returns (it sits above `decode` for what it uses itself).
const EVERYWHERE: &[&str] = &["error"];

/// `src/lib.rs`'s numbered list of layers (`N. [`name`]: …`), in order.
fn declared_order(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .filter_map(|l| {
            let l = l.trim_start();
            let digits = l.find(|c: char| !c.is_ascii_digit())?;
            let rest = l[digits..].strip_prefix(". [`")?;
            let name = &rest[..rest.find('`')?];
            (digits > 0).then(|| name.to_string())
        })
        .collect()
}

/// The modules `src/lib.rs` declares (`pub mod name;` or `mod name;`).
fn declared_modules(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            l.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_string)
        })
        .collect()
}

/// Every top-level name a `crate::` path in `text` begins with: the first
/// segment after `crate::`, or each item's first segment in a
/// `crate::{…}` group. Comment lines are left out.
fn crate_paths(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue; // `kt2sql_crate::`, not this crate
        }
        if let Some(group) = rest.strip_prefix('{') {
            // The items of the group at its own depth.
            let mut depth = 0;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && !c.is_whitespace() => {
                        item_start = false;
                        let name = ident(&group[i..]);
                        if name != "self" {
                            out.push(name);
                        }
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out
}

/// The layer a top-level name stands for: a module, or the type the
/// crate re-exports from one.
fn layer_of(name: &str) -> &str {
    match name {
        "Error" => "error",
        other => other,
    }
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_uses_a_layer_above_it() {
    let src = manifest_dir().join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    let order = declared_order(&lib);
    let rank: BTreeMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    let modules = declared_modules(&lib);
    let mut wrong = Vec::new();
    for m in &modules {
        if !rank.contains_key(m.as_str()) {
            wrong.push(format!(
                "src/lib.rs declares `mod {m}` but its map does not place it: add it to \
                 the numbered list of layers in src/lib.rs's docs, after every layer it uses \
                 and before every layer that uses it"
            ));
        }
    }
    for m in &order {
        if !modules.contains(m) {
            wrong.push(format!(
                "src/lib.rs's map lists `{m}`, which it does not declare"
            ));
        }
    }
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let top = top.strip_suffix(".rs").unwrap_or(&top).to_string();
        if matches!(top.as_str(), "lib" | "main" | "cli") {
            continue; // the map itself, and the binary, which may use every layer
        }
        let Some(&own) = rank.get(top.as_str()) else {
            wrong.push(format!(
                "src/{} belongs to no layer of the map",
                rel.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for name in crate_paths(&text) {
            let layer = layer_of(&name);
            if layer == top || EVERYWHERE.contains(&layer) {
                continue;
            }
            match rank.get(layer) {
                Some(&r) if r < own => {}
                Some(_) => wrong.push(format!(
                    "src/{} ({top}) uses crate::{name}, a layer above it in src/lib.rs's map",
                    rel.display()
                )),
                None => wrong.push(format!(
                    "src/{} uses crate::{name}, which src/lib.rs's map does not place: \
                     declare it there",
                    rel.display()
                )),
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(wrong.is_empty(), "layers:\n{}", wrong.join("\n"));
}

/// The path reader finds what a file's code names, a comment after code
/// included, and not what its comment lines name.
#[test]
fn crate_paths_are_read_from_uses_groups_and_code() {
    let text = "//! [`crate::report`] in a doc\n\
                use crate::decode::Abi;\n\
                use crate::{\n    names::{self, Numbering},\n    record,\n    self,\n};\n\
                fn f() -> crate::Error { crate::text::vis(b\"\") } // crate::dump\n\
                macro_rules! m { () => { $crate::json::x() } }\n\
                use kt2sql_crate::nothing;\n";
    assert_eq!(
        crate_paths(text),
        ["decode", "names", "record", "Error", "text", "dump", "json"]
    );
}
