//! Decode a trace and run the process model into a sink that only counts:
//! the import's cost without SQLite. `cargo run --release --example model_only -- FILE`
use std::convert::Infallible;

use kt2sql::decode::Decoder;
use kt2sql::process::*;

#[derive(Default)]
struct Count(u64);

impl Sink for Count {
    type Error = Infallible;
    fn process(&mut self, _: &ProcessRow) -> Result<(), Infallible> {
        self.0 += 1;
        Ok(())
    }
    fn thread(&mut self, _: &ThreadRow) -> Result<(), Infallible> {
        self.0 += 1;
        Ok(())
    }
    fn exec(&mut self, _: &ExecRow<'_>) -> Result<(), Infallible> {
        self.0 += 1;
        Ok(())
    }
    fn call(&mut self, _: &CallRow<'_>) -> Result<(), Infallible> {
        self.0 += 1;
        Ok(())
    }
    fn namei(&mut self, _: &NameiRow<'_>) -> Result<(), Infallible> {
        self.0 += 1;
        Ok(())
    }
    fn event(&mut self, _: &EventRow<'_>) -> Result<(), Infallible> {
        self.0 += 1;
        Ok(())
    }
    fn issue(&mut self, _: &IssueRow) -> Result<(), Infallible> {
        self.0 += 1;
        Ok(())
    }
    fn syscall_stat(&mut self, _: &SyscallStatRow) -> Result<(), Infallible> {
        self.0 += 1;
        Ok(())
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: model_only TRACE");
    let t = std::time::Instant::now();
    let mut dec = Decoder::open(path.as_ref(), None).expect("open");
    let mut model = Model::new(dec.abi(), ModelOptions::default());
    let mut sink = Count::default();
    while let Some(r) = dec.next_record().expect("decode") {
        model.record(&r, &mut sink).unwrap();
    }
    let totals = model.finish(&mut sink).unwrap();
    let s = t.elapsed().as_secs_f64();
    println!(
        "{} records -> {} rows in {s:.3} s: {:.2} M records/s",
        totals.records,
        sink.0,
        totals.records as f64 / s / 1e6
    );
}
