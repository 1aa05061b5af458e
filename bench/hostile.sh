#!/usr/bin/env bash
# Peak resident memory of the import on the three hostile traces of issue
# #12 item 8 (written by bench/hostile.py): 2 M never-exiting pids, 2 M
# distinct paths, a pending fork followed by 1 GiB of an unknown pid's
# records. The goal is under 200 MB each. Prints one table row per trace.
#
# Usage: bash bench/hostile.sh [DIR]   (traces and databases go to DIR,
# default a fresh temporary directory, removed at the end unless given)
# BENCH_BIN=PATH: measure this kt2sql binary instead of building this tree's.
# Needs python3 and /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "hostile: /usr/bin/time not found (apt-get install time)" >&2; exit 2; }

if [ -n "${1:-}" ]; then
    work=$1
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
if [ -z "${BENCH_BIN:-}" ]; then
    cargo build --release -q --bin kt2sql
fi
kt2sql=$(realpath "${BENCH_BIN:-target/release/kt2sql}")

echo "| trace | size | import wall | peak RSS |"
echo "|---|---|---|---|"
for shape in pids paths held; do
    trace="$work/$shape.ktrace"
    db="$work/$shape.db"
    [ -f "$trace" ] || python3 bench/hostile.py "$shape" "$trace"
    rm -f "$db"
    # Exit 1 (import issues reported) is expected on these traces.
    /usr/bin/time -v "$kt2sql" -q "$trace" "$db" >"$work/out.log" 2>"$work/time.log" || [ $? = 1 ]
    awk -v s="$shape" -v b="$(stat -c %s "$trace")" '
        /Maximum resident/ {rss = $NF / 1024}
        /Elapsed \(wall clock\)/ {n = split($NF, t, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + t[i]}
        END {printf "| %s | %.0f MB | %.1f s | %.0f MB |\n", s, b / 1e6, w, rss}' "$work/time.log"
    rm -f "$db"
done
