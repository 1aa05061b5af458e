//! The sums the import stores so reports need not scan the big tables
//! (`syscall_stat`, `process.calls` …, `trace.files`, `exec.image`,
//! `exec.calls_from`, `process.parent_exec_id`, `namei.success`) restated in SQL over the rows themselves: every
//! query below lists the disagreements, and must list none.

use rusqlite::Connection;

/// Each check: what it compares, and a query returning the rows that differ.
const CHECKS: &[(&str, &str)] = &[
    (
        "syscall_stat = call grouped by trace and code: calls made, and children's returns apart",
        "WITH want AS (
           SELECT trace_id, code, syscall,
                  count(CASE WHEN unpaired IS NOT 'child return' THEN 1 END) AS calls,
                  count(CASE WHEN unpaired = 'child return' THEN 1 END) AS child_returns,
                  count(CASE WHEN success = 0 THEN 1 END) AS failed,
                  count(CASE WHEN retval IS NULL THEN 1 END) AS no_return,
                  count(dur) AS timed, COALESCE(sum(dur), 0) AS total_dur, max(dur) AS max_dur
           FROM call JOIN process USING (process_id) GROUP BY trace_id, code),
         got AS (
           SELECT trace_id, code, syscall, calls, child_returns, failed, no_return, timed,
                  total_dur, max_dur
           FROM syscall_stat)
         SELECT * FROM (SELECT * FROM want EXCEPT SELECT * FROM got)
         UNION ALL
         SELECT * FROM (SELECT * FROM got EXCEPT SELECT * FROM want)",
    ),
    (
        "process counters = its call_made and namei rows",
        "SELECT p.process_id FROM process AS p
         WHERE p.calls <> (SELECT count(*) FROM call_made AS c WHERE c.process_id = p.process_id)
            OR p.failed_calls <> (SELECT count(*) FROM call AS c
                                  WHERE c.process_id = p.process_id AND c.success = 0)
            OR p.lookups <> (SELECT count(*) FROM namei AS n WHERE n.process_id = p.process_id)
            OR p.unresolved_lookups <> (SELECT count(*) FROM namei AS n
                                        WHERE n.process_id = p.process_id
                                          AND n.resolution = 'unknown base')
            OR p.files <> (SELECT count(DISTINCT f.path) FROM file_access AS f
                           WHERE f.process_id = p.process_id AND f.success = 1)",
    ),
    (
        "namei.success = its call's success (a core file's: 1; past a call's 16th lookup: NULL)",
        "SELECT n.namei_id FROM namei AS n LEFT JOIN call AS c USING (call_id)
         WHERE n.success IS NOT CASE WHEN n.coredump = 1 THEN 1
                                     WHEN n.seq >= 16 THEN NULL ELSE c.success END",
    ),
    (
        "trace.files = rows of the files view",
        "SELECT t.trace_id FROM trace AS t
         WHERE t.files <> (SELECT count(*) FROM files AS f WHERE f.trace_id = t.trace_id)",
    ),
    (
        "exec.image numbers the successful execs in seq order",
        "SELECT exec_id FROM (
           SELECT exec_id, image,
                  CASE WHEN success = 1
                       THEN count(CASE WHEN success = 1 THEN 1 END)
                              OVER (PARTITION BY process_id ORDER BY seq) - 1 END AS want
           FROM exec)
         WHERE image IS NOT want",
    ),
    (
        "an image's calls by call id (calls_from, calls_to) are its calls by file offset",
        "SELECT c.call_id, by_id.exec_id, by_offset.exec_id
         FROM call AS c
         LEFT JOIN process_image AS by_id
           ON by_id.process_id = c.process_id AND c.call_id >= by_id.calls_from
          AND (by_id.calls_to IS NULL OR c.call_id < by_id.calls_to)
         LEFT JOIN process_image AS by_offset
           ON by_offset.process_id = c.process_id
          AND COALESCE(c.call_offset, c.ret_offset) >= by_offset.start_offset
          AND (by_offset.end_offset IS NULL
               OR COALESCE(c.call_offset, c.ret_offset) < by_offset.end_offset)
         WHERE by_id.exec_id IS NOT by_offset.exec_id",
    ),
    (
        "fork_offset lies within the fork call (its RET; a Mac OS X vfork child's own RET; the CALL when the RET was lost), and parent_exec_id is the parent's image current there",
        "SELECT p.process_id FROM process AS p
         LEFT JOIN call AS fc ON fc.call_id = p.fork_call_id
         WHERE (fc.call_id IS NOT NULL
                AND p.fork_offset NOT BETWEEN COALESCE(fc.call_offset, fc.ret_offset)
                                          AND COALESCE(fc.ret_offset, fc.call_offset))
            OR p.parent_exec_id IS NOT (
                 SELECT i.exec_id FROM process_image AS i
                 WHERE i.process_id = p.parent_id
                   AND i.start_offset <= COALESCE(p.fork_offset, 0)
                   AND (i.end_offset IS NULL OR COALESCE(p.fork_offset, 0) < i.end_offset))",
    ),
];

/// Assert every stored sum equals its restatement over the rows.
pub fn check(conn: &Connection, ctx: &str) {
    let calls: i64 = conn
        .query_row("SELECT count(*) FROM call", [], |r| r.get(0))
        .unwrap();
    let stats: i64 = conn
        .query_row("SELECT count(*) FROM syscall_stat", [], |r| r.get(0))
        .unwrap();
    assert!(
        calls == 0 || stats > 0,
        "{ctx}: calls but no syscall_stat rows"
    );
    for (what, sql) in CHECKS {
        let mut stmt = conn.prepare(sql).unwrap();
        let cols = stmt.column_count();
        let bad: Vec<String> = stmt
            .query_map([], |r| {
                let v: Vec<String> = (0..cols)
                    .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                    .collect();
                Ok(v.join(" "))
            })
            .unwrap()
            .map(Result::unwrap)
            .take(5)
            .collect();
        assert!(bad.is_empty(), "{ctx}: {what}: differing rows {bad:?}");
    }
}
