-- archivist 001: the schema (tables and indexes) of the first release.
--
-- Before the first release the development migrations sql/001-068 were folded into this one
-- file, with the same final schema. Comments elsewhere that cite one of them (`sql/061`, ...)
-- refer to the part below marked with its number, e.g. "(was 061)". A change from now on is a
-- new migration, sql/002_*.sql and so on: this file, once applied, is never edited.
--
-- jarvis_archive and jarvis_memory_chunks keep the reference columns (names and meaning) so
-- other bots can read them directly; the extra columns are the archivist's bookkeeping.

CREATE EXTENSION IF NOT EXISTS vector;

-- Settings recorded at init: embedding_model, embedding_dim (and the others archivist_meta's
-- readers name).
CREATE TABLE IF NOT EXISTS archivist_meta (
    key        text PRIMARY KEY,
    value      text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per version of a session's structured extraction.
--
-- user_id (was 010): per-user memory (opt-in: ARCHIVIST_MESSAGE_USER_ID names the user-id
-- column of the bot's messages). Versions, chunks and sessions carry the user id of the
-- session's messages; NULL when the setting is unset, when no message has one, or when a
-- session's messages carry more than one (then multi_user is set, and only the service role
-- reads what is written from then on). Searches filter by it; with `init --allow-authenticated`,
-- row level security lets a signed-in user read their own rows (sql/policy.sql).
--
-- is_latest (was 040): each session's latest version carries it, kept by
-- archivist_commit_version, so that archive searches find the latest versions without joining
-- jarvis_archive_sessions, and the containment (@>) index they use holds those versions only.
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
    user_id           text,
    is_latest         boolean NOT NULL DEFAULT false,
    UNIQUE (session_id, version)
);
CREATE INDEX IF NOT EXISTS jarvis_archive_version_at_idx ON jarvis_archive (version_at);
CREATE INDEX IF NOT EXISTS jarvis_archive_extraction_idx
    ON jarvis_archive USING gin (extraction jsonb_path_ops);
CREATE INDEX IF NOT EXISTS jarvis_archive_user_idx ON jarvis_archive (user_id);
CREATE INDEX IF NOT EXISTS jarvis_archive_latest_extraction_idx
    ON jarvis_archive USING gin (extraction jsonb_path_ops) WHERE is_latest;
CREATE INDEX IF NOT EXISTS jarvis_archive_latest_at_idx
    ON jarvis_archive (version_at DESC, session_id, version DESC) WHERE is_latest;

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
    updated_at     timestamptz NOT NULL DEFAULT now(),
    user_id        text,
    multi_user     boolean NOT NULL DEFAULT false
);
-- The latest version of a session is found from its archive row (was 005).
CREATE UNIQUE INDEX IF NOT EXISTS jarvis_archive_sessions_archive_idx
    ON jarvis_archive_sessions (archive_id);

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
    fts             tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED,
    user_id         text
);
-- A 768-d vector (3 KB) crosses the TOAST threshold; kept inline, an exact scan is ~3x faster.
ALTER TABLE jarvis_memory_chunks ALTER COLUMN embedding SET STORAGE PLAIN;
ALTER TABLE jarvis_memory_chunks ALTER COLUMN content SET STORAGE MAIN;
ALTER TABLE jarvis_memory_chunks ALTER COLUMN metadata SET STORAGE MAIN;
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_session_idx ON jarvis_memory_chunks (session_id);
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_embedding_idx
    ON jarvis_memory_chunks USING hnsw (embedding vector_cosine_ops);
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_fts_idx ON jarvis_memory_chunks USING gin (fts);
-- "Is this message archived?" is answered by the committed turn chunks that cover it; this
-- index makes that lookup (metadata -> 'message_ids' ? id) cheap for prune-check and for
-- finding late arrivals (was 004).
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_message_ids_idx
    ON jarvis_memory_chunks USING gin ((metadata -> 'message_ids'));
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_user_idx ON jarvis_memory_chunks (user_id);
-- Standing rules findable by the matter they govern (was 065). A standing rule ("Always include
-- version numbers when I ask about libraries", "Never round the figures") is a constraint item
-- whose chunk's metadata says `standing` (chunking.py, state_item_chunks); a memory search
-- offers the rule its query's words point to (archivist_standing_rule, sql/functions/
-- search_hybrid.sql). These two indexes hold only the rules: by session (how many a scope
-- holds) and by word (those having a query's words), so finding a search's rules reads no other
-- chunk, and of the rules only those with a query word.
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_standing_idx ON jarvis_memory_chunks (session_id)
    WHERE source = 'state_item' AND metadata @> '{"standing": true}';
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_standing_fts_idx ON jarvis_memory_chunks
    USING gin (fts) WHERE source = 'state_item' AND metadata @> '{"standing": true}';

-- One row per archive run (dry runs write nothing): written when it starts, completed when
-- it ends, so a run that died shows as never finished (was 004).
CREATE TABLE IF NOT EXISTS archivist_runs (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    started_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    arguments   jsonb NOT NULL DEFAULT '{}'::jsonb,
    counts      jsonb,
    failures    jsonb
);
CREATE INDEX IF NOT EXISTS archivist_runs_started_idx ON archivist_runs (started_at DESC);

-- The staging table of `archivist reembed` (was 006; its swap function lives in
-- sql/functions/reembed.sql). Every chunk's new vector is staged here, batch by batch, keyed by
-- the chunk's current id, so an interrupted run continues where it stopped; the swap then moves
-- the chunk table over in one transaction.
CREATE TABLE IF NOT EXISTS archivist_reembed_staging (
    chunk_id  uuid PRIMARY KEY,     -- the chunk's id under the old model
    new_id    uuid NOT NULL,        -- its id under the new model (ids derive from the model)
    model     text NOT NULL,        -- the model and dimension this vector is for; rows of
    dim       integer NOT NULL,     -- another target are stale and deleted by the next run
    embedding vector NOT NULL,
    staged_at timestamptz NOT NULL DEFAULT now()
);

-- Session claims, the REST transport's stand-in for the advisory lock (was 007; a session lock
-- does not outlive one HTTP request). A claim is held until released or until it expires, so a
-- worker that died frees its sessions after the TTL.
CREATE TABLE IF NOT EXISTS archivist_session_claims (
    session_id text PRIMARY KEY,
    owner      text NOT NULL,
    expires_at timestamptz NOT NULL
);

