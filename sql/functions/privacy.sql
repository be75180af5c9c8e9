-- What the archivist owns in its schema, for sql/policy.sql (which makes all of it private) and
-- for `doctor` (which reports what Supabase's API roles can reach of it).

-- The archivist's tables. A new table must be added here: tests/db/test_privacy.py lists every
-- table the migrations create and fails on one that is not private.
CREATE OR REPLACE FUNCTION archivist_tables() RETURNS SETOF regclass
LANGUAGE sql STABLE
AS $$
    SELECT c.oid::regclass FROM pg_class c
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
      AND c.relname IN ('archivist_meta', 'archivist_migrations', 'archivist_runs',
                        'archivist_session_claims', 'archivist_reembed_staging',
                        'archivist_message_hashes', 'archivist_session_failures',
                        'archivist_own_functions', 'archivist_forgotten',
                        'jarvis_archive', 'jarvis_archive_sessions', 'jarvis_memory_chunks',
                        'jarvis_state_items', 'jarvis_state_resolutions')
    ORDER BY c.relname
$$;

-- The sequences those tables own (identity columns).
CREATE OR REPLACE FUNCTION archivist_sequences() RETURNS SETOF regclass
LANGUAGE sql STABLE
AS $$
    SELECT s.oid::regclass FROM pg_depend d JOIN pg_class s ON s.oid = d.objid
    WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass
      AND s.relkind = 'S' AND d.refobjid IN (SELECT t FROM archivist_tables() t)
    ORDER BY s.relname
$$;

-- The archivist's functions: those sql/retire.sql recorded creating (archivist_own_functions),
-- never another function however it is named.
CREATE OR REPLACE FUNCTION archivist_functions() RETURNS SETOF regprocedure
LANGUAGE sql STABLE
AS $$
    SELECT p.oid::regprocedure FROM archivist_own_functions o
    JOIN pg_proc p ON p.oid = o.fn AND p.proname = o.name
    ORDER BY p.proname, p.oid
$$;

-- The tables a signed-in user reads their own rows of, and the functions their searches call,
-- when the archive is opened to Supabase's `authenticated` role (`init --allow-authenticated`;
-- sql/policy.sql). archivist_meta is readable too, but only its embedding model and dimension.
CREATE OR REPLACE FUNCTION archivist_user_tables() RETURNS SETOF regclass
LANGUAGE sql STABLE
AS $$
    SELECT t FROM archivist_tables() t
    WHERE t::text IN ('jarvis_archive', 'jarvis_archive_sessions', 'jarvis_memory_chunks',
                      'jarvis_state_items', 'archivist_meta')
$$;

-- The search functions and every function they call (sql/functions/search_*.sql, inputs.sql): a
-- new helper of the searches belongs here. Besides what `authenticated` may call, these are the
-- functions sql/policy.sql gives no timeouts of their own (the helpers run under the searches'
-- limits, which a clause of their own would replace inside them).
CREATE OR REPLACE FUNCTION archivist_search_functions() RETURNS SETOF regprocedure
LANGUAGE sql STABLE
AS $$
    SELECT f FROM archivist_functions() f JOIN pg_proc p ON p.oid = f
    WHERE p.proname IN (
        'match_jarvis_memory_chunks', 'hybrid_jarvis_memory_chunks', 'search_jarvis_archive',
        'archivist_iterative_scan_available', 'archivist_chunk_filter_sql',
        'archivist_filter_model', 'archivist_filter_sessions', 'archivist_nearest_chunks',
        'archivist_vector_candidates',
        'archivist_query_words', 'archivist_word_stats', 'archivist_bm25',
        'archivist_text_matches', 'archivist_whole_session_query', 'archivist_standing_rule',
        'archivist_current_values', 'archivist_turn_neighbours', 'archivist_stale_item',
        'archivist_decisions_said',
        'archivist_like_escape',
        'archivist_check_filter', 'archivist_is_timestamp', 'archivist_check_weights',
        'archivist_require_search_caller')
$$;

-- Who may read the archive, as recorded by init: 'private' (the default) or 'authenticated'.
CREATE OR REPLACE FUNCTION archivist_access() RETURNS text
LANGUAGE sql STABLE
AS $$
    SELECT coalesce((SELECT m.value FROM archivist_meta m WHERE m.key = 'access'), 'private')
$$;

-- What Supabase's API roles (anon, authenticated; those that exist) can reach of the
-- archivist: [{role, kind, name, privileges}] for every table, sequence or function one of
-- them may use, and [{role: null, kind: "table without row level security", name}] for every
-- archivist table RLS does not guard. Each item says whether it is `allowed`: what
-- `--allow-authenticated` grants `authenticated` (reading the user tables under their row
-- level security policies, calling the searches) while that access is recorded. Empty when the
-- archivist is private.
CREATE OR REPLACE FUNCTION archivist_exposure() RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    WITH api AS (
        SELECT r.oid, r.rolname::text AS role FROM pg_roles r
        WHERE r.rolname IN ('anon', 'authenticated')
    ), reach AS (
        SELECT a.role, 'table' AS kind, t::text AS name,
               array_to_string(ARRAY(
                   SELECT p FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE',
                                              'REFERENCES', 'TRIGGER']) p
                   WHERE has_table_privilege(a.oid, t, p)), ', ') AS privileges
        FROM api a CROSS JOIN archivist_tables() t
        UNION ALL
        SELECT a.role, 'sequence', s::text,
               array_to_string(ARRAY(
                   SELECT p FROM unnest(ARRAY['USAGE', 'SELECT', 'UPDATE']) p
                   WHERE has_sequence_privilege(a.oid, s, p)), ', ')
        FROM api a CROSS JOIN archivist_sequences() s
        UNION ALL
        SELECT a.role, 'function', f::text,
               CASE WHEN has_function_privilege(a.oid, f, 'EXECUTE') THEN 'EXECUTE' ELSE '' END
        FROM api a CROSS JOIN archivist_functions() f
        UNION ALL
        SELECT NULL, 'table without row level security', t::text, ''
        FROM archivist_tables() t JOIN pg_class c ON c.oid = t
        WHERE NOT c.relrowsecurity
    )
    SELECT coalesce(jsonb_agg(to_jsonb(r) || jsonb_build_object('allowed',
               archivist_access() = 'authenticated' AND r.role = 'authenticated'
               AND ((r.kind = 'table' AND r.privileges = 'SELECT'
                     AND r.name IN (SELECT t::text FROM archivist_user_tables() t))
                    OR (r.kind = 'function'
                        AND r.name IN (SELECT f::text FROM archivist_search_functions() f))))
               ORDER BY r.role NULLS FIRST, r.kind, r.name), '[]')
    FROM reach r WHERE r.privileges <> '' OR r.role IS NULL
$$;
