-- Every read of the bot's source tables (messages and summaries), as functions, so the direct
-- Postgres path and the Supabase REST path (RPC only: PostgREST runs no ad-hoc SQL) share
-- one implementation.
--
-- Source tables belong to the bot and their names are settings: functions that read them take
-- p_sources (the SourceTables settings as JSON) and build their statements with the names
-- resolved by archivist_source_names: tables through to_regclass (quoted by regclass output),
-- columns through quote_ident. Values are always bound with USING.
--
-- Results that can hold many rows are one jsonb document (PostgREST's max-rows cuts row sets,
-- not a scalar), and every message read is a bounded page.

-- A dotted table name as the settings write it (case kept, like a quoted identifier) in the
-- form to_regclass reads: each part quoted.
CREATE OR REPLACE FUNCTION archivist_quote_name(p_name text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
    SELECT string_agg(quote_ident(u.part), '.' ORDER BY u.n)
    FROM unnest(string_to_array(p_name, '.')) WITH ORDINALITY AS u(part, n)
$$;

-- The source names, validated and quoted: msgs, sid, ts, mid, role, content, cast (the SQL type
-- a stored watermark id is cast to), uid when the user-id column is set, and sums, ssid, stext,
-- sts when the summaries table exists.
CREATE OR REPLACE FUNCTION archivist_source_names(p_sources jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_src    jsonb := coalesce(p_sources, '{}'::jsonb);
    v_table  text := coalesce(v_src ->> 'messages_table', 'session_messages');
    v_msgs   regclass := to_regclass(archivist_quote_name(v_table));
    v_sums   regclass := to_regclass(archivist_quote_name(
                             coalesce(v_src ->> 'summaries_table', 'session_summaries')));
    v_mid    text := coalesce(v_src ->> 'message_id', 'id');
    v_type   text;
    v_cast   text;
    v_sts    text;
    v_names  jsonb;
BEGIN
    IF v_msgs IS NULL THEN
        RAISE EXCEPTION 'archivist: source table % not found; create it or set '
            'ARCHIVIST_MESSAGES_TABLE to the table holding the bot''s messages', v_table
            USING ERRCODE = '42P01';
    END IF;
    SELECT format_type(a.atttypid, NULL) INTO v_type FROM pg_attribute a
    WHERE a.attrelid = v_msgs AND a.attname = v_mid AND a.attnum > 0 AND NOT a.attisdropped;
    IF v_type IS NULL THEN
        RAISE EXCEPTION 'archivist: source table % has no column %', v_table, v_mid
            USING ERRCODE = '42703';
    END IF;
    v_cast := CASE v_type WHEN 'bigint' THEN 'bigint' WHEN 'integer' THEN 'integer'
                          WHEN 'smallint' THEN 'smallint' WHEN 'text' THEN 'text'
                          WHEN 'character varying' THEN 'text' WHEN 'uuid' THEN 'uuid' END;
    IF v_cast IS NULL THEN
        RAISE EXCEPTION 'archivist: %.% has unsupported type %', v_table, v_mid, v_type
            USING ERRCODE = '42804';
    END IF;
    v_names := jsonb_build_object(
        'msgs', v_msgs::text,
        'sid', quote_ident(coalesce(v_src ->> 'message_session_id', 'session_id')),
        'ts', quote_ident(coalesce(v_src ->> 'message_created_at', 'created_at')),
        'mid', quote_ident(v_mid),
        'role', quote_ident(coalesce(v_src ->> 'message_role', 'role')),
        'content', quote_ident(coalesce(v_src ->> 'message_content', 'content')),
        'cast', v_cast);
    IF v_src ->> 'message_user_id' IS NOT NULL THEN
        IF NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = v_msgs
                       AND a.attname = v_src ->> 'message_user_id' AND a.attnum > 0
                       AND NOT a.attisdropped) THEN
            RAISE EXCEPTION 'archivist: source table % has no column % (ARCHIVIST_MESSAGE_USER_ID)',
                v_table, v_src ->> 'message_user_id'
                USING ERRCODE = '42703';
        END IF;
        v_names := v_names || jsonb_build_object('uid', quote_ident(v_src ->> 'message_user_id'));
    END IF;
    IF v_sums IS NULL THEN
        RETURN v_names;
    END IF;
    SELECT c INTO v_sts FROM unnest(CASE WHEN v_src ->> 'summary_updated_at' IS NOT NULL
                                         THEN ARRAY[v_src ->> 'summary_updated_at']
                                         ELSE ARRAY['updated_at', 'created_at'] END)
                             WITH ORDINALITY AS u(c, n)
    WHERE EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = v_sums AND a.attname = u.c
                  AND a.attnum > 0 AND NOT a.attisdropped)
    ORDER BY u.n LIMIT 1;
    IF v_sts IS NULL THEN
        RAISE EXCEPTION 'archivist: % has no updated_at or created_at column; set '
            'ARCHIVIST_SUMMARY_UPDATED_AT to its timestamp column', v_sums::text
            USING ERRCODE = '42703';
    END IF;
    RETURN v_names || jsonb_build_object(
        'sums', v_sums::text,
        'ssid', quote_ident(coalesce(v_src ->> 'summary_session_id', 'session_id')),
        'stext', quote_ident(coalesce(v_src ->> 'summary_text', 'summary_text')),
        'sts', quote_ident(v_sts));
