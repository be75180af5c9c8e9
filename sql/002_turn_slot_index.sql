-- archivist 002: turn windows findable by their place in their session.
--
-- A memory search shows the turns around each turn-window hit: the window before it and the
-- window after it in its session (archivist_turn_neighbours, sql/functions/search_context.sql).
-- Without this index each of those lookups reads every chunk of the session through the
-- session index: 20 ms for a search in a session of 2,000 windows, growing with the session.
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_turn_slot_idx
    ON jarvis_memory_chunks (session_id, slot) WHERE source = 'session_turn';
