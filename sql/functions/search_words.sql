-- The searches by words: the query's words, their weights, BM25 over Postgres full text.

CREATE OR REPLACE FUNCTION archivist_query_words(query_text text) RETURNS text[]
LANGUAGE sql IMMUTABLE
AS $$
    SELECT coalesce((array_agg(w ORDER BY w))[1:64], '{}')
    FROM unnest(tsvector_to_array(to_tsvector('english', coalesce(query_text, '')))) w
    WHERE w !~ '[\\]'
$$;

-- The inverse document frequency of each word, like BM25's: ln(1 + (N - df + 0.5) / (df + 0.5)),
-- so a rare name outweighs a common verb. On a small table (a row estimate under 10,000) df and
-- N are counted over the chunks the filter admits. On a large one they are the whole table's
-- (the model's chunks), whatever else the filter says: N is the table's row estimate; a word
-- among the column's most common elements (pg_stats, kept by ANALYZE) takes its frequency from
-- there, any other word is counted (up to 10,000; below the most common elements, so it is
-- rare). Counting a word under a filter is what would cost: a common word's GIN entries cover
-- most of the table whatever the filter keeps (at 300k chunks that made a search filtered to
-- one session 5x slower than at 100k). `usable` is false for a word in no chunk or in more than
-- 10,000 (as good as a stop word).
-- Its result lost a column nothing read (`selective`); CREATE OR REPLACE cannot change a
-- result, so the function is dropped first (in init's transaction).
DROP FUNCTION IF EXISTS archivist_word_stats(text[], jsonb);
CREATE OR REPLACE FUNCTION archivist_word_stats(words text[], filter jsonb)
RETURNS TABLE (word text, df bigint, idf double precision, usable boolean)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_filter   jsonb := archivist_check_filter(filter);
    v_where    text := archivist_chunk_filter_sql(v_filter);
    v_model    text := archivist_filter_model(v_filter);
    v_known    bigint[];
    v_df       bigint[];
    v_n        double precision;
    v_count    boolean;
    v_counted  bigint;
BEGIN
    PERFORM archivist_require_search_caller('archivist_word_stats');
    IF coalesce(cardinality(words), 0) = 0 THEN
        RETURN;
    END IF;
    v_n := (SELECT reltuples FROM pg_class WHERE oid = 'jarvis_memory_chunks'::regclass);
    v_count := v_n < 10000;
    IF NOT v_count THEN
        v_where := 'c.embedding_model = $3';
        v_known := ARRAY(
            SELECT round(e.freq * v_n)::bigint
            FROM unnest(words) WITH ORDINALITY AS u(w, i)
            LEFT JOIN (SELECT m.w, f.freq
                       FROM pg_stats s,
                            unnest(s.most_common_elems::text::text[]) WITH ORDINALITY AS m(w, i)
                            JOIN unnest(s.most_common_elem_freqs) WITH ORDINALITY AS f(freq, i)
                              ON f.i = m.i
                       WHERE s.schemaname = current_schema() AND s.tablename =
                             'jarvis_memory_chunks' AND s.attname = 'fts') e ON e.w = u.w
            ORDER BY u.i);
    END IF;
    -- One statement: each word's count (unless known) and, when wanted, the filter's chunks.
    EXECUTE format(
        'SELECT array_agg(coalesce(k, (SELECT count(*) FROM (SELECT 1 FROM jarvis_memory_chunks c '
        '    WHERE c.fts @@ to_tsquery(''simple'', quote_literal(w)) AND %1$s LIMIT 10001) x)) '
        '    ORDER BY i), '
        '    CASE WHEN $10 THEN (SELECT count(*) FROM jarvis_memory_chunks c WHERE %1$s) END '
        'FROM unnest($8::text[], $9::bigint[]) WITH ORDINALITY AS u(w, k, i)',
        v_where)
    INTO v_df, v_counted
    USING NULL::vector, NULL::integer, v_model, archivist_filter_sessions(v_filter),
          v_filter ->> 'source', (v_filter ->> 'since')::timestamptz,
          (v_filter ->> 'until')::timestamptz, words,
          coalesce(v_known, array_fill(NULL::bigint, ARRAY[cardinality(words)])), v_count,
          NULL::text, v_filter ->> 'user_id', (v_filter ->> 'as_of')::timestamptz;
    v_n := greatest(coalesce(v_counted, v_n), (SELECT max(d) FROM unnest(v_df) d), 1);
    RETURN QUERY
    SELECT u.w, u.df, ln(1 + (v_n - u.df + 0.5) / (u.df + 0.5)), u.df BETWEEN 1 AND 10000
    FROM unnest(words, v_df) AS u(w, df);
END;
$$;

-- Where a turn window's turns begin among the positions of its full text (to_tsvector(content))
-- and how many words come before each, so that BM25 can score each turn on its own
-- (archivist_bm25): {"turn_positions": [p2, .., pn], "turn_words": [w2, .., wn]}, pk the first
-- position of turn k, one past the last of the text before it (a prefix parses as the whole
-- does up to there; a stop word takes a position but holds none), and wk the positions the text
-- before it holds. {} for a chunk of one turn, or of more than 8: each turn parses the text
-- before it again, which costs more than the window's own full text past that (a window holds
-- 4 turns unless `turns_per_window` says more).
CREATE OR REPLACE FUNCTION archivist_turn_positions(content text, turn_starts jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE
AS $$
    SELECT CASE WHEN count(*) BETWEEN 1 AND 7 THEN jsonb_build_object(
               'turn_positions', jsonb_agg(1 + coalesce(v.last, 0) ORDER BY t.at),
               'turn_words', jsonb_agg(v.words ORDER BY t.at))
           ELSE '{}' END
    FROM (SELECT t.x::integer AS at
          FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(turn_starts) = 'array'
                                              THEN turn_starts ELSE '[]' END) AS t(x)
          WHERE t.x::integer > 0) t
    CROSS JOIN LATERAL (SELECT max(p) AS last, count(p) AS words
                        FROM unnest(to_tsvector('english', left(content, t.at))) u,
                             unnest(u.positions) p) v
$$;

-- BM25 over the chunks a filter admits that have one of `scope` (words): a chunk scores, for
-- each of the `words` it has, the word's weight times tf * (k1 + 1) / (tf + k1 * (1 - b + b *
-- length / average length)), k1 1.5, b 0.75; tf is the word's count in the chunk and the length
-- its count of words (both from the tsvector's positions), the average over the chunks scored.
-- Turn windows are long (whole turns of a long conversation), so how often a word is said
-- matters. A window is also scored by its best turn: BM25 over the turns of the windows scored
-- (where its turns begin among its words: archivist_turn_positions), a turn's length and the
-- average being turns'. Its rank is 1/4 the window's score and 3/4 its best turn's (a chunk of
-- one turn: its own score), divided by `most`. A short statement between long replies ("the
-- launch moved to June 17" in a window of 13,000 characters) is then not diluted by them: on
-- BEAM's and REALTALK's tuning chats (hash embedder, hybrid) evidence recall@10 0.698 -> 0.717
-- (100K), 0.583 -> 0.600 (500K, chats 1-5 and 11-15), 0.600 -> 0.606 (REALTALK), the same
-- characters, the updated statement above the original as often (0.94, 0.88). The best turn
-- alone did as well on 100K and better on 500K, but ranked fewer updates first (0.81) and did
-- less on REALTALK. The session setting `archivist.turn_share` (0 to 1; 0: whole windows only)
-- replaces the 3/4, for comparing. The k best. Each chunk's tsvector is read once, lexeme by
-- lexeme, for its length, and once cut to the query's words, for their counts and positions;
-- everything is computed chunk by chunk, never by joining the chunks' rows to each other (the
-- planner may take nested loops for such a join: minutes a query at 100k chunks).
-- With `cap`, at most cap chunks are read and scored (what a search costs then no longer grows
-- with the number of chunks that have a query word), taken best first by the scope words they
-- have: the (at most 4) scope words of most weight make up to 15 sets, ordered by the sum of
-- their weights, and the chunks having exactly a set's words (of those 4) come in that order,
-- then those having only other scope words; so a chunk with the rarest words is read before
-- one with a common word alone. Within a set the GIN index gives them in table order, so where
-- the cap cuts a set, it keeps some of its chunks, not the shortest. Without `cap` (or when the
-- caller knows the scope is smaller) every chunk with a scope word is scored.
CREATE OR REPLACE FUNCTION archivist_bm25(
    words text[], weights double precision[], scope text[], most double precision, k integer,
    filter jsonb, cap integer DEFAULT NULL
) RETURNS TABLE (id uuid, rank real)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_filter   jsonb := archivist_check_filter(filter);
    v_where    text := archivist_chunk_filter_sql(v_filter);
    v_from     text;
    v_top      text[];
    v_top_w    double precision[];
    v_rest     text[];
    v_seqscan  text := current_setting('enable_seqscan');
    v_parallel text := current_setting('max_parallel_workers_per_gather');
