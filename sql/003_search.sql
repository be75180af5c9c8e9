-- archivist 003: the query API bots call, with its limits enforced here too, so a client that
-- calls these functions directly (Supabase RPC, another bot) gets the same bounds.
--
-- match_jarvis_memory_chunks(query_embedding, match_count, filter): nearest chunks by cosine,
--   like Supabase's match_documents. filter keys (all optional): session_ids [text],
--   source text, since / until (timestamptz, on the conversation time a chunk covers), and
--   embedding_model (default: the recorded one; chunks of any other model are never returned).
--   At most 10 rows. A filtered search is exact over the filter (pgvector before 0.8 filters
--   after the HNSW scan and would come back short); with 0.8+ an iterative HNSW scan is used
--   for filters that are not a session list.
-- hybrid_jarvis_memory_chunks(query_embedding, query_text, match_count, filter, weights...):
--   reciprocal rank fusion (k = 60) of the 50 nearest chunks and the 50 best full-text
--   matches (any word of the query), times an optional recency factor
--   (1 - w + w * 0.5 ^ (age / half_life)). A zero vector_weight makes it a full-text search.
-- search_jarvis_archive(...): structured filters over the latest version of each session (or
--   every version), at most 20 rows, newest first; containment filters use the GIN index.

CREATE OR REPLACE FUNCTION archivist_iterative_scan_available() RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(string_to_array(extversion, '.')::int[] >= '{0,8,0}', false)
    FROM pg_extension WHERE extname = 'vector'
$$;

CREATE OR REPLACE FUNCTION archivist_chunk_in_filter(
    c_session_id text, c_source text, c_metadata jsonb, c_model text, filter jsonb
) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT c_model = coalesce(filter ->> 'embedding_model',
                              (SELECT m.value FROM archivist_meta m
                               WHERE m.key = 'embedding_model'))
       AND (jsonb_typeof(filter -> 'session_ids') IS DISTINCT FROM 'array'
            OR c_session_id IN (SELECT jsonb_array_elements_text(filter -> 'session_ids')))
       AND (filter ->> 'source' IS NULL OR c_source = filter ->> 'source')
       AND (filter ->> 'since' IS NULL
            OR (c_metadata ->> 'last_at')::timestamptz >= (filter ->> 'since')::timestamptz)
       AND (filter ->> 'until' IS NULL
            OR (c_metadata ->> 'first_at')::timestamptz <= (filter ->> 'until')::timestamptz)
$$;

-- The k (at most 200) nearest chunks; match_jarvis_memory_chunks and the hybrid build on it.
CREATE OR REPLACE FUNCTION archivist_nearest_chunks(
    query_embedding vector, k integer, filter jsonb
) RETURNS TABLE (id uuid, session_id text, source text, content text, metadata jsonb,
                 similarity double precision, created_at timestamptz)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    v_k        integer := least(greatest(coalesce(k, 10), 1), 200);
    v_filter   jsonb := coalesce(filter, '{}'::jsonb) - 'embedding_model'
                        || jsonb_build_object('embedding_model', coalesce(
                               filter ->> 'embedding_model',
                               (SELECT m.value FROM archivist_meta m
                                WHERE m.key = 'embedding_model')));
    v_sessions text[] := CASE WHEN jsonb_typeof(v_filter -> 'session_ids') = 'array'
                              THEN ARRAY(SELECT jsonb_array_elements_text(v_filter -> 'session_ids'))
                         END;
    v_filtered boolean := v_sessions IS NOT NULL OR v_filter ?| ARRAY['source', 'since', 'until'];
