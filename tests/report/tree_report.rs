//! `kt2sql tree` beyond the golden files: on a big build `-v` streams its
//! calls, never holding them (peak memory barely above the tree's own,
//! whatever the output size, in every format), a reader that stops early
//! stops it, and its rows are exactly those of `query tree_calls` (its
//! calls, read without their paths, those of `query tree_call_rows`); the
//! calls' arguments read as `kt2sql dump` prints them; `-p` of a reused
//! pid says which lifetime each process is; twenty times the processes
//! leave `tree`'s peak memory where it was.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

use super::{import_into, kt2sql};
use crate::util::example_trace::{sys, Script};
use crate::util::peak::{self, Measured};
use crate::util::records::sleepers;
use crate::util::writer::TraceWriter;
use crate::util::{corpus, manifest_dir, CORPUS};

/// Run `kt2sql ARGS`, its output counted and dropped: (peak KiB, bytes).
fn peak_and_size(args: &[&str], db: &Path) -> (u64, u64) {
    let (mut cmd, peak) = Measured::command(assert_cmd::cargo::cargo_bin("kt2sql"));
    let mut child = cmd
        .args(args)
        .arg(db)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let size = std::io::copy(&mut out, &mut std::io::sink()).unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{args:?}: {status}");
    (peak.kib(), size)
}

#[test]
fn tree_v_streams_its_calls_in_flat_memory() {
    if !peak::usable() {
        return;
    }
    let shared = crate::require_shared!();
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.ktrace");
    let out = Std::new("python3")
        .arg(shared.join("tools/ktcompose.py"))
        .args([
            "--dialect",
            "openbsd-amd64",
            "--seed",
            "3",
            "--processes",
            "80",
        ])
        .args([
            "--jobs",
            "6",
            "--faithful",
            "--hazards",
            "--trpoints",
            "cnx",
        ])
        .args(["--target-bytes", "24M", "-q", "-o"])
        .arg(&big)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let db = import_into(dir.path(), "big.db", &[big], Some("/usr/src/build"));
    let (plain, _) = peak_and_size(&["tree"], &db);
    let (_, text) = peak_and_size(&["tree", "-v"], &db);
    assert!(text > 8_000_000, "tree -v wrote only {text} bytes");
    for format in ["text", "csv", "json"] {
        let (peak, size) = peak_and_size(&["tree", "-v", "--format", format], &db);
        // Holding the calls cost 12 bytes of memory per byte of text (100
        // MB here); streaming them costs SQLite's sorter and page cache.
        let extra = peak.saturating_sub(plain) * 1024;
        assert!(
            extra < text,
            "tree -v --format {format}: {extra} bytes above `tree`'s {plain} KiB for {size} bytes of output"
        );
    }
    // A reader that has seen enough ends it, quietly.
    let t0 = Instant::now();
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("kt2sql"))
        .args(["tree", "-v"])
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let head: Vec<String> = (&mut lines).take(5).map(Result::unwrap).collect();
    drop(lines);
    let st = child.wait_with_output().unwrap();
    assert!(st.status.success(), "{:?}", st);
    assert!(
        st.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    assert_eq!(head[..2], ["Process tree:", " <process_root> [0]"]);
    assert!(head[4].starts_with("         "), "a call line: {head:?}");
    assert!(t0.elapsed() < Duration::from_secs(120));
}

/// [`sleepers`]`(n)`, imported.
fn sleepers_db(dir: &Path, n: i64) -> std::path::PathBuf {
    let abi = "freebsd-v1:le:64".parse().unwrap();
    let trace = dir.join(format!("sleepers-{n}.ktrace"));
    std::fs::write(&trace, TraceWriter::new(abi).records(&sleepers(n)).bytes()).unwrap();
    import_into(dir, &format!("sleepers-{n}.db"), &[trace], None)
}

