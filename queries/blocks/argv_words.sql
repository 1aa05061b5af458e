-- argv as one line of words: the JSON array's strings joined by spaces,
-- or the recorded bytes with each NUL a space; NULL when the trace holds
-- no argv. Reads the column `argv` of the row at hand.
CASE WHEN json_valid(CAST(argv AS TEXT))
     THEN (SELECT group_concat(a.value, ' ') FROM json_each(argv) AS a)
     WHEN argv IS NOT NULL THEN replace(CAST(argv AS TEXT), char(0), ' ')
END
