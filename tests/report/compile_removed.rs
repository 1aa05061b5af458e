//! `kt2sql compile-commands` on a real configure-like build, recorded
//! with strace and written as OpenBSD and NetBSD traces (argv recorded):
//! as Bear, only the entries whose source exists after the build, not
//! configure's `conftest.c` nor a `dummy.c` probe in a temporary directory,
//! which the build wrote, compiled and deleted; `--keep-removed` keeps
//! them, and the roles of the truth agree.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::build::s;
use super::{import_into, kt2sql};
use crate::util::strace_build::{convert, record};

/// A `./configure` that probes the compiler with a conftest.c it then
/// deletes, and a dummy.c in a temporary directory it removes, then
/// writes config.h and a Makefile for two objects and a link.
const CONFIGURE: &str = r#"#!/bin/sh
printf '#include <stdio.h>\nint main(void) { return 0; }\n' > conftest.c
if cc -c conftest.c -o conftest.o; then echo '#define HAVE_STDIO 1' > config.h; fi
rm -f conftest.c conftest.o
d=$(mktemp -d "${TMPDIR:-/tmp}/kt2sql-probe.XXXXXX")
echo 'int x;' > "$d/dummy.c"
cc -c "$d/dummy.c" -o "$d/dummy.o"
rm -rf "$d"
printf 'prog: main.o util.o\n\tcc -o prog main.o util.o\nmain.o: main.c config.h\n\tcc -c main.c\nutil.o: util.c\n\tcc -c util.c\n' > Makefile
"#;

/// The `file` of each entry, made absolute from its directory; stderr.
fn sources(db: &Path, args: &[&str]) -> (BTreeSet<String>, String) {
    let o = kt2sql()
        .arg("compile-commands")
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let files = v.as_array().unwrap().iter().map(|e| {
        let (dir, file) = (s(&e["directory"]), s(&e["file"]));
        match file.starts_with('/') {
            true => file,
            false => format!("{dir}/{file}"),
        }
    });
    (files.collect(), String::from_utf8(o.stderr).unwrap())
}

#[test]
fn compile_commands_leave_out_the_sources_the_build_removed() {
    crate::require_shared!(python);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("proj");
    std::fs::create_dir(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    std::fs::write(dir.join("configure"), CONFIGURE).unwrap();
    std::fs::write(
        dir.join("main.c"),
        "#include \"config.h\"\nint util(void);\nint main(void) { return util(); }\n",
    )
    .unwrap();
    std::fs::write(dir.join("util.c"), "int util(void) { return 0; }\n").unwrap();
    let script = "sh ./configure && make";
    let Some(log) = record(&dir, script) else {
        return;
    };
    let top = dir.to_str().unwrap();
    let kept: BTreeSet<String> = ["main.c", "util.c"].map(|f| format!("{top}/{f}")).into();
    for dialect in ["openbsd-amd64", "netbsd-v2-amd64"] {
        let (trace, truth) = convert(&log, &dir, dialect);
        let db = import_into(tmp.path(), &format!("{dialect}.db"), &[trace], Some(top));
        let (got, err) = sources(&db, &[]);
        assert_eq!(got, kept, "{dialect}");
        assert!(
            err.contains("2 entries whose source the build removed"),
            "{dialect}: {err}"
        );
        let (all, _) = sources(&db, &["--keep-removed"]);
        let removed: BTreeSet<String> = all.difference(&kept).cloned().collect();
        assert_eq!(all.len(), 4, "{dialect}: {all:?}");
        assert!(
            removed.contains(&format!("{top}/conftest.c")),
            "{removed:?}"
        );
        assert!(
            removed.iter().any(|p| p.ends_with("/dummy.c")),
            "{removed:?}"
        );
        // The truth agrees: the removed sources are temporaries, the
        // others are not.
        let files = truth["build"]["files"].as_array().unwrap();
        let role = |p: &str| {
            let f = files.iter().find(|f| f["path"] == p);
            f.map(|f| s(&f["role"]))
        };
        for p in &removed {
            assert_eq!(role(p).as_deref(), Some("temporary"), "{dialect}: {p}");
        }
        for p in &kept {
            assert_eq!(role(p).as_deref(), Some("source"), "{dialect}: {p}");
        }
    }
}
