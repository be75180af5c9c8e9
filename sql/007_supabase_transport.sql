-- archivist 007: every read and write of a run, a status and a prune check as a SQL function,
-- so the direct Postgres path and the Supabase REST path (RPC only: PostgREST runs no ad-hoc
-- SQL) share one implementation. Together with 002 (commit) and 003/005 (search).
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
-- a stored watermark id is cast to), and sums, ssid, stext, sts when the summaries table exists.
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

-- The latest committed version of a session (null if never archived).
CREATE OR REPLACE FUNCTION archivist_session_state(p_session_id text) RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT jsonb_build_object('version', w.latest_version, 'watermark_at', w.watermark_at,
                              'watermark_id', w.watermark_id, 'message_count', w.message_count,
                              'summary_at', w.summary_at, 'extraction', a.extraction)
    FROM jarvis_archive_sessions w JOIN jarvis_archive a ON a.id = w.archive_id
    WHERE w.session_id = p_session_id
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

-- The session's last turn window: {"index": n, "message_ids": [...]}, or null.
CREATE OR REPLACE FUNCTION archivist_last_window(p_session_id text) RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    WITH last AS (
        SELECT c.slot, c.metadata -> 'message_ids' AS ids, c.metadata ->> 'first_at' AS first_at,
               c.id
        FROM jarvis_memory_chunks c
        WHERE c.session_id = p_session_id AND c.slot = (
            SELECT max(x.slot) FROM jarvis_memory_chunks x
            WHERE x.session_id = p_session_id AND x.slot LIKE 'turns:%')
    ), covered AS (
        SELECT i.value AS id,
               row_number() OVER (ORDER BY l.first_at, l.id, i.n) AS pos
        FROM last l CROSS JOIN LATERAL jsonb_array_elements_text(l.ids) WITH ORDINALITY i(value, n)
    )
    SELECT jsonb_build_object(
        'index', (SELECT split_part(min(slot), ':', 2)::integer FROM last),
        'message_ids', (SELECT coalesce(jsonb_agg(f.id ORDER BY f.pos), '[]')
                        FROM (SELECT id, min(pos) AS pos FROM covered GROUP BY id) f))
    WHERE EXISTS (SELECT 1 FROM last)
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

-- The committed watermark of each given session that has one: {session_id: {at, id}}.
CREATE OR REPLACE FUNCTION archivist_watermarks(p_session_ids text[]) RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(jsonb_object_agg(w.session_id, jsonb_build_object(
               'created_at', w.watermark_at, 'message_id', w.watermark_id)), '{}')
    FROM jarvis_archive_sessions w
    WHERE w.session_id = ANY (p_session_ids) AND w.watermark_at IS NOT NULL
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

-- Ids of a session's chunks in the given slots (every slot if null): {id: slot}.
CREATE OR REPLACE FUNCTION archivist_chunk_ids(p_session_id text, p_slots text[]) RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(jsonb_object_agg(c.id::text, c.slot), '{}')
    FROM jarvis_memory_chunks c
    WHERE c.session_id = p_session_id AND (p_slots IS NULL OR c.slot = ANY (p_slots))
$$;

-- The run log (sql/004).
CREATE OR REPLACE FUNCTION archivist_start_run(p_arguments jsonb) RETURNS bigint
LANGUAGE sql
AS $$
    INSERT INTO archivist_runs (arguments) VALUES (coalesce(p_arguments, '{}')) RETURNING id
$$;

CREATE OR REPLACE FUNCTION archivist_finish_run(p_run_id bigint, p_counts jsonb, p_failures jsonb)
RETURNS void
LANGUAGE sql
AS $$
    UPDATE archivist_runs SET finished_at = now(), counts = p_counts, failures = p_failures
    WHERE id = p_run_id
$$;

CREATE OR REPLACE FUNCTION archivist_recent_runs(p_limit integer) RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(jsonb_agg(to_jsonb(r) ORDER BY r.started_at DESC, r.id DESC), '[]')
    FROM (SELECT id, started_at, finished_at, arguments, counts, failures FROM archivist_runs
          ORDER BY started_at DESC, id DESC
          LIMIT least(greatest(coalesce(p_limit, 5), 1), 1000)) r
$$;

CREATE OR REPLACE FUNCTION archivist_archived_session_count() RETURNS bigint
LANGUAGE sql STABLE
AS $$
    SELECT count(*) FROM jarvis_archive_sessions WHERE latest_version > 0
$$;

-- Schema facts for `doctor` and the readiness check: pgvector, indexes, the recorded model.
CREATE OR REPLACE FUNCTION archivist_schema_info() RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT jsonb_build_object(
        'vector_installed', (SELECT extversion FROM pg_extension WHERE extname = 'vector'),
        'vector_available', (SELECT default_version FROM pg_available_extensions
                             WHERE name = 'vector'),
        'indexes', (SELECT coalesce(jsonb_agg(indexname ORDER BY indexname), '[]')
                    FROM pg_indexes WHERE tablename IN
                    ('jarvis_memory_chunks', 'jarvis_archive', 'jarvis_archive_sessions')),
        'embedding_model', (SELECT value FROM archivist_meta WHERE key = 'embedding_model'),
        'embedding_dim', (SELECT value::integer FROM archivist_meta WHERE key = 'embedding_dim'))
