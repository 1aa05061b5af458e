#!/usr/bin/env bash
# Fill fuzz/corpus/{decode,import} with seeds when they are empty: the
# starts of the real traces in ../shared/corpus and of small ktcompose
# traces of every dialect (cut to 1, 2 and 4 KiB: libFuzzer mutates small
# inputs faster, and .ci/run fuzzes with -max_len=4096), and the repository's example trace. The import seeds get
# the options byte first (0: detect the dialect).
set -euo pipefail
cd "$(dirname "$0")"
shared=../../shared
mkdir -p corpus/decode corpus/import
if [ -n "$(ls -A corpus/decode)" ] && [ -n "$(ls -A corpus/import)" ]; then
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
seed() { # FILE: add its first 1, 2 and 4 KiB
    for k in 1024 2048 4096; do
        n=$((n + 1))
        head -c "$k" "$1" >"corpus/decode/seed-$n"
        { printf '\0'; head -c "$k" "$1"; } >"corpus/import/seed-$n"
    done
}
[ -f ../example/build.ktrace ] && seed ../example/build.ktrace
if [ -d "$shared/corpus" ]; then
    for f in "$shared"/corpus/*.ktrace; do seed "$f"; done
fi
if [ -f "$shared/tools/ktcompose.py" ] && command -v python3 >/dev/null; then
    for d in $(python3 "$shared/tools/ktcompose.py" --list-dialects | awk '/^[a-z]/ {print $1}'); do
        python3 "$shared/tools/ktcompose.py" --dialect "$d" --seed 1 --processes 2 \
            --depth 1 --jobs 1 --threads 2 -q -o "$tmp/$d.out" --truth "$tmp/$d.json"
        seed "$tmp/$d.out"
    done
fi
echo "fuzz/seeds.sh: $n seeds per target"
