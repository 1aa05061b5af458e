"""Runs every view and every canned query on DuckDB or Spark over a kt2sql
dataset (its duckdb.sql and duckdb/*.sql, or spark.sql and spark/*.sql)
and on the SQLite databases it was exported from, and checks that each
trace gets the same rows, in the same order for the queries. Each view
runs once over the whole dataset; each query once per trace and set of
parameters. Spark runs in one local[2] session.

In the dataset's views every id is the trace's own plus the trace's number
times 2^40 (duckdb.sql says why); the rows are compared with that offset
taken off the id columns (named `*_id`, `calls_from`, `calls_to`, and the
tree order's positions) and off
the ids inside text (the graph's `c123` node names, JSON arrays of ids).

usage: answers.py duckdb|spark DATASET DB...
(exit 0: all good; 1: a difference; 3: the engine is not installed)
"""
import decimal
import glob
import json
import os
import re
import sqlite3
import sys
import time

SPAN = 1 << 40

# The graph's queries sort by node name (`c123`, `f1_45`), text that holds
# the ids: with the dataset's ids the same rows sort otherwise.
BY_NAME = ("graph_edges", "graph_nodes")

# Queries that give their rows in no particular order (`kt2sql diff` reads
# them whole and orders them itself): compared as sets.
UNORDERED = ("diff_accesses", "diff_commands", "diff_paths")

# Columns whose value depends on every trace present, not only on the
# row's: timeline_flows.id is "greater than every process_id" (of the
# database, or of the dataset).
GLOBAL = {("timeline_flows", "id")}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def is_id(col):
    return col.endswith("_id") or col in (
        "calls_from", "calls_to", "producer_process", "consumer_process",
        # _scope_after_write: the command of the latest write and, for a
        # flow, the command read from (command_ids).
        "writer", "producer",
        # The tree order's positions, offset like the ids (tree_node,
        # _scope_span, process_tree.sort_key).
        "pos", "subtree_end", "first_pos", "last_pos", "sort_key")


def norm(v, col, base):
    """A value as both engines can be compared: ids in the trace's own
    numbering, text as str (bytes that are not UTF-8 as the dataset holds
    them: U+FFFD for each bad sequence), numbers as int or rounded float."""
    if isinstance(v, (bytes, bytearray, memoryview)):
        v = bytes(v).decode("utf-8", "replace")
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, decimal.Decimal):
        v = float(v)
    if isinstance(v, float):
        return float("%.9g" % v)
    if base is not None and isinstance(v, int) and is_id(col) and v >= SPAN:
        return v - base
    if base is not None and isinstance(v, str):
        return re.sub(r"\d{13,}", lambda m: str(int(m.group()) - base) if int(m.group()) >= base else m.group(), v)
    return v


def params_of(sql, mark="$"):
    body = "\n".join(line.split("--")[0] for line in sql.split("\n"))
    body = re.sub(r"'[^']*'", "''", body)
    return sorted(set(re.findall(re.escape(mark) + r"([a-z_]+)", body)))


def statements(text):
    """The statements of a script, split at the `;` ending a line."""
    cur = []
    for line in text.split("\n"):
        cur.append(line)
        if line.rstrip().endswith(";") and not line.lstrip().startswith("--"):
            s = "\n".join(cur).strip().rstrip(";")
            if any(not l.lstrip().startswith("--") and l.strip() for l in s.split("\n")):
                yield s
            cur = []


class DuckDb:
    queries = "duckdb"
    mark = "$"

    def __init__(self, dataset):
        try:
            import duckdb
        except ImportError:
            print("duckdb is not installed: pip install duckdb")
            sys.exit(3)
        self.version = f"duckdb {duckdb.__version__}"
        self.dd = duckdb.connect()
        self.dd.execute("SET file_search_path = ?", [dataset])
        self.dd.execute(open(os.path.join(dataset, "duckdb.sql")).read())

    def run(self, sql, params=None):
        res = self.dd.execute(sql, params or {})
        return [d[0] for d in res.description], res.fetchall()


