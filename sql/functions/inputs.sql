-- Strict inputs at the SQL edge: what a caller of the search functions passes is checked, and a
-- wrong shape is an error with a message saying what is expected, never ignored (an ignored
-- filter returns other sessions' chunks). Used by sql/functions/search_*.sql.

-- A memory-search filter, checked: a JSON object (or NULL, or {}) whose keys are
--   session_ids      an array of strings
--   source           one of session_summary, archive_extraction, session_turn, state_item
--   since, until     a timestamp, e.g. "2026-01-01" or "2026-01-01T09:00:00Z"
--   as_of            a timestamp: the archive as it stood then (archivist_chunk_filter_sql)
--   embedding_model  a string
--   user_id          a string (that user's chunks only; sql/001_schema.sql)
-- any of them null meaning "not given". Unknown keys and wrong types are errors (22023).
-- Returns the filter ({} for NULL).
CREATE OR REPLACE FUNCTION archivist_check_filter(filter jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
    v_key   text;
    v_value jsonb;
    v_type  text;
    v_shown text;
BEGIN
    IF filter IS NULL OR jsonb_typeof(filter) = 'null' THEN
        RETURN '{}'::jsonb;
    END IF;
    IF jsonb_typeof(filter) <> 'object' THEN
        RAISE EXCEPTION 'archivist: filter must be a JSON object such as '
            '{"session_ids": ["s1"]}, not a JSON %', jsonb_typeof(filter)
            USING ERRCODE = '22023';
    END IF;
    FOR v_key, v_value IN SELECT e.key, e.value FROM jsonb_each(filter) e LOOP
        v_type := jsonb_typeof(v_value);
        v_shown := left(v_value::text, 60);
        CONTINUE WHEN v_type = 'null' AND v_key IN ('session_ids', 'source', 'since', 'until',
                                                      'as_of', 'embedding_model', 'user_id');
        CASE v_key
        WHEN 'session_ids' THEN
            IF v_type <> 'array' OR EXISTS (SELECT 1 FROM jsonb_array_elements(v_value) x
                                            WHERE jsonb_typeof(x) <> 'string') THEN
                RAISE EXCEPTION 'archivist: filter session_ids must be an array of strings, '
                    'e.g. ["s1"], not %', v_shown USING ERRCODE = '22023';
            END IF;
        WHEN 'source' THEN
            IF v_type <> 'string' OR v_value #>> '{}' NOT IN
               ('session_summary', 'archive_extraction', 'session_turn', 'state_item') THEN
                RAISE EXCEPTION 'archivist: filter source must be one of session_summary, '
                    'archive_extraction, session_turn, state_item, not %', v_shown
                    USING ERRCODE = '22023';
            END IF;
        WHEN 'since', 'until', 'as_of' THEN
            IF v_type <> 'string' OR NOT archivist_is_timestamp(v_value #>> '{}') THEN
                RAISE EXCEPTION 'archivist: filter % must be a timestamp such as "2026-01-01", '
                    'not %', v_key, v_shown USING ERRCODE = '22023';
            END IF;
        WHEN 'embedding_model', 'user_id' THEN
            IF v_type <> 'string' THEN
                RAISE EXCEPTION 'archivist: filter % must be a string, not %', v_key,
                    v_shown USING ERRCODE = '22023';
            END IF;
        ELSE
            RAISE EXCEPTION 'archivist: filter key "%" is unknown; the keys are session_ids, '
                'source, since, until, as_of, embedding_model, user_id', left(v_key, 60)
                USING ERRCODE = '22023';
        END CASE;
    END LOOP;
    RETURN filter;
END;
$$;

CREATE OR REPLACE FUNCTION archivist_is_timestamp(p_text text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
    RETURN p_text::timestamptz IS NOT NULL;
EXCEPTION WHEN datetime_field_overflow OR invalid_datetime_format OR invalid_parameter_value
               OR invalid_text_representation THEN
    RETURN false;
END;
$$;

-- The hybrid search's weights, checked (22023 with the range when out of it): vector_weight
-- and text_weight 0 to 1000 (NULL is 0, as the hybrid takes it), recency_weight 0 to 1,
-- half_life_days above 0 and at most 36500 (a hundred years); NaN and NULL otherwise refused.
CREATE OR REPLACE FUNCTION archivist_check_weights(
    vector_weight double precision, text_weight double precision,
    recency_weight double precision, half_life_days double precision
) RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
    v_check record;
BEGIN
    FOR v_check IN
        SELECT * FROM (VALUES ('vector_weight', coalesce(vector_weight, 0), 0::float8,
                               1000::float8, true),
                              ('text_weight', coalesce(text_weight, 0), 0, 1000, true),
                              ('recency_weight', recency_weight, 0, 1, true),
                              ('half_life_days', half_life_days, 0, 36500, false))
                      AS c(name, value, low, high, low_ok)
    LOOP
        IF v_check.value IS NULL OR v_check.value = 'NaN'::float8
           OR v_check.value > v_check.high
           OR v_check.value < v_check.low OR (v_check.value = v_check.low AND NOT v_check.low_ok)
        THEN
            RAISE EXCEPTION 'archivist: % must be % % and at most %, not %', v_check.name,
                CASE WHEN v_check.low_ok THEN 'at least' ELSE 'above' END, v_check.low,
                v_check.high, coalesce(v_check.value::text, 'NULL') USING ERRCODE = '22023';
        END IF;
    END LOOP;
END;
$$;

-- Called first by the search functions' helpers that return rows (archivist_nearest_chunks,
-- archivist_text_matches): they are the searches' parts, without the searches' limits (up to
-- 200 rows), so only an archivist function may call them; a caller of the SQL gets an error
-- naming the search to call instead (42501). It reads the call stack (PG_CONTEXT, innermost
-- frame first) for a frame of an archivist function beyond the helper's own. This keeps a
-- caller the operator granted the searches to from reading past their limits; it is not a
-- privilege (sql/policy.sql is).
CREATE OR REPLACE FUNCTION archivist_require_search_caller(p_helper text) RETURNS void
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_stack  text;
    v_frames text[];
    v_own    integer;
BEGIN
    GET DIAGNOSTICS v_stack = PG_CONTEXT;
    v_frames := string_to_array(v_stack, E'\n');
    SELECT min(f.n) INTO v_own FROM unnest(v_frames) WITH ORDINALITY AS f(line, n)
    WHERE strpos(f.line, 'function ' || p_helper || '(') > 0;
    IF v_own IS NULL OR NOT EXISTS (
        SELECT 1 FROM unnest(v_frames[v_own + 1:]) AS f(line)
        WHERE f.line ~ ('^(PL/pgSQL function |SQL function ")(match_jarvis_memory_chunks'
                        '|hybrid_jarvis_memory_chunks|search_jarvis_archive|archivist_\w+)\M'))
    THEN
        RAISE EXCEPTION 'archivist: % is internal to the searches; call '
            'match_jarvis_memory_chunks or hybrid_jarvis_memory_chunks', p_helper
            USING ERRCODE = '42501';
    END IF;
END;
$$;