/// `tree` holds nothing per image in any format: twenty times the
/// processes leave its peak memory where it was (holding the images cost
/// about 600 bytes each, 23 MB more here), as SQLite's page cache, capped,
/// fills.
#[test]
fn tree_memory_does_not_grow_with_the_images() {
    if !peak::usable() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (small, big) = (
        sleepers_db(dir.path(), 2_000),
        sleepers_db(dir.path(), 40_000),
    );
    for args in [
        &["tree"][..],
        &["tree", "--long"],
        &["tree", "-v", "--format", "json"],
        &["tree", "--format", "csv"],
        &["tree", "--format", "dot"],
    ] {
        let (a, size_a) = peak_and_size(args, &small);
        let (b, size_b) = peak_and_size(args, &big);
        eprintln!("{args:?}: peak {a} KiB with 2 000 processes, {b} KiB with 40 000");
        assert!(
            size_b > 15 * size_a,
            "{args:?}: {size_a} then {size_b} bytes"
        );
        assert!(
            b < a + 10 * 1024,
            "{args:?}: peak {a} KiB with 2 000 processes, {b} KiB with 40 000"
        );
    }
}

/// The records of an RFC 4180 CSV text.
fn csv_records(text: &str) -> Vec<Vec<String>> {
    let (mut recs, mut rec, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') | (false, '"') => quoted = !quoted,
            (false, ',') => rec.push(std::mem::take(&mut field)),
            (false, '\n') => {
                rec.push(std::mem::take(&mut field));
                recs.push(std::mem::take(&mut rec));
            }
            (_, c) => field.push(c),
        }
    }
    recs
}

/// `tree -v --format csv` holds every image (`section` image: the rows of
/// `query tree`) and, after each, its calls (`section` call: the rows of
/// `query tree_calls`), in one table.
#[test]
fn tree_v_csv_is_query_tree_and_tree_calls() {
    let dir = tempfile::tempdir().unwrap();
    let trace = manifest_dir().join("example/build.ktrace");
    let db = import_into(dir.path(), "ex.db", &[trace], Some("/usr/src/proj"));
    let scopes: [&[(&str, &str)]; 3] = [&[], &[("pid", "2313")], &[("trace", "1")]];
    for scope in scopes {
        assert_csv_is_queries(&db, scope);
    }
}

/// `tree -v --format csv` in `scope` against `query tree` and `query
/// tree_calls` with the same parameters.
fn assert_csv_is_queries(db: &Path, scope: &[(&str, &str)]) {
    let flags: Vec<String> = scope
        .iter()
        .flat_map(|(k, v)| [format!("--{k}"), v.to_string()])
        .collect();
    let tree = kt2sql()
        .args(["tree", "-v", "--format", "csv"])
        .arg(db)
        .args(flags.iter().map(|f| f.replace("--pid", "-p")))
        .output()
        .unwrap();
    assert!(tree.status.success(), "{scope:?}");
    assert!(tree.stdout.len() > 200, "{scope:?}");
    let got = csv_records(&String::from_utf8_lossy(&tree.stdout));
    let head = &got[0];
    assert_eq!(head[0], "section", "{head:?}");
    for (name, section) in [("tree_calls", "call"), ("tree", "image")] {
        let mut query = kt2sql();
        query.arg("query").arg(db).args([name, "--format", "csv"]);
        for (k, v) in scope {
            query.args(["--param", &format!("{k}={v}")]);
        }
        let query = query.output().unwrap();
        assert!(query.status.success(), "{scope:?}");
        let mut want = csv_records(&String::from_utf8_lossy(&query.stdout));
        // The columns `tree --long` fills are NULL without it, and not in
        // the report's csv.
        let shown: Vec<usize> = (0..want[0].len())
            .filter(|&i| {
                let here = head.contains(&want[0][i]);
                assert!(
                    here || want[1..].iter().all(|r| r[i].is_empty()),
                    "{scope:?} {name}: {} is filled but not shown",
                    want[0][i]
                );
                here
            })
            .collect();
        for r in &mut want {
            *r = shown.iter().map(|&i| r[i].clone()).collect();
        }
        let at: Vec<usize> = want[0]
            .iter()
            .map(|c| head.iter().position(|h| h == c).unwrap())
            .collect();
        let rows: Vec<Vec<String>> = got[1..]
            .iter()
            .filter(|r| r[0] == section)
            .map(|r| at.iter().map(|&i| r[i].clone()).collect())
            .collect();
        assert_eq!(rows, want[1..], "{scope:?} {name}");
    }
    // What tree -v reads: the calls of tree_calls, one row per call
    // (a call's first row), without its pid and paths.
    let query = |name: &str| {
        let mut query = kt2sql();
        query.arg("query").arg(db).args([name, "--format", "csv"]);
        for (k, v) in scope {
            query.args(["--param", &format!("{k}={v}")]);
        }
        let out = query.output().unwrap();
        assert!(out.status.success(), "{scope:?} {name}");
        csv_records(&String::from_utf8_lossy(&out.stdout))
    };
    let (rows, calls) = (query("tree_call_rows"), query("tree_calls"));
    let at: Vec<usize> = rows[0]
        .iter()
        .map(|c| calls[0].iter().position(|h| h == c).unwrap())
        .collect();
    let call_id = calls[0].iter().position(|h| h == "call_id").unwrap();
    let mut want = vec![rows[0].clone()];
    for (k, r) in calls.iter().enumerate().skip(1) {
        if k == 1 || calls[k - 1][call_id] != r[call_id] {
            want.push(at.iter().map(|&i| r[i].clone()).collect());
        }
    }
    assert!(want.len() > 3, "{scope:?}");
    assert_eq!(rows, want, "{scope:?} tree_call_rows");
    // Each call follows its image.
    let exec = head.iter().position(|h| h == "exec_id").unwrap();
    let mut image = String::new();
    for r in &got[1..] {
        match r[0].as_str() {
            "image" => image = r[exec].clone(),
            _ => assert_eq!(r[exec], image, "{scope:?}: {r:?}"),
        }
    }
}

