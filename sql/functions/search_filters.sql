-- What every search shares: the filters of the memory searches as SQL, and how the searches are
-- planned. The query API is in search_vectors.sql (match_jarvis_memory_chunks),
-- search_hybrid.sql (hybrid_jarvis_memory_chunks) and search_archive.sql
-- (search_jarvis_archive); its limits are enforced there too, so a client that calls these
-- functions directly (Supabase RPC, another bot) gets the same bounds. Their statement
-- timeouts and privileges are set in sql/policy.sql. They run as their caller (SECURITY
-- INVOKER, the default), so row level security applies to what they read.
-- Filters are checked (archivist_check_filter, sql/functions/inputs.sql): an unknown key or a
-- wrong type is an error, never ignored. The helpers that return rows are callable only by
-- the searches (archivist_require_search_caller).
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
-- $12 user id and $13 as-of (every caller passes 13 values; $8..$11 are its own).
-- since / until keep the chunks whose conversation overlaps the range (a chunk that ends after
-- `since`, one that starts before `until`). as_of is the archive as it stood then: only chunks
-- whose every message is at or before it (their last message's time, `last_at`), so a summary
-- or extraction piece of a session that went on after it, or a state item said again after
-- it, is left out (the turn windows from before it stay). A chunk without a known time
-- (`last_at` null) is not returned as of any date.
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
        CASE WHEN filter ->> 'as_of' IS NOT NULL
             THEN '(c.metadata ->> ''last_at'')::timestamptz <= $13' END,
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

-- Whether a chunk is a state item that is not current now: a later session of its scope
-- replaced it, or a resolution dropped it (jarvis_state_items.current, kept at commit time).
-- Such an item is what was true, not what is: a search "now" does not serve it as context, as
-- an item its own session replaced has no chunk at all (the turns that said it are still found).
-- `p_now` false (a search as of a time) keeps it: it may have been current then.
CREATE OR REPLACE FUNCTION archivist_stale_item(
    p_session_id text, p_source text, p_metadata jsonb, p_now boolean
) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT p_now AND p_source = 'state_item' AND EXISTS (
        SELECT 1 FROM jarvis_state_items i
        WHERE i.session_id = p_session_id AND i.uid = p_metadata ->> 'uid' AND NOT i.current)
$$;
