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

-- A statement template with {name} placeholders filled from archivist_source_names, and these
-- about the messages table aliased m:
--   {dated}    its created_at can order it: not NULL, not +/-infinity, not before year 1
--              (clients cannot hold it) and not over a year ahead (a broken clock). Undated
--              messages are archived apart, in `undated:` slots, without moving the watermark.
--   {md5}      the md5 of its content as text (NULL content as the empty text), and
--   {chars}    its length: what archivist_message_hashes records of an archived message.
--   {covered}  a committed version archived it (some text of it: see {current}).
--   {current}  the archive holds its current text whole: archived, with the md5 it has now,
--              and not cut.
--   {hash}     a LEFT JOIN of its archivist_message_hashes row, aliased h.
--   {forgotten} `archivist forget` erased it, or its session (a tombstone in
--              archivist_forgotten, keyed as archivist_forget_key computes): runs leave it out.
--   {forgotten_message}
--              the same for the message alone; a read of one session, or a list grouped by
--              session, checks the session's tombstone once instead of a hash per row.
CREATE OR REPLACE FUNCTION archivist_source_sql(p_template text, p_names jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
    v_sql text := replace(replace(replace(replace(replace(replace(replace(replace(p_template,
        '{dated}', 'm.{ts} BETWEEN ''0001-01-02'' AND now() + interval ''1 year'''),
        '{covered}', 'EXISTS (SELECT 1 FROM archivist_message_hashes x '
            'WHERE x.session_id = m.{sid}::text AND x.message_id = m.{mid}::text)'),
        '{current}', 'EXISTS (SELECT 1 FROM archivist_message_hashes x '
            'WHERE x.session_id = m.{sid}::text AND x.message_id = m.{mid}::text '
            'AND x.content_md5 = {md5} AND x.archived_chars >= {chars})'),
        '{hash}', 'LEFT JOIN archivist_message_hashes h '
            'ON h.session_id = m.{sid}::text AND h.message_id = m.{mid}::text'),
        '{md5}', 'md5(coalesce(m.{content}::text, ''''))'),
        '{chars}', 'length(coalesce(m.{content}::text, ''''))'),
        -- Each costs nothing until something of its kind is forgotten: the first test runs once
        -- per statement; then a hash per row.
        '{forgotten}', '(((SELECT EXISTS (SELECT 1 FROM archivist_forgotten '
            'WHERE kind = ''session'')) AND EXISTS (SELECT 1 FROM archivist_forgotten f '
            'WHERE f.key = encode(sha256(convert_to(m.{sid}::text, ''UTF8'')), ''hex''))) '
            'OR {forgotten_message})'),
        '{forgotten_message}', '((SELECT EXISTS (SELECT 1 FROM archivist_forgotten '
            'WHERE kind = ''message'')) AND EXISTS (SELECT 1 FROM archivist_forgotten f '
            'WHERE f.key = encode(sha256(convert_to(m.{sid}::text || chr(31) || m.{mid}::text, '
            '''UTF8'')), ''hex'')))');
    v_key text;
BEGIN
    FOR v_key IN SELECT jsonb_object_keys(p_names) LOOP
        v_sql := replace(v_sql, '{' || v_key || '}', p_names ->> v_key);
    END LOOP;
    RETURN v_sql;
END;
$$;

-- Session ids the archive can hold: at most 1024 bytes (the keys of its indexes must stay
-- well under Postgres's 2704-byte btree limit). Longer ones are never archived, and shown
-- shortened (archivist_display_id): the first 24 and last 8 characters.
CREATE OR REPLACE FUNCTION archivist_session_id_fits(p_session_id text) RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
    SELECT coalesce(octet_length(p_session_id) <= 1024, false)  -- no id (NULL) fits nothing
$$;

CREATE OR REPLACE FUNCTION archivist_display_id(p_session_id text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
    SELECT CASE WHEN archivist_session_id_fits(p_session_id) THEN p_session_id
                ELSE left(p_session_id, 24) || '…' || right(p_session_id, 8) END
$$;

-- Sessions with work, oldest unarchived activity first, at most p_limit: messages past the
-- watermark; messages at or before it that no version archived (late arrivals); archived
-- messages whose text changed since (edited, or deleted and inserted again with the same id),
-- or that were cut and would now be archived whole (p_max_chars, max_message_chars, grew);
-- undated messages not archived yet; or a bot summary newer than the one archived. Left out:
-- sessions backing off or quarantined after failures (archivist_session_failures), and
-- sessions whose id is too long to archive, which are counted and shown shortened instead,
-- and messages without a session id (NULL), counted the same way.
-- {"sessions": [id, ...], "unarchivable": [{session_id, bytes}] (at most 5),
--  "unarchivable_count": n}
CREATE OR REPLACE FUNCTION archivist_pending_sessions(
    p_sources jsonb, p_active_days integer, p_limit integer, p_max_chars integer DEFAULT NULL
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
        'WHERE {dated} AND NOT {forgotten_message} AND (w.watermark_at IS NULL '
        '  OR (m.{ts}, m.{mid}) > (w.watermark_at, w.watermark_id::{cast})) ' || v_activity ||
        ' GROUP BY 1 '
        'UNION ALL SELECT m.{sid}::text, min(m.{ts}) FROM {msgs} m '
        'JOIN jarvis_archive_sessions w ON w.session_id = m.{sid}::text '
        'WHERE w.watermark_at IS NOT NULL AND {dated} '
        '  AND (m.{ts}, m.{mid}) <= (w.watermark_at, w.watermark_id::{cast}) '
        '  AND NOT {covered} AND NOT {forgotten_message} ' || v_activity || ' GROUP BY 1 '
        'UNION ALL SELECT m.{sid}::text, min(m.{ts}) FROM {msgs} m '
        'JOIN archivist_message_hashes h '
        '  ON h.session_id = m.{sid}::text AND h.message_id = m.{mid}::text '
        'WHERE (h.content_md5 <> {md5} OR h.archived_chars < least({chars}, coalesce($3, 0))) '
        '  AND NOT {forgotten_message} '
        || v_activity || ' GROUP BY 1 '
        'UNION ALL SELECT m.{sid}::text, NULL::timestamptz FROM {msgs} m '
        'WHERE NOT coalesce({dated}, false) AND NOT {covered} AND NOT {forgotten_message} '
        || v_activity
        || ' GROUP BY 1';
    IF v_n ? 'sums' THEN
        v_sql := v_sql || ' UNION ALL SELECT ss.{ssid}::text, ss.{sts} FROM {sums} ss '
            'LEFT JOIN jarvis_archive_sessions w ON w.session_id = ss.{ssid}::text '
            'WHERE ss.{sts} IS NOT NULL AND ss.{stext} IS NOT NULL '
            '  AND (w.session_id IS NULL OR w.summary_at IS NULL '
            '  OR ss.{sts} > w.summary_at) '
            || CASE WHEN p_active_days IS NULL THEN ''
                    ELSE 'AND ss.{sts} >= now() - make_interval(days => $1)' END;
    END IF;
    v_sql := 'WITH pending AS MATERIALIZED (SELECT session_id, min(oldest) AS oldest '
        '    FROM (' || v_sql || ') p GROUP BY session_id '
        '    HAVING NOT EXISTS (SELECT 1 FROM archivist_forgotten f '
        '      WHERE f.key = encode(sha256(convert_to(session_id, ''UTF8'')), ''hex''))) '
        'SELECT jsonb_build_object(''sessions'', (SELECT coalesce(jsonb_agg(q.session_id '
        '    ORDER BY q.oldest, q.session_id), ''[]'') FROM ('
        '    SELECT p.session_id, p.oldest FROM pending p '
        '    WHERE archivist_session_id_fits(p.session_id) AND NOT EXISTS ('
        '      SELECT 1 FROM archivist_session_failures f WHERE f.session_id = p.session_id '
        '      AND (f.quarantined OR f.retry_after > now())) '
        '    ORDER BY 2, 1 LIMIT $2) q), '
        '''unarchivable'', (SELECT coalesce(jsonb_agg(jsonb_build_object('
        '    ''session_id'', archivist_display_id(u.session_id), '
        '    ''bytes'', octet_length(u.session_id)) ORDER BY u.oldest, u.session_id), ''[]'') '
        '    FROM (SELECT * FROM pending p WHERE NOT archivist_session_id_fits(p.session_id) '
        '          ORDER BY p.oldest, p.session_id LIMIT 5) u), '
        '''unarchivable_count'', (SELECT count(*) FROM pending p '
        '    WHERE NOT archivist_session_id_fits(p.session_id)))';
    EXECUTE archivist_source_sql(v_sql, v_n) INTO v_result
        USING p_active_days, least(greatest(coalesce(p_limit, 50), 1), 100000), p_max_chars;
    RETURN v_result;
END;
$$;

-- One bounded page of a session's messages in (created_at, id) order, as a JSON array of
-- {id, role, content, created_at, md5, chars, archived_md5, archived_chars}; content cut to
-- p_max_chars + 1 characters (so a huge message never leaves the database whole, and the caller
-- still sees that it was cut), md5 and chars those of the whole content ({md5}, {chars}), and
-- archived_md5 / archived_chars what the archive recorded of the message (null if nothing).
-- p_mode:
--   'after'     dated messages after the watermark (p_at, p_id), or all when p_at is null;
--   'uncovered' dated messages at or before the watermark that no version archived (late
--               arrivals);
--   'changed'   archived messages whose text changed since, or that were cut and would now be
--               archived whole (p_max_chars grew); not those after the watermark (they are
--               new again);
--   'ids'       the dated messages with these ids;
--   'undated', 'undated_uncovered'
--               the undated messages (all of them, or those no version archived), stamped with
--               the time of reading.
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
            'AND {dated} AND (m.{ts}, m.{mid}) <= ($2, $3::{cast}) AND h.message_id IS NULL'
        WHEN 'changed' THEN
            'AND h.message_id IS NOT NULL '
            'AND (h.content_md5 <> {md5} OR h.archived_chars < least({chars}, $6 - 1)) '
            'AND NOT coalesce({dated} AND ($2 IS NULL OR (m.{ts}, m.{mid}) > ($2, $3::{cast})), '
            '                 false)'
        WHEN 'ids' THEN 'AND {dated} AND m.{mid}::text = ANY ($4)'
        WHEN 'undated' THEN 'AND NOT coalesce({dated}, false)'
        WHEN 'undated_uncovered' THEN 'AND NOT coalesce({dated}, false) AND h.message_id IS NULL'
    END;
    v_time text := CASE WHEN p_mode LIKE 'undated%' OR p_mode = 'changed'
                        THEN 'CASE WHEN {dated} THEN m.{ts} ELSE now() END' ELSE 'm.{ts}' END;
    v_result jsonb;
BEGIN
    IF v_where IS NULL THEN
        RAISE EXCEPTION 'archivist: unknown message read mode %', p_mode USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT 1 FROM archivist_forgotten f
               WHERE f.key = archivist_forget_key(p_session_id)) THEN
        RETURN '[]'::jsonb;  -- a forgotten session: nothing of it is read again
    END IF;
    EXECUTE archivist_source_sql(
        'SELECT coalesce(jsonb_agg(jsonb_build_object(''id'', p.id, ''role'', p.role, '
        '''content'', p.content, ''created_at'', p.created_at, ''md5'', p.md5, '
        '''chars'', p.chars, ''archived_md5'', p.archived_md5, '
        '''archived_chars'', p.archived_chars) ORDER BY p.n), ''[]'') FROM ('
        'SELECT m.{mid}::text AS id, m.{role}::text AS role, '
        'left(m.{content}::text, $6) AS content, ' || v_time || ' AS created_at, '
        '{md5} AS md5, {chars} AS chars, h.content_md5 AS archived_md5, '
        'h.archived_chars AS archived_chars, '
        'row_number() OVER (ORDER BY m.{ts}, m.{mid}) AS n '
        'FROM {msgs} m {hash} WHERE m.{sid}::text = $1 AND NOT {forgotten_message} ' || v_where ||
        ' ORDER BY m.{ts}, m.{mid} LIMIT $5) p', v_n)
    INTO v_result
    USING p_session_id, p_at, p_id, p_ids, least(greatest(coalesce(p_limit, 500), 1), 10000),
          coalesce(p_max_chars + 1, 2147483647);
    RETURN v_result;
END;
$$;

-- Whether the prune job may delete a message: the archive holds its current text whole (as
-- {current} says), or `archivist forget` erased it or its session. The prune job's DELETE asks
-- it of every row it deletes (docs/operations.md), so a message edited, or inserted with an old
-- date, after prune-check found the cutoff safe is kept: nothing can slip in between the check
-- and the delete. The arguments are the row's session id, id and content, as text.
CREATE OR REPLACE FUNCTION archivist_prunable(
    p_session_id text, p_message_id text, p_content text
) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT EXISTS (SELECT 1 FROM archivist_message_hashes x
                   WHERE x.session_id = p_session_id AND x.message_id = p_message_id
                     AND x.content_md5 = md5(coalesce(p_content, ''))
                     AND x.archived_chars >= length(coalesce(p_content, '')))
        OR EXISTS (SELECT 1 FROM archivist_forgotten f
                   WHERE (f.kind = 'session'
                          AND f.key = encode(sha256(convert_to(p_session_id, 'UTF8')), 'hex'))
                      OR (f.kind = 'message'
                          AND f.key = encode(sha256(convert_to(
                                  p_session_id || chr(31) || p_message_id, 'UTF8')), 'hex')))
$$;

-- Per session, the dated messages older than the cutoff whose current text the archive does not
-- hold whole, and why: `unarchived` (no version archived it), `edited` (archived, but its text
-- changed since: edited, or deleted and inserted again with the same id) or `truncated`
-- (archived cut at max_message_chars). A JSON array, oldest first, of
-- {session_id, id_too_long, id_missing, count, oldest, unarchived, edited, truncated,
--  ids: {reason: [id, ...]}} with at most p_max_ids ids per reason (oldest first), an id too
-- long to archive shortened (archivist_display_id) and flagged, messages without a session id
-- (NULL, never archived) flagged. prune-check reports it; status counts it.
CREATE OR REPLACE FUNCTION archivist_messages_at_risk(
    p_sources jsonb, p_cutoff timestamptz, p_max_ids integer
) RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_result jsonb;
BEGIN
    EXECUTE archivist_source_sql(
        'WITH risk AS (SELECT m.{sid}::text AS s, m.{mid}::text AS id, m.{ts} AS t, '
        '    CASE WHEN h.message_id IS NULL THEN ''unarchived'' '
        '         WHEN h.content_md5 <> {md5} THEN ''edited'' '
        '         WHEN h.archived_chars < {chars} THEN ''truncated'' END AS reason '
        '  FROM {msgs} m {hash} WHERE m.{ts} < $1 AND {dated} AND NOT {forgotten}), '
        'ranked AS (SELECT r.*, row_number() OVER (PARTITION BY r.s, r.reason '
        '    ORDER BY r.t, r.id) AS k FROM risk r WHERE r.reason IS NOT NULL) '
        'SELECT coalesce(jsonb_agg(x.o ORDER BY x.oldest, x.s), ''[]'') FROM ('
        '  SELECT g.s, min(g.t) AS oldest, jsonb_build_object('
        '    ''session_id'', archivist_display_id(g.s), '
        '    ''id_too_long'', g.s IS NOT NULL AND NOT archivist_session_id_fits(g.s), '
        '    ''id_missing'', g.s IS NULL, '
        '    ''count'', count(*), ''oldest'', min(g.t), '
        '    ''unarchived'', count(*) FILTER (WHERE g.reason = ''unarchived''), '
        '    ''edited'', count(*) FILTER (WHERE g.reason = ''edited''), '
        '    ''truncated'', count(*) FILTER (WHERE g.reason = ''truncated''), '
        '    ''ids'', (SELECT jsonb_object_agg(i.reason, i.ids) FROM ('
        '        SELECT q.reason, jsonb_agg(q.id ORDER BY q.t, q.id) AS ids FROM ranked q '
        '        WHERE q.s IS NOT DISTINCT FROM g.s AND q.k <= $2 GROUP BY q.reason) i)) AS o '
        '  FROM ranked g GROUP BY g.s) x',
        archivist_source_names(p_sources))
    INTO v_result USING p_cutoff, least(greatest(coalesce(p_max_ids, 20), 0), 1000);
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

-- Per session, the undated messages whose current text the archive does not hold whole
-- (prune-check counts them at risk, whatever the cutoff): a JSON array of {session_id, count}.
CREATE OR REPLACE FUNCTION archivist_undated_uncovered(p_sources jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_result jsonb;
BEGIN
    EXECUTE archivist_source_sql(
        'SELECT coalesce(jsonb_agg(jsonb_build_object(''session_id'', s, ''count'', n) '
        'ORDER BY s), ''[]'') FROM (SELECT m.{sid}::text AS s, count(*) AS n FROM {msgs} m '
        'WHERE NOT coalesce({dated}, false) AND NOT {current} AND NOT {forgotten} '
        'GROUP BY 1) u',
        archivist_source_names(p_sources))
    INTO v_result;
    RETURN v_result;
END;
$$;

-- The bot's latest summary of a session: {summary_text, updated_at}, or null (also for a
-- forgotten session).
CREATE OR REPLACE FUNCTION archivist_session_summary(p_sources jsonb, p_session_id text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_n      jsonb := archivist_source_names(p_sources);
    v_result jsonb;
BEGIN
    IF NOT v_n ? 'sums' OR EXISTS (SELECT 1 FROM archivist_forgotten f
                                   WHERE f.key = archivist_forget_key(p_session_id)) THEN
        RETURN NULL;  -- a forgotten session's summary is never archived again
    END IF;
    EXECUTE archivist_source_sql(
        'SELECT jsonb_build_object(''summary_text'', ss.{stext}::text, ''updated_at'', ss.{sts}) '
        'FROM {sums} ss WHERE ss.{ssid}::text = $1 AND ss.{stext} IS NOT NULL '
        'ORDER BY ss.{sts} DESC NULLS LAST LIMIT 1', v_n)
    INTO v_result USING p_session_id;
    RETURN v_result;
END;
$$;

-- How many messages the archive holds of a session that its source table no longer has (the
-- prune job deleted them): those archivist_message_hashes records and those its turn chunks
-- cover (which also counts messages archived before the hashes were recorded). A rebuild reads
-- only the source table, so it refuses a session where this is not 0.
CREATE OR REPLACE FUNCTION archivist_pruned_count(p_sources jsonb, p_session_id text)
RETURNS bigint
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_count bigint;
BEGIN
    EXECUTE archivist_source_sql(
        'SELECT count(*) FROM ('
        '  SELECT h.message_id AS id FROM archivist_message_hashes h WHERE h.session_id = $1 '
        '  UNION SELECT i.id FROM jarvis_memory_chunks c, '
        '    jsonb_array_elements_text(c.metadata -> ''message_ids'') AS i(id) '
        '  WHERE c.session_id = $1 AND c.source = ''session_turn'') a '
        'WHERE NOT EXISTS (SELECT 1 FROM {msgs} m WHERE m.{sid}::text = $1 '
        '                  AND m.{mid}::text = a.id)', archivist_source_names(p_sources))
    INTO v_count USING p_session_id;
    RETURN v_count;
END;
$$;

-- Records what the archive holds of messages archived before archivist_message_hashes existed
-- (sessions with turn chunks and no hash row): their current md5 and length, as the best
-- knowledge of what was archived, and p_max_chars (max_message_chars) as the cut they went
-- through. Done once per database (archivist_meta `message_hashes_adopted`), by `init` and by
-- the first run; a database whose source table cannot be read yet is left for later. Returns
-- how many messages it recorded.
CREATE OR REPLACE FUNCTION archivist_adopt_archived_messages(p_sources jsonb, p_max_chars integer)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
    v_count bigint;
BEGIN
    IF EXISTS (SELECT 1 FROM archivist_meta WHERE key = 'message_hashes_adopted') THEN
        RETURN 0;
    END IF;
    EXECUTE archivist_source_sql(
        'INSERT INTO archivist_message_hashes (session_id, message_id, content_md5, '
        '    content_chars, archived_chars, archive_version) '
        'SELECT m.{sid}::text, m.{mid}::text, {md5}, {chars}, least({chars}, $1), a.version '
        'FROM (SELECT c.session_id, i.id, max(c.archive_version) AS version '
        '      FROM jarvis_memory_chunks c, '
        '        jsonb_array_elements_text(c.metadata -> ''message_ids'') AS i(id) '
        '      WHERE c.source = ''session_turn'' AND NOT EXISTS ('
        '        SELECT 1 FROM archivist_message_hashes x WHERE x.session_id = c.session_id) '
        '      GROUP BY 1, 2) a '
        'JOIN {msgs} m ON m.{sid}::text = a.session_id AND m.{mid}::text = a.id '
        'ON CONFLICT (session_id, message_id) DO NOTHING', archivist_source_names(p_sources))
    USING coalesce(p_max_chars, 2147483647);
    GET DIAGNOSTICS v_count = ROW_COUNT;
    INSERT INTO archivist_meta (key, value) VALUES ('message_hashes_adopted', v_count::text)
        ON CONFLICT (key) DO NOTHING;
    RETURN v_count;
EXCEPTION WHEN undefined_table OR undefined_column OR datatype_mismatch THEN
    RETURN 0;
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
