#!/usr/bin/env bash
# The digest of every report's output on one database: run it with the
# binaries before and after a change and compare the two lists, to show
# that a change kept every output byte for byte (the commands are
# bench/commands.sh's, as in the reports' table).
#
# Usage: bash bench/outputs.sh KT2SQL DB TRACE
# Prints one line per command: md5 of stdout (of the -o file for a command
# that writes one), the exit code, the command.
set -euo pipefail

kt2sql=$1 db=$2 trace=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# shellcheck source=bench/commands.sh
source "$(dirname "$0")/commands.sh"

for cmd in "${cmds[@]}"; do
    args=$(expand "$cmd" "$trace" "$scratch/out")
    rm -f "$scratch/out"
    rc=0
    # shellcheck disable=SC2086
    sum=$("$kt2sql" $args 2>/dev/null | md5sum | cut -c1-32) || rc=$?
    [ -f "$scratch/out" ] && sum=$(md5sum <"$scratch/out" | cut -c1-32)
    shown=${cmd//@DB /}
    shown=${shown//@TRACE/TRACE}
    shown=${shown//@TARGET/FILE}
    shown=${shown//@OUT/FILE}
    printf '%s %s %s\n' "$sum" "$rc" "$shown"
done
