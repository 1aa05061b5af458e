//! The README's examples are what kt2sql prints: every `$ kt2sql …` line
//! of a code block that works on the example trace (`example/build.ktrace`,
//! imported as `/tmp/example.db`) is run in order, in a shell, in a
//! temporary directory standing for /tmp, and its output (standard output,
//! then standard error) is compared with the lines the README shows under
//! it. Times (`in 0.06s`) are the one thing not compared.

use std::path::Path;

use crate::util::manifest_dir;

/// One example: the command line and the lines shown under it.
struct Example {
    command: String,
    shown: Vec<String>,
}

/// The examples of `text` on the example trace, in order.
fn examples(text: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_block = false;
    // Whether the lines that follow belong to the last example.
    let mut taking = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            taking = false;
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            taking = cmd.starts_with("kt2sql ")
                && (cmd.contains("/tmp/example") || cmd.contains("example/build.ktrace"));
            if taking {
                out.push(Example {
                    command: cmd.to_string(),
                    shown: Vec::new(),
                });
            }
        } else if taking {
            out.last_mut().unwrap().shown.push(line.to_string());
        }
    }
    out
}

/// `in 0.06s` → `in …s`: the one part of a line that changes run to run.
fn untimed(line: &str) -> String {
    let mut s = line.to_string();
    if let Some(at) = s.rfind(" in ") {
        let rest = &s[at + 4..];
        if rest.ends_with('s') && rest[..rest.len() - 1].parse::<f64>().is_ok() {
            s.truncate(at);
            s.push_str(" in …s");
        }
    }
    s
}

#[test]
fn readme_examples_print_what_the_readme_shows() {
    let readme = std::fs::read_to_string(manifest_dir().join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 15, "{} examples", examples.len());
    assert!(
        examples[0]
            .command
            .starts_with("kt2sql example/build.ktrace /tmp/example.db"),
        "the first example imports the example trace: {}",
        examples[0].command
    );
    let tmp = tempfile::tempdir().unwrap();
    let tmp_dir = tmp.path().to_str().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("kt2sql");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let trace = manifest_dir().join("example/build.ktrace");
    let here = |s: &str| {
        s.replace("/tmp/example", &format!("{tmp_dir}/example"))
            .replace("example/build.ktrace", trace.to_str().unwrap())
    };
    let mut failed = Vec::new();
    for e in &examples {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(here(&e.command))
            .current_dir(tmp.path())
            .env("PATH", &path)
            .env("COLUMNS", "100")
            .output()
            .unwrap();
        let mut got: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(String::from)
            .collect();
        got.extend(
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .map(String::from),
        );
        let got: Vec<String> = got
            .iter()
            .map(|l| untimed(&l.replace(tmp_dir, "/tmp")))
            .collect();
        let shown: Vec<String> = e.shown.iter().map(|l| untimed(l)).collect();
        if got != shown {
            failed.push(format!(
                "$ {}\nREADME shows:\n{}\nkt2sql prints:\n{}\n",
                e.command,
                shown.join("\n"),
                got.join("\n")
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    // What the examples wrote is there: the timeline files, the dataset.
    for f in ["build.json", "build.svg", "example-dataset/dataset.json"] {
        assert!(Path::new(tmp_dir).join(f).exists(), "{f}");
    }
}
