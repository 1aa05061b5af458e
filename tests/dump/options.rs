//! Each kdump option of `dump`, on corpus files and composed traces.

use std::collections::BTreeMap;

use super::{dump, kt2sql, record_lines, records};
use crate::util::{compose, corpus, COMPOSE_DIALECTS, CORPUS};

/// Records the text form prints (kdump leaves out process ctor/dtor).
fn shown(recs: &[serde_json::Value]) -> Vec<&serde_json::Value> {
    recs.iter()
        .filter(|r| !matches!(r["type"].as_str(), Some("PROCCTOR" | "PROCDTOR")))
        .collect()
}

fn ts(r: &serde_json::Value) -> i64 {
    r["ts"].as_i64().unwrap()
}

/// `sec.usec` of a nanosecond count (the corpus FreeBSD 9 file is in µs).
fn usec(ns: i64) -> String {
    let (s, f) = (ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000));
    format!("{s}.{:06}", f / 1000)
}

#[test]
fn plain_layout_columns() {
    let shared = crate::require_shared!();
    for (name, _, _) in CORPUS {
        let trace = corpus(&shared, name);
        let recs = records(&trace);
        let text = dump(&trace, &["-s"]);
        let lines = record_lines(&text, 2);
        let want = shown(&recs);
        assert_eq!(lines.len(), want.len(), "{name}");
        for ((cols, label), r) in lines.iter().zip(want) {
            assert_eq!(cols[0], r["pid"].to_string(), "{name}");
            assert!(
                label.starts_with(r["type"].as_str().unwrap()),
                "{name}: {label} {r}"
            );
        }
    }
}

#[test]
fn times_threads_and_numbers() {
    let shared = crate::require_shared!();
    let trace = corpus(&shared, "freebsd9-i386");
    let recs = records(&trace);
    let want = shown(&recs);
    let text = dump(&trace, &["-s", "-H", "-T", "-E", "-R"]);
    let lines = record_lines(&text, 6);
    assert_eq!(lines.len(), want.len());
    let first = ts(want[0]);
    let mut prev = first;
    for ((cols, label), r) in lines.iter().zip(&want) {
        let tid = r["tid"].as_i64().filter(|&t| t > 0).unwrap_or(0);
        assert_eq!(cols[1], tid.to_string());
        assert_eq!(cols[3], usec(ts(r)), "-T");
        assert_eq!(cols[4], usec(ts(r) - first), "-E");
        let d = ts(r) - prev;
        let rel = if d < 0 {
            format!("-{}", usec(-d))
        } else {
            usec(d)
        };
        assert_eq!(cols[5], rel, "-R");
        prev = ts(r);
        assert!(label.starts_with(r["type"].as_str().unwrap()));
    }
}

#[test]
fn decimal_raw_and_syscall_numbers() {
    let shared = crate::require_shared!();
    let trace = corpus(&shared, "freebsd14-amd64");
    let plain = dump(&trace, &[]);
    assert!(
        plain.contains("<O_RDONLY|O_CLOEXEC>"),
        "translated by default"
    );
    assert!(plain.contains("errno 2 No such file or directory"));
    let raw = dump(&trace, &["-n"]);
    for l in raw.lines() {
        assert!(!l.contains('<'), "-n: {l}");
    }
    assert!(raw.contains("errno 2\n") && !raw.contains("No such file"));
    let dec = dump(&trace, &["-d", "-n"]);
    for l in dec.lines().filter(|l| l.contains(" CALL ")) {
        assert!(!l.contains("0x"), "-d: {l}");
    }
    let recs = records(&trace);
    let calls: Vec<_> = recs.iter().filter(|r| r["type"] == "CALL").collect();
    let numbered = dump(&trace, &["-S", "-t", "c"]);
    let call_lines: Vec<&str> = numbered.lines().filter(|l| l.contains(" CALL ")).collect();
    assert_eq!(call_lines.len(), calls.len());
    for (l, r) in call_lines.iter().zip(calls) {
        let tag = format!("{}[{}]", r["syscall"].as_str().unwrap(), r["code"]);
        assert!(l.contains(&tag), "-S: {l} lacks {tag}");
    }
}

