//! The `kt2sql` binary: parse the command line, run it, print errors as one
//! `kt2sql: error: …` line. Exit codes: 0 success, 1 done with data loss,
//! 2 nothing done. A closed output pipe ends quietly.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(e.as_ref()) => ExitCode::SUCCESS,
        Err(e) => {
            // kt2sql's errors already carry their cause in their message.
            eprintln!("kt2sql: error: {e}");
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
