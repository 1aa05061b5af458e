//! `kt2sql deps` and `rdeps` against the truth's `build` section. The
//! jobs (a recipe: a process a make forked, with every command below it
//! but those of a nearer make's recipes; else a compiler run: a compiler
//! driver with every command below it) from the truth's commands and
//! their programs; forward, the jobs of the writers, of the producers of
//! the temporaries they read (with `--sources`, of every path), and the
//! paths they read; reverse, the jobs of the readers and of the consumers
//! of what they wrote, and the paths they wrote that are still there;
//! directories (a path below them) neither. In csv and as make rules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use super::build::{assert_same, s};
use super::kt2sql;
use kt2sql::build::deps::{is_system, make_name, runs_recipes, starts_compiler_run};

/// The truth's build section, indexed.
struct Build<'a> {
    b: &'a Value,
    /// path -> its entry of `files`.
    files: BTreeMap<String, &'a Value>,
    /// command id -> its job (commands of one job share it).
    job: BTreeMap<String, Option<String>>,
    /// The commands of `-p`'s subtree, when one is asked for.
    scope: Option<BTreeSet<String>>,
    /// The paths a mkdir(2) made (directories even when nothing below
    /// them was looked up).
    made_dirs: BTreeSet<String>,
}

fn names(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(s).collect()
}

impl<'a> Build<'a> {
    fn new(b: &'a Value) -> Self {
        let files = b["files"].as_array().unwrap().iter();
        let files = files.map(|f| (s(&f["path"]), f)).collect();
        let commands: BTreeMap<String, &Value> = b["commands"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (s(&c["id"]), c))
            .collect();
        let program = |c: &Value| c["path"].as_str().map(|p| p.as_bytes().to_vec());
        // Commands are listed parents first (`processes` order), so a
        // parent's job is known before its children's.
        let mut job: BTreeMap<String, Option<String>> = BTreeMap::new();
        for c in b["commands"].as_array().unwrap() {
            let id = s(&c["id"]);
            let compiler = program(c).is_some_and(|p| starts_compiler_run(&p));
            let j = match c["parent"].as_str() {
                None => compiler.then(|| id.clone()),
                Some(parent) => {
                    let pc = commands[parent];
                    if program(pc).is_some_and(|p| runs_recipes(&p)) {
                        Some(s(&c["key"]))
                    } else if let Some(pj) = &job[parent] {
                        Some(pj.clone())
                    } else {
                        compiler.then(|| id.clone())
                    }
                }
            };
            job.insert(id, j);
        }
        Build {
            b,
            files,
            job,
            scope: None,
            made_dirs: BTreeSet::new(),
        }
    }

    /// The same, `-p pid`: the commands of every lifetime of `pid` and
    /// of the processes below them.
    fn scoped(b: &'a Value, made_dirs: &BTreeSet<String>, pid: i64) -> Self {
        let mut build = Build::new(b);
        build.made_dirs = made_dirs.clone();
        let mut scope = BTreeSet::new();
        for c in b["commands"].as_array().unwrap() {
            let parent = c["parent"].as_str().map(String::from);
            if c["pid"].as_i64() == Some(pid) || parent.is_some_and(|p| scope.contains(&p)) {
                scope.insert(s(&c["id"]));
            }
        }
        build.scope = Some(scope);
        build
    }

    fn in_scope(&self, c: &str) -> bool {
        self.scope.as_ref().is_none_or(|sc| sc.contains(c))
    }

    /// `cmds` with every command of their jobs.
    fn with_jobs(&self, cmds: &mut BTreeSet<String>) {
        let jobs: BTreeSet<&String> = cmds.iter().filter_map(|c| self.job[c].as_ref()).collect();
        let more: Vec<String> = self
            .job
            .iter()
            .filter(|(_, j)| j.as_ref().is_some_and(|j| jobs.contains(j)))
            .map(|(c, _)| c.clone())
            .collect();
        cmds.extend(more);
    }

    /// The commands found from those that `seed` names in `file`'s entry
    /// (`writers` forward, `readers` reverse): the first (direct) ones,
    /// and all of them, following flows as `follow` takes them.
    fn reach(
        &self,
        file: &str,
        seed: &str,
        follow: impl Fn(&Value, &BTreeSet<String>) -> Option<String>,
    ) -> (BTreeSet<String>, BTreeSet<String>) {
        let seeds = names(&self.files[file][seed]).into_iter();
        let mut first: BTreeSet<String> = seeds.filter(|c| self.in_scope(c)).collect();
        self.with_jobs(&mut first);
        let mut all = first.clone();
        loop {
            let flows = self.b["flows"].as_array().unwrap().iter();
            let more: Vec<String> = flows
                .filter_map(|f| follow(f, &all))
                .filter(|c| !all.contains(c))
                .collect();
            let n = all.len();
            all.extend(more);
            self.with_jobs(&mut all);
            if all.len() == n {
                all.retain(|c| self.in_scope(c));
                return (first, all);
            }
        }
    }

