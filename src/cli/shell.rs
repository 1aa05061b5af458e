//! `kt2sql completions SHELL` and `kt2sql man`: shell completion scripts
//! and manual pages generated from the clap definitions (clap_complete,
//! clap_mangen), so they say what `--help` says.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::Man;

use super::anyhow_lite::Result;
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
    /// this directory (created if missing) instead of printing kt2sql.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
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
    match args.dir {
        Some(dir) => {
            let write = |c: clap::Command, name: &str| -> std::io::Result<()> {
                let mut f = std::fs::File::create(dir.join(format!("{name}.1")))?;
                page(c, name, &mut f)
            };
            std::fs::create_dir_all(&dir)
                .and_then(|()| {
                    for (s, name) in subs.iter().zip(&names) {
                        write(s.clone(), name)?;
                    }
                    write(cmd.clone(), "kt2sql")
                })
                .map_err(|e| format!("{}: {e}", dir.display()))?;
            Ok(ExitCode::SUCCESS)
        }
        None => emit(|out| page(cmd.clone(), "kt2sql", out)),
    }
}