/// Two threads of one process open a file each, the second call ending
/// first: its lookup is numbered before the first call's (lookups are
/// numbered as their call ends). `tree -v`, which reads a process's
/// lookups in that order, still gives each call its own path, as the
/// per-call rows of `query tree_calls` do.
#[test]
fn tree_v_gives_each_call_its_paths_when_threads_end_out_of_order() {
    const LD: i64 = 800;
    let mut s = Script::default();
    s.ctor(LD, "ld");
    s.call(LD, "ld", sys::OPEN, &[0x1000, 0]);
    s.call(LD, "ld", sys::OPEN, &[0x2000, 0]);
    s.nami(LD, "ld", "/b/two");
    s.nami(LD, "ld", "/a/one");
    s.ret(LD, "ld", sys::OPEN, 0, 4);
    s.ret(LD, "ld", sys::OPEN, 0, 3);
    s.path_call(LD, "ld", sys::OPEN, &[0x3000, 0], "/c/three", Ok(5));
    s.exit(LD, "ld", 0);
    let mut recs = s.records();
    // The second open, its lookup and its return are another thread's.
    for i in [2, 3, 5] {
        recs[i].tid = Some(200_000);
    }
    let abi = "freebsd-v1:le:64".parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("threads.ktrace");
    std::fs::write(&trace, TraceWriter::new(abi).records(recs.iter()).bytes()).unwrap();
    let db = import_into(dir.path(), "threads.db", &[trace], Some("/"));
    let order = kt2sql()
        .arg("sql")
        .arg(&db)
        .arg("SELECT group_concat(call_id, ' ') FROM (SELECT call_id FROM namei ORDER BY namei_id)")
        .output()
        .unwrap();
    let order = String::from_utf8_lossy(&order.stdout);
    let ids: Vec<i64> = order
        .lines()
        .last()
        .unwrap()
        .split(' ')
        .map(|n| n.trim().parse().unwrap())
        .collect();
    assert!(
        ids.len() == 3 && ids[0] > ids[1] && ids[1] < ids[2],
        "lookups out of call order: {ids:?}"
    );
    assert_csv_is_queries(&db, &[]);
    let text = kt2sql().args(["tree", "-v"]).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    let opens: Vec<&str> = text.lines().filter(|l| l.contains("open(")).collect();
    assert_eq!(opens.len(), 3, "{text}");
    for (line, path) in opens.iter().zip(["/a/one", "/b/two", "/c/three"]) {
        assert!(line.contains(&format!(") \"{path}\" = ")), "{line}");
    }
}