BEGIN
    PERFORM archivist_require_search_caller('archivist_bm25');
    IF coalesce(cardinality(words), 0) = 0 OR coalesce(cardinality(scope), 0) = 0 THEN
        RETURN;
    END IF;
    IF cap IS NULL THEN
        v_from := format('SELECT c.id, c.fts, c.metadata -> ''turn_positions'' AS bounds, c.metadata -> ''turn_words'' AS turn_words FROM jarvis_memory_chunks c '
                         'WHERE c.fts @@ $10 AND %s', v_where);
    ELSE
        SELECT (array_agg(s.w ORDER BY s.weight DESC, s.w))[1:4],
               (array_agg(s.weight ORDER BY s.weight DESC, s.w))[1:4],
               (array_agg(s.w ORDER BY s.weight DESC, s.w))[5:]
        INTO v_top, v_top_w, v_rest
        FROM unnest(words, weights) AS s(w, weight) WHERE s.w = ANY (scope);
        -- One part per set of the top words (bit i of m: word i), the chunks with exactly those;
        -- the parts run in this order and the LIMIT stops them (Append runs its parts in turn).
        SELECT string_agg(p.part, ' UNION ALL ' ORDER BY p.total DESC, p.m)
        INTO v_from
        FROM (SELECT m, sum(t.weight) FILTER (WHERE m & (1 << (t.i - 1)::int) <> 0) AS total,
                     format('(SELECT c.id, c.fts, c.metadata -> ''turn_positions'' AS bounds, c.metadata -> ''turn_words'' AS turn_words '
                            'FROM jarvis_memory_chunks c '
                            'WHERE c.fts @@ %L::tsquery%s AND %s)',
                            to_tsquery('simple', string_agg(quote_literal(t.w), ' & ')
                                       FILTER (WHERE m & (1 << (t.i - 1)::int) <> 0))::text,
                            coalesce(' AND NOT c.fts @@ ' || quote_literal(
                                to_tsquery('simple', string_agg(quote_literal(t.w), ' | ')
                                           FILTER (WHERE m & (1 << (t.i - 1)::int) = 0))::text)
                                || '::tsquery', ''),
                            v_where) AS part
              FROM generate_series(1, (1 << cardinality(v_top)) - 1) AS m,
                   unnest(v_top, v_top_w) WITH ORDINALITY AS t(w, weight, i)
              GROUP BY m) p;
        IF cardinality(v_rest) > 0 THEN
            v_from := v_from || format(
                ' UNION ALL (SELECT c.id, c.fts, c.metadata -> ''turn_positions'', c.metadata -> ''turn_words'' '
                'FROM jarvis_memory_chunks c '
                'WHERE c.fts @@ %L::tsquery AND NOT c.fts @@ %L::tsquery AND %s)',
                to_tsquery('simple', (SELECT string_agg(quote_literal(w), ' | ')
                                      FROM unnest(v_rest) w))::text,
                to_tsquery('simple', (SELECT string_agg(quote_literal(w), ' | ')
                                      FROM unnest(v_top) w))::text,
                v_where);
        END IF;
        v_from := format('SELECT u.id, u.fts, u.bounds, u.turn_words FROM (%s) u LIMIT %s',
                         v_from, greatest(cap, 1));
        -- Each part from the GIN index (a sequential scan would read the table for a common
        -- word), and in one process, so the parts run in order.
        PERFORM set_config('enable_seqscan', 'off', true);
        PERFORM set_config('max_parallel_workers_per_gather', '0', true);
    END IF;
    RETURN QUERY EXECUTE format(
        'WITH '
        'stats AS MATERIALIZED (SELECT f.id, f.fts, l.len, '
        '        CASE WHEN m.many THEN ARRAY(SELECT jsonb_array_elements_text(f.bounds)::integer) '
        '             END AS bounds, '
        '        CASE WHEN m.many THEN ARRAY(SELECT jsonb_array_elements_text(f.turn_words)::float8) '
        '             || l.len END AS upto '
        '    FROM (%s) f, '
        '         LATERAL (SELECT greatest(sum(cardinality(u.positions)), 1)::float8 AS len '
        '                  FROM unnest(f.fts) u) l, '
        '         LATERAL (SELECT jsonb_typeof(f.bounds) = ''array'' '
        '                         AND jsonb_typeof(f.turn_words) = ''array'' '
        '                         AND jsonb_array_length(f.bounds) '
        '                             = jsonb_array_length(f.turn_words) AS many) m), '
        'average AS (SELECT greatest(avg(s.len), 1) AS len FROM stats s), '
        'turn_average AS (SELECT coalesce(avg(greatest(j.w - coalesce(s.upto[j.i - 1], 0), 1)), 1) '
        '    AS len FROM stats s, unnest(s.upto) WITH ORDINALITY AS j(w, i)), '
        'scored AS (SELECT s.id, '
        '    (SELECT sum($9[array_position($8, u.lexeme)] * cardinality(u.positions) * 2.5 '
        '                / (cardinality(u.positions) + 1.5 * (0.25 + 0.75 * s.len / a.len))) '
        '     FROM unnest(h.said) u) AS whole, '
        '    CASE WHEN s.bounds IS NOT NULL THEN (SELECT max(t.score) FROM ( '
        '        SELECT sum($9[array_position($8, t.lexeme)] * t.tf * 2.5 / (t.tf + 1.5 * (0.25 '
        '                   + 0.75 * greatest(s.upto[t.turn + 1] - coalesce(s.upto[t.turn], 0), 1) '
        '                   / ta.len))) AS score '
        '        FROM (SELECT u.lexeme, width_bucket(p, s.bounds) AS turn, count(*)::float8 AS tf '
        '              FROM unnest(h.said) u, unnest(u.positions) p GROUP BY 1, 2) t '
        '        GROUP BY t.turn) t) END AS best_turn '
        '    FROM stats s CROSS JOIN average a CROSS JOIN turn_average ta, '
        '         LATERAL (SELECT ts_filter(setweight(s.fts, ''A'', $8), ''{a}'') AS said) h) '
        'SELECT s.id, (((1 - $14) * s.whole + $14 * coalesce(s.best_turn, s.whole)) / $11)::real '
        '    AS rank '
        'FROM scored s WHERE s.whole > 0 '
        'ORDER BY rank DESC, s.id LIMIT $2',
        v_from)
    USING NULL::vector, least(greatest(coalesce(k, 50), 1), 200),
          archivist_filter_model(v_filter), archivist_filter_sessions(v_filter),
          v_filter ->> 'source', (v_filter ->> 'since')::timestamptz,
          (v_filter ->> 'until')::timestamptz, words, weights,
          to_tsquery('simple', (SELECT string_agg(quote_literal(w), ' | ') FROM unnest(scope) w)),
          greatest(most, 1e-9), v_filter ->> 'user_id', (v_filter ->> 'as_of')::timestamptz,
          coalesce(nullif(current_setting('archivist.turn_share', true), '')::float8, 0.75);
    PERFORM set_config('enable_seqscan', v_seqscan, true);
    PERFORM set_config('max_parallel_workers_per_gather', v_parallel, true);
