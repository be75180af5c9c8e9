-- The archive run's read of one session: everything its next version needs, in one call.
--
-- A run makes three calls per session: this read (which also takes the session), the commit
-- (sql/functions/commit.sql) and archivist_let_go_session, after the commit has committed (a
-- lock let go inside the commit's transaction would let another worker read the session before
-- the new version is visible). Planning between them is pure Python
-- (archivist/pipeline/planning.py).

-- Takes the session for this worker: a session-level advisory lock on this connection
-- (p_owner null: direct Postgres, where one connection serves the whole run), or a claim row
-- with a TTL (p_owner set: the REST transport, whose requests may each use another
-- connection). False if another worker has it. Taking a session this worker holds (its next
-- version's read) holds it once still: one let-go lets it go.
CREATE OR REPLACE FUNCTION archivist_take_session(p_session_id text, p_owner text, p_ttl_s integer)
RETURNS boolean
LANGUAGE plpgsql
AS $$
BEGIN
    IF p_owner IS NULL THEN
        RETURN archivist_holds_session(p_session_id)
            OR pg_try_advisory_lock(hashtextextended('archivist:session:' || p_session_id, 0));
    END IF;
    RETURN coalesce(archivist_claim_session(p_session_id, p_owner, p_ttl_s), false);
END;
$$;

-- Whether this connection holds the session's advisory lock.
CREATE OR REPLACE FUNCTION archivist_holds_session(p_session_id text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT EXISTS (
        SELECT 1 FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.granted
          AND l.objsubid = 1
          AND ((l.classid::bigint << 32) | l.objid::bigint)
              = hashtextextended('archivist:session:' || p_session_id, 0))
$$;

-- Lets the session go (the lock or the claim archivist_take_session took); true if it was held.
CREATE OR REPLACE FUNCTION archivist_let_go_session(p_session_id text, p_owner text)
RETURNS boolean
LANGUAGE plpgsql
AS $$
BEGIN
    IF p_owner IS NULL THEN
        IF archivist_holds_session(p_session_id) THEN
            RETURN pg_advisory_unlock(hashtextextended('archivist:session:' || p_session_id, 0));
        END IF;
        RETURN false;
    END IF;
    PERFORM archivist_release_session(p_session_id, p_owner);
    RETURN true;
END;
$$;

-- One session's read, as one JSON object (see archivist.pipeline.reading for its use):
--   taken        false if another worker has the session (nothing else is read then)
--   state        the latest committed version (archivist_session_state), or null
--   new          up to p_limit + 1 dated messages after the watermark (from the start for a
--                rebuild): one more than a version takes tells that more are waiting
--   late         up to p_limit dated messages at or before the watermark no version archived
--   edited       up to p_limit archived messages whose text changed since
--   undated      up to p_limit undated messages (those not archived yet, unless a rebuild)
--   summary      the bot's summary (archivist_session_summary)
--   last_window  {index, message_ids, messages}: the last turn window and, when it is not full
--                (fewer than p_window messages), its messages as the source table has them
--   stored       [{id, slot, hash}] of the chunks (of model p_model) in the slots the next
--                version may rewrite (summary, extraction, state, the last window and after;
--                every slot for a rebuild): which chunks exist, and whose vectors the commit
--                can copy by content hash instead of the caller embedding the text again
--   item_uids, item_texts, item_vectors (the other columns): the stored state items' uids,
--                texts and vectors, for reconciliation (vectors as vector[], sent in binary)
--   users        the distinct user ids of the messages (archivist_session_users)
--   pruned       for a rebuild: archived messages the source table no longer has
CREATE OR REPLACE FUNCTION archivist_read_session(
    p_sources jsonb, p_session_id text, p_rebuild boolean, p_limit integer,
    p_max_chars integer, p_model text, p_window integer, p_owner text, p_ttl_s integer
) RETURNS TABLE (read jsonb, item_uids text[], item_texts text[], item_vectors vector[])
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    v_state   jsonb;
    v_base    jsonb;
    v_at      timestamptz;
    v_id      text;
    v_window  jsonb;
    v_last    text;
    v_read    jsonb;
BEGIN
    IF NOT archivist_take_session(p_session_id, p_owner, p_ttl_s) THEN
        RETURN QUERY SELECT jsonb_build_object('taken', false), NULL::text[], NULL::text[],
                            NULL::vector[];
        RETURN;
    END IF;
    v_state := archivist_session_state(p_session_id);
    v_base := CASE WHEN p_rebuild THEN NULL ELSE v_state END;
    v_at := (v_base ->> 'watermark_at')::timestamptz;
    v_id := v_base ->> 'watermark_id';
    IF v_base IS NOT NULL THEN
        v_window := archivist_last_window(p_session_id);
        IF v_window IS NOT NULL AND jsonb_array_length(v_window -> 'message_ids') < p_window THEN
            v_window := v_window || jsonb_build_object('messages', archivist_read_messages(
                p_sources, p_session_id, 'ids', NULL, NULL,
                ARRAY(SELECT jsonb_array_elements_text(v_window -> 'message_ids')),
                greatest(jsonb_array_length(v_window -> 'message_ids'), 1), p_max_chars));
        END IF;
    END IF;
    SELECT max(c.slot) INTO v_last FROM jarvis_memory_chunks c
    WHERE c.session_id = p_session_id AND c.slot LIKE 'turns:%';
    v_read := jsonb_build_object(
        'taken', true,
        'state', v_state,
        'new', archivist_read_messages(p_sources, p_session_id, 'after', v_at, v_id, NULL,
                                       p_limit + 1, p_max_chars),
        'late', CASE WHEN v_at IS NULL THEN '[]'::jsonb ELSE archivist_read_messages(
                    p_sources, p_session_id, 'uncovered', v_at, v_id, NULL, p_limit,
                    p_max_chars) END,
        'edited', CASE WHEN v_base IS NULL THEN '[]'::jsonb ELSE archivist_read_messages(
                      p_sources, p_session_id, 'changed', v_at, v_id, NULL, p_limit,
                      p_max_chars) END,
        'undated', archivist_read_messages(
                       p_sources, p_session_id,
                       CASE WHEN p_rebuild THEN 'undated' ELSE 'undated_uncovered' END,
                       NULL, NULL, NULL, p_limit, p_max_chars),
        'summary', archivist_session_summary(p_sources, p_session_id),
        'last_window', v_window,
        'stored', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                              'id', c.id, 'slot', c.slot, 'hash', c.content_hash)), '[]')
                   FROM jarvis_memory_chunks c
                   WHERE c.session_id = p_session_id AND c.embedding_model = p_model
                     AND (p_rebuild OR c.slot IN ('summary', 'extraction', 'state')
                          OR (c.slot LIKE 'turns:%' AND c.slot >= v_last))),
        'users', archivist_session_users(p_sources, p_session_id),
        'pruned', CASE WHEN p_rebuild THEN archivist_pruned_count(p_sources, p_session_id)
                       ELSE 0 END);
    RETURN QUERY
        SELECT v_read, array_agg(c.metadata ->> 'uid' ORDER BY c.id),
               array_agg(c.content ORDER BY c.id), array_agg(c.embedding ORDER BY c.id)
        FROM jarvis_memory_chunks c
        WHERE c.session_id = p_session_id AND c.source = 'state_item'
          AND c.embedding_model = p_model AND c.metadata ->> 'uid' IS NOT NULL;
END;
$$;