/// A pid the kernel reused: `tree -p` shows every process that had it,
/// each image saying which lifetime it is, in `pid_lifetimes` order, in
/// text, JSON (`lifetime`, `lifetimes`) and CSV (the same columns) alike.
#[test]
fn tree_p_of_a_reused_pid_says_which_lifetime_each_is() {
    // The committed --faithful build reuses pids: one that had two
    // lifetimes and one that had a single one, as its truth says.
    let c = crate::util::compose("freebsd-v1-amd64", 4, &["--faithful"]);
    crate::util::fixtures::committed("freebsd-v1-amd64", 4, &["--faithful"]);
    let mut lifetimes = std::collections::BTreeMap::<i64, usize>::new();
    for p in c.truth["processes"].as_array().unwrap() {
        *lifetimes.entry(p["pid"].as_i64().unwrap()).or_default() += 1;
    }
    let twice = lifetimes
        .iter()
        .find(|(_, n)| **n == 2)
        .expect("a reused pid");
    let once = lifetimes
        .iter()
        .find(|(_, n)| **n == 1)
        .expect("a pid used once");
    let dir = tempfile::tempdir().unwrap();
    let db = import_into(
        dir.path(),
        "reuse.db",
        std::slice::from_ref(&c.trace),
        Some(c.truth["start_cwd"].as_str().unwrap()),
    );
    check_reused_pid(&db, *twice.0, *once.0);
}

/// The same on a bigger build that wraps its pids at 140, where pid 137
/// is reused once.
#[test]
fn tree_p_of_a_reused_pid_in_a_build_wrapping_its_pids() {
    let shared = crate::require_shared!();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("reuse.ktrace");
    let out = Std::new("python3")
        .arg(shared.join("tools/ktcompose.py"))
        .args([
            "--dialect",
            "freebsd-v1-amd64",
            "--seed",
            "3",
            "--processes",
            "30",
            "--faithful",
        ])
        .args(["--pid-max", "140", "-q", "-o"])
        .arg(&trace)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let db = import_into(dir.path(), "reuse.db", &[trace], Some("/usr/src/build"));
    check_reused_pid(&db, 137, 101);
}

/// `pid` had two lifetimes in `db` and `once` one.
fn check_reused_pid(db: &Path, pid: i64, once: i64) {
    let (pid_arg, once_arg, tag) = (pid.to_string(), once.to_string(), format!(" [{pid}]"));
    let lives = kt2sql()
        .arg("query")
        .arg(db)
        .args([
            "pid_lifetimes",
            "--param",
            &format!("pid={pid}"),
            "--format",
            "csv",
        ])
        .output()
        .unwrap();
    let lives: Vec<String> = String::from_utf8(lives.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    assert_eq!(lives.len(), 2, "pid {pid} is reused once");
    let text = kt2sql()
        .args(["tree", "-p", &pid_arg])
        .arg(db)
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    // Every line of the pid is marked, the first lifetime's before the second's.
    let marks: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(&tag))
        .map(|l| l.split(&tag).nth(1).unwrap())
        .collect();
    assert!(marks.len() >= 2, "{text}");
    let first = marks
        .iter()
        .position(|m| *m == " (lifetime 2 of 2)")
        .unwrap();
    assert!(first > 0, "{text}");
    assert!(
        marks[..first].iter().all(|m| *m == " (lifetime 1 of 2)"),
        "{text}"
    );
    assert!(
        marks[first..].iter().all(|m| *m == " (lifetime 2 of 2)"),
        "{text}"
    );
    // And they are the processes pid_lifetimes lists, in its order.
    let json = kt2sql()
        .args(["tree", "-p", &pid_arg, "--format", "json"])
        .arg(db)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let roots: Vec<String> = json
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["pid"] == pid && n["image"] == 0)
        .map(|n| n["process_id"].to_string())
        .collect();
    assert_eq!(roots, lives);
    // Every image of the pid in JSON carries the marker its text line has.
    fn nodes<'v>(n: &'v serde_json::Value, all: &mut Vec<&'v serde_json::Value>) {
        all.push(n);
        for c in n["children"].as_array().unwrap() {
            nodes(c, all);
        }
    }
    let mut all = Vec::new();
    for r in json.as_array().unwrap() {
        nodes(r, &mut all);
    }
    let json_marks: Vec<String> = all
        .iter()
        .filter(|n| n["pid"] == pid)
        .map(|n| format!(" (lifetime {} of {})", n["lifetime"], n["lifetimes"]))
        .collect();
    assert_eq!(json_marks, marks, "json");
    for n in all.iter().filter(|n| n["pid"] != pid) {
        assert!(n.get("lifetime").is_none(), "{n}");
    }
    // CSV: the same, in columns lifetime and lifetimes.
    let csv = kt2sql()
        .args(["tree", "-p", &pid_arg, "--format", "csv"])
        .arg(db)
        .output()
        .unwrap();
    let csv = csv_records(&String::from_utf8(csv.stdout).unwrap());
    let col = |name: &str| csv[0].iter().position(|h| h == name).unwrap();
    let (p, k, n) = (col("pid"), col("lifetime"), col("lifetimes"));
    let csv_marks: Vec<String> = csv[1..]
        .iter()
        .filter(|r| r[p] == pid_arg)
        .map(|r| format!(" (lifetime {} of {})", r[k], r[n]))
        .collect();
    assert_eq!(csv_marks, marks, "csv");
    assert!(
        csv[1..]
            .iter()
            .filter(|r| r[p] != pid_arg)
            .all(|r| r[k].is_empty() && r[n].is_empty()),
        "csv"
    );
    // Without -p, or for a pid used once, no marker.
    for args in [&["tree"][..], &["tree", "-p", &once_arg][..]] {
        let out = kt2sql().args(args).arg(db).output().unwrap();
        let out = String::from_utf8(out.stdout).unwrap();
        assert!(!out.contains("lifetime"), "{args:?}: {out}");
    }
}

