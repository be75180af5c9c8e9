-- archivist 008: archive search over state items.
--
-- search_jarvis_archive gains p_item_types and p_item_statuses: a version matches when one of
-- its state items has one of the types (if given) and one of the statuses (if given), and
-- each row carries the state items that matched (all of them without these filters). The
-- definition is 005's otherwise; the return type changes, so the old signature is dropped
-- first (CREATE OR REPLACE cannot change it, and would leave an ambiguous overload). The
-- function keeps its own statement timeout, as every search function does.

DROP FUNCTION IF EXISTS search_jarvis_archive(text[], boolean, text, text, text, text[],
                                              timestamptz, timestamptz, boolean, integer);

-- Parameters of the statement it builds: 005's $1-$10, then $11 item types, $12 statuses.
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
    p_limit        integer DEFAULT 20,
    p_item_types   text[] DEFAULT NULL,
    p_item_statuses text[] DEFAULT NULL
) RETURNS TABLE (session_id text, version integer, version_at timestamptz, span jsonb,
                 summary text, topics jsonb, decisions jsonb, entities jsonb, actions jsonb,
                 state_items jsonb)
LANGUAGE plpgsql STABLE
SET statement_timeout = '15s'
AS $$
DECLARE
    v_topics jsonb[] := ARRAY(SELECT jsonb_build_object('topics', jsonb_build_array(lower(btrim(t))))
                              FROM unnest(p_topics) t WHERE btrim(t) <> '');
    v_all    jsonb := jsonb_build_object('topics', (SELECT jsonb_agg(lower(btrim(t)))
                                                    FROM unnest(p_topics) t
                                                    WHERE btrim(t) <> ''));
    v_entity text := lower(btrim(p_entity));
    v_by_key boolean := position(':' IN coalesce(p_entity, '')) > 0;
    v_key    jsonb := jsonb_build_object('entities', jsonb_build_array(
                          jsonb_build_object('key', lower(btrim(p_entity)))));
    v_decision text := '%' || archivist_like_escape(p_decision) || '%';
    v_action   text := '%' || archivist_like_escape(p_action) || '%';
    v_match_decision constant text := 'd ->> ''text'' ILIKE $5';
    v_match_entity   text := CASE WHEN v_by_key THEN 'e ->> ''key'' = $4'
                                  ELSE 'lower(e ->> ''name'') = $4' END;
    v_match_action   constant text := 'x ->> ''description'' ILIKE $6';
    v_types    text[] := ARRAY(SELECT lower(btrim(t)) FROM unnest(p_item_types) t
                               WHERE btrim(t) <> '');
    v_statuses text[] := ARRAY(SELECT lower(btrim(t)) FROM unnest(p_item_statuses) t
                               WHERE btrim(t) <> '');
    v_items    boolean := cardinality(v_types) > 0 OR cardinality(v_statuses) > 0;
    v_match_item constant text := '(cardinality($11) = 0 OR i ->> ''type'' = ANY ($11)) AND '
                                  '(cardinality($12) = 0 OR i ->> ''status'' = ANY ($12))';
    v_where  text[] := ARRAY['true'];
BEGIN
    IF cardinality(v_topics) > 0 THEN
        v_where := v_where || CASE WHEN p_all_topics THEN 'a.extraction @> $2'
                                   ELSE 'a.extraction @> ANY ($1)' END;
    END IF;
    IF p_entity IS NOT NULL THEN
        v_where := v_where || CASE WHEN v_by_key THEN 'a.extraction @> $3'
            ELSE format('EXISTS (SELECT 1 FROM jsonb_array_elements(a.extraction -> ''entities'') e '
                        'WHERE %s)', v_match_entity) END;
    END IF;
    IF p_decision IS NOT NULL THEN
        v_where := v_where || format('EXISTS (SELECT 1 FROM jsonb_array_elements('
                                     'a.extraction -> ''decisions'') d WHERE %s)', v_match_decision);
    END IF;
    IF p_action IS NOT NULL THEN
        v_where := v_where || format('EXISTS (SELECT 1 FROM jsonb_array_elements('
                                     'a.extraction -> ''actions'') x WHERE %s)', v_match_action);
    END IF;
    IF v_items THEN
        v_where := v_where || format('EXISTS (SELECT 1 FROM jsonb_array_elements('
                                     'a.extraction -> ''state_items'') i WHERE %s)', v_match_item);
    END IF;
    IF p_session_ids IS NOT NULL THEN
        v_where := v_where || 'a.session_id = ANY ($7)'::text;
    END IF;
    IF p_since IS NOT NULL THEN
        v_where := v_where || '(a.span ->> ''last_turn_at'')::timestamptz >= $8'::text;
    END IF;
    IF p_until IS NOT NULL THEN
        v_where := v_where || '(a.span ->> ''first_turn_at'')::timestamptz <= $9'::text;
    END IF;
    RETURN QUERY EXECUTE format(
        'SELECT a.session_id, a.version, a.version_at, a.span, '
        '       a.extraction ->> ''summary'', a.extraction -> ''topics'', '
        '       coalesce((SELECT jsonb_agg(d) FROM jsonb_array_elements(a.extraction -> ''decisions'') d '
        '                 WHERE %s), ''[]''), '
        '       coalesce((SELECT jsonb_agg(e) FROM jsonb_array_elements(a.extraction -> ''entities'') e '
        '                 WHERE %s), ''[]''), '
        '       coalesce((SELECT jsonb_agg(x) FROM jsonb_array_elements(a.extraction -> ''actions'') x '
        '                 WHERE %s), ''[]''), '
        '       coalesce((SELECT jsonb_agg(i) FROM jsonb_array_elements('
        '                 coalesce(a.extraction -> ''state_items'', ''[]'')) i '
        '                 WHERE %s), ''[]'') '
        'FROM %s WHERE %s '
        'ORDER BY a.version_at DESC, a.session_id, a.version DESC LIMIT $10',
        CASE WHEN p_decision IS NULL THEN 'true' ELSE v_match_decision END,
        CASE WHEN p_entity IS NULL THEN 'true' ELSE v_match_entity END,
        CASE WHEN p_action IS NULL THEN 'true' ELSE v_match_action END,
        CASE WHEN v_items THEN v_match_item ELSE 'true' END,
        CASE WHEN p_all_versions THEN 'jarvis_archive a'
             ELSE 'jarvis_archive_sessions s JOIN jarvis_archive a ON a.id = s.archive_id' END,
        array_to_string(v_where, ' AND '))
    USING v_topics, v_all, v_key, v_entity, v_decision, v_action, p_session_ids,
          p_since, p_until, least(greatest(coalesce(p_limit, 20), 1), 20), v_types, v_statuses;
END;
$$;
