-- archivist policy: the statement timeouts and privileges of everything the archivist creates.
--
-- Applied by every `archivist init` last, after sql/functions/ and sql/retire.sql, in the same
-- transaction; idempotent. CREATE OR REPLACE resets a function's settings, so the timeouts are
-- set here every time; privileges are set absolutely (revoked, then granted), so a database
-- reaches the same ACLs whatever an earlier version granted.

-- The search API and the helpers it calls as its caller: callable by bots. Searches hold their
-- limit over REST too: PostgREST applies a function's statement_timeout to the transaction
-- that calls it ("hoisted" settings, PostgREST 12.2+).
DO $$
DECLARE
    v_fn   regprocedure;
    v_name name;
BEGIN
    FOR v_fn, v_name IN SELECT p.oid::regprocedure, p.proname FROM pg_proc p
                WHERE p.pronamespace = current_schema()::regnamespace AND p.proname IN (
                    'match_jarvis_memory_chunks', 'hybrid_jarvis_memory_chunks',
                    'search_jarvis_archive', 'archivist_iterative_scan_available',
                    'archivist_chunk_filter_sql', 'archivist_filter_model',
                    'archivist_filter_sessions', 'archivist_nearest_chunks',
                    'archivist_any_word_query', 'archivist_text_matches',
                    'archivist_like_escape')
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO PUBLIC', v_fn);
        IF v_name NOT LIKE 'archivist\_%' THEN
            EXECUTE format('ALTER FUNCTION %s SET statement_timeout = %L', v_fn, '15s');
        END IF;
    END LOOP;
END;
$$;

-- Every other archivist function reads or writes any table by name: on Supabase only the
-- service role may call it (Supabase grants EXECUTE on new functions to anon and
-- authenticated by default). Over REST each call runs under the gateway role's statement
-- timeout (8 s on Supabase), which would cut the archivist's scans and commits on a large
-- project; PostgREST applies a function's own statement_timeout instead, so these carry a
-- longer one. The reembed swap is direct-only and rebuilds an index: it gets none.
DO $$
DECLARE
    v_fn   regprocedure;
    v_name name;
BEGIN
    FOR v_fn, v_name IN SELECT p.oid::regprocedure, p.proname FROM pg_proc p
                WHERE p.pronamespace = current_schema()::regnamespace
                  AND p.proname LIKE 'archivist\_%' AND p.proname NOT IN (
                    'archivist_iterative_scan_available', 'archivist_chunk_filter_sql',
                    'archivist_filter_model', 'archivist_filter_sessions',
                    'archivist_nearest_chunks', 'archivist_any_word_query',
                    'archivist_text_matches', 'archivist_like_escape')
    LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', v_fn);
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN
            EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM anon, authenticated', v_fn);
        END IF;
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO service_role', v_fn);
        END IF;
        IF v_name <> 'archivist_reembed_swap' THEN
            EXECUTE format('ALTER FUNCTION %s SET statement_timeout = %L', v_fn, '10min');
        END IF;
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
        REVOKE ALL ON archivist_runs, archivist_session_claims, archivist_reembed_staging,
            archivist_migrations FROM anon, authenticated;
        REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON jarvis_archive, jarvis_archive_sessions,
               jarvis_memory_chunks, archivist_meta FROM anon, authenticated;
    END IF;
END;
$$;
