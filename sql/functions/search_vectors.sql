-- The searches by meaning.
--
-- match_jarvis_memory_chunks(query_embedding, match_count, filter): nearest chunks by cosine,
--   like Supabase's match_documents. filter keys (all optional): session_ids [text],
--   source text, since / until (timestamptz, on the conversation time a chunk covers), as_of
--   (timestamptz: only chunks whose messages are all at or before it), user_id
--   (text: that user's chunks only; see sql/001_schema.sql), and
--   embedding_model (default: the recorded one; chunks of any other model are never returned).
--   At most 10 rows.

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
                                             'as_of', 'user_id'];
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
          v_filter ->> 'user_id', (v_filter ->> 'as_of')::timestamptz;
END;
$$;

-- A state item no longer current is left out, as in the hybrid (archivist_stale_item): the
-- nearest 20 are read for the 10 places.
CREATE OR REPLACE FUNCTION match_jarvis_memory_chunks(
    query_embedding vector,
    match_count     integer DEFAULT 10,
    filter          jsonb DEFAULT '{}'::jsonb
) RETURNS TABLE (id uuid, session_id text, source text, content text, metadata jsonb,
                 similarity double precision, created_at timestamptz)
LANGUAGE sql
AS $$
    SELECT n.* FROM archivist_nearest_chunks(
        query_embedding, 2 * least(greatest(coalesce(match_count, 10), 1), 10), filter) n
    WHERE NOT archivist_stale_item(n.session_id, n.source, n.metadata,
                                   filter ->> 'as_of' IS NULL AND filter ->> 'until' IS NULL)
    ORDER BY n.similarity DESC, n.id
    LIMIT least(greatest(coalesce(match_count, 10), 1), 10)
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
          v_filter ->> 'user_id', (v_filter ->> 'as_of')::timestamptz;
END;
$$;

-- The distinct words of a query as full text sees them (stemmed, stop words dropped), at most 64.
