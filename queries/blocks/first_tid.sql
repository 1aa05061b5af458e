-- Each process's first thread (its pid when it has none): the tid its
-- slices are drawn on, as timeline_slices' tid.
first_tid (process_id, tid) AS (
  SELECT p.process_id,
         COALESCE((SELECT h.tid FROM thread AS h WHERE h.process_id = p.process_id
                   ORDER BY h.first_ts, h.thread_id LIMIT 1), p.pid)
  FROM process AS p
