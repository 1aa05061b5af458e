//! The command line before clap sees it: `kt2sql TRACE... DB` means
//! `kt2sql import TRACE... DB`, unless the first word is a mistyped command
//! (`stat`, `trees`) that names no file, which gets a `did you mean` error
//! instead of an import of a file called `stat`; a first word that names
//! no file and is alone (`kt2sql bogus`) or looks like no file name (no
//! `.` or `/`) is said to be neither a file nor a command.

use std::ffi::OsString;
use std::path::Path;

use clap::CommandFactory;

/// `kt2sql [OPTIONS] TRACE... DB` means `kt2sql import [OPTIONS] TRACE... DB`:
/// insert `import` when the first argument is neither a subcommand name or
/// alias (taken from the clap definition, `help` included) nor a top-level
/// flag (`-h`, `--help`, `-V`, `--version`). Refused, with the command it
/// resembles, when that first word names no file and is one or two edits
/// from a command name; refused too when it names no file and is the only
/// argument or a bare word (letters, digits, `-`, `_`). `-` (standard
/// input) is a trace.
pub fn default_to_import(mut args: Vec<OsString>) -> Result<Vec<OsString>, String> {
    let Some(first) = args.get(1) else {
        return Ok(args);
    };
    if ["-h", "--help", "-V", "--version"]
        .iter()
        .any(|f| first == f)
    {
        return Ok(args);
    }
    let mut cmd = super::Cli::command();
    cmd.build();
    let names: Vec<String> = cmd
        .get_subcommands()
        .flat_map(|s| {
            std::iter::once(s.get_name().to_owned()).chain(s.get_all_aliases().map(str::to_owned))
        })
        .collect();
    if names.iter().any(|n| first == n.as_str()) {
        return Ok(args);
    }
    if let Some(word) = first.to_str() {
        if !word.starts_with('-') && !Path::new(word).exists() {
            if let Some(near) = closest(word, &names) {
                return Err(format!(
                    "{word}: no such file, and not a command; did you mean '{near}'?"
                ));
            }
            let bare = word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if args.len() == 2 || bare {
                return Err(format!(
                    "{word}: no such file, and not a command (kt2sql --help lists the commands)"
                ));
            }
        }
    }
    args.insert(1, "import".into());
    Ok(args)
}

/// The name (of a command, query or schema object) `word` is a mistyping of: at most two edits away
/// (one for words of three letters or fewer), the nearest first.
pub(super) fn closest<'a>(word: &str, names: &'a [String]) -> Option<&'a str> {
    let limit = if word.chars().count() <= 3 { 1 } else { 2 };
    names
        .iter()
        .map(|n| (strsim::levenshtein(word, n), n))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, n)| n.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Vec<String>, String> {
        let v = args.iter().map(OsString::from).collect();
        default_to_import(v).map(|v| v.into_iter().map(|s| s.into_string().unwrap()).collect())
    }

    #[test]
    fn a_trace_first_means_import() {
        let got = run(&["kt2sql", "no-such.ktrace", "x.db"]).unwrap();
        assert_eq!(got, ["kt2sql", "import", "no-such.ktrace", "x.db"]);
        let got = run(&["kt2sql", "stats", "x.db"]).unwrap();
        assert_eq!(got, ["kt2sql", "stats", "x.db"]);
    }

    #[test]
    fn a_mistyped_command_is_named() {
        let e = run(&["kt2sql", "stat", "x.db"]).unwrap_err();
        assert!(e.contains("did you mean 'stats'?"), "{e}");
        let e = run(&["kt2sql", "trees", "x.db"]).unwrap_err();
        assert!(e.contains("did you mean 'tree'?"), "{e}");
        let e = run(&["kt2sql", "sq", "x.db"]).unwrap_err();
        assert!(e.contains("did you mean 'sql'?"), "{e}");
    }

    #[test]
    fn a_far_word_is_a_trace() {
        let got = run(&["kt2sql", "ktrace.out", "x.db"]).unwrap();
        assert_eq!(got[1], "import");
        let got = run(&["kt2sql", "-", "x.db"]).unwrap();
        assert_eq!(got, ["kt2sql", "import", "-", "x.db"]);
    }

    #[test]
    fn a_lone_or_bare_word_that_names_no_file_is_neither() {
        for args in [
            &["kt2sql", "bogus"][..],
            &["kt2sql", "bogus", "x.db"],
            &["kt2sql", "no-such.ktrace"],
        ] {
            let e = run(args).unwrap_err();
            assert_eq!(
                e,
                format!(
                    "{}: no such file, and not a command (kt2sql --help lists the commands)",
                    args[1]
                )
            );
        }
    }
}