BEGIN
    PERFORM set_config('hnsw.ef_search', greatest(100, v_k * 4)::text, true);
    IF v_filtered AND (v_sessions IS NOT NULL OR NOT archivist_iterative_scan_available()) THEN
        -- Exact: the distance expression (+ 0) keeps the planner off the HNSW index, so the
        -- filter's own index (session_id) or a scan finds every matching row.
        RETURN QUERY
        SELECT c.id, c.session_id, c.source, c.content, c.metadata,
               1 - (c.embedding <=> query_embedding), c.created_at
        FROM jarvis_memory_chunks c
        WHERE (v_sessions IS NULL OR c.session_id = ANY (v_sessions))
          AND archivist_chunk_in_filter(c.session_id, c.source, c.metadata,
                                        c.embedding_model, v_filter)
        ORDER BY (c.embedding <=> query_embedding) + 0, c.id
        LIMIT v_k;
        RETURN;
    END IF;
    IF v_filtered THEN
        PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true);
    END IF;
    RETURN QUERY
    WITH nearest AS MATERIALIZED (
        SELECT c.id, c.session_id, c.source, c.content, c.metadata, c.created_at,
               c.embedding <=> query_embedding AS distance
        FROM jarvis_memory_chunks c
        WHERE archivist_chunk_in_filter(c.session_id, c.source, c.metadata,
                                        c.embedding_model, v_filter)
        ORDER BY c.embedding <=> query_embedding
        LIMIT v_k
    )
    SELECT n.id, n.session_id, n.source, n.content, n.metadata, 1 - n.distance, n.created_at
    FROM nearest n
    ORDER BY n.distance, n.id;
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
    ), words AS (
        SELECT archivist_any_word_query(query_text) AS q
    ), by_text AS (
        SELECT t.id, row_number() OVER (ORDER BY t.rank DESC, t.id) AS r
        FROM (
            SELECT c.id, ts_rank_cd(c.fts, words.q) AS rank
            FROM jarvis_memory_chunks c, words
            WHERE text_weight > 0 AND c.fts @@ words.q
              AND archivist_chunk_in_filter(c.session_id, c.source, c.metadata,
                                            c.embedding_model, coalesce(filter, '{}'::jsonb))
            ORDER BY rank DESC, c.id
            LIMIT 50
        ) t
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
    p_limit        integer DEFAULT 20
) RETURNS TABLE (session_id text, version integer, version_at timestamptz, span jsonb,
                 summary text, topics jsonb, decisions jsonb, entities jsonb, actions jsonb)
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
    v_limit    integer := least(greatest(coalesce(p_limit, 20), 1), 20);
    v_topics   text[] := ARRAY(SELECT lower(btrim(t)) FROM unnest(p_topics) t
                               WHERE btrim(t) <> '');
    v_decision text := '%' || archivist_like_escape(p_decision) || '%';
    v_action   text := '%' || archivist_like_escape(p_action) || '%';
    v_entity   text := lower(btrim(p_entity));
    v_by_key   boolean := position(':' IN coalesce(p_entity, '')) > 0;
BEGIN
    RETURN QUERY
    SELECT a.session_id, a.version, a.version_at, a.span,
           a.extraction ->> 'summary',
           a.extraction -> 'topics',
           coalesce((SELECT jsonb_agg(d) FROM jsonb_array_elements(a.extraction -> 'decisions') d
                     WHERE p_decision IS NULL OR d ->> 'text' ILIKE v_decision), '[]'),
           coalesce((SELECT jsonb_agg(e) FROM jsonb_array_elements(a.extraction -> 'entities') e
                     WHERE p_entity IS NULL
                        OR (v_by_key AND e ->> 'key' = v_entity)
                        OR (NOT v_by_key AND lower(e ->> 'name') = v_entity)), '[]'),
           coalesce((SELECT jsonb_agg(x) FROM jsonb_array_elements(a.extraction -> 'actions') x
                     WHERE p_action IS NULL OR x ->> 'description' ILIKE v_action), '[]')
    FROM jarvis_archive a
    WHERE (p_all_versions
           OR a.id IN (SELECT s.archive_id FROM jarvis_archive_sessions s))
      AND (cardinality(v_topics) = 0
           OR (p_all_topics AND a.extraction @> jsonb_build_object('topics', to_jsonb(v_topics)))
           OR (NOT p_all_topics AND a.extraction @> ANY (
                   ARRAY(SELECT jsonb_build_object('topics', jsonb_build_array(t))
                         FROM unnest(v_topics) t))))
      AND (p_entity IS NULL
           OR (v_by_key AND a.extraction @> jsonb_build_object(
                   'entities', jsonb_build_array(jsonb_build_object('key', v_entity))))
           OR (NOT v_by_key AND EXISTS (
                   SELECT 1 FROM jsonb_array_elements(a.extraction -> 'entities') e
                   WHERE lower(e ->> 'name') = v_entity)))
      AND (p_decision IS NULL OR EXISTS (
               SELECT 1 FROM jsonb_array_elements(a.extraction -> 'decisions') d
               WHERE d ->> 'text' ILIKE v_decision))
      AND (p_action IS NULL OR EXISTS (
               SELECT 1 FROM jsonb_array_elements(a.extraction -> 'actions') x
               WHERE x ->> 'description' ILIKE v_action))
      AND (p_session_ids IS NULL OR a.session_id = ANY (p_session_ids))
      AND (p_since IS NULL OR (a.span ->> 'last_turn_at')::timestamptz >= p_since)
      AND (p_until IS NULL OR (a.span ->> 'first_turn_at')::timestamptz <= p_until)
    ORDER BY a.version_at DESC, a.session_id, a.version DESC
    LIMIT v_limit;
END;
$$;
