//! `kt2sql lint` on a real configure-and-make build, recorded with strace
//! and written as an OpenBSD trace: configure's own temporaries (its
//! `conftest.c`, `conftest`, `confdefs.h`, written, compiled, run and
//! removed below configure) and device files (`/dev/null`) are no
//! hazards by default, `--temporaries` and `--devices` show them (then
//! lint gives the strace log's truth), a temporary two make recipes share
//! and a log both append to stay hazards, and a baseline written from one
//! recording accepts the same build recorded again in another directory.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::build::s;
use super::import_into;
use super::lint::lint_json;
use crate::util::strace_build::{convert, record};

/// A `./configure` as autoconf writes them: each probe's conftest.c
/// written by cat, compiled into `conftest`, run, removed; confdefs.h
/// gathered and removed at the end; the compiler's chatter to /dev/null.
const CONFIGURE: &str = r##"#!/bin/sh
echo '/* confdefs.h */' > confdefs.h
for h in stdio stdlib; do
  cat > conftest.c <<_ACEOF
#include "confdefs.h"
#include <$h.h>
int main(void) { return 0; }
_ACEOF
  if cc -o conftest conftest.c >/dev/null 2>&1 && ./conftest; then
    echo "#define HAVE_$h 1" | cat >> confdefs.h
  fi
  rm -f conftest conftest.c
done
cat confdefs.h > config.h
rm -f confdefs.h
printf 'all: a.o b.o\na.o: a.c config.h\n\techo a > shared.tmp; cc -c a.c 2>/dev/null; rm -f shared.tmp; echo a >> build.log\nb.o: b.c config.h\n\techo b > shared.tmp; cc -c b.c 2>/dev/null; rm -f shared.tmp; echo b >> build.log\n' > Makefile
"##;

/// The build's directory under `tmp`, with its sources.
fn project(tmp: &Path, name: &str) -> std::path::PathBuf {
    let dir = tmp.join(name);
    std::fs::create_dir(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
    std::fs::write(dir.join("configure"), CONFIGURE).unwrap();
    for f in ["a", "b"] {
        let c = format!("#include \"config.h\"\nint {f}(void) {{ return 0; }}\n");
        std::fs::write(dir.join(format!("{f}.c")), c).unwrap();
    }
    dir
}

/// `kind path` of each row, sorted.
fn kind_paths(rows: &[Value]) -> Vec<String> {
    let mut v: Vec<String> = rows
        .iter()
        .map(|r| format!("{} {}", s(&r["kind"]), s(&r["path"])))
        .collect();
    v.sort();
    v
}

/// The paths of the rows.
fn paths(rows: &[Value]) -> BTreeSet<String> {
    rows.iter().map(|r| s(&r["path"])).collect()
}

#[test]
fn lint_on_a_real_configure_and_make_leaves_out_their_temporaries_and_devices() {
    crate::require_shared!(python);
    let tmp = tempfile::tempdir().unwrap();
    let mut dbs = Vec::new();
    for name in ["one", "two"] {
        let dir = project(tmp.path(), name);
        let Some(log) = record(&dir, "sh ./configure && make") else {
            return;
        };
        let (trace, truth) = convert(&log, &dir, "openbsd-amd64");
        let top = dir.to_str().unwrap().to_string();
        let db = import_into(tmp.path(), &format!("{name}.db"), &[trace], Some(&top));
        dbs.push((db, truth, top));
    }
    for (db, truth, top) in &dbs {
        let (code, rows, err) = lint_json(db, &[]);
        let got = paths(&rows);
        // No row for a path configure created and removed, nor for /dev.
        for p in &got {
            let name = p.rsplit('/').next().unwrap();
            assert!(!name.starts_with("conftest"), "{p}: {err}");
            assert!(!name.starts_with("confdefs"), "{p}");
            assert!(!p.starts_with("/dev/") && !p.starts_with("/proc/"), "{p}");
        }
        // make's two recipes both wrote shared.tmp (their job is make)
        // and build.log: real hazards.
        for f in ["shared.tmp", "build.log"] {
            let dw = format!("double-write {top}/{f}");
            assert!(kind_paths(&rows).contains(&dw), "{dw}: {rows:#?}");
        }
        assert_eq!(code, 1);
        // --temporaries and --devices show what was left out: configure's
        // files and /dev/null, each its own rule.
        let (_, all, _) = lint_json(db, &["--temporaries", "--devices"]);
        let (_, temps, _) = lint_json(db, &["--temporaries"]);
        let (_, devs, _) = lint_json(db, &["--devices"]);
        for f in ["conftest.c", "conftest", "confdefs.h"] {
            let p = format!("{top}/{f}");
            assert!(paths(&temps).contains(&p), "--temporaries: {p}");
            assert!(!paths(&devs).contains(&p), "--devices: {p}");
        }
        assert!(paths(&devs).contains("/dev/null"), "--devices: /dev/null");
        assert!(!paths(&temps).contains("/dev/null"), "--temporaries");
        assert!(
            paths(&all) == &paths(&temps) | &paths(&devs),
            "--temporaries --devices"
        );
        // Every row left out is a temporary of the truth or a device.
        let files = truth["build"]["files"].as_array().unwrap();
        let temporary: BTreeSet<String> = files
            .iter()
            .filter(|f| f["role"] == "temporary")
            .map(|f| s(&f["path"]))
            .collect();
        for p in paths(&all).difference(&got) {
            assert!(temporary.contains(p) || p.starts_with("/dev/"), "{p}");
        }
        // With --all, lint's hazards are the truth's (kind and path).
        let (_, every, _) = lint_json(db, &["--all"]);
        let hz = truth["build"]["hazards"].as_array().unwrap();
        let want: BTreeSet<String> = hz
            .iter()
            .map(|h| format!("{} {}", s(&h["kind"]), s(&h["path"])))
            .collect();
        let got_all: BTreeSet<String> = kind_paths(&every).into_iter().collect();
        assert_eq!(got_all, want, "lint --all");
    }
    // A baseline from the first recording accepts the second, whose pids
    // and directory differ; without its build.log rows, those are new.
    let (first, second) = (&dbs[0], &dbs[1]);
    let (_, rows, _) = lint_json(&first.0, &[]);
    let base = tmp.path().join("base.json");
    std::fs::write(&base, serde_json::to_vec(&rows).unwrap()).unwrap();
    let b = base.to_str().unwrap();
    let (code, again, err) = lint_json(&second.0, &["--baseline", b]);
    assert_eq!((code, again.len()), (0, 0), "{err}");
    let kept: Vec<&Value> = rows
        .iter()
        .filter(|r| !s(&r["path"]).ends_with("/build.log"))
        .collect();
    std::fs::write(&base, serde_json::to_vec(&kept).unwrap()).unwrap();
    let (code, new, _) = lint_json(&second.0, &["--baseline", b]);
    assert_eq!(code, 1);
    let log = format!("{}/build.log", second.2);
    assert!(
        !new.is_empty() && new.iter().all(|r| s(&r["path"]) == log),
        "{new:#?}"
    );
}
