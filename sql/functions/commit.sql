-- The one function that writes the archive: a session's new version, its chunks and its
-- watermark, together. The direct Postgres path and the Supabase RPC path both call it.
--
-- This file, like every file in sql/functions/, is applied by every `archivist init`
-- (CREATE OR REPLACE), after the migrations; a function is defined here and nowhere else.
--
-- p_expected_version: the latest version the caller started from (0 for none). If another
--   worker committed in between, the call fails with SQLSTATE 40001 and changes nothing.
-- p_version: {span, extraction, extractor, extractor_version, watermark_at, watermark_id,
--   message_count, summary_at, user_id, multi_user, messages}. user_id (the one user id the
--   session's messages carry, or null) goes on the version, its new chunks and the session; the
--   session's earlier rows without one get it too (they hold nothing of another user's). A
--   session with several users (now, or over time) is multi_user for good: what it writes
--   from then on has no user id; what it wrote while it had one user keeps that user.
--   messages: what this version archives of each message it covers, [{id, md5, chars,
--   archived_chars}] (the md5 and length of the source text it read, and how many characters
--   of it the archive holds), recorded in archivist_message_hashes in this transaction.
-- A session archived is no longer a failed one: its archivist_session_failures row goes too.
-- p_chunks: every chunk of the slots this version writes: [{id, slot, source, content,
--   content_hash, metadata, vector}]; a chunk the table already holds may leave out
--   everything but id and slot. A new chunk's vector is p_vectors[vector] (1-based), or, with
--   no `vector` (or an inline `embedding`), the vector of a chunk of the session with the same
--   content_hash under the same model: a text already embedded is never sent again.
-- p_slots: the slots this version rewrites; chunks of these slots that are not in p_chunks
--   are deleted (after the new ones are in, so their vectors can be copied first). NULL
--   rewrites every slot (a rebuild).
-- p_vectors: the new vectors, one `vector[]` (binary from psycopg, text over REST).
-- jarvis_archive.is_latest marks each session's latest version (sql/040): the previous one's
--   flag goes, the new one's is set, so archive searches need no join to find them.
-- The new version's state items replace the session's rows of jarvis_state_items (sql/060),
--   which the current state across sessions reads (sql/functions/current_state.sql).

CREATE OR REPLACE FUNCTION archivist_commit_version(
    p_session_id       text,
    p_expected_version integer,
    p_version          jsonb,
    p_chunks           jsonb,
    p_slots            text[],
    p_embedding_model  text,
    p_vectors          vector[] DEFAULT NULL
) RETURNS TABLE (archive_id uuid, version integer, chunks_inserted integer, chunks_deleted integer)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    v_current  integer;
    v_id       uuid;
    v_inserted integer;
    v_deleted  integer;
    v_recorded text;
    v_user     text := p_version ->> 'user_id';
    v_multi    boolean;
    v_previous text;
