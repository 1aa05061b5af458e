//! The build commands: `kt2sql inputs`, `outputs` and `lint` (what the
//! build read, left behind and got wrong: `queries/inputs.sql`,
//! `outputs.sql`, `lint.sql`, which `kt2sql query` runs too), `deps` (what
//! files were made from, or their make depfile), `rdeps` (what was built
//! from them) and `graph` (the build as
//! DOT). Each answers for one build: on a database of several traces it
//! needs `--trace` (`DbScope::build_scope`). Only the clap arguments and
//! the glue: the rules are `kt2sql::build`'s, the queries and rendering
//! `kt2sql::report`'s.

use std::process::ExitCode;

use rusqlite::Connection;

use kt2sql::json::json_str_list_text;
use kt2sql::report::{self, deps, Cell, Format as Rows};

use super::anyhow_lite::Result;
use super::args::{DbScope, Format, FormatArg, Formats, Output, RowFormats, Under};
use super::notes;
use super::sql::{print, rows};

/// `kt2sql inputs`.
#[derive(Debug, clap::Args)]
pub struct InputsArgs {
    #[command(flatten)]
    pub paths: PathsArgs,
    /// Keep system files too (headers such as /usr/include/stdio.h, the
    /// compiler, libraries: paths in the system's directories outside the
    /// directory the trace started in), left out by default as `deps` and
    /// `graph` leave them out.
    #[arg(long)]
    pub system: bool,
}

/// `kt2sql outputs`, and what `kt2sql inputs` takes besides --system.
#[derive(Debug, clap::Args)]
pub struct PathsArgs {
    #[command(flatten)]
    pub target: DbScope,
    #[command(flatten)]
    pub under: Under,
    #[command(flatten)]
    pub format: FormatArg<RowFormats>,
}

/// `kt2sql lint`.
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    #[command(flatten)]
    pub target: DbScope,
    /// A directory the build may read in (repeatable): every path read
    /// outside them is a `read-outside` hazard (a relative DIR is taken
    /// from the directory the trace started in, -d at import). Without it,
    /// reads are not checked.
    #[arg(long, value_name = "DIR")]
    pub allow: Vec<String>,
    /// Only hazards of this kind (repeatable); default: every kind
    /// (`read-outside` only with --allow). The manual page, kt2sql-lint(1),
    /// says what each means.
    #[arg(long, value_name = "KIND", value_parser = hazard_kinds())]
    pub kind: Vec<String>,
    #[command(flatten)]
    pub under: Under,
    /// Keep the hazards of a job's own temporaries, left out by default:
    /// paths the build created and removed again, every lookup of which
    /// was made below one process that ran no make (configure's
    /// conftest.c, written, compiled, run and removed by configure).
    #[arg(long)]
    pub temporaries: bool,
    /// Keep the hazards of device and pseudo files (paths in /dev, /proc
    /// and /sys, such as /dev/null written by many commands), left out by
    /// default.
    #[arg(long)]
    pub devices: bool,
    /// Keep the hazards of makefiles, left out by default: the files a
    /// make read that the build wrote (its makefiles and those they
    /// include, as automake's .deps/*.Po), which recipes rewrite for
    /// make's next run.
    #[arg(long)]
    pub makefiles: bool,
    /// Every hazard the rules find: nothing left out (as --temporaries
    /// --devices --makefiles), and neither a failed `rm -f` nor the
    /// successive commands of one script exempted.
    #[arg(long)]
    pub all: bool,
    /// Accept the hazards listed in FILE, an earlier `lint --format json`
    /// output: they are not shown and do not fail lint, only new ones do.
    /// A hazard matches a listed one of the same kind, path relative to
    /// the directory the trace started in (rel_path) and command names
    /// (comm, other_comm), each listed row accepting one hazard.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<std::path::PathBuf>,
    /// Exit 0 even when hazards were reported (by default lint exits 1
    /// when it reports any).
    #[arg(long)]
    pub exit_zero: bool,
    #[command(flatten)]
    pub format: FormatArg<RowFormats>,
}

/// The kinds `--kind` takes: those the manual page explains.
fn hazard_kinds() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(kt2sql::build::hazard::HAZARDS.map(|(kind, _)| kind))
}

