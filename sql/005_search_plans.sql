-- archivist 005: an index for searches over the latest versions (their functions live in
-- sql/functions/search.sql).

-- The latest version of a session is found from its archive row.
CREATE UNIQUE INDEX IF NOT EXISTS jarvis_archive_sessions_archive_idx
    ON jarvis_archive_sessions (archive_id);
