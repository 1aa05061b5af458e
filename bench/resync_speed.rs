//! How fast resynchronisation crosses a damaged stretch (issue #13): a
//! trace repeated to about `TOTAL_MIB`, with `DAMAGE_MIB` of zeros or
//! pseudo-random garbage inserted at a record boundary in the middle,
//! walked the way `kt2sql import` walks a file (every record, and after an
//! error a resynchronisation on runs of 4 records). Prints the time of the
//! clean and the damaged walk, the throughput through the damage, and the
//! peak resident memory (VmHWM) of each walk's process.
//!
//! `cargo run --release --example resync_speed -- TRACE TOTAL_MIB DAMAGE_MIB zeros|garbage [clean]`
//! (DAMAGE_MIB whole MiB)
//! (`clean` walks the file without the damage; run it as a separate
//! process so each peak is its own).

use std::io::Write;
use std::time::Instant;

use kt2sql::decode::Decoder;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: resync_speed TRACE TOTAL_MIB DAMAGE_MIB zeros|garbage [clean]";
    let [_, trace, total, damage, kind, rest @ ..] = &args[..] else {
        panic!("{usage}");
    };
    let clean = rest.first().is_some_and(|a| a == "clean");
    let one = std::fs::read(trace).expect("read the trace");
    let total: usize = total.parse::<usize>().expect(usage) << 20;
    let damage: usize = damage.parse::<usize>().expect(usage) << 20;
    // The trace cut to its records (no partial tail), repeated.
    let body = &one[..records_end(&one)];
    let copies = total.div_ceil(body.len()).max(2);
    let dir = std::env::temp_dir().join(format!("kt2sql-resync-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("damaged.out");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        for i in 0..copies {
            if i == copies / 2 && !clean {
                // In 1 MiB pieces, so the peak below is the walk's own.
                let mut seed = 0x9e37_79b9_7f4a_7c15u64;
                for _ in 0..damage >> 20 {
                    f.write_all(&stretch(1 << 20, kind == "zeros", &mut seed))
                        .unwrap();
                }
            }
            f.write_all(body).unwrap();
        }
    }
    let size = std::fs::metadata(&path).unwrap().len();
    let t = Instant::now();
    let cpu0 = cpu_seconds();
    let (records, skipped) = walk(&path);
    let s = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    println!(
        "{} {kind}: {:.0} MiB file, {records} records, {skipped} bytes skipped, \
         {s:.2} s ({cpu:.2} s of CPU), peak RSS {} MB",
        if clean { "clean" } else { "damaged" },
        size as f64 / (1 << 20) as f64,
        peak_kib() >> 10
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Where the last complete record of `b` ends.
fn records_end(b: &[u8]) -> usize {
    let mut d = Decoder::new(b, None, Some(b.len() as u64)).expect("a trace");
    while let Ok(Some(_)) = d.next_record() {}
    d.offset() as usize
}

/// `n` bytes of zeros or xorshift garbage (continuing from `s`).
fn stretch(n: usize, zeros: bool, s: &mut u64) -> Vec<u8> {
    if zeros {
        return vec![0; n];
    }
    (0..n)
        .map(|_| {
            *s ^= *s << 13;
            *s ^= *s >> 7;
            *s ^= *s << 17;
            *s as u8
        })
        .collect()
}

/// Every record, resynchronising after each error: (records, bytes skipped).
fn walk(path: &std::path::Path) -> (u64, u64) {
    let mut d = Decoder::open(path, None).expect("open");
    let (mut records, mut skipped) = (0u64, 0u64);
    loop {
        let at = match d.next_record() {
            Ok(Some(_)) => {
                records += 1;
                continue;
            }
            Ok(None) => return (records, skipped),
            Err(e) => e.offset,
        };
        match d.resync(at, 4, &|_| true) {
            Some(to) => skipped += to - at,
            None => return (records, skipped),
        }
    }
}

/// User and system CPU time of this process so far, in seconds (the
/// machine may be shared: wall time alone would measure the neighbours).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // utime and stime are fields 14 and 15 (12 and 13 after the name), in
    // clock ticks of 1/100 s on Linux.
    (f.get(11).unwrap_or(&0.0) + f.get(12).unwrap_or(&0.0)) / 100.0
}

/// Peak resident set size of this process, in KiB (0 where unknown).
fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}
