-- archivist 030: what the archive holds of each message, so that prune-check can tell an
-- archived message from one whose text changed since (edited, or deleted and inserted again
-- with the same id), or whose text was cut.
--
-- One row per archived message, written by archivist_commit_version in the transaction that
-- archives the message (and rewritten when a later version archives its new text): the md5 of
-- the source content as it was read (NULL content hashes as the empty text), its length, and
-- how many of its characters the archive holds (fewer when it was longer than the cut,
-- max_message_chars). md5 detects change; it is not used for anything secret.
CREATE TABLE IF NOT EXISTS archivist_message_hashes (
    session_id      text NOT NULL,
    message_id      text NOT NULL,
    content_md5     text NOT NULL,
    content_chars   integer NOT NULL,
    archived_chars  integer NOT NULL,
    archive_version integer NOT NULL,
    archived_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, message_id)
);
