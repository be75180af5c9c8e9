-- archivist 065: standing rules findable by the matter they govern.
--
-- A standing rule ("Always include version numbers when I ask about libraries", "Never round
-- the figures") is a constraint item; its chunk's metadata now says `standing` (chunking.py,
-- state_item_chunks), and a memory search offers the rule its query's words point to
-- (archivist_standing_rule, sql/functions/search_hybrid.sql). Two indexes hold only the rules:
-- by session (how many a scope holds) and by word (those having a query's words), so finding a
-- search's rules reads no other chunk, and of the rules only those with a query word. The rule chunks
-- written before this migration get the mark here (the same test as is_standing_rule in
-- archivist/state/items.py); an unchanged item keeps its chunk, so no run would add it.
UPDATE jarvis_memory_chunks
SET metadata = metadata || '{"standing": true}'
WHERE source = 'state_item'
  AND metadata ->> 'type' = 'constraint'
  AND content ~* '^(please\s+)?(always|never|(don''t|do not) ever)\s+(?!mind\M)\w';

CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_standing_idx ON jarvis_memory_chunks (session_id)
    WHERE source = 'state_item' AND metadata @> '{"standing": true}';
CREATE INDEX IF NOT EXISTS jarvis_memory_chunks_standing_fts_idx ON jarvis_memory_chunks
    USING gin (fts) WHERE source = 'state_item' AND metadata @> '{"standing": true}';