/// `name(args)` of each call line of `tree -v` whose call had arguments.
fn tree_calls(db: &Path) -> Vec<String> {
    let out = kt2sql().args(["tree", "-v"]).arg(db).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut calls = Vec::new();
    for line in text.lines().map(str::trim_start) {
        // A call line is `name(args)` then ` "path"`, ` = ` or the end;
        // its arguments may hold parentheses (`MAP_ALIGNED(21)`).
        let Some(open) = line.find('(').filter(|&i| !line[..i].contains(' ')) else {
            continue;
        };
        let (mut depth, mut end) = (0, None);
        for (i, ch) in line.char_indices().skip(open) {
            match ch {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = Some(i);
                break;
            }
        }
        let end = end.unwrap_or_else(|| panic!("unbalanced: {line}"));
        if end > open + 1 {
            calls.push(line[..=end].to_string());
        }
    }
    calls
}

/// Every call line of `tree -v` shows its arguments exactly as the
/// CALL record's line of `kt2sql dump` does, named constants and all: one
/// decoder of arguments for both.
#[test]
fn tree_v_arguments_read_as_dump_prints_them() {
    let shared = crate::require_shared!();
    let dir = tempfile::tempdir().unwrap();
    let mut traces = vec![manifest_dir().join("example/build.ktrace")];
    traces.extend(CORPUS.iter().map(|(name, _, _)| corpus(&shared, name)));
    for (i, trace) in traces.iter().enumerate() {
        let db = import_into(
            dir.path(),
            &format!("{i}.db"),
            std::slice::from_ref(trace),
            None,
        );
        let dump = kt2sql().arg("dump").arg(trace).output().unwrap();
        let dump = String::from_utf8_lossy(&dump.stdout).into_owned();
        let dumped: std::collections::HashSet<&str> = dump
            .lines()
            .filter_map(|l| l.split_once(" CALL  ").map(|(_, c)| c))
            .collect();
        let calls = tree_calls(&db);
        assert!(calls.len() > 20, "{}", trace.display());
        let named = calls.iter().filter(|c| c.contains('<')).count();
        assert!(named > 0, "{}: no argument translated", trace.display());
        for c in &calls {
            assert!(
                dumped.contains(c.as_str()),
                "{}: tree -v shows {c}, which dump does not",
                trace.display()
            );
        }
    }
}
