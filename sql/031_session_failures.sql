-- archivist 031: sessions that failed, so that one bad session cannot starve the others.
--
-- A session whose run failed for a reason of its own (not a fault every session would meet,
-- such as the embedding server being down) gets a row here: how many runs in a row it failed,
-- and until when runs leave it out (the backoff doubles with each failure). After
-- quarantine_after_failures failed runs it is quarantined: left out until a run names it
-- (--session-id). The commit that archives it deletes its row, in the same transaction.
CREATE TABLE IF NOT EXISTS archivist_session_failures (
    session_id      text PRIMARY KEY,
    failures        integer NOT NULL,
    first_failed_at timestamptz NOT NULL DEFAULT now(),
    last_failed_at  timestamptz NOT NULL DEFAULT now(),
    retry_after     timestamptz NOT NULL,
    quarantined     boolean NOT NULL DEFAULT false,
    reason          text NOT NULL
);
