//! The floor: how fast SQLite itself takes rows on this machine. Inserts N
//! rows of 8 integer columns (one per trace record, as kt2sql would) into a
//! fresh file: one transaction, one prepared multi-row INSERT of 50 rows,
//! the INTEGER PRIMARY KEY left NULL, bulk pragmas, no indexes, rows produced
//! on a second thread. kt2sql's import time is reported as a ratio to this.
//!
//! `cargo run --release --example floor -- ROWS DB`

use std::sync::mpsc::sync_channel;
use std::time::Instant;

use rusqlite::{params_from_iter, Connection};

const COLS: usize = 8;
const PER_INSERT: usize = 50;
type Row = [i64; COLS];

fn main() {
    let mut args = std::env::args().skip(1);
    let rows: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .expect("usage: floor ROWS DB");
    let db = args.next().expect("usage: floor ROWS DB");
    let _ = std::fs::remove_file(&db);
    let t = Instant::now();
    let conn = Connection::open(&db).expect("open");
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;
         CREATE TABLE r (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c INTEGER, d INTEGER,
                         e INTEGER, f INTEGER, g INTEGER, h INTEGER);",
    )
    .expect("schema");
    // Rows come from a second thread in blocks, as decoded records would.
    let (tx, rx) = sync_channel::<Vec<Row>>(16);
    let producer = std::thread::spawn(move || {
        let mut block = Vec::with_capacity(4096);
        for i in 0..rows as i64 {
            block.push([
                i,
                i * 3,
                1_700_000_000_000_000_000 + i * 1000,
                i & 0xff,
                -1,
                i >> 3,
                42,
                i * 7,
            ]);
            if block.len() == 4096 {
                tx.send(std::mem::replace(&mut block, Vec::with_capacity(4096)))
                    .unwrap();
            }
        }
        tx.send(block).unwrap();
    });
    let one = format!("(NULL{})", ",?".repeat(COLS));
    let multi = format!(
        "INSERT INTO r VALUES {}",
        vec![one.as_str(); PER_INSERT].join(",")
    );
    let single = format!("INSERT INTO r VALUES {one}");
    conn.execute_batch("BEGIN").unwrap();
    {
        let mut m = conn.prepare(&multi).unwrap();
        let mut s = conn.prepare(&single).unwrap();
        let mut pending: Vec<Row> = Vec::with_capacity(PER_INSERT);
        for block in rx {
            for row in block {
                pending.push(row);
                if pending.len() == PER_INSERT {
                    m.execute(params_from_iter(pending.iter().flatten()))
                        .unwrap();
                    pending.clear();
                }
            }
        }
        for row in &pending {
            s.execute(params_from_iter(row.iter())).unwrap();
        }
    }
    conn.execute_batch("COMMIT").unwrap();
    drop(conn);
    producer.join().unwrap();
    let s = t.elapsed().as_secs_f64();
    println!(
        "floor: {rows} rows in {s:.3} s: {:.2} M rows/s",
        rows as f64 / s / 1e6
    );
}
