-- Reads of the archive's own state: a session's latest version and watermark, its chunks,
-- its earlier versions and its state items' vectors (for the run, the state views and
-- reconciliation).

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

-- The committed watermark of each given session that has one: {session_id: {at, id}}.
CREATE OR REPLACE FUNCTION archivist_watermarks(p_session_ids text[]) RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(jsonb_object_agg(w.session_id, jsonb_build_object(
               'created_at', w.watermark_at, 'message_id', w.watermark_id)), '{}')
    FROM jarvis_archive_sessions w
    WHERE w.session_id = ANY (p_session_ids) AND w.watermark_at IS NOT NULL
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

-- A session's last p_limit versions, oldest first: [{version, version_at, extractor,
-- extractor_version, extraction}].
CREATE OR REPLACE FUNCTION archivist_versions(p_session_id text, p_limit integer) RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(jsonb_agg(to_jsonb(v) ORDER BY v.version), '[]')
    FROM (SELECT a.version, a.version_at, a.extractor, a.extractor_version, a.extraction
          FROM jarvis_archive a
          WHERE a.session_id = p_session_id
          ORDER BY a.version DESC
          LIMIT greatest(p_limit, 0)) v
$$;

-- The turn chunks of the user's other sessions that hold a user's turn (one starting with one of
-- p_labels, "User: ") and every one of p_words (a "never" statement's names, else its head's
-- words: "zotero"), those with most of p_detail (all its object's words) first, at most p_limit:
-- [{session_id, content, message_ids, turn_starts, first_at}]. Where a run looks for what a new
-- "never" statement contradicts (archivist/pipeline/earlier.py). Words that are not plain
-- lowercase letters and digits are left out, so none can change the query.
CREATE OR REPLACE FUNCTION archivist_earlier_turns(
    p_user_id text, p_session_id text, p_labels text[], p_words text[], p_detail text[],
    p_limit integer
) RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    WITH q AS (
        SELECT to_tsquery('english', string_agg(w, ' & ')) AS every,
               (SELECT to_tsquery('english', string_agg(d, ' | ')) FROM unnest(p_detail) d
                WHERE d ~ '^[a-z0-9]+$') AS detail
        FROM unnest(p_words) w
        WHERE w ~ '^[a-z0-9]+$'
        HAVING count(*) > 0
    )
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'session_id', c.session_id, 'content', c.content,
               'message_ids', c.metadata -> 'message_ids',
               'turn_starts', c.metadata -> 'turn_starts', 'first_at', c.metadata -> 'first_at')
           ORDER BY c.rank DESC), '[]')
    FROM (SELECT c.session_id, c.content, c.metadata,
                 ts_rank(c.fts, coalesce(q.detail, q.every)) AS rank
          FROM jarvis_memory_chunks c, q
          WHERE c.user_id = p_user_id AND c.session_id <> p_session_id
            AND c.source = 'session_turn' AND c.fts @@ q.every
            AND EXISTS (SELECT 1 FROM unnest(p_labels) l
                        WHERE starts_with(c.content, l) OR strpos(c.content, E'\n' || l) > 0)
          ORDER BY rank DESC
          LIMIT greatest(p_limit, 0)) c
$$;

-- The turn chunks of the user's sessions that hold any of p_message_ids (at most 64 of them):
-- [{session_id, content, message_ids, turn_starts, first_at}]. Where a run reads the messages
-- earlier state items were said in, to tie a change said in other words to one of them
-- (archivist/pipeline/across.py); jarvis_memory_chunks_message_ids_idx finds them.
CREATE OR REPLACE FUNCTION archivist_turns_of(p_user_id text, p_message_ids text[])
RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'session_id', c.session_id, 'content', c.content,
               'message_ids', c.metadata -> 'message_ids',
               'turn_starts', c.metadata -> 'turn_starts', 'first_at', c.metadata -> 'first_at')),
           '[]')
    FROM jarvis_memory_chunks c
    WHERE c.metadata -> 'message_ids' ?| p_message_ids[1:64]
      AND c.source = 'session_turn' AND c.user_id = p_user_id
$$;
