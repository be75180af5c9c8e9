-- The query API bots call, with its limits enforced here too, so a client that calls these
-- functions directly (Supabase RPC, another bot) gets the same bounds. Their statement
-- timeouts and privileges are set in sql/policy.sql.
--
-- match_jarvis_memory_chunks(query_embedding, match_count, filter): nearest chunks by cosine,
--   like Supabase's match_documents. filter keys (all optional): session_ids [text],
--   source text, since / until (timestamptz, on the conversation time a chunk covers), and
--   embedding_model (default: the recorded one; chunks of any other model are never returned).
--   At most 10 rows.
-- hybrid_jarvis_memory_chunks(query_embedding, query_text, match_count, filter, weights...):
--   reciprocal rank fusion (k = 60) of the 50 nearest chunks and the 50 best full-text
--   matches (any word of the query), times an optional recency factor
--   (1 - w + w * 0.5 ^ (age / half_life)). A zero vector_weight makes it a full-text search.
-- search_jarvis_archive(...): structured filters over the latest version of each session (or
--   every version), at most 20 rows, newest first; containment filters use the GIN index.
--
-- Plans: each function builds its statement from the filters actually given and runs it with
-- EXECUTE ... USING, which plans it for those values every time: only the predicates that
-- apply, each in a form its index serves. (Written as `(param IS NULL OR predicate)` inside
-- plpgsql, one generic plan serves every call and uses neither the GIN index on extraction
-- nor the session index: at 100k rows a search by a rare topic took 31 ms instead of 0.24 ms;
-- measured in scripts/bench_search.py.)

CREATE OR REPLACE FUNCTION archivist_iterative_scan_available() RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(string_to_array(extversion, '.')::int[] >= '{0,8,0}', false)
    FROM pg_extension WHERE extname = 'vector'
$$;

-- The WHERE clause (over chunks aliased `c`) for a memory-search filter, with its values as
-- parameters $3..$7 of the statement it goes into: model, session ids, source, since, until.
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
             THEN '(c.metadata ->> ''first_at'')::timestamptz <= $7' END)
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
    v_filter     jsonb := coalesce(filter, '{}'::jsonb);
    v_where      text := archivist_chunk_filter_sql(v_filter);
    v_sessions   text[] := archivist_filter_sessions(v_filter);
    v_filtered   boolean := v_filter ?| ARRAY['session_ids', 'source', 'since', 'until'];
    v_candidates integer := greatest(400, v_k * 4);
    v_columns    constant text :=
        'c.id, c.session_id, c.source, c.content, c.metadata, c.created_at, '
        'c.embedding <=> $1 AS distance';
    v_sql        text;
BEGIN
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
            'WITH candidates AS MATERIALIZED (SELECT %1$s, c.embedding_model '
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
          (v_filter ->> 'until')::timestamptz;
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

-- Any word of the text (stemmed, stop words dropped), as a tsquery; NULL when none is left.
CREATE OR REPLACE FUNCTION archivist_any_word_query(query_text text) RETURNS tsquery
LANGUAGE sql IMMUTABLE
AS $$
    SELECT to_tsquery('simple', string_agg(quote_literal(w), ' | '))
    FROM unnest(tsvector_to_array(to_tsvector('english', coalesce(query_text, '')))) w
    WHERE w !~ '[\\]'
$$;

-- The k (at most 200) best full-text matches (any word of the query) under a filter.
CREATE OR REPLACE FUNCTION archivist_text_matches(query_text text, k integer, filter jsonb)
RETURNS TABLE (id uuid, rank real)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_filter jsonb := coalesce(filter, '{}'::jsonb);
    v_query  tsquery := archivist_any_word_query(query_text);
BEGIN
    IF v_query IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format(
        'SELECT c.id, ts_rank_cd(c.fts, $8) AS rank FROM jarvis_memory_chunks c '
        'WHERE c.fts @@ $8 AND %s ORDER BY rank DESC, c.id LIMIT $2',
        archivist_chunk_filter_sql(v_filter))
    USING NULL::vector, least(greatest(coalesce(k, 50), 1), 200),
          archivist_filter_model(v_filter), archivist_filter_sessions(v_filter),
          v_filter ->> 'source', (v_filter ->> 'since')::timestamptz,
          (v_filter ->> 'until')::timestamptz, v_query;
