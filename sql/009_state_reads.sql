-- archivist 009: the reads the state views and reconciliation need, as functions (so they work
-- over both transports, like every other read since 007); the grants 007 gives the
-- archivist's own functions extended to these and to 006's reembed swap; a statement timeout
-- for those functions that outlasts the REST gateway's; and table privileges for Supabase.

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

-- Over REST each call runs under the gateway role's statement timeout (8 s on Supabase),
-- which would cut the archivist's scans and commits on a large project. PostgREST applies a
-- function's own statement_timeout instead, so the archivist's functions (those revoked from
-- PUBLIC above and in 007) carry a longer one. The direct path is not affected. The reembed
-- swap is direct-only and rebuilds an index: it gets none.
DO $$
DECLARE
    v_fn regprocedure;
BEGIN
    FOR v_fn IN SELECT p.oid::regprocedure FROM pg_proc p
                WHERE p.pronamespace = 'public'::regnamespace
                  AND p.proname LIKE 'archivist\_%' AND p.proname <> 'archivist_reembed_swap'
                  AND NOT has_function_privilege('public', p.oid, 'EXECUTE')
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET statement_timeout = %L', v_fn, '10min');
    END LOOP;
END;
$$;

-- Supabase grants anon and authenticated every privilege on new tables. The archivist's run
-- log, claims, staging and migrations are for the service role only; the archive and the
-- recorded model stay readable by bots (their searches read them), but only the archivist
-- writes them.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN
        REVOKE ALL ON archivist_runs, archivist_session_claims, archivist_reembed_staging
            FROM anon, authenticated;
        IF to_regclass('archivist_migrations') IS NOT NULL THEN
            REVOKE ALL ON archivist_migrations FROM anon, authenticated;
        END IF;
        REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON jarvis_archive, jarvis_archive_sessions,
               jarvis_memory_chunks, archivist_meta FROM anon, authenticated;
    END IF;
END;
$$;
