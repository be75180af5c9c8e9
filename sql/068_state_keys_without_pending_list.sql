-- archivist 068: the state items' key indexes keep no pending list.
--
-- Storing the current state at commit time (archivist_state_neighbours) looks items up through
-- these GIN indexes, dozens of times per commit, and inserts a few entries per item. With GIN's
-- fast update (the default) new entries wait in a pending list that every lookup reads in full
-- until a vacuum, or 4 MB of them, merges it: a run's commits grew slower with every session
-- it stored before autovacuum came round. Without it, 240 sessions of 40 messages spent 4.3 s
-- instead of 14.1 s in archivist_index_state (24 users; 13.0 s instead of 22.5 s all in one
-- scope; scripts/bench/workers.py). The entries already pending are merged here.
SELECT gin_clean_pending_list(i::regclass)
FROM unnest(ARRAY['jarvis_state_items_subject_scope_idx', 'jarvis_state_items_value_scope_idx',
                  'jarvis_state_items_old_scope_idx',
                  'jarvis_state_items_anchored_scope_idx']) i;
ALTER INDEX jarvis_state_items_subject_scope_idx SET (fastupdate = off);
ALTER INDEX jarvis_state_items_value_scope_idx SET (fastupdate = off);
ALTER INDEX jarvis_state_items_old_scope_idx SET (fastupdate = off);
ALTER INDEX jarvis_state_items_anchored_scope_idx SET (fastupdate = off);
