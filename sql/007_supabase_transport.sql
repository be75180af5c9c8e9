-- archivist 007: session claims, the REST transport's stand-in for the advisory lock (a
-- session lock does not outlive one HTTP request). A claim is held until released or until it
-- expires, so a worker that died frees its sessions after the TTL. The functions that read and
-- write through either transport live in sql/functions/.

CREATE TABLE IF NOT EXISTS archivist_session_claims (
    session_id text PRIMARY KEY,
    owner      text NOT NULL,
    expires_at timestamptz NOT NULL
);
