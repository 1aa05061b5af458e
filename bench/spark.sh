#!/usr/bin/env bash
# Spark over a dataset written by kt2sql: installs pyspark (pip, into a
# venv under SCRATCH, about 500 MB; needs a Java 17 runtime), imports each
# trace into a database of its own and all of them into one dataset
# (`import --to parquet`), then runs bench/spark.py: every table read and
# its rows per trace checked against the databases, and three build-farm
# questions timed and checked against SQLite's answers.
#
# Usage: bash bench/spark.sh KT2SQL SCRATCH TRACE[=START_DIR]...
#   KT2SQL     the binary to run;
#   SCRATCH    a directory for the venv, the databases and the dataset
#              (kept, so a second run reuses the venv; the rest is redone);
#   TRACE      a trace, with its -d directory after `=` where it needs one.
# Prints the import times and the table of Spark's steps (markdown).
set -euo pipefail

kt2sql=$(realpath "$1") scratch=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$scratch"
venv=$scratch/venv
if ! "$venv/bin/python" -c 'import pyspark' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --no-cache-dir -q pyspark
fi
rm -rf "$scratch/ds" "$scratch/db"
mkdir -p "$scratch/db"
dbs=()
i=0
for arg in "$@"; do
    trace=${arg%%=*}
    opts=()
    [ "$trace" = "$arg" ] || opts=(-d "${arg#*=}")
    i=$((i + 1))
    db=$scratch/db/$i.db
    /usr/bin/time -f "import $trace → SQLite: %e s wall, %U+%S s CPU, %M KB" \
        "$kt2sql" import -q "${opts[@]}" "$trace" "$db" 2>&1 | grep -v warning || true
    /usr/bin/time -f "import $trace → dataset: %e s wall, %U+%S s CPU, %M KB" \
        "$kt2sql" import -q "${opts[@]}" "$trace" --to parquet "$scratch/ds" 2>&1 | grep -v warning || true
    dbs+=("$db")
done
echo "dataset $(du -sh "$scratch/ds" | cut -f1), databases $(du -ch "${dbs[@]}" | tail -1 | cut -f1)"
echo
# Local mode, on the loopback interface only.
export SPARK_LOCAL_IP=127.0.0.1
"$venv/bin/python" "$here/spark.py" "$scratch/ds" "${dbs[@]}"
