-- archivist 066: the changes without a subject, found by the value they name.
--
-- A change that names no subject but a value ("back to 15 GB", "switch to Redis instead") is,
-- across sessions, on the subject of the earlier items whose value it names
-- (archivist_reconcile_state, sql/functions/current_state.sql). Storing the current state at
-- commit time looks those changes up by a value's stems, within a scope
-- (archivist_state_neighbours, archivist_state_anchors): this index holds those changes alone,
-- keyed like the indexes of sql/061 (the stems and the scope's mark, '@' and the user id).
CREATE INDEX IF NOT EXISTS jarvis_state_items_anchored_scope_idx
    ON jarvis_state_items USING gin (array_append(value_key, '@' || coalesce(user_id, '')))
    WHERE change IN ('replace', 'reverse', 'update') AND cardinality(subject_key) = 0;
