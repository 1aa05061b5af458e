//! `kt2sql completions SHELL` and `kt2sql man`: shell completion scripts
//! and manual pages generated from the clap definitions (clap_complete,
//! clap_mangen), so they say what `--help` says.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::Shell;

use super::anyhow_lite::Result;
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

/// Print kt2sql(1), or write every page into `--dir`.
pub fn run_man(args: ManArgs) -> Result<ExitCode> {
    let cmd = Cli::command();
    match args.dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .and_then(|()| clap_mangen::generate_to(cmd, &dir))
                .map_err(|e| format!("{}: {e}", dir.display()))?;
            Ok(ExitCode::SUCCESS)
        }
        None => emit(|out| clap_mangen::Man::new(cmd).render(out)),
    }
}