#[test]
fn io_data_limits() {
    let shared = crate::require_shared!();
    let trace = corpus(&shared, "freebsd9-i386");
    let full = dump(&trace, &[]);
    let none = dump(&trace, &["-s"]);
    let cut = dump(&trace, &["-m", "16"]);
    let recs = shown(&records(&trace)).len();
    let data = |t: &str| t.lines().filter(|l| l.starts_with("       ")).count();
    assert_eq!(record_lines(&none, 2).len(), recs);
    assert_eq!(data(&none), 0, "-s prints no data");
    assert!(data(&full) > data(&cut), "-m 16 prints less");
    // 16 bytes fit one hexdump line.
    for l in cut.lines().filter(|l| l.starts_with("       0x")) {
        assert!(l.starts_with("       0x0000 "), "-m 16: {l}");
    }
}

#[test]
fn pid_and_trace_points() {
    let shared = crate::require_shared!();
    let trace = corpus(&shared, "openbsd73-amd64");
    let recs = records(&trace);
    let text = dump(&trace, &["-s", "-p", "82432"]);
    let lines = record_lines(&text, 2);
    assert!(!lines.is_empty());
    assert!(lines.iter().all(|(c, _)| c[0] == "82432"));
    let count = |t: &str| recs.iter().filter(|r| r["type"] == t).count();
    for (trstr, labels) in [
        ("c", &["CALL", "RET"][..]),
        ("n", &["NAMI"]),
        ("x", &["ARGS"]),
        ("CALL,nami", &["CALL", "NAMI"]),
    ] {
        let text = dump(&trace, &["-s", "-t", trstr]);
        let lines = record_lines(&text, 2);
        let want: usize = labels.iter().map(|l| count(l)).sum();
        assert_eq!(lines.len(), want, "-t {trstr}");
        assert!(lines.iter().all(|(_, l)| labels.contains(l)), "-t {trstr}");
    }
    for bad in ["q", "CALL,BOGUS"] {
        let out = kt2sql()
            .args(["dump", "-t", bad, "-f"])
            .arg(&trace)
            .assert()
            .failure();
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(err.contains("unknown trace point"), "{bad}: {err}");
        assert!(out.get_output().stdout.is_empty());
    }
}

#[test]
fn file_argument_forms() {
    let shared = crate::require_shared!();
    let trace = corpus(&shared, "netbsd10-amd64");
    let by_f = dump(&trace, &[]);
    let positional = kt2sql().arg("dump").arg(&trace).assert().success();
    assert_eq!(
        String::from_utf8_lossy(&positional.get_output().stdout),
        by_f
    );
    // kdump's default: ktrace.out in the current directory.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&trace, dir.path().join("ktrace.out")).unwrap();
    let default = kt2sql()
        .arg("dump")
        .current_dir(dir.path())
        .assert()
        .success();
    assert_eq!(String::from_utf8_lossy(&default.get_output().stdout), by_f);
    let other = corpus(&shared, "freebsd14-amd64");
    kt2sql()
        .arg("dump")
        .arg(&trace)
        .arg("-f")
        .arg(&other)
        .assert()
        .failure();
}

/// On composed traces of every dialect: each label's count in the text
/// form equals ktcompose's truth, whole and under `-t`.
#[test]
fn composed_counts_match_truth() {
    for dialect in COMPOSE_DIALECTS {
        let c = compose(dialect, 4, &["--faithful"]);
        let truth = &c.truth["records"]["by_type"];
        let text = dump(&c.trace, &["-s"]);
        let mut got: BTreeMap<&str, u64> = BTreeMap::new();
        for (_, label) in record_lines(&text, 2) {
            *got.entry(label).or_default() += 1;
        }
        for (label, n) in truth.as_object().unwrap() {
            if label.starts_with("PROC") {
                continue;
            }
            assert_eq!(
                got.get(label.as_str()),
                Some(&n.as_u64().unwrap()),
                "{dialect} {label}"
            );
        }
        let calls = dump(&c.trace, &["-s", "-t", "c"]);
        let n = record_lines(&calls, 2).len() as u64;
        let want = truth["CALL"].as_u64().unwrap_or(0) + truth["RET"].as_u64().unwrap_or(0);
        assert_eq!(n, want, "{dialect} -t c");
        // Every open is translated with the system's constants.
        for l in text.lines().filter(|l| l.contains(" CALL  open(")) {
            assert!(l.contains("<O_"), "{dialect}: {l}");
        }
    }
}