BEGIN
    SELECT m.value INTO v_recorded FROM archivist_meta m WHERE m.key = 'embedding_model';
    IF v_recorded IS DISTINCT FROM p_embedding_model THEN
        RAISE EXCEPTION 'archivist: this database holds embeddings of model %, not %',
            coalesce(v_recorded, '(none recorded)'), p_embedding_model
            USING ERRCODE = '22023';
    END IF;

    INSERT INTO jarvis_archive_sessions (session_id) VALUES (p_session_id)
        ON CONFLICT (session_id) DO NOTHING;
    SELECT s.latest_version, s.multi_user, s.user_id INTO v_current, v_multi, v_previous
        FROM jarvis_archive_sessions s WHERE s.session_id = p_session_id FOR UPDATE;
    -- Once several users, always: even after one's messages are pruned, or when the one user
    -- left is another than the session had.
    v_multi := v_multi OR coalesce((p_version ->> 'multi_user')::boolean, false)
               OR coalesce(v_user <> v_previous, false);
    v_user := CASE WHEN v_multi THEN NULL ELSE coalesce(v_user, v_previous) END;
    IF v_current <> p_expected_version THEN
        RAISE EXCEPTION 'archivist: session % is at version %, expected %',
            p_session_id, v_current, p_expected_version
            USING ERRCODE = '40001';
    END IF;

    UPDATE jarvis_archive a SET is_latest = false
    WHERE a.session_id = p_session_id AND a.is_latest;
    INSERT INTO jarvis_archive (session_id, version, span, extraction, extractor,
                                extractor_version, watermark_at, watermark_id, message_count,
                                summary_at, user_id, is_latest)
    VALUES (p_session_id, v_current + 1, p_version -> 'span', p_version -> 'extraction',
            p_version ->> 'extractor', p_version ->> 'extractor_version',
            (p_version ->> 'watermark_at')::timestamptz, p_version ->> 'watermark_id',
            (p_version ->> 'message_count')::integer, (p_version ->> 'summary_at')::timestamptz,
            v_user, true)
    RETURNING jarvis_archive.id INTO v_id;

    INSERT INTO jarvis_memory_chunks (id, session_id, source, content, embedding, metadata,
                                      slot, content_hash, embedding_model, archive_version,
                                      user_id)
    SELECT y.id, p_session_id, y.source, y.content, y.embedding,
           coalesce(y.metadata, '{}'::jsonb) || jsonb_build_object('archive_id', v_id)
               || CASE WHEN y.source = 'session_turn'
                       THEN archivist_turn_positions(y.content, y.metadata -> 'turn_starts')
                       ELSE '{}' END,
           y.slot, y.content_hash, p_embedding_model, v_current + 1, v_user
    FROM (SELECT x.id, x.slot, x.source, x.content, x.content_hash, x.metadata,
                 coalesce(x.embedding, p_vectors[x.vector],
                          (SELECT c.embedding FROM jarvis_memory_chunks c
                           WHERE c.session_id = p_session_id AND c.content_hash = x.content_hash
                             AND c.embedding_model = p_embedding_model
                           LIMIT 1)) AS embedding
          FROM jsonb_to_recordset(p_chunks)
               AS x(id uuid, slot text, source text, content text, content_hash text,
                    metadata jsonb, embedding vector, vector integer)
          WHERE x.content IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM jarvis_memory_chunks c WHERE c.id = x.id)) y
    WHERE y.embedding IS NOT NULL
    ON CONFLICT (id) DO NOTHING;
    GET DIAGNOSTICS v_inserted = ROW_COUNT;

    DELETE FROM jarvis_memory_chunks c
    WHERE c.session_id = p_session_id
      AND (p_slots IS NULL OR c.slot = ANY (p_slots))
      AND c.id NOT IN (SELECT (e ->> 'id')::uuid FROM jsonb_array_elements(p_chunks) e);
    GET DIAGNOSTICS v_deleted = ROW_COUNT;

    IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_chunks) e
               WHERE NOT EXISTS (SELECT 1 FROM jarvis_memory_chunks c
                                 WHERE c.id = (e ->> 'id')::uuid)) THEN
        RAISE EXCEPTION 'archivist: session % references chunks it did not send', p_session_id
            USING ERRCODE = '40001';
    END IF;

    INSERT INTO archivist_message_hashes AS h (session_id, message_id, content_md5,
                                               content_chars, archived_chars, archive_version)
    SELECT p_session_id, x.id, x.md5, x.chars, x.archived_chars, v_current + 1
    FROM jsonb_to_recordset(coalesce(p_version -> 'messages', '[]'))
         AS x(id text, md5 text, chars integer, archived_chars integer)
    ON CONFLICT (session_id, message_id) DO UPDATE
        SET content_md5 = excluded.content_md5, content_chars = excluded.content_chars,
            archived_chars = excluded.archived_chars,
            archive_version = excluded.archive_version, archived_at = now();

    DELETE FROM archivist_session_failures f WHERE f.session_id = p_session_id;

    IF v_user IS NOT NULL THEN
        UPDATE jarvis_memory_chunks c SET user_id = v_user
        WHERE c.session_id = p_session_id AND c.user_id IS NULL;
        UPDATE jarvis_archive a SET user_id = v_user
        WHERE a.session_id = p_session_id AND a.user_id IS NULL;
    END IF;

    UPDATE jarvis_archive_sessions s
    SET latest_version = v_current + 1,
        user_id        = v_user,
        multi_user     = v_multi,
        archive_id     = v_id,
        watermark_at   = (p_version ->> 'watermark_at')::timestamptz,
        watermark_id   = p_version ->> 'watermark_id',
        message_count  = (p_version ->> 'message_count')::integer,
        summary_at     = (p_version ->> 'summary_at')::timestamptz,
        updated_at     = now()
    WHERE s.session_id = p_session_id;

    PERFORM archivist_index_state(p_session_id, v_id, v_user, p_version -> 'extraction'
                                                              -> 'state_items');

    RETURN QUERY SELECT v_id, v_current + 1, v_inserted, v_deleted;
END;
$$;
