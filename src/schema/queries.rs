//! The registry of canned queries: every `queries/*.sql` file embedded
//! with an explicit `include_str!` list, and lookup by name. It sits
//! beside the schema because the queries read the schema's views and are
//! shipped with it: the reports run them, and a dataset carries them
//! for DuckDB beside the views. What a
//! query's header says is `query_header.rs`'s job; running one is the
//! reports'.

use super::query_header::Query;

/// Every query file, by file name. Listed by hand (not by scanning the
/// directory) so Cargo tracks each one; a test checks that every file in
/// `queries/` is listed.
pub const QUERIES: &[(&str, &str)] = &[
    (
        "build_time.sql",
        include_str!("../../queries/build_time.sql"),
    ),
    ("commands.sql", include_str!("../../queries/commands.sql")),
    (
        "critical_path.sql",
        include_str!("../../queries/critical_path.sql"),
    ),
    ("deps.sql", include_str!("../../queries/deps.sql")),
    (
        "diff_accesses.sql",
        include_str!("../../queries/diff_accesses.sql"),
    ),
    (
        "diff_commands.sql",
        include_str!("../../queries/diff_commands.sql"),
    ),
    (
        "diff_hazards.sql",
        include_str!("../../queries/diff_hazards.sql"),
    ),
    (
        "diff_paths.sql",
        include_str!("../../queries/diff_paths.sql"),
    ),
    (
        "failed_commands.sql",
        include_str!("../../queries/failed_commands.sql"),
    ),
    (
        "failed_lookups.sql",
        include_str!("../../queries/failed_lookups.sql"),
    ),
    ("files.sql", include_str!("../../queries/files.sql")),
    (
        "files_verbose.sql",
        include_str!("../../queries/files_verbose.sql"),
    ),
    (
        "graph_edges.sql",
        include_str!("../../queries/graph_edges.sql"),
    ),
    (
        "graph_nodes.sql",
        include_str!("../../queries/graph_nodes.sql"),
    ),
    ("inputs.sql", include_str!("../../queries/inputs.sql")),
    ("issues.sql", include_str!("../../queries/issues.sql")),
    ("lint.sql", include_str!("../../queries/lint.sql")),
    ("outputs.sql", include_str!("../../queries/outputs.sql")),
    (
        "parallelism.sql",
        include_str!("../../queries/parallelism.sql"),
    ),
    (
        "pid_lifetimes.sql",
        include_str!("../../queries/pid_lifetimes.sql"),
    ),
    (
        "process_top.sql",
        include_str!("../../queries/process_top.sql"),
    ),
    ("removed.sql", include_str!("../../queries/removed.sql")),
    (
        "running_commands.sql",
        include_str!("../../queries/running_commands.sql"),
    ),
    (
        "slow_calls.sql",
        include_str!("../../queries/slow_calls.sql"),
    ),
    (
        "slow_commands.sql",
        include_str!("../../queries/slow_commands.sql"),
    ),
    (
        "syscall_top.sql",
        include_str!("../../queries/syscall_top.sql"),
    ),
    (
        "timeline_call_rows.sql",
        include_str!("../../queries/timeline_call_rows.sql"),
    ),
    (
        "timeline_calls.sql",
        include_str!("../../queries/timeline_calls.sql"),
    ),
    (
        "timeline_flows.sql",
        include_str!("../../queries/timeline_flows.sql"),
    ),
    (
        "timeline_forks.sql",
        include_str!("../../queries/timeline_forks.sql"),
    ),
    (
        "timeline_lifetimes.sql",
        include_str!("../../queries/timeline_lifetimes.sql"),
    ),
    (
        "timeline_rows.sql",
        include_str!("../../queries/timeline_rows.sql"),
    ),
    (
        "timeline_slices.sql",
        include_str!("../../queries/timeline_slices.sql"),
    ),
    (
        "timeline_threads.sql",
        include_str!("../../queries/timeline_threads.sql"),
    ),
    (
        "timeline_tracks.sql",
        include_str!("../../queries/timeline_tracks.sql"),
    ),
    ("traces.sql", include_str!("../../queries/traces.sql")),
    ("tree.sql", include_str!("../../queries/tree.sql")),
    (
        "tree_call_rows.sql",
        include_str!("../../queries/tree_call_rows.sql"),
    ),
    (
        "tree_calls.sql",
        include_str!("../../queries/tree_calls.sql"),
    ),
    (
        "unresolved.sql",
        include_str!("../../queries/unresolved.sql"),
    ),
    (
        "watch_status.sql",
        include_str!("../../queries/watch_status.sql"),
    ),
    (
        "writer_dirs.sql",
        include_str!("../../queries/writer_dirs.sql"),
    ),
];

/// Every query with its parsed header, in file-name order.
pub fn queries() -> Vec<Query> {
    QUERIES
        .iter()
        .map(|(file, sql)| Query::parse(file, sql))
        .collect()
}

/// The query called `name`: its file stem (`slow_calls`), the one name
/// `kt2sql query`, `queries/` and a dataset's `duckdb/` give it; the same
/// with hyphens (`slow-calls`, the CLI's spelling until the names were
/// made one, still taken) or its file name.
pub fn query(name: &str) -> Option<Query> {
    let stem = name.strip_suffix(".sql").unwrap_or(name).replace('-', "_");
    QUERIES
        .iter()
        .find(|(file, _)| file.strip_suffix(".sql") == Some(stem.as_str()))
        .map(|(file, sql)| Query::parse(file, sql))
}
