-- Whether the build left a path removed: its last successful write or
-- removal in the trace was a removal (build_file's role `temporary`).
-- `kt2sql compile-commands` asks it of each entry's source, to leave out
-- the sources the build deleted (configure's conftest.c, a compiler
-- driver's probe in /tmp), as Bear keeps only sources that exist after
-- the build. One lookup of the path through its index, not a pass over
-- every lookup of the build.
--
-- @param  trace    The trace_id (default: every trace).
-- @param  path     The absolute path.
-- @column removed  1 when the build's last change of it removed it; 0 when
--                  it wrote it last, or never changed it (or never looked
--                  it up).
SELECT COALESCE((
  -- 1 or 0, not a comparison: Spark's is a BOOLEAN, which COALESCE with 0 refuses.
  SELECT CASE WHEN a.effect = 'remove' THEN 1 ELSE 0 END
  FROM build_access AS a
  -- (The access kind needs only the lookup, so it drops the others before their call is read.)
  WHERE a.access IN (SELECT access FROM _access_class WHERE effect IN ('write', 'remove'))
    AND a.path_id IN (SELECT path_id FROM path WHERE path = $path)
    AND a.effect IN ('write', 'remove')
    AND ($trace IS NULL OR a.trace_id = $trace)
  ORDER BY a.trace_id DESC, a."offset" DESC
  LIMIT 1), 0) AS removed;
