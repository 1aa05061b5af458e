"""Spark over a kt2sql dataset, against the SQLite databases of the same
traces (one database per trace): reads every table and checks its rows
per trace, then times three build-farm questions, each checked against
SQLite's answer. Run by bench/spark.sh, which installs pyspark.

usage: spark.py DATASET DB...
Prints markdown rows: what was asked, Spark's wall time, the answer.
"""
import sqlite3
import sys
import time

from pyspark.sql import SparkSession


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def timed(label, f):
    t = time.perf_counter()
    out = f()
    dt = time.perf_counter() - t
    return out, f"| {label} | {dt:.2f} s |"


def main(dataset, dbs):
    cons = [sqlite3.connect(db) for db in dbs]
    keys = [c.execute("SELECT fingerprint || '-' || size FROM trace").fetchone()[0] for c in cons]
    spark = (SparkSession.builder.master("local[*]").appName("kt2sql-bench")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.host", "127.0.0.1").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    print(f"Spark {spark.version}, {len(dbs)} traces\n")
    print("| step | Spark wall | answer |")
    print("|---|---|---|")
    tables = [r[0] for r in cons[0].execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' "
        "AND name NOT IN ('meta', '_access_class') ORDER BY name")]

    # Every table, rows per trace against each database.
    def count_all():
        got = {}
        for t in tables:
            df = spark.read.parquet(f"{dataset}/{t}")
            df.createOrReplaceTempView(t)
            got[t] = {r["trace_key"]: r["n"] for r in
                      spark.sql(f"SELECT trace_key, count(*) AS n FROM {t} GROUP BY trace_key").collect()}
        return got
    got, row = timed(f"read {len(tables)} tables, rows per trace", count_all)
    total = 0
    for con, key in zip(cons, keys):
        for t in tables:
            want = con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            if got[t].get(key, 0) != want:
                fail(f"{t} of {key}: Spark counts {got[t].get(key, 0)}, SQLite {want}")
            total += want
    print(f"{row} {total:,} rows, as SQLite |")

    # 1. Which builds read a given file: the file read most in the first build.
    (path,) = cons[0].execute(
        "SELECT p.path FROM namei n JOIN path p ON p.path_id = n.resolved_id "
        "WHERE n.access = 'read' AND p.path LIKE '/%' "
        "GROUP BY p.path ORDER BY count(*) DESC, p.path LIMIT 1").fetchone()
    q1 = spark.sql(
        "SELECT n.trace_key, count(*) AS reads FROM namei n JOIN path p "
        "ON p.trace_key = n.trace_key AND p.path_id = n.resolved_id "
        "WHERE n.access = 'read' AND p.path = :path GROUP BY n.trace_key",
        args={"path": path})
    rows, row = timed(f"builds that read `{path}`", q1.collect)
    spark_reads = {r["trace_key"]: r["reads"] for r in rows}
    want = {}
    for con, key in zip(cons, keys):
        (n,) = con.execute(
            "SELECT count(*) FROM namei n JOIN path p ON p.path_id = n.resolved_id "
            "WHERE n.access = 'read' AND p.path = ?", (path,)).fetchone()
        if n:
            want[key] = n
    if spark_reads != want:
        fail(f"reads of {path}: Spark {spark_reads}, SQLite {want}")
    print(f"{row} {len(want)} builds, {sum(want.values()):,} reads, as SQLite |")

    # 2. The slowest commands across builds (the `command` view's own time).
    q2 = spark.sql("""
        WITH i AS (
          SELECT e.trace_key, e.exec_id, e.process_id, e.seq, e.comm,
                 CASE WHEN e.image = 0 THEN p.first_ts ELSE e.ts END AS start_ts
          FROM exec e JOIN process p USING (trace_key, process_id)
          WHERE e.success = 1)
        SELECT i.trace_key, i.exec_id, i.comm,
               COALESCE(lead(i.start_ts) OVER (PARTITION BY i.trace_key, i.process_id
                                               ORDER BY i.seq), p.last_ts) - i.start_ts AS dur
        FROM i JOIN process p USING (trace_key, process_id)
        ORDER BY dur DESC, trace_key, exec_id LIMIT 10""")
    rows, row = timed("the 10 slowest commands across builds", q2.collect)
    spark_slow = [(r["trace_key"], r["exec_id"], r["dur"]) for r in rows]
    want = sorted(((key, cid, dur) for con, key in zip(cons, keys)
                   for cid, dur in con.execute(
                       "SELECT command_id, dur FROM command ORDER BY dur DESC LIMIT 10")),
                  key=lambda r: (-r[2], r[0], r[1]))[:10]
    if spark_slow != want:
        fail(f"slowest commands: Spark {spark_slow}, SQLite {want}")
    print(f"{row} longest {spark_slow[0][2] / 1e6:.1f} ms (`{rows[0]['comm']}`), as SQLite |")

    # 3. Every compile of a source: the file compiled most often (`-c`).
    src = None
    for con in cons:
        src = con.execute(
            "SELECT j.value FROM exec e, json_each(e.argv) j "
            "WHERE e.success = 1 AND json_valid(e.argv) AND e.argv LIKE '%\"-c\"%' "
            "AND j.value LIKE '%.c' GROUP BY j.value ORDER BY count(*) DESC, j.value LIMIT 1"
        ).fetchone()
        if src:
            src = src[0]
            break
    if src is None:
        print("| every compile of a source | - | no trace records argv |")
    else:
        q3 = spark.sql(
            "SELECT trace_key, exec_id FROM exec WHERE success = 1 AND argv LIKE '%\"-c\"%' "
            "AND array_contains(from_json(argv, 'array<string>'), :src)", args={"src": src})
        rows, row = timed(f"every compile of `{src}`", q3.collect)
        want = sum(con.execute(
            "SELECT count(*) FROM exec e WHERE e.success = 1 AND json_valid(e.argv) "
            "AND e.argv LIKE '%\"-c\"%' AND EXISTS (SELECT 1 FROM json_each(e.argv) j "
            "WHERE j.value = ?)", (src,)).fetchone()[0] for con in cons)
        if len(rows) != want:
            fail(f"compiles of {src}: Spark {len(rows)}, SQLite {want}")
        print(f"{row} {want} compiles in {len({r['trace_key'] for r in rows})} builds, as SQLite |")
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