END;
$$;

-- The k (at most 200) best full-text matches for a query under a filter: BM25 (archivist_bm25)
-- with the query's usable words, over every chunk that has one of them (scoring only the chunks
-- with a rare word lost the answers phrased in common words). `rank` is the score divided by the most the query's
-- words could score ((k1 + 1) times the sum of all their weights, those found nowhere too, so a
-- query about what memory never saw scores low): comparable between queries, 0 to about 1.
-- When those chunks may be more than 500 (the sum of the words' df; under a session filter on
-- a large table, the sessions' share of it), BM25 reads the 500 best by their words
-- (archivist_bm25's cap): a search then costs about the same at 100k or 300k chunks; under
-- 500, every one is scored. The setting `archivist.text_candidates` (an integer;
-- 0: no cap) replaces the 500 for a session, so a benchmark or a test can compare the capped
-- ranking with the one that scores every chunk.
CREATE OR REPLACE FUNCTION archivist_text_matches(query_text text, k integer, filter jsonb)
RETURNS TABLE (id uuid, rank real)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_filter  jsonb := archivist_check_filter(filter);
    v_words   text[];
    v_weights double precision[];
    v_scope   text[];
    v_most    double precision;
    v_reach   bigint;
    v_sessions text[];
    v_n       double precision;
    v_cap     integer := coalesce(
        nullif(current_setting('archivist.text_candidates', true), '')::integer, 500);
BEGIN
    PERFORM archivist_require_search_caller('archivist_text_matches');
    SELECT array_agg(w.word) FILTER (WHERE w.usable), array_agg(w.idf) FILTER (WHERE w.usable),
           array_agg(w.word) FILTER (WHERE w.usable),
           2.5 * sum(w.idf), sum(w.df) FILTER (WHERE w.usable)
    INTO v_words, v_weights, v_scope, v_most, v_reach
    FROM archivist_word_stats(archivist_query_words(query_text), v_filter) w;
    v_sessions := archivist_filter_sessions(v_filter);
    v_n := (SELECT reltuples FROM pg_class WHERE oid = 'jarvis_memory_chunks'::regclass);
    IF v_cap > 0 AND v_reach > v_cap AND v_sessions IS NOT NULL AND v_n >= 10000 THEN
        -- The words' frequencies are the whole table's: the sessions hold their share of
        -- them, counted only as far as it takes to know whether that passes the cap.
        v_reach := ceil(v_reach / v_n * (
            SELECT count(*) FROM (SELECT 1 FROM jarvis_memory_chunks c
                                  WHERE c.session_id = ANY (v_sessions)
                                  LIMIT floor(v_cap * v_n / v_reach)::bigint + 1) x));
    END IF;
    RETURN QUERY SELECT * FROM archivist_bm25(
        v_words, v_weights, v_scope, v_most, k, v_filter,
        CASE WHEN v_cap > 0 AND v_reach > v_cap THEN v_cap END);
END;
$$;
