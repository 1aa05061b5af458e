"""Reads a kt2sql dataset with DuckDB (or Spark) and checks it against the
SQLite databases it was exported from: every table's columns (names,
Parquet types, required/optional) against the SQLite columns, the rows per
trace against each database (count and content), and a compaction (every
table rewritten as one file with DuckDB's COPY) giving the same rows.

usage: engines.py duckdb|spark DATASET DB...   (exit 0: all good; 3: engine missing)
"""
import os
import sqlite3
import sys

TYPES = {"INTEGER": "INT64", "REAL": "DOUBLE", "TEXT": "BYTE_ARRAY", "BLOB": "BYTE_ARRAY"}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def sqlite_tables(db):
    # Not in a dataset: meta and the constant _access_class.
    con = sqlite3.connect(db)
    names = [r[0] for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' "
        "AND name NOT IN ('meta', '_access_class')")]
    return con, names


def key_of(con):
    return con.execute("SELECT fingerprint || '-' || size FROM trace").fetchall()[0][0]


def norm(v):
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    if isinstance(v, str):
        return v.encode()
    return v


def sqlite_rows(con, table):
    rows = [tuple(norm(v) for v in r) for r in con.execute(f"SELECT * FROM {table}")]
    return sorted(rows, key=repr)


def check_duckdb(dataset, dbs):
    try:
        import duckdb
    except ImportError:
        print("duckdb is not installed: pip install duckdb")
        sys.exit(3)
    dd = duckdb.connect()
    compact = os.path.join(dataset, "..", "compact")
    os.makedirs(compact, exist_ok=True)
    checked = 0
    for db in dbs:
        con, tables = sqlite_tables(db)
        key = key_of(con)
        for t in tables:
            cols = con.execute(
                f"SELECT name, type, \"notnull\" OR pk > 0 FROM pragma_table_info('{t}') ORDER BY cid"
            ).fetchall()
            glob = f"{dataset}/{t}/*/*.parquet"
            files = dd.execute(f"SELECT file FROM glob('{dataset}/{t}/trace_key={key}/*.parquet')").fetchall()
            if len(files) != 1:
                fail(f"{t}: {len(files)} files for {key}")
            schema = dd.execute(
                "SELECT name, type, repetition_type FROM parquet_schema(?) WHERE name != 'duckdb_schema'",
                [files[0][0]],
            ).fetchall()
            schema = [s for s in schema if s[0] not in ("schema", "arrow_schema")]
            want = [("trace_key", "BYTE_ARRAY", "REQUIRED")]
            for name, ty, notnull in cols:
                want.append((name, TYPES[ty], "REQUIRED" if notnull else "OPTIONAL"))
                if any(s[0] == name + "_bytes" for s in schema):
                    want.append((name + "_bytes", "BYTE_ARRAY", "OPTIONAL"))
            if schema != want:
                fail(f"{t}: parquet schema {schema} != {want}")
            names = [c[0] for c in cols]
            # The value of a lossless column: its exact bytes when not UTF-8.
            exprs = []
            for n in names:
                # Quoted: `offset` is a keyword in DuckDB.
                if any(s[0] == n + "_bytes" for s in schema):
                    exprs.append(f'coalesce("{n}_bytes", encode("{n}"))')
                elif dict((c[0], c[1]) for c in cols)[n] == "TEXT":
                    exprs.append(f'encode("{n}")')
                else:
                    exprs.append(f'"{n}"')
            sel = ", ".join(exprs)
            got = dd.execute(
                f"SELECT {sel} FROM read_parquet('{glob}') WHERE trace_key = ?", [key]
            ).fetchall()
            got = sorted((tuple(norm(v) for v in r) for r in got), key=repr)
            want_rows = sqlite_rows(con, t)
            if len(got) != len(want_rows):
                fail(f"{t} of {key}: {len(got)} rows, SQLite has {len(want_rows)}")
            if got != want_rows:
                fail(f"{t} of {key}: rows differ from SQLite")
            checked += 1
    # Compaction: each table as one file; the same rows, per trace.
    con, tables = sqlite_tables(dbs[0])
    for t in tables:
        glob = f"{dataset}/{t}/*/*.parquet"
        out = os.path.join(compact, f"{t}.parquet")
        dd.execute(
            f"COPY (SELECT * FROM read_parquet('{glob}') ORDER BY ALL) TO '{out}' "
            "(FORMAT parquet, COMPRESSION zstd)"
        )
        for a, b in ((glob, out), (out, glob)):
            diff = dd.execute(
                f"SELECT count(*) FROM (SELECT * FROM read_parquet('{a}') "
                f"EXCEPT ALL SELECT * FROM read_parquet('{b}'))"
            ).fetchall()[0][0]
            if diff:
                fail(f"{t}: compaction changed {diff} rows")
        n = dd.execute(f"SELECT count(DISTINCT trace_key) FROM read_parquet('{out}')").fetchall()[0][0]
        if n != len(dbs):
            fail(f"{t}: compacted file holds {n} traces, not {len(dbs)}")
    print(f"duckdb {duckdb.__version__}: {checked} tables of {len(dbs)} databases match; compaction keeps every row")


def check_spark(dataset, dbs):
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        print("pyspark is not installed: pip install pyspark (and a Java 17 runtime)")
        sys.exit(3)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = (SparkSession.builder.master("local[2]").appName("kt2sql-dataset")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.sql.shuffle.partitions", "2")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    for db in dbs:
        con, tables = sqlite_tables(db)
        key = key_of(con)
        for t in tables:
            df = spark.read.parquet(f"{dataset}/{t}")
            n = df.filter(df.trace_key == key).count()
            want = con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0]
            if n != want:
                fail(f"spark: {t} of {key}: {n} rows, SQLite has {want}")
            cols = [c[0] for c in con.execute(f"SELECT name FROM pragma_table_info('{t}')")]
            missing = [c for c in cols if c not in df.columns]
            if missing:
                fail(f"spark: {t} lacks {missing}")
    spark.stop()
    print(f"spark: {len(dbs)} databases match")


if __name__ == "__main__":
    engine, dataset, dbs = sys.argv[1], sys.argv[2], sys.argv[3:]
    {"duckdb": check_duckdb, "spark": check_spark}[engine](dataset, dbs)
