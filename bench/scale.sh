#!/usr/bin/env bash
# The scale run: the same composed build (`ktcompose.py --dialect
# freebsd-v1-amd64 --seed 1 --jobs 8`) at several sizes, default 1 GiB and
# 4 GiB (add 8G where the disk allows: a 8 GiB trace makes a 3 GB
# database), each imported and every report and canned query run on it
# (bench/reports.sh), under /usr/bin/time: CPU time (user + sys, steadier
# than wall time on a shared machine), wall time and peak RSS. Prints one
# table: per command, each size's CPU, wall and peak RSS, and the largest
# size's against the smallest's (the goal: time within 4.4x of 1 GiB's at
# 4 GiB, reports' peak RSS under 64 MB and within 20 % of 1 GiB's, the
# import's flat).
#
# Usage: bash bench/scale.sh [SIZE...]   (default: 1G 4G)
# BENCH_DIR=DIR: keep traces and databases in DIR (reused when present;
# default a fresh temporary directory, removed at the end);
# BENCH_BIN=PATH: measure this kt2sql binary instead of building this tree's;
# BENCH_RUNS=N: best of N runs for every report (default 1).
# Needs ../shared/tools/ktcompose.py, python3 and /usr/bin/time; about
# 1.3 times the trace sizes of disk.
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=("$@")
[ "${#sizes[@]}" -gt 0 ] || sizes=(1G 4G)
export BENCH_RUNS=${BENCH_RUNS:-1}
compose=../shared/tools/ktcompose.py
[ -f "$compose" ] || { echo "scale: $compose not found" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "scale: /usr/bin/time not found (apt-get install time)" >&2; exit 2; }
if [ -n "${BENCH_DIR:-}" ]; then
    work=$BENCH_DIR
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
if [ -z "${BENCH_BIN:-}" ]; then
    cargo build --release -q --bin kt2sql
fi
kt2sql=$(realpath "${BENCH_BIN:-target/release/kt2sql}")

# One "command|cpu|wall|rss" line per command and size, in $work/scale-SIZE.txt.
for size in "${sizes[@]}"; do
    trace="$work/freebsd-v1-amd64-$size.ktrace"
    db="$work/freebsd-v1-amd64-$size.db"
    [ -f "$trace" ] || python3 "$compose" --dialect freebsd-v1-amd64 --seed 1 --jobs 8 \
        --target-bytes "$size" -o "$trace" --truth "$work/freebsd-v1-amd64-$size.json" >&2
    rm -f "$db"
    /usr/bin/time -f '%e %M %U %S' -o "$work/time.log" "$kt2sql" -q -d /usr/src/build "$trace" "$db"
    read -r wall kb user sys <"$work/time.log"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')
    echo "import|$cpu|$wall|$((kb / 1024))" >"$work/scale-$size.txt"
    echo "scale: $size imported in $wall s" >&2
    bash bench/reports.sh "$kt2sql" "$db" "$trace" "$cpu" "$size" |
        awk -F' \\| ' '{gsub(/`/, "", $2); sub(/^kt2sql /, "", $2); sub(/ s$/, "", $3); sub(/ s$/, "", $4); sub(/ MB$/, "", $6); print $2 "|" $3 "|" $4 "|" $6}' \
        >>"$work/scale-$size.txt"
done

first=${sizes[0]} last=${sizes[-1]}
{
    echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores, $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; \`bash bench/scale.sh ${sizes[*]}\`, best of $BENCH_RUNS run(s). The composed FreeBSD build at each size; CPU is user + sys; the last columns are $last against $first."
    echo
    printf '| command |'
    for s in "${sizes[@]}"; do printf ' %s CPU | %s wall | %s peak RSS |' "$s" "$s" "$s"; done
    printf ' CPU %s ÷ %s | RSS %s ÷ %s |\n' "$last" "$first" "$last" "$first"
    printf '|---|'
    for _ in "${sizes[@]}"; do printf -- '---|---|---|'; done
    printf -- '---|---|\n'
    # shellcheck disable=SC2046
    paste -d'|' $(for s in "${sizes[@]}"; do echo "$work/scale-$s.txt"; done) |
        awk -F'|' -v n="${#sizes[@]}" '{
            printf "| `%s` |", $1
            for (i = 0; i < n; i++) printf " %.2f s | %.2f s | %d MB |", $(4 * i + 2), $(4 * i + 3), $(4 * i + 4)
            c0 = $2; r0 = $4; c1 = $(4 * (n - 1) + 2); r1 = $(4 * (n - 1) + 4)
            printf " %.2f× | %.2f× |\n", (c0 > 0 ? c1 / c0 : 0), (r0 > 0 ? r1 / r0 : 0)
        }'
} | tee "$work/scale.md"
