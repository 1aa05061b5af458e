"""Three build-farm questions over N builds, asked of a kt2sql dataset by
DuckDB (one query over every build, through DIR/duckdb.sql), by Spark
(local[2], one query over every build, through DIR/spark.sql and
DIR/spark/NAME.sql; when pyspark is installed) and of each build's SQLite
database in turn (times summed), with the answers checked against each
other:

  commands     every command of every build (per build, in order);
  syscall-top  the farm's syscall histogram (SQLite: each database's
               histogram, summed per syscall);
  build-time   each build's wall time, summed time and parallelism.

usage: farm.py QUERIES DATASET DB...   (prints a markdown table)
"""
import decimal
import os
import sqlite3
import sys
import time

import duckdb

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "dataset"))
from answers import spark_session, statements  # noqa: E402 (the dataset's scripts split as the tests split them)

SPAN = 1 << 40
QUERIES = ("commands", "syscall_top", "build_time")


def params(names):
    return {n: None for n in names}


def run_duckdb(dd, dataset, name):
    sql = open(os.path.join(dataset, "duckdb", name + ".sql")).read()
    names = ["trace", "pid", "limit"]
    used = {n: None for n in names if "$" + n in sql}
    t = time.perf_counter()
    cur = dd.execute(sql, used)
    cols = [d[0] for d in cur.description]
    rows = cur.fetchall()
    return time.perf_counter() - t, cols, rows


class Spark:
    """One local[2] session over the dataset: the views defined, nothing
    cached (each question reads the Parquet files)."""

    def __init__(self, dataset):
        here = os.getcwd()
        os.chdir(dataset)
        t = time.perf_counter()
        self.spark = spark_session("kt2sql-farm")
        for st in statements(open("spark.sql").read()):
            self.spark.sql(st)
        self.setup = time.perf_counter() - t
        self.version = self.spark.version
        self.dataset = dataset
        os.chdir(here)

    def run(self, name):
        sql = open(os.path.join(self.dataset, "spark", name + ".sql")).read()
        used = {n: None for n in ("trace", "pid", "limit") if ":" + n in sql}
        t = time.perf_counter()
        df = self.spark.sql(sql, args=used)
        rows = [tuple(r) for r in df.collect()]
        return time.perf_counter() - t, df.columns, rows


def run_sqlite(queries, dbs, name):
    sql = open(os.path.join(queries, name + ".sql")).read()
    used = {n: None for n in ("trace", "pid", "limit") if "$" + n in sql}
    answers, spent = {}, 0.0
    for db in dbs:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        key = con.execute("SELECT fingerprint || '-' || size FROM trace").fetchone()[0]
        t = time.perf_counter()
        cur = con.execute(sql, used)
        cols = [d[0] for d in cur.description]
        answers[key] = (cols, cur.fetchall())
        spent += time.perf_counter() - t
        con.close()
    return spent, answers


def local(row, cols):
    """A row without its ids (they are the dataset's, offset per trace)."""
    # (Spark gives a ratio as a DECIMAL, Python's Decimal.)
    return tuple(round(float(v), 6) if isinstance(v, (float, decimal.Decimal)) else v
                 for v, c in zip(row, cols) if not c.endswith("_id"))


def check(name, dcols, drows, answers, key_of_base):
    if name == "syscall_top":
        want = {}
        for cols, rows in answers.values():
            for syscall, calls, failed, total, peak in rows:
                w = want.setdefault(syscall, [0, 0, 0, 0])
                w[0] += calls
                w[1] += failed
                w[2] += total or 0
                w[3] = max(w[3], peak or 0)
        got = {r[0]: [r[1], r[2], r[3] or 0, r[4] or 0] for r in drows}
        assert got == want, f"{name}: the farm's histogram differs"
        return len(drows)
    tid = dcols.index("trace_id")
    per = {}
    for r in drows:
        key = key_of_base[r[tid] - r[tid] % SPAN]
        per.setdefault(key, []).append(local(r, dcols))
    for key, (cols, rows) in answers.items():
        assert per.get(key, []) == [local(r, cols) for r in rows], f"{name}: build {key} differs"
    assert set(per) <= set(answers), f"{name}: builds only in the dataset"
    return len(drows)


def main(queries, dataset, dbs):
    try:
        spark = None if os.environ.get("FARM_SPARK") == "0" else Spark(dataset)
    except ImportError:
        spark = None
    dd = duckdb.connect()
    dd.execute("SET file_search_path = ?", [dataset])
    t = time.perf_counter()
    dd.execute(open(os.path.join(dataset, "duckdb.sql")).read())
    setup = time.perf_counter() - t
    key_of_base = {b: k for k, b in dd.execute("SELECT trace_key, base FROM _trace_base").fetchall()}
    print(f"DuckDB {duckdb.__version__}, SQLite {sqlite3.sqlite_version}; duckdb.sql ran in {setup:.2f} s"
          + (f"; Spark {spark.version} (local[2]): session and spark.sql in {spark.setup:.1f} s" if spark else
             "; Spark not run (pyspark not installed, or FARM_SPARK=0)"))
    print()
    print(f"| query | DuckDB over the dataset ({len(key_of_base)} builds) |"
          + (" Spark over the dataset |" if spark else "")
          + f" SQLite, each of {len(dbs)} databases (summed) | rows | same answer |")
    print("|---|---|---|---|---|" + ("---|" if spark else ""))
    for name in QUERIES:
        d_time, dcols, drows = run_duckdb(dd, dataset, name)
        s_time, answers = run_sqlite(queries, dbs, name)
        n = check(name, dcols, drows, answers, key_of_base)
        cell = ""
        if spark:
            k_time, kcols, krows = spark.run(name)
            assert check(name, kcols, krows, answers, key_of_base) == n, f"{name}: Spark's row count"
            cell = f" {k_time:.2f} s |"
        print(f"| `{name.replace('_', '-')}` | {d_time:.2f} s |{cell} {s_time:.2f} s | {n} | yes |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
