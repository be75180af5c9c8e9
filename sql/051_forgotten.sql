-- archivist 051: tombstones of what `archivist forget` erased, so that no later run archives
-- the same source rows again.
--
-- Ids only, hashed (archivist_forget_key, sql/functions/forget.sql): the sha256 of a session
-- id (a whole session), or of a session id and a message id (one message). The archive keeps
-- no id it was asked to forget; a run computes the same hash of each source row it reads and
-- leaves out the rows that match. (Unsalted on purpose: a run must recognise the rows; someone
-- holding a candidate id can test it, as the bot's own tables could tell them anyway.)
CREATE TABLE IF NOT EXISTS archivist_forgotten (
    key          text PRIMARY KEY,
    kind         text NOT NULL CHECK (kind IN ('session', 'message')),
    forgotten_at timestamptz NOT NULL DEFAULT now()
);
