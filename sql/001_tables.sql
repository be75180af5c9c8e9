-- archivist 001: the archive tables.
-- jarvis_archive and jarvis_memory_chunks keep the reference columns (names and meaning) so
-- other bots can read them directly; the extra columns are the archivist's bookkeeping.

CREATE EXTENSION IF NOT EXISTS vector;

-- Settings recorded at init: embedding_model, embedding_dim.
CREATE TABLE IF NOT EXISTS archivist_meta (
    key        text PRIMARY KEY,
    value      text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per version of a session's structured extraction.
CREATE TABLE IF NOT EXISTS jarvis_archive (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    session_id        text NOT NULL,
    version_at        timestamptz NOT NULL DEFAULT now(),
    span              jsonb NOT NULL,
    extraction        jsonb NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    version           integer NOT NULL CHECK (version > 0),
    extractor         text NOT NULL,
    extractor_version text NOT NULL,
    watermark_at      timestamptz,          -- created_at of the last message covered
    watermark_id      text,                 -- its id (ties on created_at are broken by id)
    message_count     integer NOT NULL DEFAULT 0,
    summary_at        timestamptz,          -- session_summaries timestamp covered
    UNIQUE (session_id, version)
);
CREATE INDEX IF NOT EXISTS jarvis_archive_version_at_idx ON jarvis_archive (version_at);
CREATE INDEX IF NOT EXISTS jarvis_archive_extraction_idx
    ON jarvis_archive USING gin (extraction jsonb_path_ops);

-- The latest version and watermark of each session: the run's starting point, updated in the
-- same transaction as the version it points to.
CREATE TABLE IF NOT EXISTS jarvis_archive_sessions (
    session_id     text PRIMARY KEY,
    latest_version integer NOT NULL DEFAULT 0,
    archive_id     uuid REFERENCES jarvis_archive (id),
    watermark_at   timestamptz,
    watermark_id   text,
    message_count  integer NOT NULL DEFAULT 0,
    summary_at     timestamptz,
    updated_at     timestamptz NOT NULL DEFAULT now()
);

-- One row per embedded chunk. The id derives from the content, so an unchanged chunk keeps
-- its row and its embedding across versions.
CREATE TABLE IF NOT EXISTS jarvis_memory_chunks (
    id              uuid PRIMARY KEY,
    session_id      text NOT NULL,
    source          text NOT NULL,
    content         text NOT NULL,
    embedding       vector(768) NOT NULL,
    metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    slot            text NOT NULL,
    content_hash    text NOT NULL,
    embedding_model text NOT NULL,
    archive_version integer NOT NULL,
    fts             tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED
);
-- A 768-d vector (3 KB) crosses the TOAST threshold; kept inline, an exact scan is ~3x faster.
ALTER TABLE jarvis_memory_chunks ALTER COLUMN embedding SET STORAGE PLAIN;
ALTER TABLE jarvis_memory_chunks ALTER COLUMN content SET STORAGE MAIN;
ALTER TABLE jarvis_memory_chunks ALTER COLUMN metadata SET STORAGE MAIN;
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_session_idx ON jarvis_memory_chunks (session_id);
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_embedding_idx
    ON jarvis_memory_chunks USING hnsw (embedding vector_cosine_ops);
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_fts_idx ON jarvis_memory_chunks USING gin (fts);
