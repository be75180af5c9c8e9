-- archivist 004: the changes with a subject, by what they replace.
--
-- A change with a subject that names what it replaces ("Datadog for logs instead of Loki") now
-- stops an earlier item without a subject that chose that value ("use Loki"): storing the
-- current state at commit time looks up, for an item without a subject, the later changes of
-- its scope that name its value (archivist_state_neighbours). The index of sql/001 holds only
-- the changes without a subject; this one holds the others.
CREATE INDEX IF NOT EXISTS jarvis_state_items_old_subject_scope_idx
    ON jarvis_state_items USING gin (array_append(old_key, '@' || coalesce(user_id, '')))
    WITH (fastupdate = off)
    WHERE change IS NOT NULL AND cardinality(subject_key) > 0;
