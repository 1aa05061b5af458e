#!/usr/bin/env bash
# kt2sql's benchmark: one run measures, for composed traces of 64 MiB and
# 1 GiB in two dialects,
#   - decode alone (records/s, MB/s),
#   - the import (wall time, records/s, MB/s, peak RSS, database bytes per
#     trace byte) and its ratio to the floor,
#   - the floor: SQLite's own insert speed for the same number of rows
#     (bench/floor.rs),
#   - the same-work floor: SQLite writing the import's own rows, from
#     memory, into the same schema with the same indexes and pragmas
#     (bench/same_floor.rs),
#   - every report and canned query (bench/reports.sh: CPU, wall, peak
#     RSS, output size, CPU against the import's CPU of the same run) on
#     the 1 GiB FreeBSD database and on a 315 MB OpenBSD build composed
#     with hazards (34,611 processes),
# then prints the tables and writes them to bench/results.md.
#
# Usage: bash bench/run.sh [--quick] [--hostile] [--reports]
#   --quick: 64 MiB only (the reports on the 64 MiB FreeBSD database);
#   --hostile: also the peak RSS on the hostile traces (bench/hostile.sh:
#   2 M live pids, 2 M paths, 1 GiB held back; about 3 GB of traces and
#   two minutes more);
#   --reports: only the reports' table, on the databases BENCH_DIR holds
#   from an earlier run (their import CPU time is the one that run wrote
#   beside them, else one import is timed now): freebsd-v1-amd64-1G.db,
#   openbsd-amd64-315M.db and freebsd-v1-amd64-64M.db, each beside its
#   .ktrace (for `dump`); symbolic links to databases made elsewhere do.
# BENCH_RUNS=N: best of N runs for every timing (default 3);
# BENCH_DIR=DIR: keep traces and databases in DIR (reused when present);
# BENCH_BIN=PATH: measure this kt2sql binary (e.g. an older release, to
# compare) instead of building this tree's.
# Needs ../shared/tools/ktcompose.py, python3 and /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
hostile=0
only_reports=0
for arg in "$@"; do
    case $arg in
        --quick) quick=1 ;;
        --hostile) hostile=1 ;;
        --reports) only_reports=1 ;;
        *) echo "bench: unknown option $arg (--quick, --hostile, --reports)" >&2; exit 2 ;;
    esac
done
if [ "$only_reports" = 1 ] && [ -z "${BENCH_DIR:-}" ]; then
    echo "bench: --reports needs BENCH_DIR (the databases of an earlier run)" >&2
    exit 2