END;
$$;

-- A statement template with {name} placeholders filled from archivist_source_names, and two
-- predicates on the messages table aliased m:
--   {dated}    its created_at can order it: not NULL, not +/-infinity, not before year 1
--              (clients cannot hold it) and not over a year ahead (a broken clock). Undated
--              messages are archived apart, in `undated:` slots, without moving the watermark.
--   {covered}  a committed turn chunk of its session covers it.
CREATE OR REPLACE FUNCTION archivist_source_sql(p_template text, p_names jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
    v_sql text := replace(replace(p_template,
        '{dated}', 'm.{ts} BETWEEN ''0001-01-02'' AND now() + interval ''1 year'''),
        '{covered}', 'EXISTS (SELECT 1 FROM jarvis_memory_chunks c '
            'WHERE c.session_id = m.{sid}::text AND c.source = ''session_turn'' '
            'AND c.metadata -> ''message_ids'' ? m.{mid}::text)');
    v_key text;
BEGIN
    FOR v_key IN SELECT jsonb_object_keys(p_names) LOOP
        v_sql := replace(v_sql, '{' || v_key || '}', p_names ->> v_key);
    END LOOP;
    RETURN v_sql;
END;
$$;

-- Sessions with work, oldest unarchived activity first, at most p_limit: messages past the
-- watermark, more messages at or before it than the archive covers (late arrivals), or a bot
-- summary newer than the one archived, or undated messages no chunk covers yet. A JSON
-- array of session ids.
CREATE OR REPLACE FUNCTION archivist_pending_sessions(
    p_sources jsonb, p_active_days integer, p_limit integer
) RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_n        jsonb := archivist_source_names(p_sources);
    v_activity text := CASE WHEN p_active_days IS NULL THEN '' ELSE
        'AND m.{sid} IN (SELECT a.{sid} FROM {msgs} a '
        'WHERE a.{ts} >= now() - make_interval(days => $1))' END;
    v_sql      text;
    v_result   jsonb;
BEGIN
    v_sql := 'SELECT m.{sid}::text AS session_id, min(m.{ts}) AS oldest FROM {msgs} m '
        'LEFT JOIN jarvis_archive_sessions w ON w.session_id = m.{sid}::text '
        'WHERE {dated} AND (w.watermark_at IS NULL '
        '  OR (m.{ts}, m.{mid}) > (w.watermark_at, w.watermark_id::{cast})) ' || v_activity ||
        ' GROUP BY 1 '
        'UNION ALL SELECT m.{sid}::text, min(m.{ts}) FROM {msgs} m '
        'JOIN jarvis_archive_sessions w ON w.session_id = m.{sid}::text '
        'WHERE w.watermark_at IS NOT NULL AND {dated} '
        '  AND (m.{ts}, m.{mid}) <= (w.watermark_at, w.watermark_id::{cast}) ' || v_activity ||
        ' GROUP BY 1, w.message_count HAVING count(*) > w.message_count '
        'UNION ALL SELECT m.{sid}::text, NULL::timestamptz FROM {msgs} m '
        'WHERE NOT coalesce({dated}, false) AND NOT {covered} ' || v_activity || ' GROUP BY 1';
    IF v_n ? 'sums' THEN
        v_sql := v_sql || ' UNION ALL SELECT ss.{ssid}::text, ss.{sts} FROM {sums} ss '
            'LEFT JOIN jarvis_archive_sessions w ON w.session_id = ss.{ssid}::text '
            'WHERE ss.{sts} IS NOT NULL AND (w.session_id IS NULL OR w.summary_at IS NULL '
            '  OR ss.{sts} > w.summary_at) '
            || CASE WHEN p_active_days IS NULL THEN ''
                    ELSE 'AND ss.{sts} >= now() - make_interval(days => $1)' END;
    END IF;
    v_sql := 'SELECT coalesce(jsonb_agg(p.session_id ORDER BY p.oldest, p.session_id), ''[]'') '
        'FROM (SELECT session_id, min(oldest) AS oldest FROM (' || v_sql || ') pending '
        'GROUP BY session_id ORDER BY 2, 1 LIMIT $2) p';
    EXECUTE archivist_source_sql(v_sql, v_n) INTO v_result
        USING p_active_days, least(greatest(coalesce(p_limit, 50), 1), 100000);
    RETURN v_result;
END;
$$;

-- One bounded page of a session's messages in (created_at, id) order, as a JSON array of
-- {id, role, content, created_at}; content cut to p_max_chars + 1 characters (so a huge
-- message never leaves the database whole, and the caller still sees that it was cut).
-- p_mode:
--   'after'     dated messages after the watermark (p_at, p_id), or all when p_at is null;
--   'uncovered' dated messages at or before the watermark that no turn chunk covers (late
--               arrivals);
--   'ids'       the dated messages with these ids;
--   'undated', 'undated_uncovered'
--               the undated messages (all of them, or those no turn chunk covers), stamped
--               with the time of reading.
CREATE OR REPLACE FUNCTION archivist_read_messages(
    p_sources jsonb, p_session_id text, p_mode text, p_at timestamptz, p_id text,
    p_ids text[], p_limit integer, p_max_chars integer DEFAULT NULL
) RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_n     jsonb := archivist_source_names(p_sources);
    v_where text := CASE p_mode
        WHEN 'after' THEN CASE WHEN p_at IS NULL THEN 'AND {dated}'
                               ELSE 'AND {dated} AND (m.{ts}, m.{mid}) > ($2, $3::{cast})' END
        WHEN 'uncovered' THEN
            'AND {dated} AND (m.{ts}, m.{mid}) <= ($2, $3::{cast}) AND NOT {covered}'
        WHEN 'ids' THEN 'AND {dated} AND m.{mid}::text = ANY ($4)'
        WHEN 'undated' THEN 'AND NOT coalesce({dated}, false)'
        WHEN 'undated_uncovered' THEN 'AND NOT coalesce({dated}, false) AND NOT {covered}'
    END;
    v_time text := CASE WHEN p_mode LIKE 'undated%' THEN 'now()' ELSE 'm.{ts}' END;
    v_result jsonb;
BEGIN
    IF v_where IS NULL THEN
        RAISE EXCEPTION 'archivist: unknown message read mode %', p_mode USING ERRCODE = '22023';
    END IF;
    EXECUTE archivist_source_sql(
        'SELECT coalesce(jsonb_agg(jsonb_build_object(''id'', p.id, ''role'', p.role, '
        '''content'', p.content, ''created_at'', p.created_at) ORDER BY p.n), ''[]'') FROM ('
        'SELECT m.{mid}::text AS id, m.{role}::text AS role, '
        'left(m.{content}::text, $6) AS content, ' || v_time || ' AS created_at, '
        'row_number() OVER (ORDER BY m.{ts}, m.{mid}) AS n '
        'FROM {msgs} m WHERE m.{sid}::text = $1 ' || v_where ||
        ' ORDER BY m.{ts}, m.{mid} LIMIT $5) p', v_n)
    INTO v_result
    USING p_session_id, p_at, p_id, p_ids, least(greatest(coalesce(p_limit, 500), 1), 10000),
          coalesce(p_max_chars + 1, 2147483647);
    RETURN v_result;
END;
$$;

-- How many of the session's messages sit at or before the watermark.
CREATE OR REPLACE FUNCTION archivist_count_up_to(
    p_sources jsonb, p_session_id text, p_at timestamptz, p_id text
) RETURNS bigint
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_count bigint;
BEGIN
    EXECUTE archivist_source_sql(
        'SELECT count(*) FROM {msgs} m WHERE m.{sid}::text = $1 AND {dated} '
        'AND (m.{ts}, m.{mid}) <= ($2, $3::{cast})', archivist_source_names(p_sources))
    INTO v_count USING p_session_id, p_at, p_id;
    RETURN v_count;
END;
$$;

-- Per session, the messages older than the cutoff that no committed turn chunk covers:
-- a JSON array of [session_id, count, oldest], oldest first.
CREATE OR REPLACE FUNCTION archivist_uncovered_before(p_sources jsonb, p_cutoff timestamptz)
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_result jsonb;
BEGIN
    EXECUTE archivist_source_sql(
        'SELECT coalesce(jsonb_agg(jsonb_build_array(s, n, t) ORDER BY t, s), ''[]'') FROM ('
        'SELECT m.{sid}::text AS s, count(*) AS n, min(m.{ts}) AS t FROM {msgs} m '
        'WHERE m.{ts} < $1 AND {dated} AND NOT {covered} GROUP BY 1) u',
        archivist_source_names(p_sources))
    INTO v_result USING p_cutoff;
    RETURN v_result;
END;
$$;

-- How many messages, in how many sessions, are older than the cutoff: {messages, sessions}.
CREATE OR REPLACE FUNCTION archivist_messages_before(p_sources jsonb, p_cutoff timestamptz)
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_result jsonb;
BEGIN
    EXECUTE archivist_source_sql(
        'SELECT jsonb_build_object(''messages'', count(*), ''sessions'', count(DISTINCT m.{sid})) '
        'FROM {msgs} m WHERE m.{ts} < $1 AND {dated}', archivist_source_names(p_sources))
    INTO v_result USING p_cutoff;
    RETURN v_result;
END;
$$;

-- Per session, the undated messages no turn chunk covers yet (prune-check counts them at
-- risk, whatever the cutoff): a JSON array of {session_id, count}.
CREATE OR REPLACE FUNCTION archivist_undated_uncovered(p_sources jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_result jsonb;
BEGIN
    EXECUTE archivist_source_sql(
        'SELECT coalesce(jsonb_agg(jsonb_build_object(''session_id'', s, ''count'', n) '
        'ORDER BY s), ''[]'') FROM (SELECT m.{sid}::text AS s, count(*) AS n FROM {msgs} m '
        'WHERE NOT coalesce({dated}, false) AND NOT {covered} GROUP BY 1) u',
        archivist_source_names(p_sources))
    INTO v_result;
    RETURN v_result;
END;
$$;

-- The bot's latest summary of a session: {summary_text, updated_at}, or null.
CREATE OR REPLACE FUNCTION archivist_session_summary(p_sources jsonb, p_session_id text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_n      jsonb := archivist_source_names(p_sources);
    v_result jsonb;
BEGIN
    IF NOT v_n ? 'sums' THEN
        RETURN NULL;
    END IF;
    EXECUTE archivist_source_sql(
        'SELECT jsonb_build_object(''summary_text'', ss.{stext}::text, ''updated_at'', ss.{sts}) '
        'FROM {sums} ss WHERE ss.{ssid}::text = $1 AND ss.{stext} IS NOT NULL '
        'ORDER BY ss.{sts} DESC NULLS LAST LIMIT 1', v_n)
    INTO v_result USING p_session_id;
    RETURN v_result;
END;
$$;

-- The distinct user ids the session's messages carry (nulls aside), at most 3, in order: a JSON
-- array; empty when the user-id column is not set (ARCHIVIST_MESSAGE_USER_ID).
CREATE OR REPLACE FUNCTION archivist_session_users(p_sources jsonb, p_session_id text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_n      jsonb := archivist_source_names(p_sources);
    v_result jsonb;
BEGIN
    IF NOT v_n ? 'uid' THEN
        RETURN '[]'::jsonb;
    END IF;
    EXECUTE archivist_source_sql(
        'SELECT coalesce(jsonb_agg(u ORDER BY u), ''[]'') FROM (SELECT DISTINCT m.{uid}::text AS u '
        'FROM {msgs} m WHERE m.{sid}::text = $1 AND m.{uid} IS NOT NULL ORDER BY 1 LIMIT 3) x',
        v_n)
    INTO v_result USING p_session_id;
    RETURN v_result;
END;
$$;