END;
$$;

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
                 similarity double precision, created_at timestamptz, score double precision)
LANGUAGE sql
AS $$
    WITH by_vector AS (
        SELECT n.id, row_number() OVER (ORDER BY n.similarity DESC, n.id) AS r
        FROM archivist_nearest_chunks(query_embedding, 50, filter) n
        WHERE vector_weight > 0
    ), by_text AS (
        SELECT t.id, row_number() OVER (ORDER BY t.rank DESC, t.id) AS r
        FROM archivist_text_matches(query_text, 50, filter) t
        WHERE text_weight > 0
    ), fused AS (
        SELECT coalesce(v.id, t.id) AS id,
               coalesce(vector_weight / (60 + v.r), 0) + coalesce(text_weight / (60 + t.r), 0)
                   AS rrf
        FROM by_vector v FULL JOIN by_text t ON v.id = t.id
    )
    SELECT c.id, c.session_id, c.source, c.content, c.metadata,
           1 - (c.embedding <=> query_embedding), c.created_at,
           f.rrf * (1 - recency_weight + recency_weight * power(0.5, greatest(0,
               extract(epoch FROM now() - coalesce((c.metadata ->> 'last_at')::timestamptz,
                                                   c.created_at)) / 86400)
               / greatest(half_life_days, 0.001))) AS score
    FROM fused f JOIN jarvis_memory_chunks c ON c.id = f.id
    WHERE f.rrf > 0
    ORDER BY score DESC, c.id
    LIMIT least(greatest(coalesce(match_count, 10), 1), 10)
$$;

