//! The build views (issue #15) against the truth's `build` section
//! (`build_visible` where records were lost): commands, every path's role
//! with its first and last writer, who read and who wrote it, the producer -> consumer flows and the
//! hazards, in every dialect, with and without `--faithful --hazards`;
//! and the `inputs`, `outputs`, `lint` (`--allow` too), `deps` and `graph`
//! reports built on them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::Value;

use super::{composed, kt2sql};
use kt2sql::build::deps::is_system;
use kt2sql::report;

/// command_id -> the truth's `"<pid>.<n>#<image>"`: n counts the lifetimes
/// of the pid in the trace (process ids are assigned in lifetime order).
fn command_ids(conn: &Connection) -> BTreeMap<i64, String> {
    let mut st = conn
        .prepare(
            "SELECT c.command_id, c.pid || '.' ||
                    (SELECT count(*) FROM process AS q
                     WHERE q.trace_id = c.trace_id AND q.pid = c.pid
                       AND q.process_id <= c.process_id) || '#' || c.image
             FROM command AS c",
        )
        .unwrap();
    let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

/// Rows of `sql` as strings, one line each, sorted.
fn lines(conn: &Connection, sql: &str, ids: &BTreeMap<i64, String>) -> BTreeSet<String> {
    let mut st = conn.prepare(sql).unwrap();
    let names: Vec<String> = st.column_names().iter().map(|s| s.to_string()).collect();
    let rows = st
        .query_map([], |r| {
            let mut out = Vec::new();
            for (i, name) in names.iter().enumerate() {
                let v: rusqlite::types::Value = r.get(i)?;
                let text = match v {
                    rusqlite::types::Value::Null => "null".to_string(),
                    rusqlite::types::Value::Integer(x) if name.ends_with("_id") => {
                        ids.get(&x).cloned().unwrap_or_else(|| format!("?{x}"))
                    }
                    rusqlite::types::Value::Integer(x) => x.to_string(),
                    rusqlite::types::Value::Text(s) => s,
                    other => format!("{other:?}"),
                };
                out.push(text);
            }
            Ok(out.join(" "))
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

pub(super) fn s(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn truth_lines(list: &Value, f: impl Fn(&Value) -> String) -> BTreeSet<String> {
    list.as_array().unwrap().iter().map(f).collect()
}

/// The lines that differ, for a readable failure.
pub(super) fn assert_same(got: &BTreeSet<String>, want: &BTreeSet<String>, what: &str) {
    if got != want {
        let extra: Vec<_> = got.difference(want).take(10).collect();
        let missing: Vec<_> = want.difference(got).take(10).collect();
        panic!("{what}: extra {extra:#?}\nmissing {missing:#?}");
    }
}

/// A copy of `db` as the truth's `build_visible` reads the file: its rule
/// takes a call's outcome from the RETs written, so an exec whose RET was
/// lost is unfinished there, where the model infers that it succeeded
/// (`exec-inferred`: success 1 without a RET). Those calls and their
/// lookups are set back to no outcome in the copy; [`check_inferred_execs`]
/// checks them against the real `build`.
pub(super) fn as_written(db: &Path, dir: &Path) -> PathBuf {
    let copy = dir.join("as-written.db");
    std::fs::copy(db, &copy).unwrap();
    let conn = Connection::open(&copy).unwrap();
    conn.execute_batch(
        "UPDATE namei SET success = NULL WHERE call_id IN
           (SELECT call_id FROM call WHERE ret_offset IS NULL AND success = 1);
         UPDATE call SET success = NULL WHERE ret_offset IS NULL AND success = 1;",
    )
    .unwrap();
    copy
}

/// The lookups of every exec whose RET was lost but which the model says
/// succeeded are read by its command, as the truth's real `build` has it
/// (the kernel ran the new image); the truth lists the lost RET.
fn check_inferred_execs(db: &Path, t: &Value, ctx: &str) {
    let conn = report::open(db).unwrap();
    let ids = command_ids(&conn);
    let got = lines(
        &conn,
        "SELECT f.path, f.command_id FROM build_file_command AS f
         JOIN build_access AS a ON a.command_id = f.command_id
         JOIN path AS p ON p.path_id = a.path_id AND p.path = f.path
         JOIN call AS c ON c.call_id = (SELECT call_id FROM namei WHERE namei_id = a.namei_id)
         WHERE f.effect = 'read' AND c.ret_offset IS NULL AND c.success = 1",
        &ids,
    );
    let lost_execs = t["dropped_records"].as_array().map_or(0, |d| {
        let execs = d
            .iter()
            .filter(|r| r["type"] == "RET" && r["syscall"] == "execve");
        execs.count()
    });
    assert_eq!(
        got.is_empty(),
        lost_execs == 0,
        "{ctx}: inferred execs {got:?}"
    );
    let mut want = BTreeSet::new();
    for f in t["build"]["files"].as_array().unwrap() {
        for r in f["readers"].as_array().unwrap() {
            want.insert(format!("{} {}", s(&f["path"]), s(r)));
        }
    }
    let missing: Vec<_> = got.difference(&want).collect();
    assert!(
        missing.is_empty(),
        "{ctx}: reads the real build lacks: {missing:?}"
    );
}

fn check_build(dialect: &str, seed: u64, extra: &[&str]) {
    let im = composed(dialect, seed, extra);
    let ctx = format!("{dialect} seed {seed} {extra:?}");
    let t = &im.c.truth;
    let b = t.get("build_visible").unwrap_or(&t["build"]);
    check_inferred_execs(&im.db, t, &ctx);
    let dir = tempfile::tempdir().unwrap();
    let db = as_written(&im.db, dir.path());
    let conn = report::open(&db).unwrap();
    let ids = command_ids(&conn);

    let got = lines(
        &conn,
        "SELECT command_id, comm, COALESCE(path, 'null'), start_ts, end_ts, cwd, parent_id
         FROM command",
        &ids,
    );
    let want = truth_lines(&b["commands"], |c| {
        let f = ["id", "comm", "path", "start_ns", "end_ns", "cwd", "parent"];
        f.iter().map(|k| s(&c[k])).collect::<Vec<_>>().join(" ")
    });
    assert_same(&got, &want, &format!("{ctx}: commands"));

    let got = lines(
        &conn,
        "SELECT path, role, first_writer_id, last_writer_id FROM build_file",
        &ids,
    );
    let want = truth_lines(&b["files"], |f| {
        let f = ["path", "role", "first_writer", "last_writer"].map(|k| s(&f[k]));
        f.join(" ")
    });
    assert_same(&got, &want, &format!("{ctx}: files"));

    // Who read and who wrote each path, in the order of their first read
    // or write.
    let mut by_path: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut st = conn
        .prepare("SELECT path, effect, command_id FROM build_file_command ORDER BY seq")
        .unwrap();
    let rows = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)?)))
        .unwrap();
    for row in rows {
        let (path, effect, id): (String, String, i64) = row.unwrap();
        by_path
            .entry((path, effect))
            .or_default()
            .push(ids[&id].clone());
    }
    let got: BTreeSet<String> = by_path
        .into_iter()
        .map(|((path, effect), cmds)| format!("{path} {effect} {}", cmds.join(" ")))
        .collect();
    let mut want = BTreeSet::new();
    for f in b["files"].as_array().unwrap() {
        for (key, effect) in [("readers", "read"), ("writers", "write")] {
            let cmds: Vec<String> = f[key].as_array().unwrap().iter().map(s).collect();
            if !cmds.is_empty() {
                want.insert(format!("{} {effect} {}", s(&f["path"]), cmds.join(" ")));
            }
        }
    }
    assert_same(&got, &want, &format!("{ctx}: readers and writers"));

    let got = lines(
        &conn,
        "SELECT path, producer_id, consumer_id, write_ts, read_ts FROM build_flow",
        &ids,
    );
    let want = truth_lines(&b["flows"], |f| {
        let f = ["path", "producer", "consumer", "write_ns", "read_ns"].map(|k| s(&f[k]));
        f.join(" ")
    });
    assert_same(&got, &want, &format!("{ctx}: flows"));
    // _scope_flow states the same rule per scope (`-p`): its whole build's
    // rows are build_flow's.
    let differ: i64 = conn
        .query_row(
            "WITH a AS (SELECT trace_id, path_id, producer_id, consumer_id, write_ts, read_ts
                        FROM _scope_flow WHERE root_pid IS NULL),
                  b AS (SELECT trace_id, path_id, producer_id, consumer_id, write_ts, read_ts
                        FROM build_flow)
             SELECT (SELECT count(*) FROM (SELECT * FROM a EXCEPT SELECT * FROM b))
                  + (SELECT count(*) FROM (SELECT * FROM b EXCEPT SELECT * FROM a))
                  + abs((SELECT count(*) FROM a) - (SELECT count(*) FROM b))",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(differ, 0, "{ctx}: _scope_flow's whole build is build_flow");

    // Hazards: kind, path, commands, and the times that show each.
    let mut st = conn
        .prepare(
            "SELECT kind, path, commands, ts, other_ts, COALESCE(syscall, 'null')
             FROM build_hazard",
        )
        .unwrap();
    let got: BTreeSet<String> = st
        .query_map([], |r| {
            let commands: String = r.get(2)?;
            let commands: Vec<i64> = serde_json::from_str(&commands).unwrap();
            let named: Vec<&str> = commands.iter().map(|c| ids[c].as_str()).collect();
            let kind: String = r.get(0)?;
            let times = if kind == "double-write" {
                String::new()
            } else {
                format!(" {} {} {}", r.get::<_, i64>(3)?, r.get::<_, i64>(4)?, {
                    r.get::<_, String>(5)?
                })
            };
            Ok(format!(
                "{kind} {} {}{times}",
                r.get::<_, String>(1)?,
                named.join(",")
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let want = truth_lines(&b["hazards"], |h| {
        let kind = s(&h["kind"]);
        let commands: Vec<String> = h["commands"].as_array().unwrap().iter().map(s).collect();
        let d = &h["detail"];
        let times = match kind.as_str() {
            "double-write" => String::new(),
            "ghost-later-created" => format!(
                " {} {} {}",
                d["lookup_ns"],
                d["create_ns"],
                s(&d["syscall"])
            ),
            _ => format!(" {} {} null", d["read_ns"], d["write_ns"]),
        };
        format!("{kind} {} {}{times}", s(&h["path"]), commands.join(","))
    });
    assert_same(&got, &want, &format!("{ctx}: hazards"));
    // The reports, through the binary's CSV: inputs are the sources,
    // outputs what is left behind, lint the hazards by kind and path.
    let report = |args: &[&str]| -> Vec<Vec<String>> {
        let out = kt2sql()
            .args(args)
            .arg(&db)
            .args(["--format", "csv"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{ctx}: kt2sql {args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let rows = text
            .lines()
            .map(|l| l.split(',').map(String::from).collect());
        rows.collect()
    };
    let by_role = |roles: &[&str]| -> BTreeSet<String> {
        let files = b["files"].as_array().unwrap().iter();
        let files = files.filter(|f| roles.contains(&f["role"].as_str().unwrap()));
        files.map(|f| s(&f["path"])).collect()
    };
    // Never a directory (a path looked up below it), a device or a file
    // of /proc; system files only with --system.
    let looked: Vec<String> = b["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| s(&f["path"]))
        .collect();
    let start = s(&t["start_cwd"]);
    let starts: [&[u8]; 1] = [start.as_bytes()];
    let sources = |system: bool| -> BTreeSet<String> {
        let mut want = by_role(&["source"]);
        want.retain(|p| {
            !looked.iter().any(|q| q.starts_with(&format!("{p}/")))
                && !is_pseudo(p)
                && (system || !is_system(p.as_bytes(), &starts))
        });
        want
    };
    let inputs = report(&["inputs"]);
    assert_eq!(inputs[0][0], "path", "{ctx}: inputs header");
    let got: BTreeSet<String> = inputs[1..].iter().map(|r| r[0].clone()).collect();
    assert_same(&got, &sources(false), &format!("{ctx}: inputs"));
    let all = report(&["inputs", "--system"]);
    let got: BTreeSet<String> = all[1..].iter().map(|r| r[0].clone()).collect();
    assert_same(&got, &sources(true), &format!("{ctx}: inputs --system"));
    let outputs = report(&["outputs"]);
    assert_eq!(outputs[0][0], "path", "{ctx}: outputs header");
    let got: BTreeSet<String> = outputs[1..].iter().map(|r| r[0].clone()).collect();
    // Files only: no device, and no directory: one the truth looked up
    // paths below, or one a mkdir(2) made (`mkdir -p stage/bin`, in a
    // trace cut before anything went in it).
    let mut want = by_role(&["output", "intermediate"]);
    // The paths a mkdir(2) named, from the truth's lookups by syscall.
    let made_dirs: BTreeSet<String> = t["files"]["n_a_v"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, uses)| uses.as_array().unwrap().iter().any(|u| u[0] == "mkdir"))
        .map(|(p, _)| p.clone())
        .collect();
    let dirs: BTreeSet<String> = want
        .iter()
        .filter(|p| {
            made_dirs.contains(*p) || looked.iter().any(|q| q.starts_with(&format!("{p}/")))
        })
        .cloned()
        .collect();
    want.retain(|p| !is_pseudo(p) && !dirs.contains(p));
    assert_same(&got, &want, &format!("{ctx}: outputs"));
    super::lint::check_lint(&db, t, &ids, &ctx);
    let cwd = s(&t["start_cwd"]);
    super::deps::check_deps(&db, b, &made_dirs, &cwd, &ctx);
    super::graph::check_graph(&db, b, &ids, &cwd, &ctx);
    super::lint_allow::check_read_outside(&db, b, &cwd, &ctx);
    if extra.contains(&"--hazards") {
        let planted: BTreeSet<String> = truth_lines(&b["planted"], |p| {
            format!("{} {}", s(&p["kind"]), s(&p["path"]))
        });
        let found: BTreeSet<String> = lines(&conn, "SELECT kind, path FROM build_hazard", &ids);
        assert!(planted.is_subset(&found), "{ctx}: planted hazards");
        assert_eq!(planted.len(), 4, "{ctx}: planted");
        // lint's default rules (temporaries, devices, makefiles left out,
        // a script's successive commands exempted) keep every one.
        let (_, rows, _) = super::lint::lint_json(&db, &[]);
        let shown: BTreeSet<String> = rows
            .iter()
            .map(|r| format!("{} {}", s(&r["kind"]), s(&r["path"])))
            .collect();
        let hidden: Vec<&String> = planted.difference(&shown).collect();
        assert!(hidden.is_empty(), "{ctx}: lint hides planted {hidden:?}");
    }
}

/// A device or a file of /proc: never an input, `/dev/null` never an
/// output.
pub(super) fn is_pseudo(p: &str) -> bool {
    ["/dev", "/proc", "/sys"]
        .iter()
        .any(|d| p == *d || p.starts_with(&format!("{d}/")))
}

/// A plain build of every dialect, committed.
#[test]
fn build_views_match_truth_in_every_dialect() {
    for d in crate::util::COMPOSE_DIALECTS {
        crate::util::fixtures::committed(d, 2, &[]);
        check_build(d, 2, &[]);
    }
}

/// The same on the committed fixtures, which need no `../shared`: a
/// `--faithful` trace of every dialect, with and without `--hazards`.
#[test]
fn build_views_match_truth_on_the_committed_fixtures() {
    for f in crate::util::fixtures::faithful() {
        check_build(&f.dialect, f.seed, &f.args());
    }
}

/// A busy deep build (more concurrent jobs: races), cut traces
/// (unfinished lookups) and a `-t cn` trace, committed.
#[test]
fn build_views_match_truth_on_busy_and_cut_traces() {
    let deep_busy = [
        "--processes",
        "40",
        "--depth",
        "7",
        "--jobs",
        "8",
        "--hazards",
    ];
    for (d, seed, extra) in [
        ("openbsd-amd64", 21, &deep_busy[..]),
        ("netbsd-v2-amd64", 5, &["--hazards", "--truncate", "last"]),
        ("freebsd-v0-i386", 6, &["--truncate", "150000"]),
        ("openbsd-amd64", 4, &["--faithful", "--trpoints", "cn"]),
    ] {
        crate::util::fixtures::committed(d, seed, extra);
        check_build(d, seed, extra);
    }
}

/// Busy builds in more dialects.
#[test]
fn build_views_match_truth_on_busier_traces() {
    crate::require_shared!(python);
    let busy = ["--jobs", "8", "--processes", "40", "--hazards"];
    for d in ["freebsd-v1-amd64", "openbsd-amd64", "darwin-ppc"] {
        check_build(d, 11, &busy);
    }
}

/// Traces of many repeated blocks (`--target-bytes`): every block's root
/// is a process with no parent in the file and starts in the start
/// directory (the truth's R6), so the build's counts (commands, files by
/// role, flows, hazards by kind) equal the truth's counts mode.
#[test]
fn build_counts_match_truth_over_repeated_blocks() {
    for (d, extra) in [
        ("netbsd-v0-i386", &["--target-bytes", "1200000"][..]),
        (
            "darwin-ppc",
            &["--target-bytes", "1200000", "--faithful", "--hazards"],
        ),
    ] {
        crate::util::fixtures::committed(d, 3, extra);
        check_counts(d, extra);
    }
}

/// The same over longer traces of every dialect.
#[test]
fn build_counts_match_truth_over_more_repeated_blocks() {
    crate::require_shared!(python);
    for d in crate::util::COMPOSE_DIALECTS {
        for extra in [
            &["--target-bytes", "3000000"][..],
            &["--target-bytes", "3000000", "--faithful", "--hazards"],
        ] {
            check_counts(d, extra);
        }
    }
}

/// The build's counts of the repeated-block trace `extra` (seed 3) are
/// the truth's counts mode.
fn check_counts(d: &str, extra: &[&str]) {
    let im = composed(d, 3, extra);
    let ctx = format!("{d} {extra:?}");
    let t = &im.c.truth;
    let want = &t.get("build_visible").unwrap_or(&t["build"])["counts"];
    assert!(
        t["block"].is_object() || t["params"].is_object(),
        "{ctx}: a truth"
    );
    assert!(
        t["block"]["count"].as_i64().is_some_and(|n| n >= 2),
        "{ctx}: repeated blocks"
    );
    let dir = tempfile::tempdir().unwrap();
    let conn = report::open(&as_written(&im.db, dir.path())).unwrap();
    let one = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(
        one("SELECT count(*) FROM command"),
        want["commands"].as_i64().unwrap(),
        "{ctx}: commands"
    );
    assert_eq!(
        one("SELECT count(*) FROM build_file"),
        want["files"].as_i64().unwrap(),
        "{ctx}: files"
    );
    assert_eq!(
        one("SELECT count(*) FROM build_flow"),
        want["flows"].as_i64().unwrap(),
        "{ctx}: flows"
    );
    assert!(
        want["flows"].as_i64().unwrap() > 0,
        "{ctx}: the blocks have flows"
    );
    for (role, n) in want["roles"].as_object().unwrap() {
        let got = one(&format!(
            "SELECT count(*) FROM build_file WHERE role = '{role}'"
        ));
        assert_eq!(got, n.as_i64().unwrap(), "{ctx}: {role} files");
    }
    for (kind, n) in want["hazards"].as_object().unwrap() {
        let got = one(&format!(
            "SELECT count(*) FROM build_hazard WHERE kind = '{kind}'"
        ));
        assert_eq!(got, n.as_i64().unwrap(), "{ctx}: {kind} hazards");
    }
}
