-- archivist 060: the current state across sessions ("what is true now").
--
-- jarvis_state_items holds one row per state item of each session's latest version, written by
-- archivist_commit_version (through archivist_index_state) in the same transaction as the
-- version, so the items of a scope (a user, or the whole archive) can be reconciled in time
-- order by SQL (archivist_state_items, sql/functions/current_state.sql). subject_key and
-- value_key (and old_key, of what a change replaces) are the English stems of the item's subject
-- and value (to_tsvector): two items are about the same thing when one's subject stems are all
-- among the other's. The rows go with
-- their version (ON DELETE CASCADE), so forgetting a session forgets its items.
--
-- jarvis_state_resolutions records what a person settled about a conflict (`archivist resolve
-- UID --keep|--drop`): nothing is deleted, the current state reads these rows.

CREATE TABLE IF NOT EXISTS jarvis_state_items (
    archive_id   uuid NOT NULL REFERENCES jarvis_archive (id) ON DELETE CASCADE,
    session_id   text NOT NULL,
    user_id      text,
    uid          text NOT NULL,
    type         text NOT NULL,
    text         text NOT NULL,
    status       text NOT NULL,
    subject      text,
    subject_key  text[] NOT NULL DEFAULT '{}',
    value        text,
    value_key    text[] NOT NULL DEFAULT '{}',
    change       text,
    replaces     text,
    old_key      text[] NOT NULL DEFAULT '{}',
    replaced_by  text,
    conflict     boolean NOT NULL DEFAULT false,
    refs         jsonb NOT NULL DEFAULT '[]',
    became_at    timestamptz,
    last_seen_at timestamptz,
    PRIMARY KEY (session_id, uid)
);
CREATE INDEX IF NOT EXISTS jarvis_state_items_scope_idx
    ON jarvis_state_items (user_id, became_at);
CREATE INDEX IF NOT EXISTS jarvis_state_items_archive_idx ON jarvis_state_items (archive_id);
CREATE INDEX IF NOT EXISTS jarvis_state_items_subject_idx
    ON jarvis_state_items USING gin (subject_key);

CREATE TABLE IF NOT EXISTS jarvis_state_resolutions (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    uid         text NOT NULL,
    user_id     text,
    action      text NOT NULL CHECK (action IN ('keep', 'drop')),
    resolved_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS jarvis_state_resolutions_uid_idx ON jarvis_state_resolutions (uid);

-- The items of the versions archived before this migration.
INSERT INTO jarvis_state_items (archive_id, session_id, user_id, uid, type, text, status, subject,
                                subject_key, value, value_key, change, replaces, old_key,
                                replaced_by, conflict, refs, became_at, last_seen_at)
SELECT a.id, a.session_id, a.user_id, i ->> 'uid', i ->> 'type', i ->> 'text', i ->> 'status',
       i ->> 'subject', tsvector_to_array(to_tsvector('english', coalesce(i ->> 'subject', ''))),
       i ->> 'value', tsvector_to_array(to_tsvector('english', coalesce(i ->> 'value', ''))),
       i ->> 'change', i ->> 'replaces',
       tsvector_to_array(to_tsvector('english', coalesce(i ->> 'replaces', ''))),
       i ->> 'replaced_by', coalesce((i ->> 'conflict')::boolean, false),
       coalesce(i -> 'refs', '[]'), (i ->> 'created_at')::timestamptz,
       (i ->> 'last_seen_at')::timestamptz
FROM jarvis_archive a CROSS JOIN LATERAL jsonb_array_elements(
         coalesce(a.extraction -> 'state_items', '[]')) i
WHERE a.is_latest
ON CONFLICT (session_id, uid) DO NOTHING;
