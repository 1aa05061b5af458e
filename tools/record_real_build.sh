#!/bin/bash
# Record a real build under strace and write it as a BSD trace with argv
# (openbsd-amd64 by default), with strace2kt.py's truth JSON beside it.
#
#   tools/record_real_build.sh SRC OUT NAME 'BUILD COMMAND' [DIALECT]
#
# SRC is copied to OUT/NAME (never built in place), the command runs there
# under `strace -f` (as `sh -c 'exec sh -c COMMAND'`), and OUT holds
# NAME.strace, NAME.buildlog, NAME.ktrace and NAME.json. Import it with
#   kt2sql import OUT/NAME.ktrace DB -d OUT/NAME
# STRACE2KT names strace2kt.py (default: ../shared/tools/strace2kt.py
# beside this checkout). Example, zstd's static library:
#   tools/record_real_build.sh libzstd-1.5.4 /tmp/rb zstd 'make -j2 -C lib libzstd.a'
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
src=$1 out=$2 name=$3 cmd=$4 dialect=${5:-openbsd-amd64}
here=$(cd "$(dirname "$0")/.." && pwd)
tool=${STRACE2KT:-$here/../shared/tools/strace2kt.py}
mkdir -p "$out"
out=$(cd "$out" && pwd)
dir=$out/$name
[ -e "$dir" ] && { echo "$dir exists; remove it first" >&2; exit 2; }
cp -a "$src" "$dir"
(cd "$dir" && strace -f -ttt -T -v -s 4096 -y -e raw=read,write,pread64,pwrite64 \
    -o "$out/$name.strace" sh -c "exec sh -c '$cmd'" >"$out/$name.buildlog" 2>&1)
python3 "$tool" "$out/$name.strace" --dialect "$dialect" --start-cwd "$dir" \
    -o "$out/$name.ktrace" --truth "$out/$name.json"
echo "$out/$name.ktrace (start dir $dir)"
