-- archivist 050: the functions the archivist created, so that init retires only its own.
--
-- sql/retire.sql records here every function sql/functions/ creates (its oid, name and
-- signature) and drops only functions recorded here that no file defines any more. A function
-- that merely looks like the archivist's (a user's archivist_my_report(), in the same schema)
-- is never recorded, so never dropped, nor given the archivist's privileges.
--
-- The oid identifies the function (CREATE OR REPLACE keeps it; a function dropped and created
-- again by someone else gets another); the name guards against a reused oid. The signature is
-- for people reading the table.
CREATE TABLE IF NOT EXISTS archivist_own_functions (
    fn          oid PRIMARY KEY,
    name        text NOT NULL,
    signature   text NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now()
);

-- A database initialised before this table existed holds functions earlier releases created,
-- some of them obsolete: every function in this schema with a name an archivist release ever
-- defined is one of those (a user's function would need one of these exact names).
INSERT INTO archivist_own_functions (fn, name, signature)
SELECT p.oid, p.proname, p.oid::regprocedure::text
FROM pg_proc p
WHERE p.pronamespace = current_schema()::regnamespace
  AND p.proname IN (
    'archivist_access', 'archivist_adopt_archived_messages', 'archivist_any_word_query',
    'archivist_archived_session_count', 'archivist_bm25', 'archivist_check_filter',
    'archivist_check_weights', 'archivist_chunk_filter_sql', 'archivist_chunk_ids',
    'archivist_chunk_in_filter', 'archivist_claim_session', 'archivist_clear_failure',
    'archivist_commit_version', 'archivist_count_up_to', 'archivist_display_id',
    'archivist_exposure', 'archivist_failed_sessions', 'archivist_filter_model',
    'archivist_filter_sessions', 'archivist_finish_run', 'archivist_functions',
    'archivist_holds_session', 'archivist_is_timestamp', 'archivist_iterative_scan_available',
    'archivist_last_window', 'archivist_let_go_session', 'archivist_like_escape',
    'archivist_lock_holders', 'archivist_messages_at_risk', 'archivist_messages_before',
    'archivist_multi_user_sessions', 'archivist_nearest_chunks', 'archivist_pending_sessions',
    'archivist_pruned_count', 'archivist_query_words', 'archivist_quote_name',
    'archivist_read_messages', 'archivist_read_session', 'archivist_recent_runs',
    'archivist_record_embedding', 'archivist_record_failure', 'archivist_reembed_swap',
    'archivist_release_session', 'archivist_require_search_caller', 'archivist_schema_info',
    'archivist_search_functions', 'archivist_sequences', 'archivist_session_id_fits',
    'archivist_session_state', 'archivist_session_summary', 'archivist_session_users',
    'archivist_source_names', 'archivist_source_sql', 'archivist_start_run',
    'archivist_state_item_vectors', 'archivist_tables', 'archivist_take_session',
    'archivist_text_matches', 'archivist_uncovered_before', 'archivist_undated_uncovered',
    'archivist_user_tables', 'archivist_versions', 'archivist_watermarks',
    'archivist_whole_session_query', 'archivist_word_stats', 'archivist_word_weights',
    'hybrid_jarvis_memory_chunks', 'match_jarvis_memory_chunks', 'search_jarvis_archive')
ON CONFLICT (fn) DO NOTHING;
