#!/usr/bin/env bash
# A build farm's questions: N composed builds (every dialect in turn, a
# seed each, hazards planted) imported each into a database of its own
# and all into one Parquet dataset, then three canned queries asked of
# the whole farm: by DuckDB over the dataset (one query each, through
# DIR/duckdb.sql), by Spark local[2] over the dataset (DIR/spark.sql and
# DIR/spark/NAME.sql), and by SQLite over every database in turn (the
# query once per database, the times summed). bench/farm.py checks that
# all give the same rows per build and prints the table (markdown).
#
# Usage: bash bench/farm.sh KT2SQL SCRATCH [N [BYTES]]
#   KT2SQL   the binary to run;
#   SCRATCH  a directory for the traces (kept), databases and the dataset
#            (redone);
#   N        how many builds (default 100);
#   BYTES    each build's trace size (ktcompose --target-bytes, default 8M).
# Needs ../shared/tools/ktcompose.py and the duckdb Python package;
# Spark runs too when pyspark (and Java 17) is installed (FARM_SPARK=0: not).
set -euo pipefail

kt2sql=$(realpath "$1") scratch=$2 n=${3:-100} bytes=${4:-8M}
here=$(cd "$(dirname "$0")" && pwd)
compose=$here/../../shared/tools/ktcompose.py
[ -f "$compose" ] || { echo "farm: $compose is missing" >&2; exit 2; }
python3 -c 'import duckdb' 2>/dev/null || { echo "farm: needs the duckdb Python package (pip install duckdb)" >&2; exit 2; }
# The traces are kept (a second run with the same N and BYTES reuses them);
# the databases and the dataset are redone.
rm -rf "$scratch/db" "$scratch/ds" && mkdir -p "$scratch/trace" "$scratch/db"
mapfile -t dialects < <(python3 "$compose" --list-dialects | awk '/^[a-z]/ {print $1}')
sql_cpu=0 ds_cpu=0
for i in $(seq 1 "$n"); do
    dialect=${dialects[$(((i - 1) % ${#dialects[@]}))]}
    trace=$scratch/trace/$i.ktrace
    [ -s "$trace" ] || python3 "$compose" -q --dialect "$dialect" --seed "$i" --processes 60 --jobs 6 \
        --faithful --hazards --target-bytes "$bytes" -o "$trace"
    "$kt2sql" import -q "$trace" "$scratch/db/$i.db" 2>/dev/null
    "$kt2sql" import -q "$trace" --to parquet "$scratch/ds" 2>/dev/null
done
echo "$n builds ($(printf '%s ' "${dialects[@]}")in turn): traces $(du -sh "$scratch/trace" | cut -f1)," \
    "databases $(du -sh "$scratch/db" | cut -f1), dataset $(du -sh "$scratch/ds" | cut -f1)"
echo
python3 "$here/farm.py" "$here/../queries" "$scratch/ds" "$scratch"/db/*.db
