//! `kt2sql timeline`: the clap arguments and the glue to
//! `kt2sql::report::timeline`, which writes the Chrome Trace Event JSON or
//! the SVG as the rows come.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use kt2sql::report::{self, timeline};
use kt2sql::Error;

use super::anyhow_lite::Result;
use super::args::{scope, Db, Format, FormatArg, Formats, Subtree, Trace};

/// `kt2sql timeline`.
#[derive(Debug, clap::Args)]
pub struct TimelineArgs {
    #[command(flatten)]
    pub db: Db,
    #[command(flatten)]
    pub trace: Trace,
    #[command(flatten)]
    pub subtree: Subtree,
    #[command(flatten)]
    pub format: FormatArg<TimelineFormats>,
    /// Write to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A slice per system call too, on its thread (chrome format only).
    #[arg(long)]
    pub calls: bool,
    /// With --calls: only calls that took at least DUR (`250us`, `1.5ms`,
    /// `2s`; a bare number is nanoseconds).
    #[arg(long, value_name = "DUR", requires = "calls", value_parser = parse_duration)]
    pub min_dur: Option<i64>,
}

/// `timeline --format`.
#[derive(Debug)]
pub enum TimelineFormats {}

impl Formats for TimelineFormats {
    const TAKES: &'static [Format] = &[Format::Chrome, Format::Svg];
}

/// `250us` → 250000 (ns).
fn parse_duration(s: &str) -> std::result::Result<i64, String> {
    let t = s.trim();
    let at = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(at);
    let scale = match unit.trim() {
        "" | "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        other => return Err(format!("unknown unit {other:?}: use ns, us, ms or s")),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a duration such as 250us or 1.5ms"))?;
    Ok((v * scale).round() as i64)
}

/// Run `kt2sql timeline`.
pub fn run(args: TimelineArgs) -> Result<ExitCode> {
    let format = args.format.format;
    if args.calls && format == Format::Svg {
        return Err("--calls draws on the chrome format only; drop --format svg".into());
    }
    let conn = report::open(&args.db.path)?;
    let opts = timeline::Options {
        scope: scope(&conn, &args.db, args.trace, args.subtree)?,
        calls: args.calls,
        min_dur: args.min_dur,
    };
    let write = |out: &mut dyn Write| match format {
        Format::Chrome => timeline::chrome::write(&conn, &opts, out),
        Format::Svg => timeline::svg::write(&conn, &opts, out),
        f => unreachable!("timeline takes no --format {}", f.name()),
    };
    match &args.output {
        None => {
            let stdout = io::stdout();
            let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
            write(&mut out)?;
            out.flush()?;
        }
        Some(path) => {
            let io_err = |source| Error::Io {
                path: path.clone(),
                source,
            };
            let mut out = BufWriter::with_capacity(1 << 16, File::create(path).map_err(io_err)?);
            write(&mut out).map_err(|e| match e {
                Error::Io { source, .. } => io_err(source),
                e => e,
            })?;
            out.flush().map_err(io_err)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn durations_take_units() {
        assert_eq!(parse_duration("250us"), Ok(250_000));
        assert_eq!(parse_duration("1.5ms"), Ok(1_500_000));
        assert_eq!(parse_duration("2s"), Ok(2_000_000_000));
        assert_eq!(parse_duration("40"), Ok(40));
        assert!(parse_duration("3 weeks").is_err());
        assert!(parse_duration("ms").is_err());
    }
}
