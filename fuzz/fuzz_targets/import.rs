//! Arbitrary bytes through the whole import (`kt2sql::import`:
//! checks, decoder, process model, SQLite, atomic rename), in a RAM
//! directory. The first byte chooses the options: bit 7 gives the dialect
//! (bits 0-5 index `Abi::all()`) instead of detecting it, bit 6 `--strict`.
//! Nothing may panic; a failed import leaves no database, a successful one
//! leaves one; no temporary file stays behind.

#![no_main]

use std::fs;
use std::path::PathBuf;
use std::sync::OnceLock;

use kt2sql::decode::Abi;
use kt2sql::import::{import, ImportOptions, NoProgress};
use libfuzzer_sys::fuzz_target;

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let shm = std::path::Path::new("/dev/shm");
        let base = if shm.is_dir() {
            shm.to_owned()
        } else {
            std::env::temp_dir()
        };
        // Directories of fuzzing processes that are gone (Linux: /proc).
        for e in fs::read_dir(&base).into_iter().flatten().flatten() {
            let name = e.file_name();
            let pid = name.to_str().and_then(|n| n.strip_prefix("kt2sql-fuzz-"));
            if pid.is_some_and(|p| !std::path::Path::new(&format!("/proc/{p}")).exists()) {
                let _ = fs::remove_dir_all(e.path());
            }
        }
        let d = base.join(format!("kt2sql-fuzz-{}", std::process::id()));
        fs::create_dir_all(&d).unwrap();
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, body)) = data.split_first() else {
        return;
    };
    let abis = Abi::all();
    let opts = ImportOptions {
        abi: (sel & 0x80 != 0).then(|| abis[usize::from(sel & 0x3f) % abis.len()]),
        strict: sel & 0x40 != 0,
        ..ImportOptions::default()
    };
    let dir = dir();
    let (trace, db) = (dir.join("t.out"), dir.join("t.db"));
    fs::write(&trace, body).unwrap();
    let _ = fs::remove_file(&db);
    match import(std::slice::from_ref(&trace), &db, &opts, &NoProgress) {
        Ok(s) => {
            assert!(db.exists(), "imported, but no database");
            assert_eq!(s.traces.len(), 1);
        }
        Err(_) => assert!(!db.exists(), "failed, but a database exists"),
    }
    let left: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n != "t.out" && n != "t.db")
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
});
