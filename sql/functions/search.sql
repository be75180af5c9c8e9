-- The query API bots call, with its limits enforced here too, so a client that calls these
-- functions directly (Supabase RPC, another bot) gets the same bounds. Their statement
-- timeouts and privileges are set in sql/policy.sql. They run as their caller (SECURITY
-- INVOKER, the default), so row level security applies to what they read.
--
-- match_jarvis_memory_chunks(query_embedding, match_count, filter): nearest chunks by cosine,
--   like Supabase's match_documents. filter keys (all optional): session_ids [text],
--   source text, since / until (timestamptz, on the conversation time a chunk covers), user_id
--   (text: that user's chunks only; see sql/010_user_id.sql), and
--   embedding_model (default: the recorded one; chunks of any other model are never returned).
--   At most 10 rows.
-- hybrid_jarvis_memory_chunks(query_embedding, query_text, match_count, filter, weights...):
--   reciprocal rank fusion (k = 60) of the 50 nearest chunks and the 50 best full-text
--   matches (any word of the query), times an optional recency factor
--   (1 - w + w * 0.5 ^ (age / half_life)). A zero vector_weight makes it a full-text search.
--   The weights are range-checked (archivist_check_weights).
-- Filters are checked (archivist_check_filter, sql/functions/inputs.sql): an unknown key or a
-- wrong type is an error, never ignored. The helpers that return rows are callable only by
-- the searches (archivist_require_search_caller).
-- search_jarvis_archive(...): structured filters over the latest version of each session (or
--   every version), at most 20 rows, newest first; containment filters use the GIN index.
--
-- Plans: a search must be planned for the values it is given: only the predicates that apply,
-- each in a form its index serves. (One generic plan for every call uses neither the GIN index
-- on extraction nor the session index: at 100k rows a search by a rare topic took 31 ms
-- instead of 0.24 ms; measured in scripts/bench_search.py.) The memory searches build their
-- statement from the filters given and run it with EXECUTE ... USING, planned every time.
-- search_jarvis_archive runs one static statement with `plan_cache_mode = force_custom_plan`:
-- each call plans it with its values as constants, so a filter not given, `(v IS NULL OR ...)`,
-- folds away before planning, and no statement text is built or parsed per call.

CREATE OR REPLACE FUNCTION archivist_iterative_scan_available() RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(string_to_array(extversion, '.')::int[] >= '{0,8,0}', false)
    FROM pg_extension WHERE extname = 'vector'
$$;

-- The WHERE clause (over chunks aliased `c`) for a memory-search filter, with its values as
-- parameters of the statement it goes into: $3..$7 model, session ids, source, since, until,
-- and $12 user id (every caller passes 12 values; $8..$11 are its own).
CREATE OR REPLACE FUNCTION archivist_chunk_filter_sql(filter jsonb) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
    SELECT concat_ws(' AND ',
        'c.embedding_model = $3',
        CASE WHEN jsonb_typeof(filter -> 'session_ids') = 'array'
             THEN 'c.session_id = ANY ($4)' END,
        CASE WHEN filter ->> 'source' IS NOT NULL THEN 'c.source = $5' END,
        CASE WHEN filter ->> 'since' IS NOT NULL
             THEN '(c.metadata ->> ''last_at'')::timestamptz >= $6' END,
        CASE WHEN filter ->> 'until' IS NOT NULL
             THEN '(c.metadata ->> ''first_at'')::timestamptz <= $7' END,
        CASE WHEN filter ->> 'user_id' IS NOT NULL THEN 'c.user_id = $12' END)
$$;

CREATE OR REPLACE FUNCTION archivist_filter_model(filter jsonb) RETURNS text
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(filter ->> 'embedding_model',
                    (SELECT m.value FROM archivist_meta m WHERE m.key = 'embedding_model'))
$$;

CREATE OR REPLACE FUNCTION archivist_filter_sessions(filter jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE
AS $$
    SELECT CASE WHEN jsonb_typeof(filter -> 'session_ids') = 'array'
                THEN ARRAY(SELECT jsonb_array_elements_text(filter -> 'session_ids')) END
$$;

-- Nearest chunks. A session filter is served exactly by the session index. Other filters use
-- an iterative HNSW scan on pgvector 0.8+; before 0.8 the HNSW scan stops at ef_search rows and
-- filters after, so the 400 nearest candidates are filtered and, when fewer than k pass, the
-- search falls back to an exact scan: k rows come back whenever k rows match.
CREATE OR REPLACE FUNCTION archivist_nearest_chunks(
    query_embedding vector, k integer, filter jsonb
) RETURNS TABLE (id uuid, session_id text, source text, content text, metadata jsonb,
                 similarity double precision, created_at timestamptz)
LANGUAGE plpgsql
AS $$
DECLARE
    v_k          integer := least(greatest(coalesce(k, 10), 1), 200);
    v_filter     jsonb := archivist_check_filter(filter);
    v_where      text := archivist_chunk_filter_sql(v_filter);
    v_sessions   text[] := archivist_filter_sessions(v_filter);
    v_filtered   boolean := v_filter ?| ARRAY['session_ids', 'source', 'since', 'until',
                                             'user_id'];
    v_candidates integer := greatest(400, v_k * 4);
    v_columns    constant text :=
        'c.id, c.session_id, c.source, c.content, c.metadata, c.created_at, '
        'c.embedding <=> $1 AS distance';
    v_sql        text;
BEGIN
    PERFORM archivist_require_search_caller('archivist_nearest_chunks');
    PERFORM set_config('hnsw.ef_search', greatest(100, v_k * 4)::text, true);
    IF v_sessions IS NOT NULL THEN
        -- `+ 0` keeps the planner off the HNSW index: the session index finds every row.
        v_sql := format('SELECT %s FROM jarvis_memory_chunks c WHERE %s '
                        'ORDER BY (c.embedding <=> $1) + 0, c.id LIMIT $2', v_columns, v_where);
    ELSIF NOT v_filtered OR archivist_iterative_scan_available() THEN
        IF v_filtered THEN
            PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);
        END IF;
        v_sql := format('WITH nearest AS MATERIALIZED (SELECT %s FROM jarvis_memory_chunks c '
                        'WHERE %s ORDER BY c.embedding <=> $1 LIMIT $2) '
                        'SELECT * FROM nearest', v_columns, v_where);
    ELSE
        PERFORM set_config('hnsw.ef_search', v_candidates::text, true);
        v_sql := format(
            'WITH candidates AS MATERIALIZED (SELECT %1$s, c.embedding_model, c.user_id '
            '    FROM jarvis_memory_chunks c WHERE c.embedding_model = $3 '
            '    ORDER BY c.embedding <=> $1 LIMIT %3$s), '
            'hits AS MATERIALIZED (SELECT c.id, c.session_id, c.source, c.content, c.metadata, '
            '    c.created_at, c.distance FROM candidates c WHERE %2$s '
            '    ORDER BY c.distance, c.id LIMIT $2), '
            'enough AS (SELECT count(*) >= $2 AS ok FROM hits) '
            'SELECT * FROM hits WHERE (SELECT ok FROM enough) '
            'UNION ALL '
            '(SELECT %1$s FROM jarvis_memory_chunks c WHERE NOT (SELECT ok FROM enough) AND %2$s '
            ' ORDER BY (c.embedding <=> $1) + 0, c.id LIMIT $2)',
            v_columns, v_where, v_candidates);
    END IF;
    RETURN QUERY EXECUTE format(
        'SELECT n.id, n.session_id, n.source, n.content, n.metadata, 1 - n.distance, '
        'n.created_at FROM (%s) n ORDER BY n.distance, n.id', v_sql)
    USING query_embedding, v_k, archivist_filter_model(v_filter), v_sessions,
          v_filter ->> 'source', (v_filter ->> 'since')::timestamptz,
          (v_filter ->> 'until')::timestamptz, NULL::text, NULL::text, NULL::text, NULL::text,
          v_filter ->> 'user_id';
END;
$$;

CREATE OR REPLACE FUNCTION match_jarvis_memory_chunks(
    query_embedding vector,
    match_count     integer DEFAULT 10,
    filter          jsonb DEFAULT '{}'::jsonb
) RETURNS TABLE (id uuid, session_id text, source text, content text, metadata jsonb,
                 similarity double precision, created_at timestamptz)
LANGUAGE sql
AS $$
    SELECT * FROM archivist_nearest_chunks(
        query_embedding, least(greatest(coalesce(match_count, 10), 1), 10), filter)
$$;

-- The hybrid's candidates by meaning: the `turns` nearest turn windows and the `others`
-- nearest chunks of any source (one list when the filter names a source): the turns are asked
-- for apart, as short context chunks (state items) lie near short queries and would otherwise
-- leave too few turns to fill the places. Without a session filter: two index searches
-- (archivist_nearest_chunks). With one, one list of the sessions' chunks with their distances
-- serves both lists (each distance computed once):
--   * sessions of at most 2,000 chunks: all of them (an exact scan through the session index);
--   * larger ones: those among the 400 nearest chunks of the whole table (the HNSW index), the
--     nearest of the sessions if the index is right, unless fewer than 10 turns are among them:
--     then all of them. An exact scan of a session of 10 % of 100k chunks costs more than the
--     rest of a search together; the index does not grow with the session.
CREATE OR REPLACE FUNCTION archivist_vector_candidates(
    query_embedding vector, filter jsonb, turns integer, others integer
) RETURNS TABLE (id uuid, similarity double precision)
LANGUAGE plpgsql
AS $$
DECLARE
    v_filter   jsonb := archivist_check_filter(filter);
    v_where    text := archivist_chunk_filter_sql(v_filter);
    v_sessions text[] := archivist_filter_sessions(v_filter);
    v_source   boolean := v_filter ? 'source';
    v_large    boolean;
    v_listed   text;
BEGIN
    PERFORM archivist_require_search_caller('archivist_vector_candidates');
    IF v_sessions IS NULL THEN
        RETURN QUERY
        SELECT n.id, n.similarity FROM archivist_nearest_chunks(
            query_embedding, turns, CASE WHEN v_source THEN v_filter
                                         ELSE v_filter || '{"source": "session_turn"}' END) n
        UNION
        SELECT n.id, n.similarity FROM archivist_nearest_chunks(query_embedding, others, v_filter) n;
        RETURN;
    END IF;
    v_large := (SELECT count(*) > 2000 FROM (SELECT 1 FROM jarvis_memory_chunks c
                                             WHERE c.session_id = ANY (v_sessions)
                                             LIMIT 2001) x);
    v_listed := format('SELECT c.id, c.source, c.embedding <=> $1 AS distance '
                       'FROM jarvis_memory_chunks c WHERE %s', v_where);
    IF v_large THEN
        PERFORM set_config('hnsw.ef_search', '400', true);
        v_listed := format(
            'WITH near AS MATERIALIZED (SELECT c.id, c.source, c.distance FROM ('
            '    SELECT n.*, n.embedding <=> $1 AS distance FROM jarvis_memory_chunks n '
            '    WHERE n.embedding_model = $3 ORDER BY n.embedding <=> $1 LIMIT 400) c '
            '    WHERE %1$s), '
            'enough AS (SELECT count(*) FILTER (WHERE n.source = ''session_turn'' OR $8) >= 10 '
            '    AS ok FROM near n) '
            'SELECT n.* FROM near n WHERE (SELECT ok FROM enough) '
            'UNION ALL '
            'SELECT x.* FROM (%2$s) x WHERE NOT (SELECT ok FROM enough)',
            v_where, v_listed);
    END IF;
    RETURN QUERY EXECUTE format(
        'WITH listed AS MATERIALIZED (%s) '
        '(SELECT s.id, 1 - s.distance FROM listed s WHERE s.source = ''session_turn'' OR $8 '
        ' ORDER BY s.distance, s.id LIMIT $2) '
        'UNION '
        '(SELECT s.id, 1 - s.distance FROM listed s ORDER BY s.distance, s.id LIMIT $9)',
        v_listed)
    USING query_embedding, least(greatest(coalesce(turns, 50), 1), 200),
          archivist_filter_model(v_filter), v_sessions, v_filter ->> 'source',
          (v_filter ->> 'since')::timestamptz, (v_filter ->> 'until')::timestamptz, v_source,
          least(greatest(coalesce(others, 20), 1), 200), NULL::text, NULL::text,
          v_filter ->> 'user_id';
END;
$$;

-- The distinct words of a query as full text sees them (stemmed, stop words dropped), at most 64.
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
          NULL::text, v_filter ->> 'user_id';
    v_n := greatest(coalesce(v_counted, v_n), (SELECT max(d) FROM unnest(v_df) d), 1);
    RETURN QUERY
    SELECT u.w, u.df, ln(1 + (v_n - u.df + 0.5) / (u.df + 0.5)), u.df BETWEEN 1 AND 10000
    FROM unnest(words, v_df) AS u(w, df);
END;
$$;

-- BM25 over the chunks a filter admits that have one of `scope` (words): a chunk scores, for
-- each of the `words` it has, the word's weight times tf * (k1 + 1) / (tf + k1 * (1 - b + b *
-- length / average length)), k1 1.5, b 0.75; tf is the word's count in the chunk and the length
-- its count of words (both from the tsvector's positions), the average over the chunks scored.
-- Turn windows are long (whole turns of a long conversation), so how often a word is said
-- matters. Divided by `most`. The k best. Each chunk's tsvector is read once, lexeme by
-- lexeme, for its length and the query words' counts (a subquery per chunk and word cost 4x).
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
        v_from := format('SELECT c.id, c.fts FROM jarvis_memory_chunks c '
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
                     format('(SELECT c.id, c.fts FROM jarvis_memory_chunks c '
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
                ' UNION ALL (SELECT c.id, c.fts FROM jarvis_memory_chunks c '
                'WHERE c.fts @@ %L::tsquery AND NOT c.fts @@ %L::tsquery AND %s)',
                to_tsquery('simple', (SELECT string_agg(quote_literal(w), ' | ')
                                      FROM unnest(v_rest) w))::text,
                to_tsquery('simple', (SELECT string_agg(quote_literal(w), ' | ')
                                      FROM unnest(v_top) w))::text,
                v_where);
        END IF;
        v_from := format('SELECT u.id, u.fts FROM (%s) u LIMIT %s', v_from, greatest(cap, 1));
        -- Each part from the GIN index (a sequential scan would read the table for a common
        -- word), and in one process, so the parts run in order.
        PERFORM set_config('enable_seqscan', 'off', true);
        PERFORM set_config('max_parallel_workers_per_gather', '0', true);
    END IF;
    RETURN QUERY EXECUTE format(
        'WITH words AS (SELECT w, weight FROM unnest($8::text[], $9::float8[]) AS t(w, weight)), '
        'terms AS MATERIALIZED (SELECT f.id, u.lexeme, cardinality(u.positions)::float8 AS tf '
        '    FROM (%s) f, unnest(f.fts) u), '
        'lengths AS MATERIALIZED (SELECT t.id, sum(t.tf) AS len FROM terms t GROUP BY t.id), '
        'average AS (SELECT greatest(avg(len), 1) AS len FROM lengths), '
        'counted AS (SELECT t.id, l.len, w.weight, t.tf '
        '    FROM terms t JOIN words w ON w.w = t.lexeme JOIN lengths l ON l.id = t.id) '
        'SELECT t.id, (sum(t.weight * t.tf * 2.5 / (t.tf + 1.5 * (0.25 + 0.75 * t.len / a.len))) '
        '    / $11)::real AS rank '
        'FROM counted t CROSS JOIN average a '
        'GROUP BY t.id ORDER BY rank DESC, t.id LIMIT $2',
        v_from)
    USING NULL::vector, least(greatest(coalesce(k, 50), 1), 200),
          archivist_filter_model(v_filter), archivist_filter_sessions(v_filter),
          v_filter ->> 'source', (v_filter ->> 'since')::timestamptz,
          (v_filter ->> 'until')::timestamptz, words, weights,
          to_tsquery('simple', (SELECT string_agg(quote_literal(w), ' | ') FROM unnest(scope) w)),
          greatest(most, 1e-9), v_filter ->> 'user_id';
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

-- True when a query asks about sessions as wholes (a summary, an overview, what was discussed):
-- then whole-session chunks may fill the results.
CREATE OR REPLACE FUNCTION archivist_whole_session_query(query_text text) RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
    SELECT coalesce(query_text, '') ~* ('\m(summar(y|ies|ise|ize|ised|ized)|overview|recap|gist'
        '|tl;?dr|(whole|entire|full) (session|conversation|chat|discussion)'
        '|what (did|have|were) (we|i|you) (talk|discuss|chat|cover)\w*'
        '|what was (the|that|our) (session|conversation|chat|discussion) about)\M')
$$;

-- The standing rule ("always ...", "never ...": a constraint item whose chunk is marked
-- `standing`, sql/065_standing_rules.sql) that a query's words point to most, with how much:
-- the share of the query words' weight that the rule has, each word weighted by its rarity
-- among the N rules the filter admits, ln(1 + (N + 10 - df + 0.5) / (df + 0.5)), so that words
-- most rules say ("ask", "include") weigh little and a word no rule has weighs most. The 10
-- are rules assumed without the word: a user with one rule is not told that every word of it
-- is common. None when no rule has a query word. The rules of a scope are few, and the partial
-- index holds only them.
CREATE OR REPLACE FUNCTION archivist_standing_rule(query_text text, filter jsonb)
RETURNS TABLE (id uuid, rank real)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_filter jsonb := archivist_check_filter(filter);
    v_words  text[] := archivist_query_words(query_text);
BEGIN
    PERFORM archivist_require_search_caller('archivist_standing_rule');
    IF cardinality(v_words) = 0 THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format(
        'WITH rules AS MATERIALIZED (SELECT c.id, c.fts FROM jarvis_memory_chunks c '
        '    WHERE c.source = ''state_item'' AND c.metadata @> ''{"standing": true}'' AND %s), '
        'weights AS (SELECT u.w, ln(1 + (n.n + 10 - d.df + 0.5) / (d.df + 0.5)) AS weight '
        '    FROM unnest($8::text[]) AS u(w) '
        '    CROSS JOIN (SELECT count(*)::float8 AS n FROM rules) n '
        '    CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM rules r '
        '        WHERE r.fts @@ to_tsquery(''simple'', quote_literal(u.w))) d) '
        'SELECT r.id, (sum(w.weight) / (SELECT sum(weight) FROM weights))::real AS rank '
        'FROM rules r JOIN weights w ON r.fts @@ to_tsquery(''simple'', quote_literal(w.w)) '
        'GROUP BY r.id ORDER BY rank DESC, r.id LIMIT 1',
        archivist_chunk_filter_sql(v_filter))
    USING NULL::vector, NULL::integer, archivist_filter_model(v_filter),
          archivist_filter_sessions(v_filter), v_filter ->> 'source',
          (v_filter ->> 'since')::timestamptz, (v_filter ->> 'until')::timestamptz, v_words,
          NULL::text, NULL::text, NULL::text, v_filter ->> 'user_id';
END;
$$;

-- Ranks chunks for a query and picks match_count (at most 10) of them: the evidence first.
-- Candidates: the 50 nearest turn windows and the 20 nearest chunks of any source
-- (archivist_vector_candidates; if vector_weight > 0 and a query vector is given) and the 50
-- best full-text matches (archivist_text_matches; if text_weight > 0). With both, the score is
-- their reciprocal rank fusion, weight / (60 + rank) summed; with one, that list's own score
-- (cosine similarity, or the text rank). Times an optional recency factor
-- (1 - w + w * 0.5 ^ (age / half_life)). Then, best first, a chunk is taken unless
--   * a chunk of its session with the same text, or chunks covering all its message ids, were
--     taken already (a state item whose source message is in a turn window already there);
--   * it is a whole-session chunk (summary, extraction, state item) and 2 of every 10 places
--     are taken by such chunks already, or one of its session is: these are context, the turns
--     are the evidence. Not so when the query asks about sessions as wholes
--     (archivist_whole_session_query) or the filter names a source; and when fewer turn
--     windows than places are candidates, context fills the places they leave.
-- With words in the ranking and 5 places or more, the standing rule the query's words point to
-- (archivist_standing_rule, a share of at least 0.15) holds the last place unless a hit taken
-- covers it: what the user told the assistant to always or never do about the matter asked of
-- is context a bot must see, and it rarely shares enough words with the question to rank. Its
-- `relevance` is that share, its `score` 0.
-- A zero vector_weight (or a NULL query_embedding) makes it a full-text search that needs no
-- query vector; a zero text_weight a vector search with the same choice of chunks.
-- `relevance` reads the same way for every query: with words in the ranking it is the text rank
-- (archivist_text_matches: how much of what the query's words could score the chunk scores; 0
-- for a chunk found by meaning alone), else the cosine similarity.
-- Its result gained `relevance`; CREATE OR REPLACE cannot change a result, so the function is
-- dropped first (in init's transaction; sql/policy.sql grants it again).
DROP FUNCTION IF EXISTS hybrid_jarvis_memory_chunks(vector, text, integer, jsonb,
    double precision, double precision, double precision, double precision);
CREATE OR REPLACE FUNCTION hybrid_jarvis_memory_chunks(
    query_embedding vector,
    query_text      text,
    match_count     integer DEFAULT 10,
    filter          jsonb DEFAULT '{}'::jsonb,
    vector_weight   double precision DEFAULT 1,
    text_weight     double precision DEFAULT 1,
    recency_weight  double precision DEFAULT 0,
    half_life_days  double precision DEFAULT 14
) RETURNS TABLE (id uuid, session_id text, source text, content text, metadata jsonb,
                 similarity double precision, created_at timestamptz, score double precision,
                 relevance double precision)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    v_k         integer := least(greatest(coalesce(match_count, 10), 1), 10);
    v_filter    jsonb := archivist_check_filter(filter);
    v_by_vector boolean := coalesce(vector_weight, 0) > 0 AND query_embedding IS NOT NULL;
    v_by_text   boolean := coalesce(text_weight, 0) > 0;
    v_open      boolean := v_filter ->> 'source' IS NOT NULL
                           OR archivist_whole_session_query(query_text);
    v_context   integer := greatest(1, v_k / 5);
    v_taken     integer := 0;
    v_fill      boolean;
    v_contexts  integer := 0;
    v_sessions  text[] := '{}';
    v_hashes    text[] := '{}';
    v_covered   text[] := '{}';
    v_ids       text[];
    v_rule      uuid;
    v_rule_rank real;
    v_rule_key  text;
    v_rule_ids  text[];
    r           record;
BEGIN
    PERFORM archivist_check_weights(vector_weight, text_weight, recency_weight, half_life_days);
    IF v_by_text AND v_k >= 5 THEN
        SELECT s.id, s.rank, c.session_id || ':' || c.content_hash,
               ARRAY(SELECT jsonb_array_elements_text(c.metadata -> 'message_ids'))
        INTO v_rule, v_rule_rank, v_rule_key, v_rule_ids
        FROM archivist_standing_rule(query_text, v_filter) s
        JOIN jarvis_memory_chunks c ON c.id = s.id
        WHERE s.rank >= 0.15;
    END IF;
    FOR r IN
        WITH by_vector AS (
            SELECT n.id, n.similarity,
                   row_number() OVER (ORDER BY n.similarity DESC, n.id) AS r
            FROM archivist_vector_candidates(query_embedding, v_filter, 50, 20) n
            WHERE v_by_vector
        ), by_text AS (
            SELECT t.id, t.rank, row_number() OVER (ORDER BY t.rank DESC, t.id) AS r
            FROM archivist_text_matches(query_text, 50, v_filter) t
            WHERE v_by_text
        ), fused AS (
            SELECT coalesce(v.id, t.id) AS id, t.rank AS text_rank,
                   CASE WHEN v_by_vector AND v_by_text
                        THEN coalesce(vector_weight / (60 + v.r), 0)
                             + coalesce(text_weight / (60 + t.r), 0)
                        WHEN v_by_vector THEN v.similarity
                        ELSE t.rank END AS fused
            FROM by_vector v FULL JOIN by_text t ON v.id = t.id
        )
        SELECT c.id, c.session_id, c.source, c.content, c.metadata, c.content_hash,
               count(*) FILTER (WHERE c.source = 'session_turn') OVER () AS turns,
               1 - (c.embedding <=> query_embedding) AS similarity, c.created_at,
               CASE WHEN v_by_text THEN coalesce(f.text_rank, 0)
                    ELSE 1 - (c.embedding <=> query_embedding) END AS relevance,
               f.fused * (1 - recency_weight + recency_weight * power(0.5, greatest(0,
                   extract(epoch FROM now() - coalesce((c.metadata ->> 'last_at')::timestamptz,
                                                       c.created_at)) / 86400)
                   / greatest(half_life_days, 0.001))) AS score,
               false AS reserved
        FROM fused f JOIN jarvis_memory_chunks c ON c.id = f.id
        WHERE f.fused IS NOT NULL
        UNION ALL
        -- The standing rule, after every candidate: it takes the place held for it.
        SELECT c.id, c.session_id, c.source, c.content, c.metadata, c.content_hash, 0,
               1 - (c.embedding <=> query_embedding), c.created_at, v_rule_rank, 0, true
        FROM jarvis_memory_chunks c WHERE c.id = v_rule
        ORDER BY reserved, score DESC, id
    LOOP
        v_ids := ARRAY(SELECT jsonb_array_elements_text(
                           CASE WHEN jsonb_typeof(r.metadata -> 'message_ids') = 'array'
                                THEN r.metadata -> 'message_ids' ELSE '[]' END));
        CONTINUE WHEN (r.session_id || ':' || r.content_hash) = ANY (v_hashes)
                   OR (cardinality(v_ids) > 0 AND v_ids <@ v_covered);
        IF v_fill IS NULL THEN
            -- Too few turn windows are candidates to fill the places: context fills the rest.
            v_fill := r.turns < v_k;
            v_context := greatest(v_context, v_k - r.turns::integer);
        END IF;
        -- The last place is held for the standing rule while nothing taken covers it.
        CONTINUE WHEN v_rule IS NOT NULL AND NOT r.reserved AND v_taken = v_k - 1
                   AND NOT (v_rule_key = ANY (v_hashes)
                            OR (cardinality(v_rule_ids) > 0 AND v_rule_ids <@ v_covered));
        IF r.source <> 'session_turn' AND NOT v_open AND NOT r.reserved THEN
            CONTINUE WHEN v_contexts >= v_context
                       OR (NOT v_fill AND r.session_id = ANY (v_sessions));
            v_contexts := v_contexts + 1;
            v_sessions := v_sessions || r.session_id;
        END IF;
        v_hashes := v_hashes || (r.session_id || ':' || r.content_hash);
        v_covered := v_covered || v_ids;
        id := r.id;
        session_id := r.session_id;
        source := r.source;
        content := r.content;
        metadata := r.metadata;
        similarity := r.similarity;
        created_at := r.created_at;
        score := r.score;
        relevance := r.relevance;
        RETURN NEXT;
        v_taken := v_taken + 1;
        EXIT WHEN v_taken >= v_k;
    END LOOP;
END;
$$;

CREATE OR REPLACE FUNCTION archivist_like_escape(p_text text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$ SELECT replace(replace(replace(p_text, '\', '\\'), '%', '\%'), '_', '\_') $$;

-- p_item_types / p_item_statuses: a version matches when one of its state items has one of
-- the types (if given) and one of the statuses (if given); each row carries the state items
-- that matched (all of them without these filters). Likewise decisions, entities and actions:
-- the matching ones under their filter, else the stored array as it is (expanding and
-- re-aggregating four arrays per row cost more than the rest of a topic search).
-- p_user_id: only that user's versions.
-- A filter not given is NULL in its variable, and its predicate and CASE branch fold away in
-- the plan of that call (see "Plans" above). Whatever is left, the planner picks by the
-- values: for a common topic it walks jarvis_archive_latest_at_idx newest first and stops at
-- the limit; for a rare one it reads the matches from the GIN index and sorts them. A generic
-- plan would have to pick one of the two for every topic, hence force_custom_plan.
CREATE OR REPLACE FUNCTION search_jarvis_archive(
    p_topics       text[] DEFAULT NULL,
    p_all_topics   boolean DEFAULT false,
    p_decision     text DEFAULT NULL,
    p_entity       text DEFAULT NULL,
    p_action       text DEFAULT NULL,
    p_session_ids  text[] DEFAULT NULL,
    p_since        timestamptz DEFAULT NULL,
    p_until        timestamptz DEFAULT NULL,
    p_all_versions boolean DEFAULT false,
    p_limit        integer DEFAULT 20,
    p_item_types   text[] DEFAULT NULL,
    p_item_statuses text[] DEFAULT NULL,
    p_user_id      text DEFAULT NULL
) RETURNS TABLE (session_id text, version integer, version_at timestamptz, span jsonb,
                 summary text, topics jsonb, decisions jsonb, entities jsonb, actions jsonb,
                 state_items jsonb)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    v_topic    text;
    v_any      jsonb[] := '{}';  -- one {"topics": [t]} per topic given (any of them)
    v_all      jsonb := '[]';    -- {"topics": [all of them]} (p_all_topics)
    v_entity   text := lower(btrim(p_entity));
    v_key      jsonb;            -- {"entities": [{"key": ...}]} for an entity key ("tool:x")
    v_name     text;             -- else the entity's name
    v_decision text := '%' || archivist_like_escape(p_decision) || '%';
    v_action   text := '%' || archivist_like_escape(p_action) || '%';
    v_types    text[];
    v_statuses text[];
BEGIN
    FOREACH v_topic IN ARRAY coalesce(p_topics, '{}') LOOP
        CONTINUE WHEN coalesce(btrim(v_topic), '') = '';
        v_topic := lower(btrim(v_topic));
        v_any := v_any || jsonb_build_object('topics', jsonb_build_array(v_topic));
        v_all := v_all || to_jsonb(v_topic);
    END LOOP;
    IF cardinality(v_any) = 0 THEN
        v_any := NULL;
        v_all := NULL;
    ELSIF p_all_topics THEN
        v_any := NULL;
        v_all := jsonb_build_object('topics', v_all);
    ELSE
        v_all := NULL;
    END IF;
    IF position(':' IN v_entity) > 0 THEN
        v_key := jsonb_build_object('entities', jsonb_build_array(
                     jsonb_build_object('key', v_entity)));
    ELSE
        v_name := v_entity;
    END IF;
    IF p_item_types IS NOT NULL OR p_item_statuses IS NOT NULL THEN
        v_types := ARRAY(SELECT lower(btrim(t)) FROM unnest(p_item_types) t
                         WHERE btrim(t) <> '');
        v_statuses := ARRAY(SELECT lower(btrim(t)) FROM unnest(p_item_statuses) t
                            WHERE btrim(t) <> '');
        IF cardinality(v_types) = 0 AND cardinality(v_statuses) = 0 THEN
            v_types := NULL;  -- only blanks: no item filter
        END IF;
    END IF;
    RETURN QUERY
    SELECT a.session_id, a.version, a.version_at, a.span, a.extraction ->> 'summary',
           a.extraction -> 'topics',
           CASE WHEN v_decision IS NULL THEN coalesce(a.extraction -> 'decisions', '[]')
                ELSE coalesce((SELECT jsonb_agg(d)
                               FROM jsonb_array_elements(a.extraction -> 'decisions') d
                               WHERE d ->> 'text' ILIKE v_decision), '[]') END,
           CASE WHEN v_entity IS NULL THEN coalesce(a.extraction -> 'entities', '[]')
                ELSE coalesce((SELECT jsonb_agg(e)
                               FROM jsonb_array_elements(a.extraction -> 'entities') e
                               WHERE CASE WHEN v_key IS NULL THEN lower(e ->> 'name')
                                          ELSE e ->> 'key' END = v_entity), '[]') END,
           CASE WHEN v_action IS NULL THEN coalesce(a.extraction -> 'actions', '[]')
                ELSE coalesce((SELECT jsonb_agg(x)
                               FROM jsonb_array_elements(a.extraction -> 'actions') x
                               WHERE x ->> 'description' ILIKE v_action), '[]') END,
           CASE WHEN v_types IS NULL THEN coalesce(a.extraction -> 'state_items', '[]')
                ELSE coalesce((SELECT jsonb_agg(i)
                               FROM jsonb_array_elements(
                                        coalesce(a.extraction -> 'state_items', '[]')) i
                               WHERE (cardinality(v_types) = 0 OR i ->> 'type' = ANY (v_types))
                                 AND (cardinality(v_statuses) = 0
                                      OR i ->> 'status' = ANY (v_statuses))), '[]') END
    FROM jarvis_archive a
    -- The latest versions by their flag (sql/040): no join, and their own partial indexes.
    WHERE (p_all_versions OR a.is_latest)
      AND (v_any IS NULL OR a.extraction @> ANY (v_any))
      AND (v_all IS NULL OR a.extraction @> v_all)
      AND (v_key IS NULL OR a.extraction @> v_key)
      AND (v_name IS NULL OR EXISTS (SELECT 1
                                     FROM jsonb_array_elements(a.extraction -> 'entities') e
                                     WHERE lower(e ->> 'name') = v_name))
      AND (v_decision IS NULL OR EXISTS (SELECT 1
                                         FROM jsonb_array_elements(a.extraction -> 'decisions') d
                                         WHERE d ->> 'text' ILIKE v_decision))
      AND (v_action IS NULL OR EXISTS (SELECT 1
                                       FROM jsonb_array_elements(a.extraction -> 'actions') x
                                       WHERE x ->> 'description' ILIKE v_action))
      AND (v_types IS NULL OR EXISTS (SELECT 1
                                      FROM jsonb_array_elements(a.extraction -> 'state_items') i
                                      WHERE (cardinality(v_types) = 0
                                             OR i ->> 'type' = ANY (v_types))
                                        AND (cardinality(v_statuses) = 0
                                             OR i ->> 'status' = ANY (v_statuses))))
      AND (p_session_ids IS NULL OR a.session_id = ANY (p_session_ids))
      AND (p_since IS NULL OR (a.span ->> 'last_turn_at')::timestamptz >= p_since)
      AND (p_until IS NULL OR (a.span ->> 'first_turn_at')::timestamptz <= p_until)
      AND (p_user_id IS NULL OR a.user_id = p_user_id)
    ORDER BY a.version_at DESC, a.session_id, a.version DESC
    LIMIT least(greatest(coalesce(p_limit, 20), 1), 20);
END;
$$;
