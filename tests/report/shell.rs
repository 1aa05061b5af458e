//! Every `queries/*.sql` runs unchanged under the real `sqlite3` shell
//! (`.param set`, `.read`) and gives the rows of the matching `kt2sql`
//! command; every query file is registered and documents itself.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use super::{import_into, kt2sql};
use crate::util::{corpus, manifest_dir, CORPUS};
use kt2sql::report;
use kt2sql::text::vis;

/// Whether the sqlite3 shell is installed (.ci/run installs it).
fn have_sqlite3() -> bool {
    Command::new("sqlite3")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Parse CSV (RFC 4180, `\n` or `\r\n`) into rows of byte fields.
fn parse_csv(b: &[u8]) -> Vec<Vec<Vec<u8>>> {
    let (mut rows, mut row, mut field) = (Vec::new(), Vec::new(), Vec::new());
    let (mut i, mut quoted) = (0, false);
    while i < b.len() {
        let c = b[i];
        match (quoted, c) {
            (true, b'"') if b.get(i + 1) == Some(&b'"') => {
                field.push(b'"');
                i += 1;
            }
            (true, b'"') => quoted = false,
            (true, c) => field.push(c),
            (false, b'"') => quoted = true,
            (false, b',') => row.push(std::mem::take(&mut field)),
            (false, b'\r') => {}
            (false, b'\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
        i += 1;
    }
    rows
}

/// `sqlite3 DB` with `.param set` lines, `.mode csv` and `.read FILE`;
/// fields escaped the way kt2sql escapes them.
fn shell(db: &Path, file: &str, params: &[(&str, String)]) -> Vec<Vec<String>> {
    let mut script = String::from(".headers on\n.mode csv\n");
    for (k, v) in params {
        script.push_str(&format!(".param set ${k} {v}\n"));
    }
    let path = manifest_dir().join("queries").join(file);
    script.push_str(&format!(".read '{}'\n", path.display()));
    let mut child = Command::new("sqlite3")
        .arg(db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && err.is_empty(),
        "sqlite3 {file}: {err}"
    );
    let rows = parse_csv(&o.stdout).into_iter();
    rows.map(|r| r.iter().map(|f| vis(f).into_owned()).collect())
        .collect()
}

/// `kt2sql ARGS --format csv`, parsed.
fn command(db: &Path, args: &[String]) -> Vec<Vec<String>> {
    let o = kt2sql()
        .args(&args[..1])
        .arg(db)
        .args(&args[1..])
        .args(["--format", "csv"])
        .output()
        .unwrap();
    // lint exits 1 when it lists a hazard.
    let listed = parse_csv(&o.stdout).len() > 1;
    let code = i32::from(args[0] == "lint" && listed);
    assert_eq!(o.status.code(), Some(code), "kt2sql {args:?}: {o:?}");
    let rows = parse_csv(&o.stdout).into_iter();
    rows.map(|r| {
        r.into_iter()
            .map(|f| String::from_utf8(f).unwrap())
            .collect()
    })
    .collect()
}

/// kt2sql's rows equal the shell's; the shell prints no header line when
/// there are no rows.
fn same(got: Vec<Vec<String>>, want: Vec<Vec<String>>, what: &str) {
    if want.is_empty() {
        assert_eq!(got.len(), 1, "{what}: only a header line expected");
    } else {
        assert_eq!(got, want, "{what}");
    }
}

/// A sample value for each parameter name the queries use.
fn sample(name: &str, pid: i64) -> String {
    match name {
        "pid" => pid.to_string(),
        "trace" | "all" => "1".into(),
        "limit" => "3".into(),
        "paths" => "0".into(),
        "min_dur" => "20000".into(),
        "syscall" => "'open'".into(),
        "under" => "'/usr/src/proj'".into(),
        "files" => "'[\"/usr/src/proj/obj/prog\"]'".into(),
        "allow" => "'[\"/usr/src\", \"/lib\"]'".into(),
        "commands" | "sources" | "reverse" | "brief" | "long" => "1".into(),
        "temporaries" | "devices" | "makefiles" => "1".into(),
        "map" => "'[[\"/usr/src/proj/obj\", \"/home/b/obj\"]]'".into(),
        "makes" => "'[\"/usr/bin/make\"]'".into(),
        "compilers" => "'[\"/usr/bin/cc\"]'".into(),
        "path" => "'/usr/src/proj/obj/main.o'".into(),
        "exclude" => "'[\"/usr/src/proj/obj\"]'".into(),
        "system" => "'[\"/usr\", \"/lib\"]'".into(),
        "kinds" => "'[\"race\", \"read-outside\"]'".into(),
        "sort" => "'pid'".into(),
        other => panic!("no sample value for :{other}; add one here"),
    }
}

/// A report command, the query file it runs, and the matching parameters.
type Case<'a> = (&'a [&'a str], &'a str, &'a [(&'a str, &'a str)]);

/// Each query with no parameters (but those it requires), each parameter
/// alone and all together, in the shell and through `kt2sql query`; and
/// each report command's csv
/// against the query file it runs.
fn compare_all(db: &Path, pid: i64) {
    for q in report::queries() {
        let used = q.used_params();
        let mut sets: Vec<Vec<&str>> = vec![vec![]];
        sets.extend(used.iter().map(|p| vec![p.as_str()]));
        sets.push(used.iter().map(String::as_str).collect());
        // A required parameter is in every set: `query` refuses to run
        // without it.
        for set in &mut sets {
            for (k, _) in q.required() {
                if !set.contains(&k.as_str()) {
                    set.push(k);
                }
            }
        }
        for set in sets {
            let params: Vec<(&str, String)> = set.iter().map(|p| (*p, sample(p, pid))).collect();
            let mut args = vec!["query".to_string(), q.name.replace('_', "-")];
            for (k, v) in &params {
                args.extend(["--param".into(), format!("{k}={}", v.trim_matches('\''))]);
            }
            let (got, want) = (command(db, &args), shell(db, q.file, &params));
            same(got, want, &format!("{} {params:?}", q.file));
        }
    }
    let p = pid.to_string();
    let cases: &[Case] = &[
        (&["tree", "--long"], "tree.sql", &[("long", "1")]),
        (
            &["tree", "-l", "-p", &p],
            "tree.sql",
            &[("pid", &p), ("long", "1")],
        ),
        (
            &["tree", "-v", "--trace", "1"],
            "tree_calls.sql",
            &[("trace", "1")],
        ),
        (&["files"], "files.sql", &[]),
        (
            &["files", "-a", "-p", &p],
            "files.sql",
            &[("all", "1"), ("pid", &p)],
        ),
        (&["files", "-v"], "files_verbose.sql", &[]),
        (&["namei", "-a", "-v"], "files_verbose.sql", &[("all", "1")]),
        (&["stats", "--top", "1000"], "syscall_top.sql", &[]),
        (
            &["stats", "--top", "3"],
            "syscall_top.sql",
            &[("limit", "3")],
        ),
        (&["inputs", "--system"], "inputs.sql", &[]),
        (
            &["inputs", "--system", "-p", &p, "--under", "/usr/src/proj"],
            "inputs.sql",
            &[("pid", &p), ("under", "'/usr/src/proj'")],
        ),
        (
            &["inputs", "--exclude", "/usr/src/proj/obj", "--system"],
            "inputs.sql",
            &[("exclude", "'[\"/usr/src/proj/obj\"]'")],
        ),
        (
            &[
                "files",
                "--under",
                "/usr/src/proj",
                "--exclude",
                "/usr/src/proj/obj",
            ],
            "files.sql",
            &[
                ("under", "'/usr/src/proj'"),
                ("exclude", "'[\"/usr/src/proj/obj\"]'"),
            ],
        ),
        (
            &["outputs", "--trace", "1"],
            "outputs.sql",
            &[("trace", "1")],
        ),
        (&["lint"], "lint.sql", &[("makes", "'[\"/usr/bin/make\"]'")]),
        (&["lint", "--all"], "lint.sql", &[("all", "1")]),
        (&["outputs", "-p", &p], "outputs.sql", &[("pid", &p)]),
        (&["lint", "-p", &p], "lint.sql", &[("pid", &p)]),
        (
            &["lint", "--allow", "/usr/src", "--kind", "read-outside"],
            "lint.sql",
            &[
                ("allow", "'[\"/usr/src\"]'"),
                ("kinds", "'[\"read-outside\"]'"),
            ],
        ),
    ];
    for (args, file, params) in cases {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let params: Vec<(&str, String)> = params.iter().map(|(k, v)| (*k, v.to_string())).collect();
        let (got, want) = (command(db, &args), shell(db, file, &params));
        // A report of several sections: the rows of the query's own.
        let got = match *file {
            "tree_calls.sql" => section(got, "call", &want),
            "syscall_top.sql" => section(got, "syscalls", &want),
            _ => got,
        };
        same(got, want, &format!("{args:?}"));
    }
}

/// The rows of one section of a CSV of several (first column `section`),
/// in the columns of `want`'s header.
fn section(got: Vec<Vec<String>>, name: &str, want: &[Vec<String>]) -> Vec<Vec<String>> {
    assert_eq!(got[0][0], "section", "{:?}", got[0]);
    let Some(head) = want.first() else {
        return vec![Vec::new()];
    };
    let at: Vec<usize> = head
        .iter()
        .map(|c| got[0].iter().position(|h| h == c).expect("a column"))
        .collect();
    let rows = got[1..].iter().filter(|r| r[0] == name);
    std::iter::once(head.clone())
        .chain(rows.map(|r| at.iter().map(|&i| r[i].clone()).collect()))
        .collect()
}

#[test]
fn queries_run_in_the_sqlite3_shell_and_match_the_commands() {
    if !have_sqlite3() {
        crate::util::skip("sqlite3 shell not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let example = manifest_dir().join("example/build.ktrace");
    let db = import_into(dir.path(), "ex.db", &[example], Some("/usr/src/proj"));
    compare_all(&db, 2313);
    if let Some(shared) = crate::util::shared_dir() {
        let (name, _, _) = CORPUS[0];
        let db = import_into(dir.path(), "c.db", &[corpus(&shared, name)], None);
        let conn = rusqlite::Connection::open(&db).unwrap();
        let pid: i64 = conn
            .query_row("SELECT min(pid) FROM process", [], |r| r.get(0))
            .unwrap();
        compare_all(&db, pid);
    }
}

#[test]
fn every_query_file_is_registered_and_documented() {
    let dir = manifest_dir().join("queries");
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sql"))
        .collect();
    let listed: BTreeSet<String> = report::QUERIES.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(on_disk, listed, "queries/*.sql and report::QUERIES differ");
    let tmp = tempfile::tempdir().unwrap();
    let example = manifest_dir().join("example/build.ktrace");
    let db = import_into(tmp.path(), "ex.db", &[example], Some("/usr/src/proj"));
    let conn = report::open(&db).unwrap();
    for q in report::queries() {
        let f = q.file;
        assert!(
            q.name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
            "{f}: name is not snake_case"
        );
        assert!(q.description.len() > 20, "{f}: no description");
        let declared: BTreeSet<String> = q.params.iter().map(|(k, _)| k.clone()).collect();
        let used: BTreeSet<String> = q.used_params().into_iter().collect();
        assert_eq!(declared, used, "{f}: @param lines and :params used differ");
        for (k, v) in q.params.iter().chain(&q.columns) {
            assert!(!v.is_empty(), "{f}: {k} has no description");
        }
        let cols: Vec<String> = q.columns.iter().map(|(k, _)| k.clone()).collect();
        let t = report::run(&conn, q.name, &[]).unwrap();
        assert_eq!(
            cols, t.columns,
            "{f}: @column lines and result columns differ"
        );
    }
}
