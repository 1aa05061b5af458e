//! `kt2sql timeline`: the clap arguments and the glue to
//! `kt2sql::report::timeline`, which writes the Chrome Trace Event JSON or
//! the SVG as the rows come.

use std::io::Write;
use std::process::ExitCode;

use kt2sql::report::stats::duration;
use kt2sql::report::timeline::fold::Fold;
use kt2sql::report::{self, timeline};

use super::anyhow_lite::Result;
use super::args::{DbScope, Format, FormatArg, Formats, Output};

/// `kt2sql timeline`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "With -o, the extension chooses the format when --format is not \
given: .svg the picture, .json (or any other) the Chrome JSON."
)]
pub struct TimelineArgs {
    #[command(flatten)]
    pub target: DbScope,
    #[command(flatten)]
    pub format: FormatArg<TimelineFormats>,
    #[command(flatten)]
    pub output: Output,
    /// A slice per system call too, on its thread (chrome format only).
    #[arg(long)]
    pub calls: bool,
    /// With --calls: only calls that took at least DUR; with --format svg:
    /// commands shorter than DUR are folded into summary rows (`250us`,
    /// `1.5ms`, `2s`; a bare number is nanoseconds).
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub min_dur: Option<i64>,
    /// With --format svg: at most N rows; the shortest commands are folded
    /// into summary rows to keep within it [default: 2000, which keeps the
    /// picture under the 32,767 px image tools such as rsvg-convert take].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_rows: Option<u32>,
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
    let format = args.format.with_output(args.output.path.as_deref())?;
    if args.calls && format == Format::Svg {
        return Err("--calls draws on the chrome format only; drop --format svg".into());
    }
    if format == Format::Chrome && args.min_dur.is_some() && !args.calls {
        return Err(
            "--min-dur keeps the calls of --calls, or folds the commands of \
                    --format svg; give one of them"
                .into(),
        );
    }
    if format == Format::Chrome && args.max_rows.is_some() {
        return Err("--max-rows draws on the svg format only; give --format svg".into());
    }
    let conn = report::open(&args.target.db.path)?;
    let opts = timeline::Options {
        scope: args.target.scope(&conn)?,
        calls: args.calls,
        min_dur: args.min_dur,
        max_rows: args.max_rows.map(|n| n as usize),
    };
    // The critical path is walked into a temporary table (the timeline's
    // own SQL).
    let write = |out: &mut dyn Write| match format {
        Format::Chrome => conn
            .in_temp(|c| timeline::chrome::write(c, &opts, out))
            .map(|()| None),
        Format::Svg => conn
            .in_temp(|c| timeline::svg::write(c, &opts, out))
            .map(Some),
        f => unreachable!("timeline takes no --format {}", f.name()),
    };
    let fold = args.output.write(write)?;
    if let Some(fold) = fold {
        say_folded(&fold, args.min_dur, args.max_rows);
    }
    Ok(ExitCode::SUCCESS)
}

/// The notes on stderr about the SVG: what was folded (the picture says
/// it too), and a height past what image tools take.
fn say_folded(fold: &Fold, min_dur: Option<i64>, max_rows: Option<u32>) {
    if fold.folded > 0 {
        let why = if fold.by_budget {
            let budget = max_rows.map_or(timeline::fold::MAX_ROWS, |n| n as usize);
            format!(" to keep within {budget} rows (--max-rows)")
        } else if min_dur.is_some() {
            " (--min-dur)".to_string()
        } else {
            String::new()
        };
        eprintln!(
            "kt2sql: note: {} of {} commands, the shortest (each at most {}), are drawn in the \
             row above them, not in rows of their own{why}; --max-rows N or --min-dur DUR shows \
             more of them, -p PID draws one subtree, --format chrome every command",
            fold.folded,
            fold.commands,
            duration(fold.longest_folded),
        );
    }
    let tall = timeline::svg::height(fold.rows, fold.folded > 0);
    if tall > TALLEST {
        eprintln!(
            "kt2sql: note: the picture is {tall} px tall; rsvg-convert and other image tools \
             refuse pictures over {TALLEST} px (browsers show it)"
        );
    }
}

/// The tallest picture librsvg (rsvg-convert) and most image tools take (px).
const TALLEST: f64 = 32767.0;

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
