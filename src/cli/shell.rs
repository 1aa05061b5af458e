//! `kt2sql completions SHELL` and `kt2sql man`: shell completion scripts
//! and manual pages generated from the clap definitions (clap_complete,
//! clap_mangen), so they say what `--help` says; a page is written as
//! every command writes a file (`-o FILE`, `--force`: [`Output`]).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::Man;

use super::anyhow_lite::Result;
use super::args::{Output, DESTINATION};
use super::manual;
use super::report::emit;
use super::Cli;

/// `kt2sql completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// `kt2sql man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write kt2sql.1 and one page per command (kt2sql-import.1, …) into
    /// this directory (created if missing) instead of printing kt2sql.1;
    /// each page as -o writes a FILE (an existing page only with --force).
    #[arg(long, value_name = "DIR", group = DESTINATION, conflicts_with = "output")]
    pub dir: Option<PathBuf>,
    #[command(flatten)]
    pub output: Output,
}

/// Print the completion script of `args.shell`.
pub fn run_completions(args: CompletionsArgs) -> Result<ExitCode> {
    let mut cmd = Cli::command();
    emit(|out| {
        clap_complete::generate(args.shell, &mut cmd, "kt2sql", out);
        Ok(())
    })
}

/// Print kt2sql(1), or write every page into `--dir`: clap_mangen's
/// rendering of each command, then the sections of [`manual`].
pub fn run_man(args: ManArgs) -> Result<ExitCode> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let subs: Vec<clap::Command> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .cloned()
        .collect();
    let names: Vec<String> = subs
        .iter()
        .map(|s| Man::new(s.clone()).get_filename())
        .collect();
    let names: Vec<String> = names
        .iter()
        .map(|n| n.trim_end_matches(".1").to_string())
        .collect();
    let page = |c: clap::Command, name: &str, out: &mut dyn std::io::Write| {
        Man::new(c).render(out)?;
        manual::write_sections(out, name, &names)
    };
    // Each page written as -o FILE writes it: whole or not at all, never
    // over a trace or a database, an existing page only with --force.
    let write = |c: clap::Command, name: &str, to: &Output| {
        to.write(|out| {
            page(c, name, out).map_err(|source| kt2sql::Error::Io {
                path: "standard output".into(),
                source,
            })
        })
    };
    let Some(dir) = args.dir else {
        write(cmd.clone(), "kt2sql", &args.output)?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let pages = subs
        .iter()
        .zip(&names)
        .map(|(s, n)| (s.clone(), n.as_str()));
    for (c, name) in pages.chain([(cmd.clone(), "kt2sql")]) {
        let to = Output {
            path: Some(dir.join(format!("{name}.1"))),
            force: args.output.force,
        };
        write(c, name, &to)?;
    }
    Ok(ExitCode::SUCCESS)
}