/// `--under DIR` and `--exclude DIR` made absolute
/// ([`notes::resolve_dirs`]).
pub fn path_filters(
    conn: &Connection,
    target: &DbScope,
    under: Under,
) -> Result<(Option<String>, Vec<String>)> {
    let db = &target.db.path;
    let trace = target.trace.id;
    let dir = match under.dir {
        None => None,
        Some(d) => notes::resolve_dirs(conn, db, trace, "--under", vec![d])?
            .into_iter()
            .next(),
    };
    let exclude = match under.exclude.is_empty() {
        true => Vec::new(),
        false => notes::resolve_dirs(conn, db, trace, "--exclude", under.exclude)?,
    };
    Ok((dir, exclude))
}

/// Run `kt2sql inputs` (`name` "inputs", `system` whether --system) or
/// `kt2sql outputs` ("outputs"): canned query `name` in the scope asked,
/// `--under` and `--exclude` given as parameters; for inputs the system
/// directories too unless `system`. As `files -p` and `files --trace`, an
/// unknown pid or trace is an error, not an empty report; with -p,
/// outputs are what the subtree left behind, the subtree taken as the
/// build (its own writers and roles).
pub fn run_paths(name: &str, a: PathsArgs, system: bool) -> Result<ExitCode> {
    let db = &a.target.db.path;
    let conn = report::open(db)?;
    let scope = a.target.build_scope(&conn, name)?;
    let mut params = scope.params();
    let (under, exclude) = path_filters(&conn, &a.target, a.under)?;
    let text = |s: String| Cell::Text(s.into_bytes());
    params.push(("under", under.map_or(Cell::Null, text)));
    params.push(("exclude", text(json_str_list_text(&exclude))));
    if name == "inputs" {
        let dirs = match system {
            true => Cell::Null,
            false => text(json_str_list_text(kt2sql::build::system::SYSTEM_DIRS)),
        };
        params.push(("system", dirs));
    }
    let q = report::query(name).ok_or_else(|| format!("queries/{name}.sql is missing"))?;
    let context = format!("running queries/{}", q.file);
    let code = print(db, q.sql, &params, &context, rows(a.format))?;
    notes::relative_left_out(&conn, db, scope)?;
    Ok(code)
}

/// Run `kt2sql lint`: exit 1 when it reported a hazard (unless
/// `--exit-zero`), with a summary line per kind on stderr.
pub fn run_lint(a: LintArgs) -> Result<ExitCode> {
    // -p: the hazards a command of the subtree is in, either side, and
    // what the subtree itself read outside.
    let db = &a.target.db.path;
    let conn = report::open(db)?;
    let scope = a.target.build_scope(&conn, "lint")?;
    if a.allow.is_empty() && a.kind.iter().any(|k| k == "read-outside") {
        return Err(
            "--kind read-outside needs --allow DIR: the directories the build may \
                    read in (--allow / allows every one)"
                .into(),
        );
    }
    // The baseline first: a missing or garbled file is an error before
    // any row is printed.
    let baseline = match &a.baseline {
        None => None,
        Some(file) => {
            let name = file.display();
            let text = std::fs::read(file).map_err(|e| format!("--baseline {name}: {e}"))?;
            let b = report::lint::Baseline::parse(&text)
                .map_err(|e| format!("--baseline {name}: {e}"))?;
            Some(b)
        }
    };
    let has_baseline = baseline.is_some();
    let mut params = scope.params();
    if !a.allow.is_empty() {
        let dirs = notes::resolve_dirs(&conn, db, scope.trace, "--allow", a.allow)?;
        params.push(("allow", Cell::Text(json_str_list_text(&dirs).into_bytes())));
    }
    let (under, exclude) = path_filters(&conn, &a.target, a.under)?;
    if let Some(dir) = under {
        params.push(("under", Cell::Text(dir.into_bytes())));
    }
    if !exclude.is_empty() {
        let dirs = json_str_list_text(&exclude).into_bytes();
        params.push(("exclude", Cell::Text(dirs)));
    }
    for (flag, name) in [
        (a.devices, "devices"),
        (a.temporaries, "temporaries"),
        (a.makefiles, "makefiles"),
        (a.all, "all"),
    ] {
        if flag {
            params.push((name, Cell::Int(1)));
        }
    }
    if !a.all {
        // Which commands ran make: a job that did does not own the
        // temporaries below it, and the files a make read are makefiles.
        params.push(("makes", deps::programs(&conn)?.0));
    }
    if !a.kind.is_empty() {
        params.push((
            "kinds",
            Cell::Text(json_str_list_text(&a.kind).into_bytes()),
        ));
    }
    let format = rows(a.format);
    let counts = {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
        let mut render = report::Render::new(&mut out, format);
        let mut tally =
            report::lint::Tally::new(&mut render, format != Rows::Table).with_baseline(baseline);
        let q = report::query("lint").ok_or("queries/lint.sql is missing")?;
        // -p: the hazard rules over the paths the subtree looked up only
        // (the same rows as the whole build's, filtered).
        if let Some(pid) = scope.pid {
            conn.in_temp(|c| report::lint_scope::scope_hazards(c, pid, scope.trace))?;
        }
        report::stream(
            &conn,
            q.sql,
            &params,
            "running queries/lint.sql",
            &mut tally,
        )?;
        if scope.pid.is_some() {
            conn.in_temp(report::lint_scope::unscope_hazards)?;
        }
        let counts = (tally.counts().to_vec(), tally.accepted());
        std::io::Write::flush(&mut out)?;
        counts
    };
    let (counts, accepted) = counts;
    notes::relative_left_out(&conn, db, scope)?;
    let accepted = has_baseline.then_some(accepted);
    for line in report::lint::summary(&counts, accepted) {
        eprintln!("kt2sql: lint: {line}");
    }
    Ok(match counts.is_empty() || a.exit_zero {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    })
}

