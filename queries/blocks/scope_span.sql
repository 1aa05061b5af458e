-- The rows of tree_node the scope lies in: all, or from the pid's first
-- lifetime to the end of its last one's subtree.
span (lo, hi) AS (
  SELECT CASE WHEN $pid IS NULL THEN 0 ELSE min(first_pos) END,
         CASE WHEN $pid IS NULL THEN 9223372036854775807 ELSE max(last_pos) END
  FROM _scope_span WHERE root_pid = $pid AND ($trace IS NULL OR trace_id = $trace)
