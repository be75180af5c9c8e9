-- archivist 008: the items of its own session an item conflicts with.
--
-- A session's reconciliation flags two of its items that disagree ("I've never used Zotero"
-- and "I just downloaded Zotero"; two choices alike without a change said) as a conflict, but
-- kept no word of which two: `conflicts` could only say "with (its session)", and keeping one
-- side (`resolve --keep`) left the other current and listed. The version's items now name
-- their partners (state_items' conflict_with); this column holds them, so that the current
-- state shows the pair and a resolution of one side settles the other. Rows written before
-- hold none until their session is archived again.
ALTER TABLE jarvis_state_items
    ADD COLUMN IF NOT EXISTS session_conflicts text[] NOT NULL DEFAULT '{}';
