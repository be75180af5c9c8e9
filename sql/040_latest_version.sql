-- Each session's latest version carries is_latest, kept by archivist_commit_version, so that
-- archive searches find the latest versions without joining jarvis_archive_sessions, and the
-- containment (@>) index they use holds those versions only.
ALTER TABLE jarvis_archive ADD COLUMN IF NOT EXISTS is_latest boolean NOT NULL DEFAULT false;

UPDATE jarvis_archive a SET is_latest = true
FROM jarvis_archive_sessions s
WHERE s.archive_id = a.id AND NOT a.is_latest;

CREATE INDEX IF NOT EXISTS jarvis_archive_latest_extraction_idx
    ON jarvis_archive USING gin (extraction jsonb_path_ops) WHERE is_latest;
CREATE INDEX IF NOT EXISTS jarvis_archive_latest_at_idx
    ON jarvis_archive (version_at DESC, session_id, version DESC) WHERE is_latest;
