-- Forgetting on request (`archivist forget`, `Archivist.forget`, or this function over REST as
-- the service role): every trace of a session, a user or a message leaves every archivist
-- table in one transaction, and a tombstone (hashed ids, sql/001_schema.sql) keeps later
-- runs from archiving the same source rows again. The bot's own tables are never touched.

-- The tombstone key of a session (p_message_id null) or of one message of it: a sha256, hex.
-- The source reads (archivist_source_sql's {forgotten}) compute the same expression inline.
CREATE OR REPLACE FUNCTION archivist_forget_key(p_session_id text, p_message_id text DEFAULT NULL)
RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
    SELECT encode(sha256(convert_to(p_session_id || coalesce(chr(31) || p_message_id, ''),
                                    'UTF8')), 'hex')
$$;

-- Whether `archivist forget` erased a session (its tombstone): no run archives it again, so a
-- command that names it says so rather than that it has no messages or no version.
CREATE OR REPLACE FUNCTION archivist_session_forgotten(p_session_id text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT EXISTS (SELECT 1 FROM archivist_forgotten
                   WHERE kind = 'session' AND key = archivist_forget_key(p_session_id))
$$;

-- Whether a JSON value names one of p_ids: is one of them (a string), or an object with one
-- of them as a direct value (a session's entry in a run's failures, say).
CREATE OR REPLACE FUNCTION archivist_forget_names(p_value jsonb, p_ids text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
    SELECT CASE jsonb_typeof(p_value)
        WHEN 'string' THEN p_value #>> '{}' = ANY (p_ids)
        WHEN 'object' THEN EXISTS (SELECT 1 FROM jsonb_each(p_value) e
                                   WHERE jsonb_typeof(e.value) = 'string'
                                     AND e.value #>> '{}' = ANY (p_ids))
        ELSE false END
$$;

-- A JSON document without p_ids: keys that are one of them, and values (array elements,
-- object members) that name one (archivist_forget_names), are left out, at every depth.
CREATE OR REPLACE FUNCTION archivist_forget_scrub(p_value jsonb, p_ids text[]) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
    IF jsonb_typeof(p_value) = 'object' THEN
        RETURN (SELECT coalesce(jsonb_object_agg(e.key, archivist_forget_scrub(e.value, p_ids)),
                                '{}'::jsonb)
                FROM jsonb_each(p_value) e
                WHERE e.key <> ALL (p_ids) AND NOT (jsonb_typeof(e.value) = 'string'
                                                    AND archivist_forget_names(e.value, p_ids)));
    ELSIF jsonb_typeof(p_value) = 'array' THEN
        RETURN (SELECT coalesce(jsonb_agg(archivist_forget_scrub(e.value, p_ids) ORDER BY e.n),
                                '[]'::jsonb)
                FROM jsonb_array_elements(p_value) WITH ORDINALITY e(value, n)
                WHERE NOT archivist_forget_names(e.value, p_ids));
    END IF;
    RETURN p_value;
END;
$$;

-- Forget sessions (p_session_ids), everything of a user (p_user_id), and single messages
-- (p_message_ids), in one transaction; with p_dry_run, count what would go and change nothing.
--
-- A user's sessions are those the archive holds under the user id, and, when the user-id column
-- is set (ARCHIVIST_MESSAGE_USER_ID), the source sessions with the user's messages: a session
-- where no other user speaks (replies carry no user id) is forgotten whole; a session shared
-- with other users loses the user's own messages.
-- A forgotten message's session loses its whole archive, and the caller archives it again from
-- the source without that message (a new version 1: `rebuild` lists those sessions). That needs
-- every other message it archived still in the source table: where the bot pruned some, it is
-- refused (forget the whole session instead), since those messages would be lost.
--
-- Removed, for each session: its versions (jarvis_archive: extractions and state items), its
-- chunks (and vectors staged for them by reembed), its watermark row, message hashes, failure
-- and claim records; the session's and messages' ids are cut out of the run log
-- (archivist_runs: arguments, counts, failures), and the forgotten messages' ids out of what
-- other sessions cite (a "never" cites the earlier session's turn that affirms it): their state
-- items' refs, their versions' items and their chunks' message ids (`citations` counts the
-- items). Tombstones: each forgotten session, and each forgotten message of a session kept.
-- Returns {dry_run, sessions, messages: [{session_id, message_id}], rebuild, tables: {name: rows},
-- tombstones}.
CREATE OR REPLACE FUNCTION archivist_forget(
    p_sources     jsonb,
    p_session_ids text[] DEFAULT NULL,
    p_user_id     text DEFAULT NULL,
    p_message_ids text[] DEFAULT NULL,
    p_dry_run     boolean DEFAULT true
) RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_n        jsonb;
    v_sessions text[] := ARRAY(SELECT DISTINCT s FROM unnest(p_session_ids) s
                               WHERE s IS NOT NULL ORDER BY 1);
    v_named    integer;           -- the sessions named, before a user's are added
    v_messages jsonb := '[]';     -- [{session_id, message_id}] forgotten one by one
    v_more     jsonb;
    v_found    text[];
    v_rebuild  text[];
    v_all      text[];
    v_ids      text[];
    v_gone     text[];    -- the ids of the messages forgotten, whole sessions' included
    v_session  text;
    v_pruned   bigint;
    v_tables   jsonb;
    v_runs     bigint;
    v_tombs    integer;
    v_items    jarvis_state_items[];
BEGIN
    BEGIN
        v_n := archivist_source_names(p_sources);
    EXCEPTION WHEN undefined_table OR undefined_column OR datatype_mismatch THEN
        v_n := NULL;  -- the bot's tables are gone: forget what the archive holds
    END;

    -- A session named that neither the archive nor the bot's tables hold is a mistake (a
    -- typo): its tombstone would keep a later session of that id from ever being archived.
    v_found := ARRAY(SELECT s FROM unnest(v_sessions) s
                     WHERE NOT EXISTS (SELECT 1 FROM jarvis_archive_sessions w WHERE w.session_id = s)
                       AND NOT EXISTS (SELECT 1 FROM jarvis_archive a WHERE a.session_id = s)
                       AND NOT EXISTS (SELECT 1 FROM jarvis_memory_chunks c WHERE c.session_id = s));
    IF cardinality(v_found) > 0 AND v_n IS NOT NULL THEN
        EXECUTE archivist_source_sql(
            'SELECT ARRAY(SELECT s FROM unnest($1) s WHERE NOT EXISTS ('
            '  SELECT 1 FROM {msgs} m WHERE m.{sid}::text = s))', v_n)
        INTO v_found USING v_found;
    END IF;
    IF cardinality(v_found) > 0 THEN
        RAISE EXCEPTION 'archivist: nothing to forget: no session % in the archive or the source '
            'table', array_to_string(v_found, ', ')
            USING ERRCODE = '22023';
    END IF;

    IF p_user_id IS NOT NULL THEN
        v_named := cardinality(v_sessions);
        v_sessions := ARRAY(
            SELECT unnest(v_sessions)
            UNION SELECT s.session_id FROM jarvis_archive_sessions s WHERE s.user_id = p_user_id
            UNION SELECT a.session_id FROM jarvis_archive a WHERE a.user_id = p_user_id
            UNION SELECT c.session_id FROM jarvis_memory_chunks c WHERE c.user_id = p_user_id);
        IF v_n ? 'uid' THEN
            -- Sessions with only this user's messages go whole; shared ones lose theirs.
            EXECUTE archivist_source_sql(
                'SELECT coalesce(jsonb_agg(jsonb_build_object(''session_id'', x.s, '
                '  ''message_id'', x.id)), ''[]'') FROM ('
                '  SELECT m.{sid}::text AS s, m.{mid}::text AS id FROM {msgs} m '
                '  WHERE m.{uid}::text = $1 AND EXISTS (SELECT 1 FROM {msgs} o '
                '    WHERE o.{sid} = m.{sid} AND o.{uid}::text <> $1)) x', v_n)
            INTO v_messages USING p_user_id;
            EXECUTE archivist_source_sql(
                'SELECT ARRAY(SELECT m.{sid}::text FROM {msgs} m GROUP BY 1 '
                '  HAVING bool_or(m.{uid}::text = $1) '
                '     AND bool_and(m.{uid} IS NULL OR m.{uid}::text = $1))', v_n)
            INTO v_found USING p_user_id;
            v_sessions := ARRAY(SELECT unnest(v_sessions) UNION SELECT unnest(v_found));
        END IF;
        IF cardinality(v_sessions) = v_named AND jsonb_array_length(v_messages) = 0 THEN
            RAISE EXCEPTION 'archivist: nothing to forget: no session or message of user % in '
                'the archive or the source table', p_user_id
                USING ERRCODE = '22023';
        END IF;
    END IF;

    IF p_message_ids IS NOT NULL AND cardinality(p_message_ids) > 0 THEN
        IF v_n IS NOT NULL THEN
            EXECUTE archivist_source_sql(
                'SELECT coalesce(jsonb_agg(jsonb_build_object(''session_id'', m.{sid}::text, '
                '  ''message_id'', m.{mid}::text)), ''[]'') FROM {msgs} m '
                'WHERE m.{mid}::text = ANY ($1)', v_n)
            INTO v_more USING p_message_ids;
            v_messages := v_messages || v_more;
        END IF;
        v_messages := v_messages || (
            SELECT coalesce(jsonb_agg(jsonb_build_object('session_id', h.session_id,
                                                         'message_id', h.message_id)), '[]')
            FROM archivist_message_hashes h WHERE h.message_id = ANY (p_message_ids));
        v_found := ARRAY(SELECT id FROM unnest(p_message_ids) id
                         WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(v_messages) e
                                           WHERE e ->> 'message_id' = id));
        IF cardinality(v_found) > 0 THEN
            RAISE EXCEPTION 'archivist: no message % in the archive or the source table',
                array_to_string(v_found, ', ')
                USING ERRCODE = '22023';
        END IF;
    END IF;

    -- One entry per message; messages of sessions forgotten whole need no tombstone of their own.
    v_messages := (SELECT coalesce(jsonb_agg(jsonb_build_object('session_id', x.s,
                                                                'message_id', x.id)
                                             ORDER BY x.s, x.id), '[]')
                   FROM (SELECT DISTINCT e ->> 'session_id' AS s, e ->> 'message_id' AS id
                         FROM jsonb_array_elements(v_messages) e) x
                   WHERE x.s <> ALL (v_sessions));
    v_rebuild := ARRAY(SELECT DISTINCT e ->> 'session_id' FROM jsonb_array_elements(v_messages) e
                       ORDER BY 1);
    v_all := v_sessions || v_rebuild;
    v_ids := v_all || ARRAY(SELECT e ->> 'message_id' FROM jsonb_array_elements(v_messages) e);
    v_gone := ARRAY(
        SELECT h.message_id FROM archivist_message_hashes h WHERE h.session_id = ANY (v_sessions)
        UNION SELECT i.id FROM jarvis_memory_chunks c,
                  jsonb_array_elements_text(c.metadata -> 'message_ids') AS i(id)
              WHERE c.session_id = ANY (v_sessions) AND c.source = 'session_turn'
        UNION SELECT e ->> 'message_id' FROM jsonb_array_elements(v_messages) e);

    -- Hold each session as a run does (sql/functions/session.sql), so that no run commits one
    -- it read before this; a claim over REST that has not expired means a run has it now.
    FOR v_session IN SELECT unnest(v_all) ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(hashtextextended('archivist:session:' || v_session, 0));
        IF EXISTS (SELECT 1 FROM archivist_session_claims c
                   WHERE c.session_id = v_session AND c.expires_at > now()) THEN
            RAISE EXCEPTION 'archivist: session % is being archived right now (claimed); run '
                'forget again when that run has finished', archivist_display_id(v_session)
                USING ERRCODE = '55006';  -- object in use (55P03 would read as a lock timeout)
        END IF;
    END LOOP;

    -- A message-level forget archives its session again from the source: refused where the
    -- source lacks other messages the archive holds.
    FOREACH v_session IN ARRAY v_rebuild LOOP
        IF v_n IS NULL THEN
            v_pruned := 1;
        ELSE
            EXECUTE archivist_source_sql(
                'SELECT count(*) FROM ('
                '  SELECT h.message_id AS id FROM archivist_message_hashes h '
                '  WHERE h.session_id = $1 '
                '  UNION SELECT i.id FROM jarvis_memory_chunks c, '
                '    jsonb_array_elements_text(c.metadata -> ''message_ids'') AS i(id) '
                '  WHERE c.session_id = $1 AND c.source = ''session_turn'') a '
                'WHERE a.id <> ALL ($2) AND NOT EXISTS (SELECT 1 FROM {msgs} m '
                '  WHERE m.{sid}::text = $1 AND m.{mid}::text = a.id)', v_n)
            INTO v_pruned
            USING v_session, ARRAY(SELECT e ->> 'message_id' FROM jsonb_array_elements(v_messages) e
                                   WHERE e ->> 'session_id' = v_session);
        END IF;
        IF v_pruned > 0 THEN
            RAISE EXCEPTION 'archivist: session % holds archived messages its source table no '
                'longer has, which archiving it again without the message would lose; forget '
                'the whole session instead (--session-id)', archivist_display_id(v_session)
                USING ERRCODE = '22023';
        END IF;
    END LOOP;

    v_tables := jsonb_build_object(
        'jarvis_archive',
            (SELECT count(*) FROM jarvis_archive a WHERE a.session_id = ANY (v_all)),
        'jarvis_archive_sessions',
            (SELECT count(*) FROM jarvis_archive_sessions s WHERE s.session_id = ANY (v_all)),
        'jarvis_memory_chunks',
            (SELECT count(*) FROM jarvis_memory_chunks c WHERE c.session_id = ANY (v_all)),
        'archivist_message_hashes',
            (SELECT count(*) FROM archivist_message_hashes h WHERE h.session_id = ANY (v_all)),
        'archivist_session_failures',
            (SELECT count(*) FROM archivist_session_failures f WHERE f.session_id = ANY (v_all)),
        'archivist_session_claims',
            (SELECT count(*) FROM archivist_session_claims c WHERE c.session_id = ANY (v_all)),
        'archivist_reembed_staging',
            (SELECT count(*) FROM archivist_reembed_staging r
             WHERE r.chunk_id IN (SELECT c.id FROM jarvis_memory_chunks c
                                  WHERE c.session_id = ANY (v_all))),
        'jarvis_state_items',
            (SELECT count(*) FROM jarvis_state_items i WHERE i.session_id = ANY (v_all)),
        'jarvis_state_resolutions',
            (SELECT count(*) FROM jarvis_state_resolutions r
             WHERE r.uid IN (SELECT i.uid FROM jarvis_state_items i
                             WHERE i.session_id = ANY (v_all))
               AND r.uid NOT IN (SELECT i.uid FROM jarvis_state_items i
                                 WHERE NOT i.session_id = ANY (v_all))),
        'citations',
            (SELECT count(*) FROM jarvis_state_items i
             WHERE NOT i.session_id = ANY (v_all) AND i.refs ?| v_gone));
    SELECT count(*) INTO v_runs FROM archivist_runs r
    WHERE (r.arguments, r.counts, r.failures) IS DISTINCT FROM
          (archivist_forget_scrub(r.arguments, v_ids), archivist_forget_scrub(r.counts, v_ids),
           archivist_forget_scrub(r.failures, v_ids));
    v_tables := v_tables || jsonb_build_object('archivist_runs', v_runs);
    v_tombs := cardinality(v_sessions) + jsonb_array_length(v_messages);

    IF NOT coalesce(p_dry_run, true) THEN
        DELETE FROM archivist_reembed_staging r
        WHERE r.chunk_id IN (SELECT c.id FROM jarvis_memory_chunks c
                             WHERE c.session_id = ANY (v_all));
        DELETE FROM jarvis_memory_chunks c WHERE c.session_id = ANY (v_all);
        -- A person's resolution of a conflict goes with the last session holding its item.
        DELETE FROM jarvis_state_resolutions r
        WHERE r.uid IN (SELECT i.uid FROM jarvis_state_items i WHERE i.session_id = ANY (v_all))
          AND r.uid NOT IN (SELECT i.uid FROM jarvis_state_items i
                            WHERE NOT i.session_id = ANY (v_all));
        WITH gone AS (
            DELETE FROM jarvis_state_items i WHERE i.session_id = ANY (v_all) RETURNING i.*
        )
        SELECT array_agg(g::jarvis_state_items) INTO v_items FROM gone g;
        -- the items left on the subjects of those: their stored current state, computed anew
        PERFORM archivist_store_state(v_items);
        DELETE FROM jarvis_archive_sessions s WHERE s.session_id = ANY (v_all);
        DELETE FROM jarvis_archive a WHERE a.session_id = ANY (v_all);
        DELETE FROM archivist_message_hashes h WHERE h.session_id = ANY (v_all);
        DELETE FROM archivist_session_failures f WHERE f.session_id = ANY (v_all);
        DELETE FROM archivist_session_claims c WHERE c.session_id = ANY (v_all);
        UPDATE jarvis_state_items i SET refs = archivist_forget_scrub(i.refs, v_gone)
        WHERE NOT i.session_id = ANY (v_all) AND i.refs ?| v_gone;
        UPDATE jarvis_archive a SET extraction = archivist_forget_scrub(a.extraction, v_gone)
        WHERE NOT a.session_id = ANY (v_all)
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(a.extraction -> 'state_items') i
                      WHERE i.value -> 'refs' ?| v_gone);
        UPDATE jarvis_memory_chunks c
        SET metadata = jsonb_set(c.metadata, '{message_ids}',
                                 archivist_forget_scrub(c.metadata -> 'message_ids', v_gone))
        WHERE NOT c.session_id = ANY (v_all) AND c.metadata -> 'message_ids' ?| v_gone;
        UPDATE archivist_runs r
        SET arguments = archivist_forget_scrub(r.arguments, v_ids),
            counts = archivist_forget_scrub(r.counts, v_ids),
            failures = archivist_forget_scrub(r.failures, v_ids)
        WHERE (r.arguments, r.counts, r.failures) IS DISTINCT FROM
              (archivist_forget_scrub(r.arguments, v_ids), archivist_forget_scrub(r.counts, v_ids),
               archivist_forget_scrub(r.failures, v_ids));
        INSERT INTO archivist_forgotten (key, kind)
        SELECT archivist_forget_key(s), 'session' FROM unnest(v_sessions) s
        UNION ALL
        SELECT archivist_forget_key(e ->> 'session_id', e ->> 'message_id'), 'message'
        FROM jsonb_array_elements(v_messages) e
        ON CONFLICT (key) DO NOTHING;
    END IF;

    RETURN jsonb_build_object(
        'dry_run', coalesce(p_dry_run, true),
        'sessions', to_jsonb(v_sessions),
        'messages', v_messages,
        'rebuild', to_jsonb(v_rebuild),
        'tables', v_tables,
        'tombstones', v_tombs);
END;
$$;

-- Source messages older than the cutoff that were forgotten (their session, or they): nothing
-- to protect, so prune-check counts them apart. {messages, sessions}.
CREATE OR REPLACE FUNCTION archivist_forgotten_before(p_sources jsonb, p_cutoff timestamptz)
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_result jsonb;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM archivist_forgotten) THEN
        RETURN jsonb_build_object('messages', 0, 'sessions', 0);
    END IF;
    EXECUTE archivist_source_sql(
        'SELECT jsonb_build_object(''messages'', count(*), ''sessions'', count(DISTINCT m.{sid})) '
        'FROM {msgs} m WHERE m.{ts} < $1 AND {dated} AND {forgotten}',
        archivist_source_names(p_sources))
    INTO v_result USING p_cutoff;
    RETURN v_result;
END;
$$;
