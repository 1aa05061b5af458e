#!/usr/bin/env bash
# The reports' table: every report and every canned query without a
# required parameter, run on an existing database, with CPU (user + sys),
# wall time, peak RSS and output size, each against the import time given.
#
# Usage: bash bench/reports.sh KT2SQL DB TRACE IMPORT_SECONDS LABEL
#   KT2SQL          the binary to measure;
#   DB              a database imported from TRACE with -d (it has flows);
#   TRACE           the trace, for `dump`;
#   IMPORT_SECONDS  CPU seconds of the import of TRACE in the same run
#                   (the "÷ import" column);
#   LABEL           the database's name in the table.
# Prints the table's rows (markdown) on stdout.
# BENCH_RUNS=N: best of N runs for every timing (default 3);
# BENCH_ONLY=REGEX: only the reports whose command matches REGEX.
set -euo pipefail

kt2sql=$1 db=$2 trace=$3 import=$4 label=$5
runs=${BENCH_RUNS:-3}
only=${BENCH_ONLY:-}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# shellcheck source=bench/commands.sh
source "$(dirname "$0")/commands.sh"

for cmd in "${cmds[@]}"; do
    if [ -n "$only" ] && ! [[ $cmd =~ $only ]]; then continue; fi
    args=$(expand "$cmd" "$trace" "$scratch/out.json")
    best_cpu="" best_wall="" rss=0 size=0
    for _ in $(seq "$runs"); do
        rm -f "$scratch/out.json"
        # The output is counted, not kept: `dump` writes 2.5 GB of text
        # from a 1 GiB trace.
        # shellcheck disable=SC2086
        size=$({ rc=0
                /usr/bin/time -f '%U %S %e %M' -o "$scratch/time" "$kt2sql" $args \
                    2>/dev/null || rc=$?
                echo "$rc" >"$scratch/rc"; } | wc -c)
        rc=$(cat "$scratch/rc")
        # The last line: a command that failed has "Command exited" first.
        read -r user sys wall kb < <(tail -n 1 "$scratch/time")
        cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')
        if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN {exit !(a < b)}'; then
            best_cpu=$cpu
        fi
        if [ -z "$best_wall" ] || awk -v a="$wall" -v b="$best_wall" 'BEGIN {exit !(a < b)}'; then
            best_wall=$wall
        fi
        [ "$kb" -gt "$rss" ] && rss=$kb
        [ -f "$scratch/out.json" ] && size=$(stat -c %s "$scratch/out.json")
    done
    # lint exits 1 when it finds hazards; any other failure is shown.
    [ "$rc" -le 1 ] || size="exit $rc"
    shown=${cmd//@DB /}
    shown=${shown//@TRACE/TRACE}
    shown=${shown//@TARGET/FILE}
    shown=${shown//@OUT/FILE}
    awk -v l="$label" -v c="$shown" -v cpu="$best_cpu" -v w="$best_wall" -v kb="$rss" \
        -v b="$size" -v imp="$import" 'BEGIN {
        out = b !~ /^[0-9]+$/ ? b : b >= 1e6 ? sprintf("%.1f MB", b / 1e6) : b >= 1e3 ? sprintf("%.0f kB", b / 1e3) : sprintf("%d B", b)
        printf "| %s | `kt2sql %s` | %.2f s | %.2f s | %.2f× | %d MB | %s |\n", l, c, cpu, w, cpu / imp, kb / 1024, out }'
done
