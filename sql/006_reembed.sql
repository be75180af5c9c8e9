-- archivist 006: the staging table of `archivist reembed` (its swap function lives in
-- sql/functions/reembed.sql).
--
-- Every chunk's new vector is staged here, batch by batch, keyed by the chunk's current id, so
-- an interrupted run continues where it stopped; the swap then moves the chunk table over in
-- one transaction.

CREATE TABLE IF NOT EXISTS archivist_reembed_staging (
    chunk_id  uuid PRIMARY KEY,     -- the chunk's id under the old model
    new_id    uuid NOT NULL,        -- its id under the new model (ids derive from the model)
    model     text NOT NULL,        -- the model and dimension this vector is for; rows of
    dim       integer NOT NULL,     -- another target are stale and deleted by the next run
    embedding vector NOT NULL,
    staged_at timestamptz NOT NULL DEFAULT now()
);
