//! The `kt2sql` binary: parse the command line, run it, print errors as one
//! `kt2sql: error: …` line. Exit codes: 0 success, 1 done with data loss,
//! 2 nothing done (also `--strict` at the first damage), 130 import
//! interrupted (Ctrl-C; nothing written). A closed output pipe ends quietly.

mod cli;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

fn main() -> ExitCode {
    let cli = cli::Cli::parse_from(default_to_import(std::env::args_os().collect()));
    match cli::run(cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(e.as_ref()) => ExitCode::SUCCESS,
        Err(e) => {
            // kt2sql's errors already carry their cause in their message;
            // file names in it are shown escaped, never raw.
            eprintln!(
                "kt2sql: error: {}",
                kt2sql::text::vis(e.to_string().as_bytes())
            );
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::BrokenPipe {
                return true;
            }
        }
        cur = err.source();
    }
    false
}

/// `kt2sql [OPTIONS] TRACE... DB` means `kt2sql import [OPTIONS] TRACE... DB`:
/// insert `import` when the first argument is neither a subcommand name or
/// alias (taken from the clap definition, `help` included) nor a top-level
/// flag (`-h`, `--help`, `-V`, `--version`).
fn default_to_import(mut args: Vec<OsString>) -> Vec<OsString> {
    let Some(first) = args.get(1) else {
        return args;
    };
    if ["-h", "--help", "-V", "--version"]
        .iter()
        .any(|f| first == f)
    {
        return args;
    }
    let mut cmd = cli::Cli::command();
    cmd.build();
    let known = cmd
        .get_subcommands()
        .any(|s| first == s.get_name() || s.get_all_aliases().any(|a| first == a));
    if !known {
        args.insert(1, "import".into());
    }
    args
}
