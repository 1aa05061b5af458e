//! The `kt2sql` binary: parse the command line, run it, print errors as one
//! `kt2sql: error: …` line. Exit codes: 0 success, 1 done with data loss,
//! 2 nothing done (also `--strict` at the first damage), 130 import
//! interrupted (Ctrl-C; nothing written). A closed output pipe ends quietly.

mod cli;

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::Parser;

fn main() -> ExitCode {
    let args = match cli::argv::default_to_import(std::env::args_os().collect()) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("kt2sql: error: {}", kt2sql::text::vis(e.as_bytes()));
            return ExitCode::from(2);
        }
    };
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            e.exit()
        }
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // `kt2sql` alone: the help, on stderr, exit code 2.
            eprint!("{}", e.render());
            return ExitCode::from(2);
        }
        // clap's own errors get the prefix every other error has.
        Err(e) => {
            eprint!("kt2sql: {}", e.render());
            return ExitCode::from(2);
        }
    };
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