CREATE OR REPLACE FUNCTION archivist_like_escape(p_text text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$ SELECT replace(replace(replace(p_text, '\', '\\'), '%', '\%'), '_', '\_') $$;

-- p_item_types / p_item_statuses: a version matches when one of its state items has one of
-- the types (if given) and one of the statuses (if given); each row carries the state items
-- that matched (all of them without these filters). Parameters of the statement it builds:
-- $1 topic documents (any), $2 topics document (all), $3 entity key document, $4 entity name,
-- $5 decision pattern, $6 action pattern, $7 session ids, $8 since, $9 until, $10 limit,
-- $11 item types, $12 item statuses.
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
    p_item_statuses text[] DEFAULT NULL
) RETURNS TABLE (session_id text, version integer, version_at timestamptz, span jsonb,
                 summary text, topics jsonb, decisions jsonb, entities jsonb, actions jsonb,
                 state_items jsonb)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_topics jsonb[] := ARRAY(SELECT jsonb_build_object('topics', jsonb_build_array(lower(btrim(t))))
                              FROM unnest(p_topics) t WHERE btrim(t) <> '');
    v_all    jsonb := jsonb_build_object('topics', (SELECT jsonb_agg(lower(btrim(t)))
                                                    FROM unnest(p_topics) t
                                                    WHERE btrim(t) <> ''));
    v_entity text := lower(btrim(p_entity));
    v_by_key boolean := position(':' IN coalesce(p_entity, '')) > 0;
    v_key    jsonb := jsonb_build_object('entities', jsonb_build_array(
                          jsonb_build_object('key', lower(btrim(p_entity)))));
    v_decision text := '%' || archivist_like_escape(p_decision) || '%';
    v_action   text := '%' || archivist_like_escape(p_action) || '%';
    v_match_decision constant text := 'd ->> ''text'' ILIKE $5';
    v_match_entity   text := CASE WHEN v_by_key THEN 'e ->> ''key'' = $4'
                                  ELSE 'lower(e ->> ''name'') = $4' END;
    v_match_action   constant text := 'x ->> ''description'' ILIKE $6';
    v_types    text[] := ARRAY(SELECT lower(btrim(t)) FROM unnest(p_item_types) t
                               WHERE btrim(t) <> '');
    v_statuses text[] := ARRAY(SELECT lower(btrim(t)) FROM unnest(p_item_statuses) t
                               WHERE btrim(t) <> '');
    v_items    boolean := cardinality(v_types) > 0 OR cardinality(v_statuses) > 0;
    v_match_item constant text := '(cardinality($11) = 0 OR i ->> ''type'' = ANY ($11)) AND '
                                  '(cardinality($12) = 0 OR i ->> ''status'' = ANY ($12))';
    v_where  text[] := ARRAY['true'];
BEGIN
    IF cardinality(v_topics) > 0 THEN
        v_where := v_where || CASE WHEN p_all_topics THEN 'a.extraction @> $2'
                                   ELSE 'a.extraction @> ANY ($1)' END;
    END IF;
    IF p_entity IS NOT NULL THEN
        v_where := v_where || CASE WHEN v_by_key THEN 'a.extraction @> $3'
            ELSE format('EXISTS (SELECT 1 FROM jsonb_array_elements(a.extraction -> ''entities'') e '
                        'WHERE %s)', v_match_entity) END;
    END IF;
    IF p_decision IS NOT NULL THEN
        v_where := v_where || format('EXISTS (SELECT 1 FROM jsonb_array_elements('
                                     'a.extraction -> ''decisions'') d WHERE %s)', v_match_decision);
    END IF;
    IF p_action IS NOT NULL THEN
        v_where := v_where || format('EXISTS (SELECT 1 FROM jsonb_array_elements('
                                     'a.extraction -> ''actions'') x WHERE %s)', v_match_action);
    END IF;
    IF v_items THEN
        v_where := v_where || format('EXISTS (SELECT 1 FROM jsonb_array_elements('
                                     'a.extraction -> ''state_items'') i WHERE %s)', v_match_item);
    END IF;
    IF p_session_ids IS NOT NULL THEN
        v_where := v_where || 'a.session_id = ANY ($7)'::text;
    END IF;
    IF p_since IS NOT NULL THEN
        v_where := v_where || '(a.span ->> ''last_turn_at'')::timestamptz >= $8'::text;
    END IF;
    IF p_until IS NOT NULL THEN
        v_where := v_where || '(a.span ->> ''first_turn_at'')::timestamptz <= $9'::text;
    END IF;
    RETURN QUERY EXECUTE format(
        'SELECT a.session_id, a.version, a.version_at, a.span, '
        '       a.extraction ->> ''summary'', a.extraction -> ''topics'', '
        '       coalesce((SELECT jsonb_agg(d) FROM jsonb_array_elements(a.extraction -> ''decisions'') d '
        '                 WHERE %s), ''[]''), '
        '       coalesce((SELECT jsonb_agg(e) FROM jsonb_array_elements(a.extraction -> ''entities'') e '
        '                 WHERE %s), ''[]''), '
        '       coalesce((SELECT jsonb_agg(x) FROM jsonb_array_elements(a.extraction -> ''actions'') x '
        '                 WHERE %s), ''[]''), '
        '       coalesce((SELECT jsonb_agg(i) FROM jsonb_array_elements('
        '                 coalesce(a.extraction -> ''state_items'', ''[]'')) i '
        '                 WHERE %s), ''[]'') '
        'FROM %s WHERE %s '
        'ORDER BY a.version_at DESC, a.session_id, a.version DESC LIMIT $10',
        CASE WHEN p_decision IS NULL THEN 'true' ELSE v_match_decision END,
        CASE WHEN p_entity IS NULL THEN 'true' ELSE v_match_entity END,
        CASE WHEN p_action IS NULL THEN 'true' ELSE v_match_action END,
        CASE WHEN v_items THEN v_match_item ELSE 'true' END,
        CASE WHEN p_all_versions THEN 'jarvis_archive a'
             ELSE 'jarvis_archive_sessions s JOIN jarvis_archive a ON a.id = s.archive_id' END,
        array_to_string(v_where, ' AND '))
    USING v_topics, v_all, v_key, v_entity, v_decision, v_action, p_session_ids,
          p_since, p_until, least(greatest(coalesce(p_limit, 20), 1), 20), v_types, v_statuses;
END;
$$;
