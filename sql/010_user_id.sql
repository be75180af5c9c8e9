-- archivist 010: per-user memory (opt-in: ARCHIVIST_MESSAGE_USER_ID names the user-id column
-- of the bot's messages). Versions, chunks and sessions carry the user id of the session's
-- messages; NULL when the setting is unset, when no message has one, or when a session's
-- messages carry more than one (then multi_user is set, and only the service role reads what
-- is written from then on). Searches filter by it; with `init --allow-authenticated`, row
-- level security lets a signed-in user read their own rows (sql/policy.sql).

ALTER TABLE jarvis_archive ADD COLUMN IF NOT EXISTS user_id text;
ALTER TABLE jarvis_memory_chunks ADD COLUMN IF NOT EXISTS user_id text;
ALTER TABLE jarvis_archive_sessions ADD COLUMN IF NOT EXISTS user_id text;
ALTER TABLE jarvis_archive_sessions
    ADD COLUMN IF NOT EXISTS multi_user boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_user_idx ON jarvis_memory_chunks (user_id);
CREATE INDEX IF NOT EXISTS jarvis_archive_user_idx ON jarvis_archive (user_id);
