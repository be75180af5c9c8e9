-- archivist 004: what operations need: exact coverage lookups and a log of runs.

-- "Is this message archived?" is answered by the committed turn chunks that cover it; this
-- index makes that lookup (metadata -> 'message_ids' ? id) cheap for prune-check and for
-- finding late arrivals.
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_message_ids_idx
    ON jarvis_memory_chunks USING gin ((metadata -> 'message_ids'));

-- One row per archive run (dry runs write nothing): written when it starts, completed when
-- it ends, so a run that died shows as never finished.
CREATE TABLE IF NOT EXISTS archivist_runs (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    arguments   jsonb NOT NULL DEFAULT '{}'::jsonb,
    counts      jsonb,
    failures    jsonb
);
CREATE INDEX IF NOT EXISTS archivist_runs_started_idx ON archivist_runs (started_at DESC);
