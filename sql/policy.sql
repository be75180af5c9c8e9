-- archivist policy: the privileges and statement timeouts of everything the archivist owns.
--
-- Applied by every `archivist init` last, after sql/functions/ and sql/retire.sql, in the same
-- transaction; idempotent. Privileges are set absolutely (revoked, then granted), so a database
-- reaches the same ACLs whatever an earlier version, or Supabase's default privileges, granted.
-- CREATE OR REPLACE resets a function's settings, so the timeouts and search_path are set here
-- every time.
--
-- Private by default. On Supabase the anon key is public by design (it ships in browser
-- bundles) and Supabase grants anon and authenticated every privilege on new tables and
-- functions. So every archivist table gets row level security with no policy for them and
-- none of their privileges; every archivist function loses EXECUTE for PUBLIC, anon and
-- authenticated. The service role (where it exists) gets them: the archivist and a bot's
-- server side call with it. Elsewhere only the owner (the role that ran init) and roles the
-- operator grants can read or call anything. The one opening, opt-in, is the last block.
DO $$
DECLARE
    v_api     text[] := ARRAY(SELECT r.rolname::text FROM pg_roles r
                              WHERE r.rolname IN ('anon', 'authenticated') ORDER BY 1);
    v_service boolean := EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role');
    v_role    text;
    v_rel     regclass;
    v_fn      regprocedure;
    v_name    name;
    -- The settings lock_timeout_s and statement_timeout_s, in ms, as `init` passes them.
    v_lock    text := coalesce(nullif(current_setting('archivist.lock_timeout', true), ''),
                               '10000');
    v_stmt    text := coalesce(nullif(current_setting('archivist.statement_timeout', true), ''),
                               '600000');
    -- Every function runs with a fixed search_path (Supabase's linter, function_search_path_
    -- mutable: a caller's search_path must not decide which table or operator a function
    -- uses): the archivist's schema, pgvector's (`extensions` on Supabase), then pg_temp last
    -- so a temporary object never shadows one of these. pg_catalog is searched first.
    v_vector  name := (SELECT n.nspname FROM pg_extension e
                       JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector');
    v_path    text := concat_ws(', ', quote_ident(current_schema()),
                                CASE WHEN v_vector <> current_schema() THEN quote_ident(v_vector) END,
                                'pg_temp');
BEGIN
    FOR v_rel IN SELECT t FROM archivist_tables() t LOOP
        EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', v_rel);
        EXECUTE format('REVOKE ALL ON TABLE %s FROM PUBLIC', v_rel);
        FOREACH v_role IN ARRAY v_api LOOP
            EXECUTE format('REVOKE ALL ON TABLE %s FROM %I', v_rel, v_role);
        END LOOP;
        IF v_service THEN
            EXECUTE format('GRANT ALL ON TABLE %s TO service_role', v_rel);
        END IF;
    END LOOP;

    FOR v_rel IN SELECT s FROM archivist_sequences() s LOOP
        EXECUTE format('REVOKE ALL ON SEQUENCE %s FROM PUBLIC', v_rel);
        FOREACH v_role IN ARRAY v_api LOOP
            EXECUTE format('REVOKE ALL ON SEQUENCE %s FROM %I', v_rel, v_role);
        END LOOP;
        IF v_service THEN
            EXECUTE format('GRANT ALL ON SEQUENCE %s TO service_role', v_rel);
        END IF;
    END LOOP;

    -- Timeouts, so that no archivist call waits on a lock, or runs, without bound, over either
    -- transport. A function's SET clause holds while it runs: its lock_timeout bounds every lock
    -- wait inside it, for any caller. Its statement_timeout does not bound the statement that
    -- called it (the timer starts with that statement), except over REST: PostgREST applies
    -- a function's statement_timeout to the request's transaction ("hoisted" settings,
    -- PostgREST 12.2+); direct connections set their own (archivist.store.psycopg_rpc). Without
    -- these, REST calls would run under the gateway role's timeout (8 s on Supabase), which
    -- would cut a large project's scans and commits.
    -- * the three searches: 15 s for both, so a search behind a lock ends in 15 s for a caller
    --   of the SQL too; the functions they call (archivist_search_functions) get no clause of
    --   their own, so the search's limits hold inside them;
    -- * the reembed swap rebuilds an index (direct only): a lock timeout, no statement timeout;
    -- * every other function: lock_timeout_s and statement_timeout_s.
    FOR v_fn, v_name IN SELECT p.oid::regprocedure, p.proname
                        FROM archivist_functions() f JOIN pg_proc p ON p.oid = f LOOP
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', v_fn);
        FOREACH v_role IN ARRAY v_api LOOP
            EXECUTE format('REVOKE ALL ON FUNCTION %s FROM %I', v_fn, v_role);
        END LOOP;
        IF v_service THEN
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO service_role', v_fn);
        END IF;
        EXECUTE format('ALTER FUNCTION %s SET search_path = %s', v_fn, v_path);
        IF v_name IN ('match_jarvis_memory_chunks', 'hybrid_jarvis_memory_chunks',
                      'search_jarvis_archive') THEN
            EXECUTE format('ALTER FUNCTION %s SET statement_timeout = %L', v_fn, '15s');
            EXECUTE format('ALTER FUNCTION %s SET lock_timeout = %L', v_fn, '15s');
        ELSIF v_fn IN (SELECT f FROM archivist_search_functions() f) THEN
            NULL;
        ELSIF v_name = 'archivist_reembed_swap' THEN
            EXECUTE format('ALTER FUNCTION %s SET lock_timeout = %L', v_fn, v_lock);
        ELSE
            EXECUTE format('ALTER FUNCTION %s SET statement_timeout = %L', v_fn, v_stmt);
            EXECUTE format('ALTER FUNCTION %s SET lock_timeout = %L', v_fn, v_lock);
        END IF;
    END LOOP;

    -- What the functions were given, for `doctor` to compare with the settings.
    INSERT INTO archivist_meta (key, value)
    VALUES ('function_timeouts', jsonb_build_object('lock_ms', v_lock::integer,
                                                    'statement_ms', v_stmt::integer)::text)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now();
END;
$$;

-- Per-user access, opt-in (`init --allow-authenticated`, which needs ARCHIVIST_MESSAGE_USER_ID;
-- recorded in archivist_meta as access = 'authenticated'). Supabase's `authenticated` role
-- then reads the user tables under row level security, `user_id = auth.uid()::text` (of
-- archivist_meta only the embedding model and dimension), and calls the search functions,
-- which run as their caller: a signed-in user's client searches only that user's memories,
-- through PostgREST with their own JWT. Rows without a user id (no user, or several) are
-- nobody's. Nothing here bypasses row level security. Without that access recorded, the
-- policies are dropped (the grants went above).
DO $$
DECLARE
    v_open boolean := archivist_access() = 'authenticated';
    v_rel  regclass;
    v_fn   regprocedure;
BEGIN
    IF v_open AND (NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated')
                   OR to_regprocedure('auth.uid()') IS NULL) THEN
        RAISE EXCEPTION 'archivist: --allow-authenticated needs Supabase''s authenticated role '
            'and auth.uid(), which this database has not got'
            USING ERRCODE = '22023';
    END IF;
    FOR v_rel IN SELECT t FROM archivist_user_tables() t LOOP
        EXECUTE format('DROP POLICY IF EXISTS archivist_authenticated_reads ON %s', v_rel);
        IF v_open THEN
            EXECUTE format('GRANT SELECT ON TABLE %s TO authenticated', v_rel);
            EXECUTE format('CREATE POLICY archivist_authenticated_reads ON %s FOR SELECT '
                           'TO authenticated USING (%s)', v_rel,
                           CASE WHEN v_rel = 'archivist_meta'::regclass
                                THEN 'key IN (''embedding_model'', ''embedding_dim'')'
                                ELSE 'user_id = (SELECT auth.uid())::text' END);
        END IF;
    END LOOP;
    IF v_open THEN
        FOR v_fn IN SELECT f FROM archivist_search_functions() f LOOP
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO authenticated', v_fn);
        END LOOP;
    END IF;
END;
$$;
