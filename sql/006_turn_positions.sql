-- archivist 006: where each turn of a stored turn window begins among its words.
--
-- A turn window committed from now on carries `turn_positions` and `turn_words` in its metadata
-- (archivist_turn_positions, sql/functions/search_words.sql), so that BM25 scores its turns as
-- well as the whole window (archivist_bm25); a window without them is scored as a whole. This
-- gives the windows archived before the same metadata, computed the same way. Migrations run
-- before the functions are defined, so the function's body is written out here
-- (tests/db/test_turn_scoring.py checks that the two agree). It reads each window's text again,
-- about as long as it took to store it.
UPDATE jarvis_memory_chunks c
SET metadata = c.metadata || (
    SELECT jsonb_build_object('turn_positions', jsonb_agg(1 + coalesce(v.last, 0) ORDER BY t.at),
                              'turn_words', jsonb_agg(v.words ORDER BY t.at))
    FROM (SELECT x::integer AS at
          FROM jsonb_array_elements_text(c.metadata -> 'turn_starts') AS x
          WHERE x::integer > 0) t
    CROSS JOIN LATERAL (SELECT max(p) AS last, count(p) AS words
                        FROM unnest(to_tsvector('english', left(c.content, t.at))) u,
                             unnest(u.positions) p) v)
WHERE c.source = 'session_turn' AND NOT c.metadata ? 'turn_positions'
  AND jsonb_typeof(c.metadata -> 'turn_starts') = 'array'
  AND jsonb_array_length(c.metadata -> 'turn_starts') BETWEEN 2 AND 8;