-- What the archive holds of each message (was 030), so that prune-check can tell an archived
-- message from one whose text changed since (edited, or deleted and inserted again with the
-- same id), or whose text was cut. One row per archived message, written by
-- archivist_commit_version in the transaction that archives the message (and rewritten when a
-- later version archives its new text): the md5 of the source content as it was read (NULL
-- content hashes as the empty text), its length, and how many of its characters the archive
-- holds (fewer when it was longer than the cut, max_message_chars). md5 detects change; it is
-- not used for anything secret.
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

-- Sessions that failed (was 031), so that one bad session cannot starve the others. A session
-- whose run failed for a reason of its own (not a fault every session would meet, such as the
-- embedding server being down) gets a row here: how many runs in a row it failed, and until
-- when runs leave it out (the backoff doubles with each failure). After
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

-- The functions the archivist created, so that init retires only its own (was 050).
-- sql/retire.sql records here every function sql/functions/ creates (its oid, name and
-- signature) and drops only functions recorded here that no file defines any more. A function
-- that merely looks like the archivist's (a user's archivist_my_report(), in the same schema)
-- is never recorded, so never dropped, nor given the archivist's privileges. The oid identifies
-- the function (CREATE OR REPLACE keeps it; a function dropped and created again by someone
-- else gets another); the name guards against a reused oid. The signature is for people
-- reading the table.
CREATE TABLE IF NOT EXISTS archivist_own_functions (
    fn          oid PRIMARY KEY,
    name        text NOT NULL,
    signature   text NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now()
);

-- Tombstones of what `archivist forget` erased (was 051), so that no later run archives the
-- same source rows again. Ids only, hashed (archivist_forget_key, sql/functions/forget.sql):
-- the sha256 of a session id (a whole session), or of a session id and a message id (one
-- message). The archive keeps no id it was asked to forget; a run computes the same hash of
-- each source row it reads and leaves out the rows that match. (Unsalted on purpose: a run must
-- recognise the rows; someone holding a candidate id can test it, as the bot's own tables could
-- tell them anyway.)
CREATE TABLE IF NOT EXISTS archivist_forgotten (
    key          text PRIMARY KEY,
    kind         text NOT NULL CHECK (kind IN ('session', 'message')),
    forgotten_at timestamptz NOT NULL DEFAULT now()
);

-- The current state across sessions, "what is true now" (was 060).
--
-- jarvis_state_items holds one row per state item of each session's latest version, written by
-- archivist_commit_version (through archivist_index_state) in the same transaction as the
-- version, so the items of a scope (a user, or the whole archive) can be reconciled in time
-- order by SQL (archivist_state_items, sql/functions/current_state.sql). subject_key and
-- value_key (and old_key, of what a change replaces) are the English stems of the item's subject
-- and value (to_tsvector): two items are about the same thing when one's subject stems are all
-- among the other's. A subject's key leaves out the word that names which side of it is decided
-- (was 067: time, date, day, venue, location, place, when other words are left;
-- archivist_subject_key). The rows go with their version (ON DELETE CASCADE), so forgetting a
-- session forgets its items.
--
-- The current state "now" is stored at commit time (was 061). Reconciling every item of a scope
-- on every read (archivist_reconcile_state) costs time in the size of the scope. So each row
-- also holds what that reconciliation says of the item now (p_as_of NULL): stopped_at,
-- superseded_by, superseded_by_session, trigger, resolution, conflict_with, in_conflict (the
-- `conflict` column of archivist_state_items; `conflict` here is the session's own flag) and
-- current. They are written in the transaction that changes what they depend on: a commit
-- (archivist_index_state), a forget, a resolution; for the items on the subjects that changed,
-- found through the indexes below. Reads of "now" then read these rows by index; `--as-of`
-- still reconciles. init's archivist_refresh_state (at the end of sql/functions/
-- current_state.sql) fills them again whenever the rules change. id names an item in those
-- computations (the key session_id, uid is two columns).
CREATE TABLE IF NOT EXISTS jarvis_state_items (
    archive_id            uuid NOT NULL REFERENCES jarvis_archive (id) ON DELETE CASCADE,
    session_id            text NOT NULL,
    user_id               text,
    uid                   text NOT NULL,
    type                  text NOT NULL,
    text                  text NOT NULL,
    status                text NOT NULL,
    subject               text,
    subject_key           text[] NOT NULL DEFAULT '{}',
    value                 text,
    value_key             text[] NOT NULL DEFAULT '{}',
    change                text,
    replaces              text,
    old_key               text[] NOT NULL DEFAULT '{}',
    replaced_by           text,
    conflict              boolean NOT NULL DEFAULT false,
    refs                  jsonb NOT NULL DEFAULT '[]',
    became_at             timestamptz,
    last_seen_at          timestamptz,
    id                    bigint GENERATED ALWAYS AS IDENTITY,
    stopped_at            timestamptz,
    superseded_by         text,
    superseded_by_session text,
    trigger               text,
    resolution            text,
    conflict_with         text[],
    in_conflict           boolean,
    current               boolean,
    PRIMARY KEY (session_id, uid)
);
CREATE INDEX IF NOT EXISTS jarvis_state_items_scope_idx
    ON jarvis_state_items (user_id, became_at);
