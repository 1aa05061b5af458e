//! The import's last step alone: ordering a database's process tree
//! (table `tree_node`), in memory or by SQLite's sorter, timed. Reorders
//! every trace of DB inside a transaction that is rolled back, so DB is
//! left as it was; run it under `/usr/bin/time -f %M` for its memory.
//!
//! `cargo run --release --example tree_order -- DB IN_MEMORY_PROCESSES`
//! (0 makes every trace take the sorter's path).

use std::time::Instant;

use rusqlite::Connection;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, db, in_memory] = &args[..] else {
        eprintln!("usage: tree_order DB IN_MEMORY_PROCESSES");
        std::process::exit(2);
    };
    let in_memory: i64 = in_memory.parse().expect("a count of processes");
    let conn = Connection::open(db).expect("the database opens");
    conn.pragma_update(None, "cache_size", kt2sql::schema::WRITER_CACHE_SIZE)
        .unwrap();
    conn.execute_batch("BEGIN; DELETE FROM tree_node;").unwrap();
    let t0 = Instant::now();
    let held = kt2sql::load::tree_order::write_tree_order_with(&conn, in_memory).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    let nodes: i64 = conn
        .query_row("SELECT count(*) FROM tree_node", [], |r| r.get(0))
        .unwrap();
    conn.execute_batch("ROLLBACK").unwrap();
    println!("{secs:.3} s, {nodes} nodes, {held} held by the sorter's path");
}