$$;

-- Records the embedding model and dimension (init), resizing the vector column while no chunk
-- exists. Refuses to switch while chunks of the recorded model exist (that is `reembed`).
CREATE OR REPLACE FUNCTION archivist_record_embedding(p_model text, p_dim integer)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_model text := (SELECT value FROM archivist_meta WHERE key = 'embedding_model');
    v_dim   integer := (SELECT value::integer FROM archivist_meta WHERE key = 'embedding_dim');
BEGIN
    IF v_model = p_model AND v_dim = p_dim THEN
        RETURN jsonb_build_object('model', v_model, 'dim', v_dim);
    END IF;
    IF v_model IS NOT NULL AND v_dim IS NOT NULL
       AND EXISTS (SELECT 1 FROM jarvis_memory_chunks) THEN
        RAISE EXCEPTION 'archivist: this database holds embeddings of % (%-d); it cannot switch '
            'to % (%-d) while chunks exist', v_model, v_dim, p_model, p_dim
            USING ERRCODE = '22023';
    END IF;
    IF (SELECT format_type(atttypid, atttypmod) FROM pg_attribute
        WHERE attrelid = 'jarvis_memory_chunks'::regclass AND attname = 'embedding')
       IS DISTINCT FROM format('vector(%s)', p_dim) THEN
        -- Changing the type resets the column's storage to the type's default.
        EXECUTE format('ALTER TABLE jarvis_memory_chunks ALTER COLUMN embedding TYPE vector(%s), '
                       'ALTER COLUMN embedding SET STORAGE PLAIN', p_dim);
    END IF;
    INSERT INTO archivist_meta (key, value) VALUES ('embedding_model', p_model),
                                                   ('embedding_dim', p_dim::text)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now();
    RETURN jsonb_build_object('model', p_model, 'dim', p_dim);
END;
$$;

-- Session claims: the REST transport's stand-in for the advisory lock (a session lock does not
-- outlive one HTTP request). A claim is held until released or until it expires, so a worker
-- that died frees its sessions after the TTL. The commit still checks the expected version.
CREATE TABLE IF NOT EXISTS archivist_session_claims (
    session_id text PRIMARY KEY,
    owner      text NOT NULL,
    expires_at timestamptz NOT NULL
);

CREATE OR REPLACE FUNCTION archivist_claim_session(
    p_session_id text, p_owner text, p_ttl_s integer
) RETURNS boolean
LANGUAGE sql
AS $$
    INSERT INTO archivist_session_claims AS c (session_id, owner, expires_at)
    VALUES (p_session_id, p_owner, now() + make_interval(secs => greatest(p_ttl_s, 1)))
    ON CONFLICT (session_id) DO UPDATE
        SET owner = excluded.owner, expires_at = excluded.expires_at
        WHERE c.expires_at < now() OR c.owner = excluded.owner
    RETURNING true
$$;

CREATE OR REPLACE FUNCTION archivist_release_session(p_session_id text, p_owner text)
RETURNS void
LANGUAGE sql
AS $$
    DELETE FROM archivist_session_claims WHERE session_id = p_session_id AND owner = p_owner
$$;

-- Searches hold their limit over REST too: PostgREST applies a function's statement_timeout
-- to the transaction that calls it ("hoisted" settings, PostgREST 12.2+).
ALTER FUNCTION match_jarvis_memory_chunks(vector, integer, jsonb) SET statement_timeout = '15s';
ALTER FUNCTION hybrid_jarvis_memory_chunks(vector, text, integer, jsonb, double precision,
    double precision, double precision, double precision) SET statement_timeout = '15s';
ALTER FUNCTION search_jarvis_archive(text[], boolean, text, text, text, text[], timestamptz,
    timestamptz, boolean, integer) SET statement_timeout = '15s';

-- The archivist's own read and write functions reach any table by name: on Supabase only the
-- service role may call them (Supabase grants EXECUTE on new functions to anon and
-- authenticated by default). The search functions and their helpers stay callable by bots.
DO $$
DECLARE
    v_fn regprocedure;
BEGIN
    FOR v_fn IN SELECT p.oid::regprocedure FROM pg_proc p
                WHERE p.pronamespace = 'public'::regnamespace AND p.proname IN (
                    'archivist_commit_version', 'archivist_pending_sessions',
                    'archivist_session_state', 'archivist_read_messages',
                    'archivist_count_up_to', 'archivist_last_window',
                    'archivist_uncovered_before', 'archivist_messages_before',
                    'archivist_undated_uncovered',
                    'archivist_watermarks', 'archivist_session_summary', 'archivist_chunk_ids',
                    'archivist_start_run', 'archivist_finish_run', 'archivist_recent_runs',
                    'archivist_archived_session_count', 'archivist_schema_info',
                    'archivist_record_embedding', 'archivist_claim_session',
                    'archivist_release_session', 'archivist_source_names')
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