fi
# Every timing is the best of this many runs.
runs=${BENCH_RUNS:-3}
compose=../shared/tools/ktcompose.py
[ -f "$compose" ] || { echo "bench: $compose not found" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time not found (apt-get install time)" >&2; exit 2; }

work=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$work"
echo "bench: traces and databases in $work" >&2

if [ -n "${BENCH_BIN:-}" ] && [ "$only_reports" = 1 ]; then
    kt2sql=$BENCH_BIN
else
    cargo build --release -q --bin kt2sql --example decode_count --example floor --example same_floor
    kt2sql=${BENCH_BIN:-target/release/kt2sql}
fi

sizes="64M 1G"
[ "$quick" = 1 ] && sizes="64M"
dialects="freebsd-v1-amd64 openbsd-amd64"

# Wall seconds, peak RSS in MB and CPU seconds (user + sys) of a command.
measure() {
    local log="$work/time.log"
    /usr/bin/time -f '%e %M %U %S' -o "$log" "$@" >"$work/out.log" 2>/dev/null
    awk '{printf "%s %.0f %.2f\n", $1, $2 / 1024, $3 + $4}' "$log"
}

# The smaller of two numbers.
least() { awk -v a="$1" -v b="$2" 'BEGIN {print (b == "" || a < b) ? a : b}'; }

# The reports on $1 (the database of trace $2), against the import CPU
# time in $1.import.
reports=()
report_rows() {
    local db=$1 trace=$2 label=$3 import
    if [ ! -s "$db.import" ]; then
        read -r _ _ import < <(measure "$kt2sql" -q -d /usr/src/build "$trace" "$work/again.db")
        rm -f "$work/again.db"
        echo "$import" >"$db.import"
    fi
    import=$(cat "$db.import")
    mapfile -t -O "${#reports[@]}" reports < <(bash bench/reports.sh "$kt2sql" "$db" "$trace" "$import" "$label")
}

# The 315 MB build: OpenBSD, hazards, exec argv, 34,611 processes.
build315() {
    local trace="$work/openbsd-amd64-315M.ktrace" db="$work/openbsd-amd64-315M.db"
    [ -f "$trace" ] || python3 "$compose" --dialect openbsd-amd64 --seed 3 --processes 80 \
        --jobs 6 --faithful --hazards --trpoints cnx --target-bytes 300M -o "$trace" \
        --truth "$work/openbsd-amd64-315M.json" >&2
    if [ ! -f "$db" ]; then
        local best=""
        for _ in $(seq "$runs"); do
            rm -f "$db"
            read -r _ _ cpu < <(measure "$kt2sql" -q -d /usr/src/build "$trace" "$db")
            best=$(least "$cpu" "$best")
        done
        echo "$best" >"$db.import"
    fi
    report_rows "$db" "$trace" "openbsd-amd64 315M"
}

if [ "$only_reports" = 1 ]; then
    for db in "$work"/freebsd-v1-amd64-1G.db "$work"/openbsd-amd64-315M.db "$work"/freebsd-v1-amd64-64M.db; do
        [ -f "$db" ] || continue
        name=$(basename "$db" .db)
        report_rows "$db" "${db%.db}.ktrace" "${name%-*} ${name##*-}"
    done
    [ "${#reports[@]}" -gt 0 ] || { echo "bench: no databases in $work" >&2; exit 2; }
    {
        echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); \`${BENCH_BIN:+BENCH_BIN=$BENCH_BIN }BENCH_RUNS=$runs bash bench/run.sh --reports\`; every time is the best of $runs runs; \"÷ import\" is the report's CPU time over the import's."
        echo
        echo "| database | report | CPU | wall | ÷ import | peak RSS | output |"
        echo "|---|---|---|---|---|---|---|"
        printf '%s\n' "${reports[@]}"
    } | tee bench/results.md
    exit 0
fi

rows=()
for size in $sizes; do
    for dialect in $dialects; do
        trace="$work/$dialect-$size.ktrace"
        db="$work/$dialect-$size.db"
        [ -f "$trace" ] || python3 "$compose" --dialect "$dialect" --seed 1 --jobs 8 \
            --target-bytes "$size" -o "$trace" --truth "$work/$dialect-$size.json" >&2
        bytes=$(stat -c %s "$trace")
        # Decode alone, best of $runs (half a second each at 1 GiB).
        dsecs=""
        for _ in $(seq $runs); do
            dec=$(target/release/examples/decode_count "$trace")
            records=$(echo "$dec" | awk '{print $1}')
            d=$(echo "$dec" | awk '{for (i=1;i<=NF;i++) if ($i=="in") print $(i+1)}')
            if [ -z "$dsecs" ] || awk -v a="$d" -v b="$dsecs" 'BEGIN {exit !(a < b)}'; then dsecs=$d; fi
        done
        # The import, best of $runs (the machine may be shared: the best run
        # is the one least disturbed); peak RSS is the largest seen.
        best=""
        bestcpu=""
        rss=0
        for _ in $(seq $runs); do
            rm -f "$db"
            read -r wall r cpu < <(measure "$kt2sql" -q -d /usr/src/build "$trace" "$db")
            best=$(least "$wall" "$best")
            bestcpu=$(least "$cpu" "$bestcpu")
            [ "$r" -gt "$rss" ] && rss=$r
        done
        echo "$bestcpu" >"$db.import"
        dbbytes=$(stat -c %s "$db")
        # The floor for the same number of rows, best of $runs as well.
        floor=""
        for _ in $(seq $runs); do
            f=$(target/release/examples/floor "$records" "$work/floor.db" | awk '{print $5}')
            rm -f "$work/floor.db"
            if [ -z "$floor" ] || awk -v a="$f" -v b="$floor" 'BEGIN {exit !(a < b)}'; then floor=$f; fi
        done
        # The same-work floor: this import's rows, written again from memory.
        same=""
        for _ in $(seq $runs); do
            f=$(target/release/examples/same_floor "$db" "$work/floor.db" | awk '{print $5}')
            rm -f "$work/floor.db"
            if [ -z "$same" ] || awk -v a="$f" -v b="$same" 'BEGIN {exit !(a < b)}'; then same=$f; fi
        done
        rows+=("$(awk -v d="$dialect" -v s="$size" -v n="$records" -v b="$bytes" -v ds="$dsecs" \
            -v w="$best" -v f="$floor" -v sf="$same" -v m="$rss" -v db="$dbbytes" 'BEGIN {
            printf "| %s | %s | %d | %.1f M/s, %.0f MB/s | %.2f s | %.2f M/s, %.0f MB/s | %.2f s | %.2f× | %.2f s | %.2f× | %d MB | %.2f |",
                d, s, n, n/ds/1e6, b/ds/1e6, w, n/w/1e6, b/w/1e6, f, w/f, sf, w/sf, m, db/b }')")
        if [ "$dialect" = freebsd-v1-amd64 ] && { [ "$size" = 1G ] || [ "$quick" = 1 ]; }; then
            report_rows "$db" "$trace" "$dialect $size"
        fi
    done
done
[ "$quick" = 1 ] || build315

{
    echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); \`BENCH_RUNS=$runs bash bench/run.sh\`; every time is the best of $runs runs."
    echo
    echo "| trace | size | records | decode alone | import | import speed | floor | import ÷ floor | same-work floor | import ÷ same-work floor | peak RSS | DB bytes per trace byte |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "Reports: every report and canned query; \"÷ import\" is the report's CPU time over the import's CPU time (best of $runs) in this run."
    echo
    echo "| database | report | CPU | wall | ÷ import | peak RSS | output |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${reports[@]}"
    if [ "$hostile" = 1 ]; then
        echo
        bash bench/hostile.sh "$work/hostile"
    fi
} | tee bench/results.md
