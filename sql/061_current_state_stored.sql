-- archivist 061: the current state "now", stored at commit time.
--
-- Reconciling every item of a scope on every read (archivist_reconcile_state, sql/functions/
-- current_state.sql) costs time in the size of the scope. So each row of jarvis_state_items also
-- holds what that reconciliation says of the item now (p_as_of NULL): stopped_at,
-- superseded_by, superseded_by_session, trigger, resolution, conflict_with, in_conflict (the
-- `conflict` column of archivist_state_items; `conflict` here is the session's own flag) and
-- current. They are written in the transaction that changes what they depend on: a commit
-- (archivist_index_state), a forget, a resolution; for the items on the subjects that changed,
-- found through the indexes below. Reads of "now" then read these rows by index;
-- `--as-of` still reconciles. The columns are filled by the next `init` (archivist_refresh_state
-- at the end of sql/functions/current_state.sql), which fills them again whenever the rules
-- change: a migration runs before the functions that define the rules exist.
--
-- id names an item in those computations (the key session_id, uid is two columns). The GIN
-- indexes find the items of a scope that share a stem with an item: each key array gets one
-- more element, '@' and the user id, so a lookup for [stem, '@user'] (@>) is the intersection
-- of two posting lists, whatever the other users hold. They replace the index on subject_key
-- alone, which nothing read.

ALTER TABLE jarvis_state_items
    ADD COLUMN id                    bigint GENERATED ALWAYS AS IDENTITY,
    ADD COLUMN stopped_at            timestamptz,
    ADD COLUMN superseded_by         text,
    ADD COLUMN superseded_by_session text,
    ADD COLUMN trigger               text,
    ADD COLUMN resolution            text,
    ADD COLUMN conflict_with         text[],
    ADD COLUMN in_conflict           boolean,
    ADD COLUMN current               boolean;

CREATE UNIQUE INDEX IF NOT EXISTS jarvis_state_items_id_idx ON jarvis_state_items (id);
-- `state --current`: the newest current items of a user, or of the whole archive.
CREATE INDEX IF NOT EXISTS jarvis_state_items_current_idx
    ON jarvis_state_items (user_id, became_at DESC NULLS LAST, session_id, uid) WHERE current;
CREATE INDEX IF NOT EXISTS jarvis_state_items_current_all_idx
    ON jarvis_state_items (became_at DESC NULLS LAST, session_id, uid) WHERE current;
-- what an item replaced (`supersedes`)
CREATE INDEX IF NOT EXISTS jarvis_state_items_superseded_idx
    ON jarvis_state_items (superseded_by_session, superseded_by) WHERE superseded_by IS NOT NULL;
DROP INDEX IF EXISTS jarvis_state_items_subject_idx;
CREATE INDEX IF NOT EXISTS jarvis_state_items_subject_scope_idx
    ON jarvis_state_items USING gin (array_append(subject_key, '@' || coalesce(user_id, '')));
CREATE INDEX IF NOT EXISTS jarvis_state_items_value_scope_idx
    ON jarvis_state_items USING gin (array_append(value_key, '@' || coalesce(user_id, '')));
-- what a change without a subject replaces: those changes alone
CREATE INDEX IF NOT EXISTS jarvis_state_items_old_scope_idx
    ON jarvis_state_items USING gin (array_append(old_key, '@' || coalesce(user_id, '')))
    WHERE change IS NOT NULL AND cardinality(subject_key) = 0;