CREATE INDEX IF NOT EXISTS jarvis_state_items_archive_idx ON jarvis_state_items (archive_id);
CREATE UNIQUE INDEX IF NOT EXISTS jarvis_state_items_id_idx ON jarvis_state_items (id);
-- `state --current`: the newest current items of a user, or of the whole archive.
CREATE INDEX IF NOT EXISTS jarvis_state_items_current_idx
    ON jarvis_state_items (user_id, became_at DESC NULLS LAST, session_id, uid) WHERE current;
CREATE INDEX IF NOT EXISTS jarvis_state_items_current_all_idx
    ON jarvis_state_items (became_at DESC NULLS LAST, session_id, uid) WHERE current;
-- what an item replaced (`supersedes`)
CREATE INDEX IF NOT EXISTS jarvis_state_items_superseded_idx
    ON jarvis_state_items (superseded_by_session, superseded_by) WHERE superseded_by IS NOT NULL;
-- The GIN indexes find the items of a scope that share a stem with an item: each key array gets
-- one more element, '@' and the user id, so a lookup for [stem, '@user'] (@>) is the
-- intersection of two posting lists, whatever the other users hold.
--
-- They keep no pending list (was 068). Storing the current state at commit time
-- (archivist_state_neighbours) looks items up through them, dozens of times per commit, and
-- inserts a few entries per item. With GIN's fast update (the default) new entries wait in a
-- pending list that every lookup reads in full until a vacuum, or 4 MB of them, merges it: a
-- run's commits grew slower with every session it stored before autovacuum came round. Without
-- it, 240 sessions of 40 messages spent 4.3 s instead of 14.1 s in archivist_index_state (24
-- users; 13.0 s instead of 22.5 s all in one scope; scripts/bench/workers.py).
CREATE INDEX IF NOT EXISTS jarvis_state_items_subject_scope_idx
    ON jarvis_state_items USING gin (array_append(subject_key, '@' || coalesce(user_id, '')))
    WITH (fastupdate = off);
CREATE INDEX IF NOT EXISTS jarvis_state_items_value_scope_idx
    ON jarvis_state_items USING gin (array_append(value_key, '@' || coalesce(user_id, '')))
    WITH (fastupdate = off);
-- what a change without a subject replaces: those changes alone
CREATE INDEX IF NOT EXISTS jarvis_state_items_old_scope_idx
    ON jarvis_state_items USING gin (array_append(old_key, '@' || coalesce(user_id, '')))
    WITH (fastupdate = off)
    WHERE change IS NOT NULL AND cardinality(subject_key) = 0;
-- The changes without a subject, found by the value they name (was 066). A change that names
-- no subject but a value ("back to 15 GB", "switch to Redis instead") is, across sessions, on
-- the subject of the earlier items whose value it names (archivist_reconcile_state); storing the
-- current state looks those changes up by a value's stems, within a scope
-- (archivist_state_neighbours, archivist_state_anchors): this index holds those changes alone.
CREATE INDEX IF NOT EXISTS jarvis_state_items_anchored_scope_idx
    ON jarvis_state_items USING gin (array_append(value_key, '@' || coalesce(user_id, '')))
    WITH (fastupdate = off)
    WHERE change IN ('replace', 'reverse', 'update') AND cardinality(subject_key) = 0;

-- What a person settled about a conflict (`archivist resolve UID --keep|--drop`; was 060):
-- nothing is deleted, the current state reads these rows.
CREATE TABLE IF NOT EXISTS jarvis_state_resolutions (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    uid         text NOT NULL,
    user_id     text,
    action      text NOT NULL CHECK (action IN ('keep', 'drop')),
    resolved_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS jarvis_state_resolutions_uid_idx ON jarvis_state_resolutions (uid);