    /// A directory: the truth has a path below it, or a mkdir(2) made it.
    fn is_dir(&self, path: &str) -> bool {
        let below = format!("{path}/");
        self.made_dirs.contains(path)
            || self
                .files
                .range(below.clone()..)
                .next()
                .is_some_and(|(p, _)| p.starts_with(&below))
    }

    fn role(&self, path: &str) -> &str {
        self.files[path]["role"].as_str().unwrap()
    }

    /// Forward: `file`'s commands (id -> direct) and paths read (path ->
    /// (kind, direct)), the system sources left out when `starts` (the
    /// start directories) is given.
    fn deps(&self, file: &str, sources: bool, starts: Option<&[&[u8]]>) -> Rows {
        let (first, all) = self.reach(file, "writers", |f, cmds| {
            let temporary = self.role(&s(&f["path"])) == "temporary";
            (cmds.contains(&s(&f["consumer"])) && (sources || temporary)).then(|| s(&f["producer"]))
        });
        let mut paths = BTreeMap::new();
        for (path, f) in &self.files {
            let readers = names(&f["readers"]);
            let role = self.role(path);
            let wrote = names(&f["writers"]).iter().any(|w| all.contains(w));
            let kind = match role {
                "source" => "source",
                "output" | "intermediate" if !sources && !wrote => "generated",
                _ => continue,
            };
            let system = starts.is_some_and(|st| is_system(path.as_bytes(), st));
            if path == file || (kind == "source" && system) || self.is_dir(path) {
                continue;
            }
            let mut by = readers.iter().filter(|r| all.contains(*r)).peekable();
            if by.peek().is_some() {
                let direct = readers.iter().any(|r| first.contains(r) && all.contains(r));
                paths.insert(path.clone(), (kind, direct));
            }
        }
        Rows::new(&first, &all, paths)
    }

    /// Reverse: the commands that would rerun and the paths built, the
    /// system ones left out when `starts` is given.
    fn rdeps(&self, file: &str, starts: Option<&[&[u8]]>) -> Rows {
        let (first, all) = self.reach(file, "readers", |f, cmds| {
            cmds.contains(&s(&f["producer"])).then(|| s(&f["consumer"]))
        });
        let mut paths = BTreeMap::new();
        for (path, f) in &self.files {
            let writers = names(&f["writers"]);
            let system = starts.is_some_and(|st| is_system(path.as_bytes(), st));
            if path != file
                && !system
                && !self.is_dir(path)
                && matches!(self.role(path), "output" | "intermediate")
                && writers.iter().any(|w| all.contains(w))
            {
                let direct = writers.iter().any(|w| first.contains(w) && all.contains(w));
                paths.insert(path.clone(), ("built", direct));
            }
        }
        Rows::new(&first, &all, paths)
    }
}

/// What the truth says of one file: its commands (`pid comm program
/// direct`) and paths (path -> (kind, direct)).
struct Rows {
    commands: BTreeSet<String>,
    paths: BTreeMap<String, (&'static str, bool)>,
}

impl Rows {
    fn new(
        first: &BTreeSet<String>,
        all: &BTreeSet<String>,
        paths: BTreeMap<String, (&'static str, bool)>,
    ) -> Rows {
        let commands = all
            .iter()
            .map(|id| {
                let (key, image) = id.split_once('#').unwrap();
                let pid = key.split_once('.').unwrap().0;
                let _ = image;
                format!("{pid} {} {}", id, first.contains(id) as u8)
            })
            .collect();
        Rows { commands, paths }
    }

    /// The path rows as `kind path direct` lines.
    fn path_lines(&self) -> BTreeSet<String> {
        let p = self.paths.iter();
        p.map(|(path, (kind, d))| format!("{kind} {path} {}", *d as u8))
            .collect()
    }
}

/// Undo [`kt2sql::report::depfile::escape`] on one make rule: its
/// targets and its prerequisites, split at unescaped blanks.
pub fn parse_rule(line: &str) -> (Vec<String>, Vec<String>) {
    let mut words = vec![String::new()];
    let mut targets = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some(' ' | '#' | ':' | '\\')) => {
                words.last_mut().unwrap().push(chars.next().unwrap())
            }
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                words.last_mut().unwrap().push('$');
            }
            ':' if targets.is_none() => {
                let mut t = std::mem::replace(&mut words, vec![String::new()]);
                t.retain(|w| !w.is_empty());
                targets = Some(t);
            }
            ' ' => words.push(String::new()),
            c => words.last_mut().unwrap().push(c),
        }
    }
    words.retain(|w| !w.is_empty());
    (targets.expect("a make rule has a colon"), words)
}

