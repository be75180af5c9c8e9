-- archivist 067: a subject's key leaves out the word that names which side of it is decided.
--
-- "The team offsite is at Lakeview Lodge" and, a day later, "the offsite venue changed to Cedar
-- Ridge Inn" are about one thing, as are "Emma's school pickup is at 3:15" and "pickup time
-- changed to 3:30": the subject_key of an item (archivist_subject_key, sql/functions/
-- current_state.sql) now leaves out time, date, day, venue, location and place when other
-- words are left; whether a value is a time or a thing tells those sides apart
-- (archivist_value_is_time). The rows stored before get the same key here (the same expression:
-- a migration runs before the functions exist); the next init's archivist_refresh_state
-- computes their results anew, as for every change of the rules.
UPDATE jarvis_state_items
SET subject_key = ARRAY(SELECT u.s FROM unnest(subject_key) WITH ORDINALITY u(s, n)
                        WHERE u.s <> ALL (ARRAY['time', 'date', 'day', 'venu', 'locat', 'place'])
                        ORDER BY u.n)
WHERE subject_key && ARRAY['time', 'date', 'day', 'venu', 'locat', 'place']
  AND NOT subject_key <@ ARRAY['time', 'date', 'day', 'venu', 'locat', 'place'];
