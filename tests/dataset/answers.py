"""Runs every view and every canned query on DuckDB over a kt2sql dataset
(its duckdb.sql and duckdb/*.sql) and on the SQLite databases it was
exported from, and checks that each trace gets the same rows, in the same
order for the queries.

In the dataset's views every id is the trace's own plus the trace's number
times 2^40 (duckdb.sql says why); the rows are compared with that offset
taken off the id columns (named `*_id`, `calls_from`, `calls_to`, and the
tree order's positions) and off
the ids inside text (the graph's `c123` node names, JSON arrays of ids).

usage: answers.py DATASET DB...   (exit 0: all good; 3: duckdb missing)
"""
import decimal
import glob
import json
import os
import re
import sqlite3
import sys

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


def params_of(sql):
    body = "\n".join(line.split("--")[0] for line in sql.split("\n"))
    body = re.sub(r"'[^']*'", "''", body)
    return sorted(set(re.findall(r"\$([a-z_]+)", body)))


def main(dataset, dbs):
    try:
        import duckdb
    except ImportError:
        print("duckdb is not installed: pip install duckdb")
        sys.exit(3)
    dd = duckdb.connect()
    dd.execute("SET file_search_path = ?", [dataset])
    dd.execute(open(os.path.join(dataset, "duckdb.sql")).read())
    bases = dict(dd.execute("SELECT trace_key, base FROM _trace_base").fetchall())
    queries = sorted(glob.glob(os.path.join(dataset, "duckdb", "*.sql")))
    if len(queries) < 30:
        fail(f"{len(queries)} queries in {dataset}/duckdb")
    views = checked = 0
    for db in dbs:
        con = sqlite3.connect(db)
        key = con.execute("SELECT fingerprint || '-' || size FROM trace").fetchall()[0][0]
        base = bases[key]
        # Every view: the rows of this trace (those whose ids are in its
        # span), against the database's, as sets of rows (views have no order).
        names = [r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name")]
        for v in names:
            cur = con.execute(f"SELECT * FROM {v}")
            cols = [d[0] for d in cur.description]
            want = sorted((tuple(norm(x, c, None) for x, c in zip(r, cols) if c) for r in cur),
                          key=repr)
            res = dd.execute(f"SELECT * FROM {v}")
            dcols = [d[0] for d in res.description]
            if dcols != [d[0] for d in cur.description]:
                fail(f"view {v}: DuckDB columns {dcols}, SQLite {cols}")
            ids = [i for i, c in enumerate(cols) if c and is_id(c)]
            if not ids:
                fail(f"view {v}: no id column to tell the traces apart")
            got = []
            for r in res.fetchall():
                trace = next((r[i] - r[i] % SPAN for i in ids if r[i] is not None), None)
                if trace == base:
                    got.append(tuple(norm(x, c, base) for x, c in zip(r, cols) if c))
            got.sort(key=repr)
            if got != want:
                diff = [r for r in got if r not in want][:3] + ["|"] + [r for r in want if r not in got][:3]
                fail(f"view {v} of {key}: {len(got)} rows, SQLite {len(want)}; differing: {diff}")
            views += 1
        # Every canned query, scoped to this trace, with its parameters'
        # defaults, then with a pid that has children (the _scope subtree).
        pid = con.execute(
            "SELECT p.pid FROM process AS p WHERE EXISTS (SELECT 1 FROM process AS c "
            "WHERE c.parent_id = p.process_id) ORDER BY p.process_id LIMIT 1").fetchall()
        pid = pid[0][0] if pid else None
        out = con.execute(
            "SELECT path FROM build_file WHERE role IN ('output', 'intermediate') "
            "ORDER BY path LIMIT 1").fetchall()
        files = json.dumps([out[0][0]] if out else ["/nonexistent"])
        for q in queries:
            name = os.path.basename(q)[:-4]
            dsql = open(q).read()
            ssql = open(os.path.join(os.path.dirname(__file__), "..", "..", "queries", name + ".sql")).read()
            takes = params_of(dsql)
            if takes != params_of(ssql):
                fail(f"{name}: DuckDB takes {takes}, SQLite {params_of(ssql)}")
            sets = [{}]
            if "pid" in takes and pid is not None:
                sets.append({"pid": pid})
            if "reverse" in takes:
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
                try:
                    res = dd.execute(dsql, dp)
                except Exception as e:  # noqa: BLE001 (the engine's own error, shown)
                    fail(f"{name} {extra}: DuckDB: {e}")
                rows = res.fetchall()
                if not scoped:
                    ids = [i for i, c in enumerate(cols) if c and is_id(c)]
                    if not ids:
                        fail(f"{name}: no $trace and no id column to tell the traces apart")
                    rows = [r for r in rows
                            if next((r[i] - r[i] % SPAN for i in ids if r[i] is not None), None) == base]
                got = [tuple(norm(x, c, base) for x, c in zip(r, cols) if c) for r in rows]
                if name in BY_NAME or name in UNORDERED:
                    got, want = sorted(got, key=repr), sorted(want, key=repr)
                if got != want:
                    same = sorted(got, key=repr) == sorted(want, key=repr)
                    diff = [r for r in got if r not in want][:3] + ["|"] + [r for r in want if r not in got][:3]
                    fail(f"{name} {extra} of {key}: {len(got)} rows, SQLite {len(want)}"
                         f"{' (same rows, other order)' if same else ''}; differing: {diff}")
                checked += 1
    print(f"duckdb {duckdb.__version__}: {views} views and {checked} query runs over "
          f"{len(dbs)} traces give SQLite's rows")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
