-- The claim queue: how workers (processes, hosts, cron entries) share the pending sessions with
-- Postgres as the only coordinator, without reading what another worker holds or has just
-- archived.
--
-- A worker lists the pending sessions once (archivist_pending_claims: each with the version
-- the archive had when it was listed), then takes them one at a time with archivist_claim_next,
-- which walks its list from where the worker stopped and returns the first session that
-- (1) nobody holds: it takes it the way a read would (archivist_take_session: an advisory lock
--     on a direct connection, which ends with the connection; a claim row with a TTL over REST,
--     which expires when its worker died), skipping, never waiting for, held ones; and
-- (2) still has the work it was listed for: its latest version is the one listed (another
--     worker committed none since; a commit commits before its worker lets go, so a version
--     committed by then is visible here) and no failed run holds it back.
-- A session passed over costs a lock attempt and an index lookup inside this one call, never a
-- read. The read that follows (archivist_read_session) finds the session held by this worker
-- already and holds it once still.

-- The pending sessions (archivist_pending_sessions, same arguments and order) as claim
-- candidates: {sessions: [[session_id, listed_version], ...], unarchivable, unarchivable_count}.
-- (A plpgsql body: sources.sql, which it calls, is applied after this file.) One statement, so
-- the versions are those of the snapshot the pending set was computed in.
CREATE OR REPLACE FUNCTION archivist_pending_claims(
    p_sources jsonb, p_active_days integer, p_limit integer, p_max_chars integer DEFAULT NULL
) RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
BEGIN
    RETURN (
        SELECT p.found || jsonb_build_object('sessions', (
            SELECT coalesce(jsonb_agg(jsonb_build_array(s.id, coalesce(w.latest_version, 0))
                                      ORDER BY s.n), '[]'::jsonb)
            FROM jsonb_array_elements_text(p.found -> 'sessions') WITH ORDINALITY AS s(id, n)
            LEFT JOIN jarvis_archive_sessions w ON w.session_id = s.id))
        FROM (SELECT archivist_pending_sessions(p_sources, p_active_days, p_limit, p_max_chars)
                     AS found) p);
END;
$$;

-- The archived sessions as claim candidates, for `archive --rebuild` without named sessions
-- (it recomputes every archived session, not only those with new messages): {sessions:
-- [[session_id, latest_version], ...]}, by session id, at most p_limit; with p_active_days,
-- only those whose archived messages reach into the last p_active_days days.
CREATE OR REPLACE FUNCTION archivist_archived_claims(p_active_days integer, p_limit integer)
RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT jsonb_build_object('sessions', coalesce(jsonb_agg(
               jsonb_build_array(w.session_id, w.latest_version) ORDER BY w.session_id), '[]'))
    FROM (SELECT s.session_id, s.latest_version FROM jarvis_archive_sessions s
          WHERE s.latest_version > 0
            AND (p_active_days IS NULL
                 OR s.watermark_at >= now() - make_interval(days => p_active_days))
          ORDER BY s.session_id
          LIMIT greatest(coalesce(p_limit, 50), 0)) w
$$;

-- Takes the first session of p_candidates ([[session_id, listed_version], ...], in order) that
-- nobody else holds and that still has its work (see above); lets go at once of one it took
-- that has not. Returns {session_id (null: none left), position (1-based, of the one taken, or
-- the number of candidates), held (passed over: another worker holds them), gone (passed over:
-- another worker archived them since they were listed, or a failed run holds them back)}.
-- p_owner and p_ttl_s as archivist_take_session.
CREATE OR REPLACE FUNCTION archivist_claim_next(p_candidates jsonb, p_owner text, p_ttl_s integer)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_session text;
    v_listed  integer;
    v_n       integer := 0;
    v_held    integer := 0;
    v_gone    integer := 0;
BEGIN
    FOR v_session, v_listed IN
        SELECT c ->> 0, (c ->> 1)::integer
        FROM jsonb_array_elements(coalesce(p_candidates, '[]'::jsonb)) WITH ORDINALITY AS e(c, n)
        ORDER BY e.n
    LOOP
        v_n := v_n + 1;
        IF NOT archivist_take_session(v_session, p_owner, p_ttl_s) THEN
            v_held := v_held + 1;
            CONTINUE;
        END IF;
        -- A statement of its own: it sees what committed before the session was taken.
        IF coalesce((SELECT w.latest_version FROM jarvis_archive_sessions w
                     WHERE w.session_id = v_session), 0) = v_listed
           AND NOT EXISTS (SELECT 1 FROM archivist_session_failures f
                           WHERE f.session_id = v_session
                             AND (f.quarantined OR f.retry_after > now())) THEN
            RETURN jsonb_build_object('session_id', v_session, 'position', v_n,
                                      'held', v_held, 'gone', v_gone);
        END IF;
        PERFORM archivist_let_go_session(v_session, p_owner);
        v_gone := v_gone + 1;
    END LOOP;
    RETURN jsonb_build_object('session_id', NULL, 'position', v_n, 'held', v_held,
                              'gone', v_gone);
END;
$$;

-- archivist_claim_next and, for the session it took, archivist_read_session, in one call: a
-- run's session costs the same three calls with the queue as without (this, the commit and
-- the let-go). `claim` is archivist_claim_next's answer; the other columns are the read's, null
-- when no session was taken.
CREATE OR REPLACE FUNCTION archivist_claim_read(
    p_candidates jsonb, p_sources jsonb, p_rebuild boolean, p_limit integer,
    p_max_chars integer, p_model text, p_window integer, p_owner text, p_ttl_s integer
) RETURNS TABLE (claim jsonb, read jsonb, item_uids text[], item_texts text[],
                 item_vectors vector[])
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    v_claim jsonb := archivist_claim_next(p_candidates, p_owner, p_ttl_s);
BEGIN
    IF v_claim ->> 'session_id' IS NULL THEN
        RETURN QUERY SELECT v_claim, NULL::jsonb, NULL::text[], NULL::text[], NULL::vector[];
        RETURN;
    END IF;
    RETURN QUERY
        SELECT v_claim, r.read, r.item_uids, r.item_texts, r.item_vectors
        FROM archivist_read_session(p_sources, v_claim ->> 'session_id', p_rebuild, p_limit,
                                    p_max_chars, p_model, p_window, p_owner, p_ttl_s) r;
END;
$$;