/// `kt2sql deps`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "By default each FILE's direct prerequisites, as `gcc -MMD` lists \
them: every path read by the jobs (a make recipe, else a compiler run) of the commands that \
wrote it and of those that wrote a temporary they read, generated files included, system files \
left out. --format make writes a depfile a Makefile can include."
)]
pub struct DepsArgs {
    #[command(flatten)]
    pub target: DbScope,
    #[command(flatten)]
    pub files: Files,
    /// The leaf sources instead, transitively: what the commands that
    /// wrote each generated prerequisite read, and so on up (files the
    /// build wrote are followed, not listed).
    #[arg(long)]
    pub sources: bool,
    /// Keep system files too (headers such as /usr/include/stdio.h, the
    /// compiler, libraries: paths in the system's directories outside the
    /// directory the trace started in), as `gcc -MD` keeps system headers.
    #[arg(long, visible_alias = "all")]
    pub system: bool,
    #[command(flatten)]
    pub under: Under,
    #[command(flatten)]
    pub relative_to: RelativeTo,
    #[command(flatten)]
    pub format: FormatArg<DepsFormats>,
    #[command(flatten)]
    pub output: Output,
}

/// `kt2sql rdeps`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "What would rebuild if each FILE changed: the jobs (a make recipe, \
else a compiler run) of the commands that read it, those of the commands that read what they \
wrote, and so on down, and the paths they wrote that are still there (kind `built`; `direct` 1 \
for those of the jobs that read FILE itself). --format make writes `BUILT ...: FILE` per FILE."
)]
pub struct RdepsArgs {
    #[command(flatten)]
    pub target: DbScope,
    #[command(flatten)]
    pub files: Files,
    /// Keep the system files built too (`/dev/null` written through a
    /// redirection, a file installed into /usr/local/lib): paths in the
    /// system's directories outside the directory the trace started in.
    #[arg(long, visible_alias = "all")]
    pub system: bool,
    #[command(flatten)]
    pub under: Under,
    #[command(flatten)]
    pub relative_to: RelativeTo,
    #[command(flatten)]
    pub format: FormatArg<DepsFormats>,
    #[command(flatten)]
    pub output: Output,
}

/// `--relative-to DIR` of `deps` and `rdeps`.
#[derive(Debug, clap::Args)]
pub struct RelativeTo {
    /// --format make: name the paths from DIR (a relative DIR is taken
    /// from the directory the trace started in). By default deps names
    /// them from the directory of the command that wrote each FILE, where
    /// the compiler's own depfile (`gcc -MD`) names them from, and rdeps
    /// from the directory the trace started in, where the top make runs;
    /// a path elsewhere in the build's tree is named with `../`, one
    /// outside it absolute.
    #[arg(long = "relative-to", value_name = "DIR")]
    pub dir: Option<String>,
}

