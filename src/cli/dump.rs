//! `kt2sql dump`: decode a trace and print it, or summarise it with `--info`.

use std::io::{self, Write};
use std::process::ExitCode;

use kt2sql::decode::Decoder;
use kt2sql::dump::{self, DumpOptions, Format};

use super::anyhow_lite::Result;
use super::{DumpArgs, DumpFormat};

pub fn run(args: DumpArgs) -> Result<ExitCode> {
    let mut dec = Decoder::open(&args.trace, args.dialect)?;
    // Shown escaped, never raw.
    let path = kt2sql::text::path(&args.trace);
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let err = if args.info {
        let info = dump::info(&mut dec);
        let size = match std::fs::metadata(&args.trace) {
            Ok(m) if m.is_file() => m.len(),
            _ => info.bytes, // a pipe: what it held
        };
        out.write_all(dump::info_text(&dec, &info, &path, size).as_bytes())?;
        info.error
    } else {
        let opts = DumpOptions {
            format: match args.format {
                DumpFormat::Text => Format::Text,
                DumpFormat::Jsonl => Format::Jsonl,
            },
            pids: args.pid,
            types: args.types.iter().map(|t| t.trim().to_uppercase()).collect(),
        };
        dump::dump(&mut dec, &mut out, &opts)?
    };
    out.flush()?;
    match err {
        None => Ok(ExitCode::SUCCESS),
        Some(e) => {
            eprintln!("kt2sql: warning: {path}: {e}");
            Ok(ExitCode::from(1))
        }
    }
}
