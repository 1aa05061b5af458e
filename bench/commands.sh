# The commands the bench runs on a database: every report and every canned
# query without a required parameter. Sourced by bench/reports.sh (timings)
# and bench/outputs.sh (output digests); sets the array `cmds`.
#
# Needs $kt2sql (the binary) and $db (a database imported from a trace with
# -d). In each command @DB stands for the database, @TRACE for the trace,
# @TARGET for a file the build wrote (for `deps`), @OUT for an output file;
# a command without @DB takes the database as its last argument.

cmds=("tree" "tree -v" "files" "files -a -v" "stats" "timeline" "timeline --format svg"
    "timeline --calls" "inputs" "outputs" "lint" "deps @DB @TARGET" "graph" "graph --commands"
    "compile-commands -o @OUT" "dump @TRACE" "dump --format jsonl @TRACE")
while read -r name; do
    cmds+=("query @DB $name")
done < <("$kt2sql" query --list 2>&1 | awk '
    /^[a-z]/ { if (name != "" && !req) print name; name = $1; req = 0 }
    /\(required\)/ { req = 1 }
    END { if (name != "" && !req) print name }')

# A file the build wrote, for `deps` (the one written last).
target=$("$kt2sql" sql "$db" --format csv \
    "SELECT path FROM build_file WHERE role = 'output' ORDER BY path DESC LIMIT 1" 2>/dev/null | tail -n +2 || true)
[ -n "$target" ] || target=/nonexistent

# expand CMD TRACE OUT: the command's arguments, placeholders filled in.
expand() {
    local args=${1//@DB/$db}
    args=${args//@TRACE/$2}
    args=${args//@TARGET/$target}
    args=${args//@OUT/$3}
    [[ $1 == *@DB* || $1 == *@TRACE* ]] || args="$args $db"
    printf '%s' "$args"
}
