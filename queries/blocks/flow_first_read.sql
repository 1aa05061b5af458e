-- The file flow rule, part 2 (part 1 is flow_after_write): the flows of
-- flow_after, one row per (path, producer, consumer) at the consumer's
-- first read after a write of the producer. Windows, not a GROUP BY:
-- SQLite passes a filter on root_pid down through windows, not through a
-- group.
flow_first (root_pid, trace_id, path_id, producer_id, consumer_id, write_ts, read_ts) AS (
  SELECT root_pid, trace_id, path_id, producer, command_id, wts, ts
  FROM (SELECT root_pid, trace_id, path_id, producer, command_id, wts, ts,
               row_number() OVER (PARTITION BY root_pid, trace_id, path_id, producer, command_id
                                  ORDER BY "offset") AS n
        FROM flow_after
        WHERE producer IS NOT NULL)
  WHERE n = 1
)
