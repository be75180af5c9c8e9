-- The search by structured fact.
--
-- search_jarvis_archive(...): structured filters over the latest version of each session (or
--   every version), at most 20 rows, newest first; containment filters use the GIN index.

CREATE OR REPLACE FUNCTION archivist_like_escape(p_text text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$ SELECT replace(replace(replace(p_text, '\', '\\'), '%', '\%'), '_', '\_') $$;

-- A version's decisions (as its extraction stores them), then its decision state items not
-- superseded in it whose text none of those has (case aside), as {text, refs}; n orders them.
CREATE OR REPLACE FUNCTION archivist_decisions_said(p_extraction jsonb)
RETURNS TABLE (o jsonb, n bigint)
LANGUAGE sql IMMUTABLE
AS $$
    SELECT d, k FROM jsonb_array_elements(coalesce(p_extraction -> 'decisions', '[]'))
                     WITH ORDINALITY AS e(d, k)
    UNION ALL
    SELECT jsonb_build_object('text', i ->> 'text', 'refs', coalesce(i -> 'refs', '[]')),
           1000000 + k
    FROM jsonb_array_elements(coalesce(p_extraction -> 'state_items', '[]'))
         WITH ORDINALITY AS e(i, k)
    WHERE i ->> 'type' = 'decision' AND i ->> 'status' IS DISTINCT FROM 'superseded'
      AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(p_extraction -> 'decisions') d
                      WHERE lower(d ->> 'text') = lower(i ->> 'text'))
$$;

-- p_item_types / p_item_statuses: a version matches when one of its state items has one of
-- the types (if given) and one of the statuses (if given); each row carries the state items
-- that matched (all of them without these filters). Likewise decisions, entities and actions:
-- the matching ones under their filter, else the stored array as it is (expanding and
-- re-aggregating four arrays per row cost more than the rest of a topic search).
-- p_decision also matches the version's decision state items that are not superseded in it
-- (extraction's `decisions` are the rules' first reading of each message; its state holds the
-- choices said otherwise, "keep Kibana for dashboards", and those changes made): a row carries
-- the matching decisions, then the matching items of those that no decision of it says.
-- p_user_id: only that user's versions.
-- A filter not given is NULL in its variable, and its predicate and CASE branch fold away in
-- the plan of that call (see "Plans" in search_filters.sql). Whatever is left, the planner picks by the
-- values: for a common topic it walks jarvis_archive_latest_at_idx newest first and stops at
-- the limit; for a rare one it reads the matches from the GIN index and sorts them. A generic
-- plan would have to pick one of the two for every topic, hence force_custom_plan.
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
    p_item_statuses text[] DEFAULT NULL,
    p_user_id      text DEFAULT NULL
) RETURNS TABLE (session_id text, version integer, version_at timestamptz, span jsonb,
                 summary text, topics jsonb, decisions jsonb, entities jsonb, actions jsonb,
                 state_items jsonb)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    v_topic    text;
    v_any      jsonb[] := '{}';  -- one {"topics": [t]} per topic given (any of them)
    v_all      jsonb := '[]';    -- {"topics": [all of them]} (p_all_topics)
    v_entity   text := lower(btrim(p_entity));
    v_key      jsonb;            -- {"entities": [{"key": ...}]} for an entity key ("tool:x")
    v_name     text;             -- else the entity's name
    v_decision text := '%' || archivist_like_escape(p_decision) || '%';
    v_action   text := '%' || archivist_like_escape(p_action) || '%';
    v_types    text[];
    v_statuses text[];
BEGIN
    FOREACH v_topic IN ARRAY coalesce(p_topics, '{}') LOOP
        CONTINUE WHEN coalesce(btrim(v_topic), '') = '';
        v_topic := lower(btrim(v_topic));
        v_any := v_any || jsonb_build_object('topics', jsonb_build_array(v_topic));
        v_all := v_all || to_jsonb(v_topic);
    END LOOP;
    IF cardinality(v_any) = 0 THEN
        v_any := NULL;
        v_all := NULL;
    ELSIF p_all_topics THEN
        v_any := NULL;
        v_all := jsonb_build_object('topics', v_all);
    ELSE
        v_all := NULL;
    END IF;
    IF position(':' IN v_entity) > 0 THEN
        v_key := jsonb_build_object('entities', jsonb_build_array(
                     jsonb_build_object('key', v_entity)));
    ELSE
        v_name := v_entity;
    END IF;
    IF p_item_types IS NOT NULL OR p_item_statuses IS NOT NULL THEN
        v_types := ARRAY(SELECT lower(btrim(t)) FROM unnest(p_item_types) t
                         WHERE btrim(t) <> '');
        v_statuses := ARRAY(SELECT lower(btrim(t)) FROM unnest(p_item_statuses) t
                            WHERE btrim(t) <> '');
        IF cardinality(v_types) = 0 AND cardinality(v_statuses) = 0 THEN
            v_types := NULL;  -- only blanks: no item filter
        END IF;
    END IF;
    RETURN QUERY
    SELECT a.session_id, a.version, a.version_at, a.span, a.extraction ->> 'summary',
           a.extraction -> 'topics',
           CASE WHEN v_decision IS NULL THEN coalesce(a.extraction -> 'decisions', '[]')
                ELSE coalesce((SELECT jsonb_agg(d.o ORDER BY d.n)
                               FROM archivist_decisions_said(a.extraction) d
                               WHERE d.o ->> 'text' ILIKE v_decision), '[]') END,
           CASE WHEN v_entity IS NULL THEN coalesce(a.extraction -> 'entities', '[]')
                ELSE coalesce((SELECT jsonb_agg(e)
                               FROM jsonb_array_elements(a.extraction -> 'entities') e
                               WHERE CASE WHEN v_key IS NULL THEN lower(e ->> 'name')
                                          ELSE e ->> 'key' END = v_entity), '[]') END,
           CASE WHEN v_action IS NULL THEN coalesce(a.extraction -> 'actions', '[]')
                ELSE coalesce((SELECT jsonb_agg(x)
                               FROM jsonb_array_elements(a.extraction -> 'actions') x
                               WHERE x ->> 'description' ILIKE v_action), '[]') END,
           CASE WHEN v_types IS NULL THEN coalesce(a.extraction -> 'state_items', '[]')
                ELSE coalesce((SELECT jsonb_agg(i)
                               FROM jsonb_array_elements(
                                        coalesce(a.extraction -> 'state_items', '[]')) i
                               WHERE (cardinality(v_types) = 0 OR i ->> 'type' = ANY (v_types))
                                 AND (cardinality(v_statuses) = 0
                                      OR i ->> 'status' = ANY (v_statuses))), '[]') END
    FROM jarvis_archive a
    -- The latest versions by their flag (sql/040): no join, and their own partial indexes.
    WHERE (p_all_versions OR a.is_latest)
      AND (v_any IS NULL OR a.extraction @> ANY (v_any))
      AND (v_all IS NULL OR a.extraction @> v_all)
      AND (v_key IS NULL OR a.extraction @> v_key)
      AND (v_name IS NULL OR EXISTS (SELECT 1
                                     FROM jsonb_array_elements(a.extraction -> 'entities') e
                                     WHERE lower(e ->> 'name') = v_name))
      -- (as archivist_decisions_said, inline: a function call per row tripled its time)
      AND (v_decision IS NULL
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(a.extraction -> 'decisions') d
                      WHERE d ->> 'text' ILIKE v_decision)
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(a.extraction -> 'state_items') i
                      WHERE i ->> 'type' = 'decision'
                        AND i ->> 'status' IS DISTINCT FROM 'superseded'
                        AND i ->> 'text' ILIKE v_decision))
      AND (v_action IS NULL OR EXISTS (SELECT 1
                                       FROM jsonb_array_elements(a.extraction -> 'actions') x
                                       WHERE x ->> 'description' ILIKE v_action))
      AND (v_types IS NULL OR EXISTS (SELECT 1
                                      FROM jsonb_array_elements(a.extraction -> 'state_items') i
                                      WHERE (cardinality(v_types) = 0
                                             OR i ->> 'type' = ANY (v_types))
                                        AND (cardinality(v_statuses) = 0
                                             OR i ->> 'status' = ANY (v_statuses))))
      AND (p_session_ids IS NULL OR a.session_id = ANY (p_session_ids))
      AND (p_since IS NULL OR (a.span ->> 'last_turn_at')::timestamptz >= p_since)
      AND (p_until IS NULL OR (a.span ->> 'first_turn_at')::timestamptz <= p_until)
      AND (p_user_id IS NULL OR a.user_id = p_user_id)
    ORDER BY a.version_at DESC, a.session_id, a.version DESC
    LIMIT least(greatest(coalesce(p_limit, 20), 1), 20);
END;
$$;
