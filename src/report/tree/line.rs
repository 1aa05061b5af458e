//! What a node's line of the tree says: its label (`make [117]`, the
//! lifetime of a reused pid, `(running)`) and what `--long` adds (duration,
//! how it ended, argv).

use super::{Long, LongRow, Node};
use crate::decode::Abi;
use crate::report::compile_commands::words;
use crate::report::stats::duration;
use crate::text::vis;

/// The `--long` columns of a row of tree.sql.
pub(super) fn long_of(r: LongRow<'_>) -> Long {
    Long {
        argv: words(r.argv).flatten(),
        start_ts: r.start_ts.unwrap_or(0),
        dur: r.dur.unwrap_or(0),
        exit_status: r.exit_status,
        exit_signal: r.exit_signal,
        last: false,
    }
}

/// What `--long` adds to an image's line: ` (1.650 ms, exit 0) make -j4`:
/// its duration, how it ended (`exec` for an image another replaced,
/// `exit N`, `signal N NAME`, `exit ?` when the trace does not say), and
/// its argv where the trace records it, else its name.
pub(super) fn long_text(n: &Node, l: &Long, abi: Option<Abi>) -> String {
    let end = match (l.last, l.exit_status, l.exit_signal) {
        (false, _, _) => "exec".to_string(),
        (true, _, Some(sig)) => {
            match abi.and_then(|a| crate::names::signal_name(a.name_table(), sig)) {
                Some(name) => format!("signal {sig} {name}"),
                None => format!("signal {sig}"),
            }
        }
        (true, Some(st), None) => format!("exit {st}"),
        (true, None, None) => "exit ?".to_string(),
    };
    let line = match &l.argv {
        Some(w) if !w.is_empty() => w.iter().map(|a| vis(a)).collect::<Vec<_>>().join(" "),
        _ => vis(&n.comm).into_owned(),
    };
    match n.running {
        true => format!(" ({} so far) {line}", duration(l.dur)),
        false => format!(" ({}, {end}) {line}", duration(l.dur)),
    }
}

/// `make [117]`, and `make [117] (lifetime 2 of 3)` for the second of three
/// processes the kernel gave the `-p` pid.
pub(super) fn label(n: &Node) -> String {
    let running = if n.running { " (running)" } else { "" };
    match n.lifetime {
        Some((k, of)) => format!(
            "{} [{}] (lifetime {k} of {of}){running}",
            vis(&n.comm),
            n.pid
        ),
        None => format!("{} [{}]{running}", vis(&n.comm), n.pid),
    }
}
