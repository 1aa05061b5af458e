//! `kt2sql dump`: decode a trace and print it as kdump(1) would (its
//! options, [`DumpArgs`]), follow a growing one (`-l`), or summarise it
//! with `--info`.

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use kt2sql::decode::{Abi, DecodeErrorKind, Decoder};
use kt2sql::dump::follow::{self, Follow};
use kt2sql::dump::text::TextOptions;
use kt2sql::dump::{self, points, DumpOptions, Format};

use super::anyhow_lite::Result;
use super::args;
use super::hint;

/// `kt2sql dump`: kdump(1)'s options with kdump's meanings.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "TRSTR is ktrace's letters (c calls and returns, n namei, i I/O, \
s signals, u utrace, w context switches, t structs, x (OpenBSD) or a (NetBSD) exec arguments, \
X (OpenBSD) or v (NetBSD) exec environment, e emulation, f page faults, p capability/pledge failures, y sysctl, + the default set) or type names \
(CALL,RET,NAMI,...). Ctrl-C ends -l."
)]
pub struct DumpArgs {
    /// The ktrace.out file (the same as -f); - is standard input.
    pub trace: Option<PathBuf>,
    /// The ktrace.out file [default: ktrace.out]; - is standard input.
    #[arg(short = 'f', value_name = "FILE")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub format: args::FormatArg<DumpFormats>,
    /// Numbers in decimal instead of hex.
    #[arg(short = 'd')]
    pub decimal: bool,
    /// Time since the first record, before the type.
    #[arg(short = 'E')]
    pub elapsed: bool,
    /// A thread id column after the pid.
    #[arg(short = 'H')]
    pub threads: bool,
    /// Keep reading the file as it grows (until Ctrl-C).
    #[arg(short = 'l')]
    pub follow: bool,
    /// Show at most MAX bytes of each I/O record's data.
    #[arg(short = 'm', value_name = "MAX")]
    pub max_data: Option<usize>,
    /// No translations: flags, modes and errno as bare numbers.
    #[arg(short = 'n')]
    pub raw: bool,
    /// Only records whose pid or tid is N (repeatable, or comma-separated).
    #[arg(long, short = 'p', value_name = "N", value_delimiter = ',')]
    pub pid: Vec<i64>,
    /// Time since the previous record, before the type.
    #[arg(short = 'R')]
    pub relative: bool,
    /// No I/O data.
    #[arg(short = 's')]
    pub no_data: bool,
    /// The syscall number after its name: open[5].
    #[arg(short = 'S')]
    pub syscall_numbers: bool,
    /// Absolute time of each record, before the type.
    #[arg(short = 'T')]
    pub absolute: bool,
    /// Only these trace points: ktrace's letters (-t cn) or type names
    /// (-t CALL,RET); see below.
    #[arg(long = "type", short = 't', value_name = "TRSTR")]
    pub types: Vec<String>,
    /// Summarise the file instead: dialect, header version, word size,
    /// byte order, records by type, time span.
    #[arg(long)]
    pub info: bool,
    /// Decode as this dialect instead of detecting it, e.g. freebsd-v0:le:32
    /// (LAYOUT:ORDER:BITS[:VARIANT]).
    #[arg(long, value_name = "ABI")]
    pub dialect: Option<Abi>,
}

/// `dump --format`.
#[derive(Debug)]
pub enum DumpFormats {}

impl args::Formats for DumpFormats {
    const TAKES: &'static [args::Format] = &[args::Format::Text, args::Format::Jsonl];
    const HELP: &'static str = "Output format (text: kdump's columns)";
}

/// Run `kt2sql dump`.
pub fn run(args: DumpArgs) -> Result<ExitCode> {
    let trace = trace_path(&args)?;
    let opts = options(&args)?;
    // Shown escaped, never raw.
    let path = kt2sql::text::path(&trace);
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut stopped = None;
    let err = if args.follow && !args.info {
        let file = File::open(&trace).map_err(|e| format!("{path}: {e}"))?;
        let follow = Follow::new(file);
        let (start, stop) = (follow.following(), follow.stop());
        let on_signal = stop.clone();
        ctrlc::set_handler(move || on_signal.store(true, Ordering::SeqCst))
            .map_err(|e| format!("cannot catch Ctrl-C: {e}"))?;
        // As kdump -l: an empty or just-begun file is waited for.
        if !follow::wait_for_start(&trace, args.dialect, &stop)
            .map_err(|e| format!("{path}: {e}"))?
        {
            return Ok(ExitCode::SUCCESS);
        }
        let mut dec = Decoder::new(follow, args.dialect, None).map_err(|source| {
            hint::explain(kt2sql::Error::Decode {
                path: trace.clone(),
                source,
            })
        })?;
        start.store(true, Ordering::SeqCst);
        dec.rearm();
        stopped = Some(stop);
        dump::dump(&mut dec, &mut out, &opts)?
    } else {
        let mut dec = Decoder::open(&trace, args.dialect).map_err(hint::explain)?;
        if args.info {
            let info = dump::info(&mut dec);
            let size = match std::fs::metadata(&trace) {
                Ok(m) if m.is_file() => m.len(),
                _ => info.bytes, // a pipe: what it held
            };
            let text = match opts.format {
                Format::Jsonl => dump::info_json(&dec, &info, &path, size),
                Format::Text => dump::info_text(&dec, &info, &path, size),
            };
            out.write_all(text.as_bytes())?;
            info.error
        } else {
            dump::dump(&mut dec, &mut out, &opts)?
        }
    };
    out.flush()?;
    match err {
        // Ctrl-C while a record was still being written: not damage.
        Some(e)
            if matches!(e.kind, DecodeErrorKind::Truncated { .. })
                && stopped.is_some_and(|s| s.load(Ordering::SeqCst)) =>
        {
            Ok(ExitCode::SUCCESS)
        }
        None => Ok(ExitCode::SUCCESS),
        Some(e) => {
            eprintln!("kt2sql: warning: {path}: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

/// `-f FILE` or the positional TRACE (not both), else kdump's `ktrace.out`;
/// `-` is standard input.
fn trace_path(args: &DumpArgs) -> Result<PathBuf> {
    match (&args.trace, &args.file) {
        (Some(a), Some(b)) if a != b => Err(format!(
            "two traces given ({} and -f {}): dump reads one",
            kt2sql::text::path(a),
            kt2sql::text::path(b)
        )
        .into()),
        (Some(p), _) | (None, Some(p)) => args::trace_input(p),
        (None, None) => Ok(PathBuf::from("ktrace.out")),
    }
}

fn options(args: &DumpArgs) -> Result<DumpOptions> {
    let types = if args.types.is_empty() {
        None
    } else {
        let mut all = Vec::new();
        for t in &args.types {
            all.extend(points::parse(t)?);
        }
        Some(all)
    };
    Ok(DumpOptions {
        format: match args.format.format {
            args::Format::Text => Format::Text,
            args::Format::Jsonl => Format::Jsonl,
            f => unreachable!("dump takes no --format {}", f.name()),
        },
        pids: args.pid.clone(),
        types,
        text: TextOptions {
            threads: args.threads,
            absolute: args.absolute,
            elapsed: args.elapsed,
            relative: args.relative,
            decimal: args.decimal,
            raw: args.raw,
            syscall_numbers: args.syscall_numbers,
            no_data: args.no_data,
            max_data: args.max_data.unwrap_or(0),
        },
        flush_each: args.follow,
    })
}
