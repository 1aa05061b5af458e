//! Decode a trace and count its records: the decoder's own speed, without
//! any output or model. `cargo run --release --example decode_count -- FILE`
fn main() {
    let path = std::env::args().nth(1).expect("usage: decode_count TRACE");
    let t = std::time::Instant::now();
    let mut dec = kt2sql::decode::Decoder::open(path.as_ref(), None).expect("open");
    let mut n = 0u64;
    while let Some(_r) = dec.next_record().expect("decode") {
        n += 1;
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "{n} records, {} bytes in {s:.3} s: {:.1} M records/s, {:.0} MB/s",
        dec.offset(),
        n as f64 / s / 1e6,
        dec.offset() as f64 / s / 1e6
    );
}
