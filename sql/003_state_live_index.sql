-- archivist 003: the items on a subject that are still true, found without the history.
--
-- Storing the current state at commit time (archivist_state_neighbours) looks up the items on
-- each subject of the session's items. It needs the items still true (whom a new item may stop
-- or conflict with), and of the items no longer true only those stopped at or after the new
-- item's time, or said after an item whose stop is being decided. Through the subject index
-- alone each lookup read every item ever said on the subject: a commit cost grew with the
-- scope's history (240 sessions in one scope: 55 ms a commit, 13 s of a 28 s run). These
-- indexes hold the items still true by subject (a partial copy of the subject index), and
-- the items no longer true by scope and time, said or stopped.
CREATE INDEX IF NOT EXISTS jarvis_state_items_subject_live_idx
    ON jarvis_state_items USING gin (array_append(subject_key, '@' || coalesce(user_id, '')))
    WITH (fastupdate = off)
    WHERE stopped_at IS NULL AND type IN ('decision', 'constraint');
CREATE INDEX IF NOT EXISTS jarvis_state_items_stopped_said_idx
    ON jarvis_state_items (('@' || coalesce(user_id, '')), became_at)
    WHERE stopped_at IS NOT NULL AND type IN ('decision', 'constraint');
CREATE INDEX IF NOT EXISTS jarvis_state_items_stopped_at_idx
    ON jarvis_state_items (('@' || coalesce(user_id, '')), stopped_at)
    WHERE stopped_at IS NOT NULL AND current IS NOT NULL AND type IN ('decision', 'constraint');