impl RelativeTo {
    /// DIR made absolute, if given.
    fn resolve(self, conn: &Connection, target: &DbScope) -> Result<Option<Vec<u8>>> {
        let Some(dir) = self.dir else {
            return Ok(None);
        };
        let db = &target.db.path;
        let dir = notes::resolve_dirs(conn, db, target.trace.id, "--relative-to", vec![dir])?;
        Ok(dir.into_iter().next().map(String::into_bytes))
    }
}

/// The FILE arguments of `deps` and `rdeps`.
#[derive(Debug, clap::Args)]
pub struct Files {
    /// The files, as the trace names them: absolute, or relative to the
    /// directory the trace started in (-d at import).
    #[arg(required = true, value_name = "FILE")]
    pub names: Vec<String>,
}

/// `deps --format`, `rdeps --format`.
#[derive(Debug)]
pub enum DepsFormats {}

impl Formats for DepsFormats {
    const TAKES: &'static [Format] = &[
        Format::Text,
        Format::Csv,
        Format::Json,
        Format::Jsonl,
        Format::Make,
    ];
}

/// What `deps` and `rdeps` run with: the files made absolute and checked
/// against the trace, the query parameters, the start directories.
struct Asked {
    /// The files, absolute.
    paths: Vec<String>,
    /// `files`, `makes`, `compilers`, `trace`, `pid`.
    params: Vec<(&'static str, Cell)>,
    /// The directories the traces in scope started in (`-d`).
    starts: Vec<Vec<u8>>,
    /// The one start directory make names are relative to, if they agree.
    start: Option<Vec<u8>>,
    /// The trace and subtree asked about, checked.
    scope: report::Scope,
}

/// Check the scope and the files, and gather what the queries take.
fn asked(conn: &report::Database, target: &DbScope, files: Files, command: &str) -> Result<Asked> {
    let db = &target.db;
    let scope = target.build_scope(conn, command)?;
    let paths = notes::resolve(
        conn,
        &db.path,
        scope.trace,
        ("FILE", "path"),
        files.names.clone(),
    )?;
    for (file, path) in files.names.iter().zip(&paths) {
        if !deps::looked_up(conn, path)? {
            return Err(format!(
                "{}: {file}: the trace never looked up {path}",
                db.path.display()
            )
            .into());
        }
    }
    let mut starts: Vec<Vec<u8>> = report::start_dirs(conn, scope)?
        .into_iter()
        .filter_map(|d| d.start_cwd)
        .collect();
    starts.sort();
    starts.dedup();
    let start = match &starts[..] {
        [one] => Some(one.clone()),
        _ => None,
    };
    let (makes, compilers) = deps::programs(conn)?;
    let mut params = vec![
        ("files", Cell::Text(json_str_list_text(&paths).into_bytes())),
        ("makes", makes),
        ("compilers", compilers),
    ];
    params.extend(scope.params());
    Ok(Asked {
        paths,
        params,
        starts,
        start,
        scope,
    })
}

/// Write the rows `rows` hands to its sink in the format asked
/// (`--format`, else `-o`'s extension), as they come; or the make rules
/// `make` writes.
fn output(
    format: &FormatArg<DepsFormats>,
    output: &Output,
    rows: impl FnOnce(&mut dyn report::RowSink) -> std::result::Result<(), kt2sql::Error>,
    make: impl FnOnce(&mut dyn std::io::Write) -> std::result::Result<(), kt2sql::Error>,
) -> Result<()> {
    let format = format.with_output(output.path.as_deref())?;
    output.write(|out| match format.rows() {
        Some(f) => rows(&mut report::Render::new(out, f)),
        None => make(out),
    })
}

/// An error writing to standard output.
fn stdout(source: std::io::Error) -> kt2sql::Error {
    kt2sql::Error::Io {
        path: "standard output".into(),
        source,
    }
}

/// Run `kt2sql deps`.
pub fn run_deps(a: DepsArgs) -> Result<ExitCode> {
    let conn = report::open(&a.target.db.path)?;
    let mut q = asked(&conn, &a.target, a.files, "deps")?;
    if a.sources {
        q.params.push(("sources", Cell::Int(1)));
    }
    let (under, exclude) = path_filters(&conn, &a.target, a.under)?;
    let filter = deps::Filter {
        system: a.system,
        starts: &q.starts,
        under: under.as_deref(),
        exclude: &exclude,
    };
    let relative_to = a.relative_to.resolve(&conn, &a.target)?;
    let make = |out: &mut dyn std::io::Write| {
        let rows = deps::deps(&conn, &q.params, filter)?;
        // The directory each rule names its paths from: the one asked for,
        // else where the file's writer ran, else where the trace started.
        let bases = match relative_to {
            Some(dir) => vec![Some(dir); q.paths.len()],
            None => deps::writer_dirs(&conn, &q.paths, q.scope.trace)?
                .into_iter()
                .map(|d| d.or_else(|| q.start.clone()))
                .collect(),
        };
        deps::write_depfile(out, &rows, &q.paths, &bases, q.start.as_deref()).map_err(stdout)
    };
    output(
        &a.format,
        &a.output,
        |sink| deps::stream(&conn, &q.params, filter, sink),
        make,
    )?;
    notes::relative_left_out(&conn, &a.target.db.path, q.scope)?;
    Ok(ExitCode::SUCCESS)
}

/// Run `kt2sql rdeps`.
pub fn run_rdeps(a: RdepsArgs) -> Result<ExitCode> {
    let conn = report::open(&a.target.db.path)?;
    let q = asked(&conn, &a.target, a.files, "rdeps")?;
    let (under, exclude) = path_filters(&conn, &a.target, a.under)?;
    let filter = deps::Filter {
        system: a.system,
        starts: &q.starts,
        under: under.as_deref(),
        exclude: &exclude,
    };
    // The directory the rules name their paths from: the one asked for,
    // else where the trace started (where the top make runs).
    let base = a.relative_to.resolve(&conn, &a.target)?.or(q.start.clone());
    let params = deps::reverse(&q.params);
    let make = |out: &mut dyn std::io::Write| {
        let rows = deps::deps(&conn, &params, filter)?;
        deps::write_reverse_depfile(out, &rows, &q.paths, base.as_deref(), q.start.as_deref())
            .map_err(stdout)
    };
    output(
        &a.format,
        &a.output,
        |sink| deps::stream(&conn, &params, filter, sink),
        make,
    )?;
    notes::relative_left_out(&conn, &a.target.db.path, q.scope)?;
    Ok(ExitCode::SUCCESS)
}

/// `kt2sql graph`.
#[derive(Debug, clap::Args)]
pub struct GraphArgs {
    #[command(flatten)]
    pub target: DbScope,
    /// Only commands: one edge per producer -> consumer pair (build_dep),
    /// labelled with the number of paths.
    #[arg(long)]
    pub commands: bool,
    #[command(flatten)]
    pub under: Under,
    /// Draw the system files too (the compiler, libraries, system headers,
    /// /etc: paths in the system's directories, outside the directory the
    /// trace started in), which are left out by default. Device and pseudo
    /// files (/dev/null, /proc, /sys) are never drawn.
    #[arg(long)]
    pub system: bool,
    #[command(flatten)]
    pub format: FormatArg<GraphFormats>,
    #[command(flatten)]
    pub output: Output,
}

/// `graph --format`.
#[derive(Debug)]
pub enum GraphFormats {}

impl Formats for GraphFormats {
    const TAKES: &'static [Format] = &[Format::Dot];
}

/// Run `kt2sql graph`.
pub fn run_graph(a: GraphArgs) -> Result<ExitCode> {
    let path = &a.target.db.path;
    let db = report::open(path)?;
    // As `files --trace` and `-p`: an unknown trace or pid is an error,
    // not an empty graph.
    let scope = a.target.build_scope(&db, "graph")?;
    let (under, exclude) = path_filters(&db, &a.target, a.under)?;
    let filters = report::graph::Filters {
        under,
        exclude,
        system: a.system,
    };
    a.format.with_output(a.output.path.as_deref())?;
    a.output
        .write(|out| report::graph::write_dot(&db, scope, a.commands, &filters, out))?;
    Ok(ExitCode::SUCCESS)
}
