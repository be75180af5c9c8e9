-- archivist 005: the items still true by their value, found without the history.
--
-- A change that names what it replaces ("moving the queue from RabbitMQ to SQS") may stop the
-- items that chose that value (archivist_state_neighbours' by_drop). Through the value index
-- alone each such lookup read every item that ever named the value and kept the few still true
-- or stopped since the change: in a scope of 1,000 sessions that name the same tools, 400 rows
-- for one or two, most of a commit's state time. As sql/003 does for subjects, this index holds
-- the items still true by value; those no longer true come by scope and time (sql/003).
CREATE INDEX IF NOT EXISTS jarvis_state_items_value_live_idx
    ON jarvis_state_items USING gin (array_append(value_key, '@' || coalesce(user_id, '')))
    WITH (fastupdate = off)
    WHERE stopped_at IS NULL AND type IN ('decision', 'constraint');