def spark_session(app):
    """A local[2] Spark session on the loopback interface, set as the
    dataset's SQL expects: UTC, few shuffle partitions (the data is small;
    200 by default, a task each), no UI."""
    from pyspark.sql import SparkSession
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = (SparkSession.builder.master("local[2]").appName(app)
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.sql.session.timeZone", "UTC")
             # A view keeps its analysed plan: one naming another is not
             # analysed again from its text, with every view below it (half
             # the session's setup).
             .config("spark.sql.legacy.storeAnalyzedPlanForView", "true")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


class Spark:
    queries = "spark"
    mark = ":"

    def __init__(self, dataset):
        try:
            import pyspark  # noqa: F401
        except ImportError:
            print("pyspark is not installed: pip install pyspark (and a Java 17 runtime)")
            sys.exit(3)
        import shutil
        if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
            print("no Java runtime for Spark: install a Java 17 runtime (or set JAVA_HOME)")
            sys.exit(3)
        # spark.sql reads the tables relative to the working directory the
        # session (its JVM) starts in.
        os.chdir(dataset)
        self.spark = spark_session("kt2sql-answers")
        self.version = f"Spark {self.spark.version}"
        # Every table and view worked out once as it is defined (the script
        # defines each after what it reads) and put in its name's place as
        # its rows alone (a local checkpoint: a plan of one leaf). Each
        # view and query is then planned from its own text over the rows
        # of the views it names; otherwise its plan holds every view below
        # it, expanded again at each mention (deps and lint ran the
        # driver out of memory, critical_path took minutes per step).
        for st in statements(open("spark.sql").read()):
            self.spark.sql(st)
            words = st.split()
            if "VIEW" in words:
                name = words[words.index("VIEW") + 1]
                try:
                    self.spark.table(name).localCheckpoint(eager=True).createOrReplaceTempView(name)
                except Exception as ex:  # noqa: BLE001 (the engine's own error, shown)
                    fail(f"view {name}: Spark {self.spark.version}: {str(ex).splitlines()[0]}")

    def run(self, sql, params=None):
        df = self.spark.sql(sql, args=params or {})
        return df.columns, [tuple(r) for r in df.collect()]


def trace_of(r, ids):
    """The base of the trace a row of the dataset belongs to: that of its
    first id that is set."""
    return next((r[i] - r[i] % SPAN for i in ids if r[i] is not None), None)


def main(engine, dataset, dbs):
    dbs = [os.path.abspath(d) for d in dbs]
    here = os.path.dirname(os.path.abspath(__file__))
    dataset = os.path.abspath(dataset)
    t0 = time.monotonic()
    e = {"duckdb": DuckDb, "spark": Spark}[engine](dataset)
    t1 = time.monotonic()
    bases = dict(e.run("SELECT trace_key, base FROM _trace_base")[1])
    queries = sorted(glob.glob(os.path.join(dataset, e.queries, "*.sql")))
    if len(queries) < 30:
        fail(f"{len(queries)} queries in {dataset}/{e.queries}")
    cons = [sqlite3.connect(db) for db in dbs]
    keys = [c.execute("SELECT fingerprint || '-' || size FROM trace").fetchall()[0][0] for c in cons]
    views = checked = 0
    # Every view, once over the dataset: each trace's rows (those whose ids
    # are in its span) against its database's, as sets of rows (views have
    # no order).
    names = [r[0] for r in cons[0].execute(
        "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name")]
    for v in names:
        try:
            dcols, drows = e.run(f"SELECT * FROM {v}")
        except Exception as ex:  # noqa: BLE001 (the engine's own error, shown)
            fail(f"view {v}: {e.version}: {str(ex).splitlines()[0]}")
        for con, key in zip(cons, keys):
            base = bases[key]
            cur = con.execute(f"SELECT * FROM {v}")
            cols = [d[0] for d in cur.description]
            want = sorted((tuple(norm(x, c, None) for x, c in zip(r, cols) if c) for r in cur),
                          key=repr)
            if dcols != cols:
                fail(f"view {v}: {e.version} columns {dcols}, SQLite {cols}")
            ids = [i for i, c in enumerate(cols) if c and is_id(c)]
            if not ids:
                fail(f"view {v}: no id column to tell the traces apart")
            got = sorted((tuple(norm(x, c, base) for x, c in zip(r, cols) if c)
                          for r in drows if trace_of(r, ids) == base), key=repr)
            if got != want:
                diff = [r for r in got if r not in want][:3] + ["|"] + [r for r in want if r not in got][:3]
                fail(f"view {v} of {key}: {len(got)} rows, SQLite {len(want)}; differing: {diff}")
            views += 1
    t2 = time.monotonic()
    # The queries over every trace on DuckDB; on Spark (seconds a query,
    # half a minute for deps, lint and critical_path) over the trace whose
    # ids the dataset offsets, which is the harder case: the views above
    # have given both traces SQLite's rows.
    asked = list(zip(cons, keys))
    took = {}  # seconds the engine took per query, all its runs
    if engine == "spark":
        asked = [(c, k) for c, k in asked if bases[k] != 0][:1]
        if not asked:
            fail("no trace of the dataset has its ids offset")
    for con, key in asked:
        base = bases[key]
        # Every canned query, scoped to this trace, with its parameters'
        # defaults, then with a pid that has children (the _scope subtree).
        pid = con.execute(
            "SELECT p.pid FROM process AS p WHERE EXISTS (SELECT 1 FROM process AS c "
            "WHERE c.parent_id = p.process_id) ORDER BY p.process_id LIMIT 1").fetchall()
        pid = pid[0][0] if pid else None
        # Files for deps: an intermediate first (it was read after it was
        # written, so both ways find something), then an output.
        out = con.execute(
            "SELECT path FROM build_file WHERE role IN ('output', 'intermediate') "
            "ORDER BY role <> 'intermediate', path LIMIT 2").fetchall()
        files = json.dumps([r[0] for r in out] if out else ["/nonexistent"])
        # deps' jobs: the programs that ran as make and as a compiler driver
        # (by name, as `kt2sql deps` finds them).
        progs = [r[0] for r in con.execute(
            "SELECT DISTINCT pa.path FROM exec AS e JOIN path AS pa ON pa.path_id = e.resolved_id "
            "WHERE e.success = 1 ORDER BY pa.path")]
        jobs = {"makes": json.dumps([p for p in progs if os.path.basename(p) in ("make", "gmake", "bmake")]),
                "compilers": json.dumps([p for p in progs if os.path.basename(p) in ("cc", "gcc", "clang")])}
        for q in queries:
            name = os.path.basename(q)[:-4]
            dsql = open(q).read()
            ssql = open(os.path.join(here, "..", "..", "queries", name + ".sql")).read()
            takes = params_of(dsql, e.mark)
            if takes != params_of(ssql):
                fail(f"{name}: {e.version} takes {takes}, SQLite {params_of(ssql)}")
            sets = [{}]
            if "pid" in takes and pid is not None:
                sets.append({"pid": pid})
            if "makes" in takes and "compilers" in takes:
                # Jobs both ways, the sources transitively forward.
                sets += [dict(jobs, reverse=1), dict(jobs, sources=1)]
            elif "reverse" in takes:
                sets.append({"reverse": 1})
            for extra in sets:
                p = {k: None for k in takes}
                if "files" in p:
                    p["files"] = files
                if name == "pid_lifetimes" and "pid" not in extra:
                    p["pid"] = pid
                p.update(extra)
                # A query without $trace (diff_paths) reads every trace of
                # the dataset: its rows of this trace are those whose first
                # id is in the trace's span.
                scoped = "trace" in takes
                sp = dict(p, trace=1) if scoped else dict(p)
                dp = dict(p, trace=base + 1) if scoped else dict(p)
                cur = con.execute(ssql, sp)
                cols = [None if (name, d[0]) in GLOBAL else d[0] for d in cur.description]
                want = [tuple(norm(x, c, None) for x, c in zip(r, cols) if c) for r in cur]
                tq = time.monotonic()
                try:
                    _, rows = e.run(dsql, dp)
                except Exception as ex:  # noqa: BLE001 (the engine's own error, shown)
                    fail(f"{name} {extra}: {e.version}: {str(ex).splitlines()[0]}")
                took[name] = took.get(name, 0) + time.monotonic() - tq
                if not scoped:
                    ids = [i for i, c in enumerate(cols) if c and is_id(c)]
                    if not ids:
                        fail(f"{name}: no $trace and no id column to tell the traces apart")
                    rows = [r for r in rows if trace_of(r, ids) == base]
                got = [tuple(norm(x, c, base) for x, c in zip(r, cols) if c) for r in rows]
                if name in BY_NAME or name in UNORDERED:
                    got, want = sorted(got, key=repr), sorted(want, key=repr)
                if got != want:
                    same = sorted(got, key=repr) == sorted(want, key=repr)
                    diff = [r for r in got if r not in want][:3] + ["|"] + [r for r in want if r not in got][:3]
                    fail(f"{name} {extra} of {key}: {len(got)} rows, SQLite {len(want)}"
                         f"{' (same rows, other order)' if same else ''}; differing: {diff}")
                checked += 1
    t3 = time.monotonic()
    print(f"{e.version}: {views} view checks over {len(dbs)} traces and {checked} query "
          f"runs over {len(asked)} give SQLite's rows"
          + f" (setup {t1 - t0:.0f} s, views {t2 - t1:.0f} s, queries {t3 - t2:.0f} s; slowest: "
          + ", ".join(f"{n} {t:.1f} s" for n, t in sorted(took.items(), key=lambda x: -x[1])[:5]) + ")")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
