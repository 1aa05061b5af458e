#!/usr/bin/env python3
"""Bench of `kt2sql import --follow` (not a timed test).

Usage: python3 bench/follow.py KT2SQL TRACE START_DIR [--seconds S] [--work DIR]

1. Pace: TRACE is written into a growing file at the rate of the build it
   records, taken from the trace's own timestamps (the call records'
   `ts` of a one-shot import) and sped up so the write takes about S
   seconds (60). Meanwhile a reader polls the database every 100 ms
   (`SELECT decoded_bytes FROM trace`, a fresh read transaction each
   time) and the WAL file's size is watched. For every chunk written, the
   delay from its bytes reaching the file to the first poll that sees
   them imported is one latency sample: p50, p95, p99, max. Peak RSS of
   the follower from /proc (VmHWM).
2. Catch-up: a follow started on the whole file, already written, against
   a one-shot import of it: records/s of each (the follow's time less
   its --idle wait) and their ratio.

Prints one Markdown table. Needs Linux's /proc.
"""

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

CHUNK_GAP = 0.02  # seconds between writes of the paced writer


def one_shot(kt2sql, trace, db, start_dir):
    for s in ("", "-wal", "-shm"):
        if os.path.exists(db + s):
            os.remove(db + s)
    t0 = time.monotonic()
    subprocess.run([kt2sql, "import", "-q", trace, db, "-d", start_dir], check=False)
    return time.monotonic() - t0


def pace(db):
    """(offset, ts) of the call records, by offset: how the file grew."""
    c = sqlite3.connect(db)
    rows = c.execute(
        "SELECT call_offset, ts FROM call WHERE call_offset IS NOT NULL ORDER BY call_offset"
    ).fetchall()
    c.close()
    return rows


def hwm_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def percentile(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def paced_run(kt2sql, trace, start_dir, work, seconds, points):
    size = os.path.getsize(trace)
    grow = os.path.join(work, "growing.ktrace")
    db = os.path.join(work, "follow.db")
    for p in (grow, db, db + "-wal", db + "-shm"):
        if os.path.exists(p):
            os.remove(p)
    open(grow, "wb").close()
    proc = subprocess.Popen(
        [kt2sql, "import", "-q", "--follow", "--idle", "3", grow, db, "-d", start_dir]
    )
    ts0, ts1 = points[0][1], points[-1][1]
    speed = max((ts1 - ts0) / 1e9 / seconds, 1e-9)
    written = []  # (bytes written so far, wall time)
    state = {"done": False, "wal_peak": 0, "rss_peak": 0}
    samples = []

    def reader():
        nxt = 0
        conn = None
        while True:
            if conn is None and os.path.exists(db):
                try:
                    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
                except sqlite3.Error:
                    conn = None
            if conn is not None:
                try:
                    (imported,) = conn.execute("SELECT decoded_bytes FROM trace").fetchone()
                except (sqlite3.Error, TypeError):
                    imported = 0
                now = time.monotonic()
                while nxt < len(written) and written[nxt][0] <= imported:
                    samples.append(now - written[nxt][1])
                    nxt += 1
            try:
                state["wal_peak"] = max(state["wal_peak"], os.path.getsize(db + "-wal"))
            except OSError:
                pass
            state["rss_peak"] = max(state["rss_peak"], hwm_kb(proc.pid))
            if state["done"] and nxt >= len(written):
                break
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        if conn is not None:
            conn.close()

    r = threading.Thread(target=reader)
    r.start()
    t_start = time.monotonic()
    i = 0
    with open(trace, "rb") as src, open(grow, "ab", buffering=0) as out:
        pos = 0
        while pos < size:
            # Everything whose record time has come, by the paced clock.
            now_ts = ts0 + (time.monotonic() - t_start) * speed * 1e9
            while i < len(points) and points[i][1] <= now_ts:
                i += 1
            upto = points[i][0] if i < len(points) else size
            if upto > pos:
                out.write(src.read(upto - pos))
                pos = upto
                written.append((pos, time.monotonic()))
            time.sleep(CHUNK_GAP)
    state["done"] = True
    proc.wait()
    r.join()
    return samples, state, time.monotonic() - t_start


def catch_up(kt2sql, trace, start_dir, work):
    db = os.path.join(work, "catchup.db")
    for s in ("", "-wal", "-shm"):
        if os.path.exists(db + s):
            os.remove(db + s)
    idle = 1.0
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [kt2sql, "import", "-q", "--follow", "--idle", str(idle), trace, db, "-d", start_dir]
    )
    peak = 0
    while proc.poll() is None:
        peak = max(peak, hwm_kb(proc.pid))
        time.sleep(0.05)
    return time.monotonic() - t0 - idle, peak


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kt2sql")
    ap.add_argument("trace")
    ap.add_argument("start_dir")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="kt2sql-follow-bench-")
    size = os.path.getsize(a.trace)
    ref = os.path.join(work, "oneshot.db")
    t_one = one_shot(a.kt2sql, a.trace, ref, a.start_dir)
    (records,) = sqlite3.connect(ref).execute("SELECT records FROM trace").fetchone()
    points = pace(ref)
    t_follow, rss_catch = catch_up(a.kt2sql, a.trace, a.start_dir, work)
    samples, st, wall = paced_run(a.kt2sql, a.trace, a.start_dir, work, a.seconds, points)
    mb = size / 1e6
    print(f"| trace | {os.path.basename(a.trace)}, {mb:.0f} MB, {records} records |")
    print("|---|---|")
    print(f"| one-shot import | {t_one:.2f} s, {records / t_one:,.0f} records/s |")
    print(
        f"| follow, catching up on the whole file | {t_follow:.2f} s, "
        f"{records / t_follow:,.0f} records/s ({t_one / t_follow:.2f}x the one-shot rate), "
        f"peak RSS {rss_catch / 1024:.0f} MB |"
    )
    print(f"| paced write | {wall:.0f} s, {len(samples)} latency samples |")
    print(
        f"| latency (write to visible, 100 ms polls) | p50 {percentile(samples, 50):.2f} s, "
        f"p95 {percentile(samples, 95):.2f} s, p99 {percentile(samples, 99):.2f} s, "
        f"max {max(samples) if samples else float('nan'):.2f} s |"
    )
    print(f"| peak RSS while following | {st['rss_peak'] / 1024:.0f} MB |")
    print(f"| WAL peak with the reader polling | {st['wal_peak'] / 1e6:.1f} MB |")
    for p in ("oneshot.db", "catchup.db", "follow.db", "growing.ktrace"):
        for s in ("", "-wal", "-shm"):
            try:
                os.remove(os.path.join(work, p + s))
            except OSError:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
