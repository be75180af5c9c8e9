-- The turns on either side of a memory search's turn-window hits.
--
-- archivist_turn_neighbours(chunk_ids, filter, span): for each turn window named (a hit), the
--   last `span` turns (at most 4) of the window before it in its session and the first `span`
--   of the window after it, as the windows show them (`Speaker: text`), each with its message
--   id and its place: -1 the turn just before the window, -2 the one before that, 1 the turn
--   just after it. What answers a question often sits just across a window's edge (the windows
--   sit at fixed places and do not overlap); a memory search shows the neighbours with its
--   hits as far as each hit's share of the text allows (archivist.search.neighbours). Only
--   windows the filter admits lend turns (a window said after `as_of` or `until`, another
--   user's); a window cut into pieces (longer than window_max_chars) or archived before
--   windows kept where their turns start lends none. Only the first 10 windows named count
--   (a search's most hits).
CREATE OR REPLACE FUNCTION archivist_turn_neighbours(
    chunk_ids text[], filter jsonb DEFAULT '{}', span integer DEFAULT 2
) RETURNS TABLE (chunk_id uuid, place integer, message_id text, content text)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_filter jsonb := archivist_check_filter(filter) - 'source';
    v_span   integer := least(greatest(coalesce(span, 2), 0), 4);
BEGIN
    IF v_span = 0 OR coalesce(cardinality(chunk_ids), 0) = 0 THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format(
        'WITH hits AS MATERIALIZED ('
        '    SELECT h.id, h.session_id, h.embedding_model, d.side, '
        '           ''turns:'' || lpad((substr(h.slot, 7)::integer + d.side)::text, 6, ''0'') '
        '               AS slot '
        '    FROM jarvis_memory_chunks h CROSS JOIN (VALUES (-1), (1)) AS d(side) '
        '    WHERE h.id = ANY ($8::uuid[]) AND h.source = ''session_turn'' '
        '      AND h.slot ~ ''^turns:\d{1,9}$''), '
        -- found by their place alone (the slot index), then filtered: a filter's session
        -- list must not make the planner read whole sessions for them
        'found AS MATERIALIZED (SELECT h.id AS hit, h.side, c.content, c.metadata, '
        '                              c.session_id, c.source, c.embedding_model, c.user_id '
        '    FROM hits h '
        '    JOIN jarvis_memory_chunks c ON c.session_id = h.session_id AND c.slot = h.slot '
        '     AND c.source = ''session_turn'' AND c.embedding_model = h.embedding_model), '
        'near AS (SELECT c.hit, c.side, c.content, c.metadata, '
        '                count(*) OVER (PARTITION BY c.hit, c.side) AS pieces '
        '    FROM found c WHERE %s), '
        'turns AS (SELECT n.hit, n.side, t.n, count(*) OVER (PARTITION BY n.hit, n.side) AS turns, '
        '                 t.start::integer AS start, '
        '                 lead(t.start::integer) OVER (PARTITION BY n.hit, n.side ORDER BY t.n) '
        '                     AS next, '
        '                 n.metadata -> ''message_ids'' ->> (t.n - 1)::integer AS message_id, '
        '                 n.content '
        '    FROM near n, jsonb_array_elements_text(n.metadata -> ''turn_starts'') '
        '                 WITH ORDINALITY AS t(start, n) '
        '    WHERE n.pieces = 1 AND jsonb_typeof(n.metadata -> ''turn_starts'') = ''array'' '
        '      AND jsonb_array_length(n.metadata -> ''turn_starts'') '
        '          = jsonb_array_length(n.metadata -> ''message_ids'')) '
        'SELECT t.hit, (CASE WHEN t.side < 0 THEN t.n - t.turns - 1 ELSE t.n END)::integer, '
        '       t.message_id, '
        '       rtrim(substr(t.content, t.start + 1, '
        '                    coalesce(t.next - 1 - t.start, length(t.content))), E''\n'') '
        'FROM turns t '
        'WHERE (t.side < 0 AND t.n > t.turns - $9) OR (t.side > 0 AND t.n <= $9) '
        'ORDER BY 1, 2',
        archivist_chunk_filter_sql(v_filter))
    USING NULL::vector, NULL::integer, archivist_filter_model(v_filter),
          archivist_filter_sessions(v_filter), NULL::text,
          (v_filter ->> 'since')::timestamptz, (v_filter ->> 'until')::timestamptz,
          chunk_ids[1:10], v_span, NULL::text, NULL::text,
          v_filter ->> 'user_id', (v_filter ->> 'as_of')::timestamptz;
END;
$$;