/// `kt2sql ARGS --format FORMAT`, which must succeed.
fn run(db: &Path, args: &[&str], files: &[String], format: &str, ctx: &str) -> String {
    let out = kt2sql()
        .args(&args[..1])
        .arg(db)
        .args(files)
        .args(&args[1..])
        .args(["--format", format])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{ctx}: {args:?} --format {format}: {err}"
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Rows of one file: command lines `pid comm direct`, path lines `kind
/// path direct`.
type FileRows = (BTreeSet<String>, BTreeSet<String>);

/// CSV rows of deps/rdeps, by file.
fn parse_csv(csv: &str, ctx: &str) -> BTreeMap<String, FileRows> {
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("file,kind,path,pid,comm,direct"),
        "{ctx}: header"
    );
    let mut got: BTreeMap<String, FileRows> = BTreeMap::new();
    for l in lines {
        let r: Vec<&str> = l.split(',').collect();
        let e = got.entry(r[0].into()).or_default();
        match r[1] {
            "command" => e.0.insert(format!("{} {} {}", r[3], r[4], r[5])),
            kind => e.1.insert(format!("{kind} {} {}", r[2], r[5])),
        };
    }
    got
}

/// The truth's command lines as [`parse_csv`] writes them (`pid comm
/// direct`).
fn command_lines(b: &Value, rows: &Rows) -> BTreeSet<String> {
    let comm: BTreeMap<String, String> = b["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (s(&c["id"]), s(&c["comm"])))
        .collect();
    rows.commands
        .iter()
        .map(|l| {
            let w: Vec<&str> = l.split(' ').collect();
            format!("{} {} {}", w[0], comm[w[1]], w[2])
        })
        .collect()
}

/// `path` as a depfile names it from `base` within the start directory.
fn name(path: &str, base: &str, start_cwd: &str) -> String {
    let n = make_name(
        path.as_bytes(),
        Some(base.as_bytes()),
        Some(start_cwd.as_bytes()),
    );
    String::from_utf8(n.to_vec()).unwrap()
}

/// The directory a depfile names `file`'s rule from: the working
/// directory of the command that wrote it last (the truth's
/// `last_writer`), else the start directory.
fn writer_dir(b: &Value, file: &str, start_cwd: &str) -> String {
    let commands = b["commands"].as_array().unwrap();
    b["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == file)
        .and_then(|f| f["last_writer"].as_str())
        .and_then(|w| commands.iter().find(|c| c["id"] == w))
        .and_then(|c| c["cwd"].as_str())
        .unwrap_or(start_cwd)
        .to_string()
}

/// Every rule of a depfile: target -> prerequisites (a rule with several
/// targets gives each of them).
pub fn parse_rules(make: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut rules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for l in make.lines() {
        let (targets, deps) = parse_rule(l);
        for t in targets {
            rules.entry(t).or_default().extend(deps.iter().cloned());
        }
    }
    rules
}

/// A way to run `deps`: its arguments, whether it lists the leaf
/// sources, and the start directories when system sources are left out.
type Mode<'a> = (&'a [&'a str], bool, Option<&'a [&'a [u8]]>);

/// Every file the build wrote: `deps` (and `--sources`, `--system`) gives
/// its commands and prerequisites as the truth does, and `--format make`
/// the same rule; every file a command read: `rdeps` gives the commands
/// that would rerun and the paths built, and `--format make` the rule;
/// both with `-p` too.
pub fn check_deps(db: &Path, b: &Value, made_dirs: &BTreeSet<String>, start_cwd: &str, ctx: &str) {
    let mut build = Build::new(b);
    build.made_dirs = made_dirs.clone();
    let start: [&[u8]; 1] = [start_cwd.as_bytes()];
    let files = || b["files"].as_array().unwrap().iter();
    let written: Vec<String> = files()
        .filter(|f| !f["writers"].as_array().unwrap().is_empty())
        .map(|f| s(&f["path"]))
        .collect();
    let read: Vec<String> = files()
        .filter(|f| !f["readers"].as_array().unwrap().is_empty())
        .map(|f| s(&f["path"]))
        .collect();
    let modes: [Mode; 3] = [
        (&["deps"], false, Some(&start)),
        (&["deps", "--sources"], true, Some(&start)),
        (&["deps", "--system"], false, None),
    ];
    for (args, sources, system) in modes {
        if written.is_empty() {
            break;
        }
        let got = parse_csv(&run(db, args, &written, "csv", ctx), ctx);
        // One rule per file in the order asked, each named from where
        // its writer ran (so two may share a name), then the empty rules.
        let make = run(db, args, &written, "make", ctx);
        let lines: Vec<(Vec<String>, Vec<String>)> = make.lines().map(parse_rule).collect();
        assert!(lines.len() >= written.len(), "{ctx}: {args:?}: {make}");
        let empties: BTreeSet<String> = lines[written.len()..]
            .iter()
            .map(|(t, d)| {
                assert!(
                    t.len() == 1 && d.is_empty(),
                    "{ctx}: {args:?}: empty rule {t:?}"
                );
                t[0].clone()
            })
            .collect();
        for (f, (targets, deps)) in written.iter().zip(&lines) {
            let want = build.deps(f, sources, system);
            let what = format!("{ctx}: {args:?} {f}");
            let empty = Default::default();
            let (cmds, paths) = got.get(f).unwrap_or(&empty);
            assert_same(cmds, &command_lines(b, &want), &format!("{what}: commands"));
            assert_same(paths, &want.path_lines(), &format!("{what}: paths"));
            let base = writer_dir(b, f, start_cwd);
            let name = |p: &str| name(p, &base, start_cwd);
            let prereqs: BTreeSet<String> = want.paths.keys().map(|p| name(p)).collect();
            assert_eq!(targets, &[name(f)], "{what}: make target");
            let rule: BTreeSet<String> = deps.iter().cloned().collect();
            assert_same(&rule, &prereqs, &format!("{what}: make rule"));
            // A source that is no target asked about has an empty rule.
            for (p, (kind, _)) in &want.paths {
                let n = name(p);
                if *kind == "source" && !written.contains(p) {
                    assert!(empties.contains(&n), "{what}: no rule {n}:");
                }
            }
        }
    }
    if read.is_empty() {
        return;
    }
    let modes: [Mode; 2] = [
        (&["rdeps"], false, Some(&start)),
        (&["rdeps", "--system"], false, None),
    ];
    for (args, _, starts) in modes {
        let got = parse_csv(&run(db, args, &read, "csv", ctx), ctx);
        let make = run(db, args, &read, "make", ctx);
        let mut rules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for l in make.lines() {
            let (targets, deps) = parse_rule(l);
            assert_eq!(deps.len(), 1, "{ctx}: rdeps rule {l}");
            let e = rules.entry(deps[0].clone()).or_default();
            assert!(e.is_empty(), "{ctx}: one rdeps rule per file: {l}");
            e.extend(targets);
        }
        for f in &read {
            let want = build.rdeps(f, starts);
            let what = format!("{ctx}: {args:?} {f}");
            let empty = Default::default();
            let (cmds, paths) = got.get(f).unwrap_or(&empty);
            assert_same(cmds, &command_lines(b, &want), &format!("{what}: commands"));
            assert_same(paths, &want.path_lines(), &format!("{what}: paths"));
            let name = |p: &str| name(p, start_cwd, start_cwd);
            let built: BTreeSet<String> = want.paths.keys().map(|p| name(p)).collect();
            let none = BTreeSet::new();
            let rule = rules.get(&name(f)).unwrap_or(&none);
            assert_same(rule, &built, &format!("{what}: make rule"));
        }
    }
    // -p: the commands of one recipe's subtree (a process a make forked
    // that ran commands of its own), and what they read and wrote.
    let recipe = b["commands"].as_array().unwrap().iter().find(|c| {
        let kids = b["commands"].as_array().unwrap().iter();
        c["image"] == 1 && kids.filter(|k| k["parent"] == c["id"]).count() > 0
    });
    let Some(pid) = recipe.and_then(|c| c["pid"].as_i64()) else {
        return;
    };
    let scoped = Build::scoped(b, made_dirs, pid);
    let p = pid.to_string();
    for (args, files) in [(["deps", "-p", &p], &written), (["rdeps", "-p", &p], &read)] {
        if files.is_empty() {
            continue;
        }
        let got = parse_csv(&run(db, &args, files, "csv", ctx), ctx);
        for f in files {
            let want = match args[0] {
                "deps" => scoped.deps(f, false, Some(&start)),
                _ => scoped.rdeps(f, Some(&start)),
            };
            let what = format!("{ctx}: {args:?} {f}");
            let empty = Default::default();
            let (cmds, paths) = got.get(f).unwrap_or(&empty);
            assert_same(cmds, &command_lines(b, &want), &format!("{what}: commands"));
            assert_same(paths, &want.path_lines(), &format!("{what}: paths"));
        }
    }
}

#[test]
fn parse_rule_reads_escapes_back() {
    let (t, d) = parse_rule("obj/a\\ b.o x.o: /s/\\#x.c /s/$$y.h  /s/c\\:d");
    assert_eq!(t, ["obj/a b.o", "x.o"]);
    assert_eq!(d, ["/s/#x.c", "/s/$y.h", "/s/c:d"]);
}
