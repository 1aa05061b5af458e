"""Every view of a dataset's spark.sql on Spark, against the SQLite
databases of the same traces (one database per trace): each view's rows of
each trace compared as sets, ids less the trace's base, with the
normalisation of tests/dataset/answers.py. Slow (20-400 s a view on two
cores): a check to run by hand, with bench/spark.sh's venv:

usage: SPARK_LOCAL_IP=127.0.0.1 VENV/bin/python bench/spark_views.py DATASET DB...
Prints one line per view and database, then the views that failed."""
import os
import sqlite3
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "dataset"))
from answers import norm, is_id, SPAN
from pyspark.sql import SparkSession

def statements(text):
    cur = []
    for line in text.split("\n"):
        cur.append(line)
        if line.rstrip().endswith(";") and not line.lstrip().startswith("--"):
            s = "\n".join(cur).strip().rstrip(";")
            body = "\n".join(l for l in s.split("\n") if not l.lstrip().startswith("--")).strip()
            if body:
                yield body
            cur = []

ds, dbs = sys.argv[1], sys.argv[2:]
dbs = [os.path.abspath(d) for d in dbs]
os.chdir(ds)
spark = (SparkSession.builder.master("local[2]").appName("kt2sql-views")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.driver.host", "127.0.0.1").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
print("Spark", spark.version)
bad = {}
for st in statements(open("spark.sql").read()):
    words = st.split()
    name = words[words.index("VIEW") + 1].strip("`(") if "VIEW" in words else words[0]
    try:
        spark.sql(st)
    except Exception as e:
        bad[name] = "define: " + str(e).split("\n")[0][:300]
bases = {r[0]: r[1] for r in spark.sql("SELECT trace_key, base FROM _trace_base").collect()}
ok = 0
for db in dbs:
    con = sqlite3.connect(db)
    key = con.execute("SELECT fingerprint || '-' || size FROM trace").fetchall()[0][0]
    base = bases[key]
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name")]
    for v in names:
        if v in bad:
            continue
        cur = con.execute(f"SELECT * FROM {v}")
        cols = [None if c[0] in ("rank", "sort_key") else c[0] for c in cur.description]
        want = sorted((tuple(norm(x, c, None) for x, c in zip(r, cols) if c) for r in cur), key=repr)
        t = time.time()
        try:
            res = spark.sql(f"SELECT * FROM {v}").collect()
        except Exception as e:
            bad[v] = "run: " + str(e).split("\n")[0][:300]
            continue
        ids = [i for i, c in enumerate(cols) if c and is_id(c)]
        got = []
        for r in res:
            r = tuple(r)
            tr = next((r[i] - r[i] % SPAN for i in ids if r[i] is not None), None)
            if tr == base:
                got.append(tuple(norm(x, c, base) for x, c in zip(r, cols) if c))
        got.sort(key=repr)
        if got != want:
            diff = [r for r in got if r not in want][:2] + ["|"] + [r for r in want if r not in got][:2]
            bad[v] = f"rows of {os.path.basename(db)}: {len(got)}, SQLite {len(want)}; {diff}"[:600]
        else:
            ok += 1
        print(f"{v} {os.path.basename(db)} {time.time()-t:.1f}s {'ok' if v not in bad else 'BAD'}", flush=True)
print(f"{ok} view checks ok; {len(bad)} bad")
for k, v in bad.items():
    print("BAD", k, ":", v)
sys.exit(1 if bad else 0)
