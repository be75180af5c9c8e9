-- archivist 009: the reads the state views and reconciliation need, as functions (so they work
-- over both transports, like every other read since 007), and the grants 007 gives the
-- archivist's own functions extended to these and to 006's reembed swap.

-- A session's last p_limit versions, oldest first: [{version, version_at, extractor,
-- extractor_version, extraction}].
CREATE OR REPLACE FUNCTION archivist_versions(p_session_id text, p_limit integer) RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(jsonb_agg(to_jsonb(v) ORDER BY v.version), '[]')
    FROM (SELECT a.version, a.version_at, a.extractor, a.extractor_version, a.extraction
          FROM jarvis_archive a
          WHERE a.session_id = p_session_id
          ORDER BY a.version DESC
          LIMIT greatest(p_limit, 0)) v
$$;

-- The stored vectors of a session's state items under one model: [{uid, content, embedding}],
-- so reconciliation compares with them without embedding unchanged items again.
CREATE OR REPLACE FUNCTION archivist_state_item_vectors(p_session_id text, p_model text)
RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'uid', c.metadata ->> 'uid',
               'content', c.content,
               'embedding', to_jsonb(c.embedding::real[]))), '[]')
    FROM jarvis_memory_chunks c
    WHERE c.session_id = p_session_id AND c.source = 'state_item' AND c.embedding_model = p_model
$$;

DO $$
DECLARE
    v_fn regprocedure;
BEGIN
    FOR v_fn IN SELECT p.oid::regprocedure FROM pg_proc p
                WHERE p.pronamespace = 'public'::regnamespace AND p.proname IN (
                    'archivist_versions', 'archivist_state_item_vectors',
                    'archivist_reembed_swap')
    LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', v_fn);
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN
            EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM anon, authenticated', v_fn);
        END IF;
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO service_role', v_fn);
        END IF;
    END LOOP;
END;
$$;
