#!/bin/sh
# Rewrites the composed fixtures of tests/fixtures/composed/ from its
# manifest: each line's trace and truth, written by the development
# corpus's trace composer (ktcompose.py) and compressed with zstd. The
# composer is deterministic for a seed, so the same manifest gives the same
# files; a test (committed_fixtures_are_what_ktcompose_writes) checks them.
#
#   sh tools/make_fixtures.sh [PATH/TO/ktcompose.py]   (default ../shared/tools/ktcompose.py)
set -eu
cd "$(dirname "$0")/.."
compose=${1:-../shared/tools/ktcompose.py}
dir=tests/fixtures/composed
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$dir"/*.zst
grep -v '^#' "$dir/manifest" | while read -r name dialect seed args; do
    [ -n "$name" ] || continue
    # The names t.out and t.json are those the tests compose to (the truth names its trace).
    # shellcheck disable=SC2086 # the arguments are words
    python3 "$compose" --dialect "$dialect" --seed "$seed" -o "$tmp/t.out" \
        --truth "$tmp/t.json" $args -q
    zstd -q -19 -f "$tmp/t.out" -o "$dir/$name.ktrace.zst"
    zstd -q -19 -f "$tmp/t.json" -o "$dir/$name.json.zst"
done
