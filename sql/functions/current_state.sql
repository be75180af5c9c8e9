-- The current state of a scope (a user, or the whole archive): the state items of every
-- session's latest version (jarvis_state_items, sql/060), reconciled across sessions in time
-- order. The per-session state (each version's state_items) is left as it is.
--
-- Two items are about the same thing when both are decisions or constraints, of the same user
-- (or both of none), and one's subject_key is contained in the other's ("sessions" and
-- "session cache"; never "job queue" and "session cache"), or when a change names the earlier
-- item's value as what it replaces, one of them without a subject ("we no longer use Jenkins"),
-- or a change without a subject names its subject ("AdGuard Home instead of Pi-hole").
-- An item stops being true when
--   * its own session superseded it (status 'superseded', replaced_by): at its replacement's
--     time, or
--   * a later item of another session on the same subject is a change (change is set:
--     replace, reverse, cancel, update) or says the same value again: at that item's time;
--   * it replaced or dropped a value (a change with `replaces`) and a later session's
--     reversal without a subject goes back to that value: at the reversal's time.
-- Items on the same subject of different sessions that are both still true and disagree (their
-- values differ, no change language) are conflicts, as are items their session flagged; a
-- person settles one with a resolution (jarvis_state_resolutions): 'drop' takes the item out
-- of the current state, 'keep' takes out those it conflicts with. Nothing is deleted.
-- Times are the conversation's (the item's first message), never the archive run's, so
-- p_as_of gives the state as it stood at that time.
--
-- archivist_reconcile_state holds these rules, and nothing else does. What they say of each
-- item now (p_as_of NULL) is also stored on its row (sql/061), written in the transaction that
-- changes what it depends on (a commit, a forget, a resolution) by archivist_store_state, which
-- runs archivist_reconcile_state on the items that change can affect (see there); reads of
-- "now" read those rows, `--as-of` computes. archivist_refresh_state (applied by every init, at
-- the end of this file) computes every stored row anew when these rules' text changed.
-- The functions a commit calls (archivist_reconcile_state, archivist_state_neighbours,
-- archivist_store_results) are PL/pgSQL around one query: PostgreSQL 16 plans a SQL function's
-- query at every call, PL/pgSQL can keep its plan for the connection (archivist_store_state
-- makes it), and a commit calls them several times (120 sessions of one scope: 2.9 s in
-- archivist_index_state, 1.9 s so).

-- A session's items of its new latest version, written by archivist_commit_version; the stored
-- reconciliation of the subjects its old and new items are on follows in the same transaction.
-- An item the new version has with the same uid and the same everything the reconciliation
-- reads keeps its row (and its stored result); only what it shows is rewritten (last_seen_at
-- is read only of an item its session superseded). So a session
-- archived again after a few more messages changes (and recomputes) only what changed.
CREATE OR REPLACE FUNCTION archivist_index_state(
    p_session_id text, p_archive_id uuid, p_user_id text, p_items jsonb
) RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_kept text[];
    v_old  jarvis_state_items[];
    v_new  jarvis_state_items[];
BEGIN
    WITH kept AS (
        UPDATE jarvis_state_items s
        SET archive_id = p_archive_id, text = c.text, subject = c.subject, value = c.value,
            replaces = c.replaces, refs = c.refs, last_seen_at = c.last_seen_at
        FROM archivist_state_item_rows(p_items) c
        WHERE s.session_id = p_session_id AND s.uid = c.uid
          AND (s.user_id, s.type, s.status, s.subject_key, s.value_key, s.change, s.old_key,
               s.replaced_by, s.conflict, s.session_conflicts, s.became_at)
              IS NOT DISTINCT FROM (p_user_id, c.type, c.status, c.subject_key, c.value_key,
                                    c.change, c.old_key, c.replaced_by, c.conflict,
                                    c.session_conflicts, c.became_at)
          -- when it was last said counts only for an item its session superseded
          AND (c.status <> 'superseded' OR s.last_seen_at IS NOT DISTINCT FROM c.last_seen_at)
        RETURNING s.uid
    )
    SELECT coalesce(array_agg(k.uid), '{}') INTO v_kept FROM kept k;
    WITH gone AS (
        DELETE FROM jarvis_state_items s
        WHERE s.session_id = p_session_id AND s.uid <> ALL (v_kept)
        RETURNING s.*
    )
    SELECT array_agg(g::jarvis_state_items) INTO v_old FROM gone g;
    WITH added AS (
        INSERT INTO jarvis_state_items (archive_id, session_id, user_id, uid, type, text, status,
                                        subject, subject_key, value, value_key, change, replaces,
                                        old_key, replaced_by, conflict, session_conflicts, refs,
                                        became_at, last_seen_at)
        SELECT p_archive_id, p_session_id, p_user_id, c.uid, c.type, c.text, c.status,
               c.subject, c.subject_key, c.value, c.value_key, c.change, c.replaces, c.old_key,
               c.replaced_by, c.conflict, c.session_conflicts, c.refs, c.became_at,
               c.last_seen_at
        FROM archivist_state_item_rows(p_items) c
        WHERE c.uid <> ALL (v_kept)
        ON CONFLICT (session_id, uid) DO NOTHING
        RETURNING *
    )
    SELECT array_agg(a::jarvis_state_items) INTO v_new FROM added a;
    PERFORM archivist_store_state(coalesce(v_old, '{}') || coalesce(v_new, '{}'));
END;
$$;

-- A subject's key: the stems of its words, the words that call a value an upper bound (cap,
-- ceiling, max, maximum, quota, limit) one word, but for the words that name which side of it
-- is decided (time, date, day, venue, location, place) when others are left: "offsite venue"
-- and "team offsite" are one subject, "pickup time" and "Emma's school pickup" another,
-- "upload limit" and "max upload count" a third; which side a value gives is told apart by its
-- kind (archivist_value_side). archivist_refresh_state gives stored rows the key of this text;
-- archivist/state/frames.py `subject_key` is the same in Python.
CREATE OR REPLACE FUNCTION archivist_subject_key(p_subject text) RETURNS text[]
LANGUAGE sql IMMUTABLE
AS $$
    SELECT CASE WHEN k <@ sides THEN k
                ELSE ARRAY(SELECT u.s FROM unnest(k) u(s) WHERE u.s <> ALL (sides) ORDER BY 1)
           END
    FROM (SELECT ARRAY(SELECT DISTINCT CASE WHEN w = ANY (ARRAY['cap', 'ceil', 'max', 'maximum',
                                                                'quota'])
                                            THEN 'limit' ELSE w END
                       FROM unnest(tsvector_to_array(to_tsvector('english',
                                                                 coalesce(p_subject, '')))) w
                       ORDER BY 1) AS k,
                 ARRAY['time', 'date', 'day', 'venu', 'locat', 'place'] AS sides) x
$$;

-- A version's state items (extraction.state_items) as rows of jarvis_state_items: the stems of
-- subject, value and what a change replaces (keys), the items of its session it conflicts with
-- (sorted); the first of two with one uid.
-- Its result gained `session_conflicts`; CREATE OR REPLACE cannot change a result, so the
-- function is dropped first (in init's transaction).
DROP FUNCTION IF EXISTS archivist_state_item_rows(jsonb);
CREATE OR REPLACE FUNCTION archivist_state_item_rows(p_items jsonb)
RETURNS TABLE (uid text, type text, text text, status text, subject text, subject_key text[],
               value text, value_key text[], change text, replaces text, old_key text[],
               replaced_by text, conflict boolean, session_conflicts text[], refs jsonb,
               became_at timestamptz, last_seen_at timestamptz)
LANGUAGE sql STABLE
AS $$
    SELECT DISTINCT ON (i ->> 'uid')
           i ->> 'uid', i ->> 'type', i ->> 'text', i ->> 'status', i ->> 'subject',
           archivist_subject_key(i ->> 'subject'),
           i ->> 'value',
           tsvector_to_array(to_tsvector('english', coalesce(i ->> 'value', ''))),
           i ->> 'change', i ->> 'replaces',
           tsvector_to_array(to_tsvector('english', coalesce(i ->> 'replaces', ''))),
           i ->> 'replaced_by', coalesce((i ->> 'conflict')::boolean, false),
           ARRAY(SELECT DISTINCT w FROM jsonb_array_elements_text(
                     CASE WHEN jsonb_typeof(i -> 'conflict_with') = 'array'
                          THEN i -> 'conflict_with' ELSE '[]' END) w ORDER BY 1),
           coalesce(i -> 'refs', '[]'), (i ->> 'created_at')::timestamptz,
           (i ->> 'last_seen_at')::timestamptz
    FROM jsonb_array_elements(coalesce(p_items, '[]')) WITH ORDINALITY AS e(i, n)
    ORDER BY i ->> 'uid', e.n
$$;

-- Whether two keys name the same thing: both non-empty, one within the other.
CREATE OR REPLACE FUNCTION archivist_same_key(a text[], b text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$ SELECT cardinality(a) > 0 AND cardinality(b) > 0 AND (a <@ b OR b <@ a) $$;

-- Which side of its subject a value gives: 'time' (a day, a date, a clock time, a quarter:
-- "Wednesdays", "July 15", "the 17th", "3:30", "Q2", "next week", said first), 'amount' (a sum,
-- a share or a quantity of a unit, said first: "$500", "10k", "12%", "30 min", "up to 150") or
-- 'thing'. On one subject they are sides of it ("the onboarding revamp ships in Q2" and "its
-- owner is Dan"; "the emergency fund target is 10k" and "the emergency fund moved to Ally"):
-- neither replaces nor contradicts the other. A bare number ("10": "standup's now at 10",
-- "batch size: 64") or a thing with an amount in it ("Mint 15 GB") may be any: NULL, which
-- compares equal to all (frames.py `value_side`).
CREATE OR REPLACE FUNCTION archivist_value_side(p_value text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
    SELECT CASE WHEN coalesce(p_value, '') ~* '^(?:(?:at|to|by)\s+)?\d+(?:[.,]\d+)?$' THEN NULL
    WHEN coalesce(p_value, '') ~* ('^(?:(?:on|at|by|in|from|until|the|every|each|other|first'
        || '|second|third|fourth|last)\s+)*(?:'
        || '(?:mon|tues|wednes|thurs|fri|satur|sun)days?\M'
        || '|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d'
        || '|(?:january|february|march|april|june|july|august|september|october|november'
        || '|december)\M|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?'
        || '|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?'
        || '|dec(?:ember)?)\M|\d{1,2}(?:st|nd|rd|th)\M|\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)'
        || '|\d{1,2}:\d{2}\M|q[1-4]\M|\d{4}-\d{2}-\d{2}|noon\M|midnight\M|tomorrow\M'
        || '|tonight\M|today\M|(?:next|this|last)\s+(?:week|month|year|quarter|sprint)\M'
        || '|(?:early|mid|late|end of)\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))')
    THEN 'time'
    WHEN coalesce(p_value, '') ~* ('^(?:(?:up to|under|over|about|around|at most|at least'
        || '|max|min|to|by)\s+)?(?:[$\u20ac\u00a3]\s?\d|\d[\d.,]*[\s-]*(?:%|(?:k|m|bn|(?!(?:st|nd|rd|th)\M)[a-z]{2,})\M))'
        || '|^(?:up to|under|over|about|around|at most|at least|max|min)\s+\d')
    THEN 'amount'
    WHEN coalesce(p_value, '') ~* ('\m(?:[$\u20ac\u00a3]\s?\d|\d[\d.,]*[\s-]*(?:%|(?:k|m|bn|(?!(?:st|nd|rd|th)\M)[a-z]{2,})\M))'
                                   || '|[$\u20ac\u00a3]\s?\d')
    THEN NULL
    ELSE 'thing' END
$$;

-- Every item of the scope known at p_as_of (all when NULL), with what the reconciliation across
-- sessions says of it. superseded_by / superseded_by_session name the item that replaced it
-- (in its session or a later one); stopped_at is when (that item's time); trigger the change
-- that did it. `current` is what a bot should read as true now (or then).
-- archivist_store_state computes a few items at a time (p_as_of NULL): p_ids, the items with
-- those ids (jarvis_state_items.id) alone, p_user_id aside, as if they were the whole scope;
-- p_known, more items beside them whose stop (stopped_at) is taken as stored, not computed,
-- and which are not returned: the items on the same subjects as those computed, whose being
-- still true or not decides conflicts, when the change being stored cannot have changed it.
CREATE OR REPLACE FUNCTION archivist_reconcile_state(
    p_user_id text DEFAULT NULL, p_as_of timestamptz DEFAULT NULL, p_ids bigint[] DEFAULT NULL,
    p_known bigint[] DEFAULT NULL
) RETURNS TABLE (id bigint, session_id text, user_id text, uid text, type text, text text,
                 status text, subject text, value text, change text, refs jsonb,
                 became_at timestamptz, last_seen_at timestamptz, stopped_at timestamptz,
                 superseded_by text, superseded_by_session text, trigger text, resolution text,
                 conflict_with text[], conflict boolean, current boolean)
LANGUAGE plpgsql STABLE
-- The CTEs' filtered row counts are guessed low, and nested loops over them are quadratic:
-- every join here is an equality, so hash joins (1,000 sessions: 0.1 s instead of 30 s).
SET enable_nestloop = off
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    -- Pairs of items on the same subject are found by joining on stems, never by comparing
    -- every item with every other: A's subject is within B's exactly when B has all of A's
    -- stems, so B has A's first stem (keys are sorted); the join on it gives the candidates.
    WITH resolved AS (
        SELECT DISTINCT ON (r.uid, r.user_id) r.uid, r.user_id, r.action, r.resolved_at
        FROM jarvis_state_resolutions r
        WHERE (p_user_id IS NULL OR r.user_id = p_user_id)
        ORDER BY r.uid, r.user_id, r.resolved_at DESC, r.id DESC
    ), scope AS MATERIALIZED (
        SELECT s.id AS rid, s.session_id, s.user_id, s.uid, s.type, s.text, s.status, s.subject,
               s.subject_key, s.value, s.value_key, s.change, s.old_key, s.replaced_by,
               s.conflict, s.session_conflicts, s.refs, s.became_at, s.last_seen_at,
               rs.action AS resolution, rs.resolved_at,
               coalesce(s.user_id, '') AS scope_key, s.known, s.stopped_at AS known_stop,
               archivist_value_side(s.value) AS value_side
        FROM (SELECT a.*, false AS known FROM jarvis_state_items a
              WHERE p_ids IS NULL AND (p_user_id IS NULL OR a.user_id = p_user_id)
                AND (p_as_of IS NULL OR a.became_at IS NULL OR a.became_at <= p_as_of)
              UNION ALL
              SELECT a.*, false FROM jarvis_state_items a WHERE a.id = ANY (p_ids)
              UNION ALL
              SELECT a.*, true FROM jarvis_state_items a
              WHERE a.id = ANY (p_known) AND NOT a.id = ANY (p_ids)) s
        LEFT JOIN resolved rs ON rs.uid = s.uid AND rs.user_id IS NOT DISTINCT FROM s.user_id
    ), chosen AS MATERIALIZED (
        SELECT * FROM scope WHERE type IN ('decision', 'constraint')
    ), subject_stems AS MATERIALIZED (
        SELECT c.rid, c.scope_key, k FROM chosen c, unnest(c.subject_key) k
    ), value_stems AS MATERIALIZED (
        SELECT c.rid, c.scope_key, k FROM chosen c, unnest(c.value_key) k
    ), within AS MATERIALIZED (
        -- (a, b): a's subject is within b's, and one of them an item to decide. A pair is used
        -- only for its first item (related's x), and a known item's result is its stored one:
        -- the pairs of two known items would be most of them (every item on a subject the
        -- decided ones share) and decide nothing. Joined once from each side, so that they
        -- are never made.
        SELECT a.rid AS a, b.rid AS b, a.known AS a_known, b.known AS b_known
        FROM chosen a
        JOIN subject_stems st ON st.k = a.subject_key[1] AND st.scope_key = a.scope_key
        JOIN chosen b ON b.rid = st.rid
        WHERE NOT a.known AND a.rid <> b.rid AND cardinality(a.subject_key) > 0
          AND a.subject_key <@ b.subject_key
        UNION
        SELECT a.rid, b.rid, a.known, b.known
        FROM chosen b
        JOIN subject_stems st ON st.rid = b.rid
        JOIN chosen a ON a.subject_key[1] = st.k AND a.scope_key = b.scope_key
        WHERE NOT b.known AND a.rid <> b.rid AND cardinality(a.subject_key) > 0
          AND a.subject_key <@ b.subject_key
    ), anchored AS MATERIALIZED (
        -- (y, key): y a change without a subject ("back to 15 GB", "switch to Redis instead")
        -- and the subject (key) of an item with y's value said before y in another session.
        -- Looked up in the table, not among the chosen items (they need not be chosen,
        -- whatever their subject), and only for a y said after an item to decide here.
        SELECT DISTINCT y.rid AS y, y.value_key, z.subject_key AS key
        FROM (SELECT * FROM chosen y
              WHERE y.change IN ('replace', 'reverse', 'update')
                AND cardinality(y.subject_key) = 0 AND cardinality(y.value_key) > 0
                AND EXISTS (SELECT 1 FROM chosen x
                            WHERE NOT x.known AND cardinality(x.subject_key) > 0
                              AND (x.became_at, x.session_id) < (y.became_at, y.session_id))
              OFFSET 0) y
        CROSS JOIN LATERAL unnest(y.value_key) v(stem)
        CROSS JOIN LATERAL (
            SELECT z.subject_key FROM jarvis_state_items z
            WHERE array_append(z.value_key, '@' || coalesce(z.user_id, ''))
                      @> ARRAY[v.stem, '@' || y.scope_key]
              AND cardinality(z.subject_key) > 0 AND z.type IN ('decision', 'constraint')
              AND z.session_id <> y.session_id AND z.became_at < y.became_at
              AND (z.value_key <@ y.value_key OR y.value_key <@ z.value_key)
            OFFSET 0) z
    ), related AS MATERIALIZED (
        -- (x, y), x an item to decide: on the same subject; or y a change that replaces x's
        -- value, one of them without a subject ("Datadog for logs instead of Loki" and "use
        -- Loki"; "Keep Redis for the job queue" is no value of "Memcached instead of Redis
        -- for sessions")
        SELECT a AS x, b AS y FROM within WHERE NOT a_known
        UNION
        SELECT b, a FROM within WHERE NOT b_known
        UNION
        -- (any stem of what y replaces: x's value may be within it without its first stem)
        SELECT st.rid, y.rid
        FROM chosen y
        CROSS JOIN LATERAL unnest(y.old_key) o(stem)
        JOIN value_stems st ON st.k = o.stem AND st.scope_key = y.scope_key
        JOIN chosen x ON x.rid = st.rid
        WHERE NOT x.known AND y.change IS NOT NULL
          AND (cardinality(y.subject_key) = 0 OR cardinality(x.subject_key) = 0)
          AND cardinality(y.old_key) > 0 AND x.rid <> y.rid
          AND archivist_same_key(x.value_key, y.old_key)
        UNION
        -- (x, y): y a change without a subject that names x's subject as what it replaces
        -- ("AdGuard Home instead of Pi-hole" stops "Pi-hole: the old Raspberry Pi")
        SELECT st.rid, y.rid
        FROM chosen y
        CROSS JOIN LATERAL unnest(y.old_key) o(stem)
        JOIN subject_stems st ON st.k = o.stem AND st.scope_key = y.scope_key
        JOIN chosen x ON x.rid = st.rid
        WHERE NOT x.known AND y.change IS NOT NULL AND cardinality(y.subject_key) = 0
          AND x.rid <> y.rid AND archivist_same_key(x.subject_key, y.old_key)
        UNION
        -- (x, y): y a reversal without a subject back to the value that x, a change, replaced
        -- or dropped ("switch to Datadog instead of Sentry", then "never mind, keep Sentry";
        -- "dropping towncrier", then "we'll keep towncrier after all")
        SELECT x.rid, y.rid
        FROM chosen x
        CROSS JOIN LATERAL unnest(x.old_key) o(stem)
        JOIN value_stems st ON st.k = o.stem AND st.scope_key = x.scope_key
        JOIN chosen y ON y.rid = st.rid
        WHERE NOT x.known AND x.change IN ('replace', 'cancel', 'update') AND x.rid <> y.rid
          AND y.change = 'reverse' AND cardinality(y.subject_key) = 0
          AND archivist_same_key(x.old_key, y.value_key)
        UNION
        -- y such a change and a key of it (anchored): y replaces the items on that subject
        -- said before it whose value differs from y's. One way only: what y's own stop or
        -- conflicts depend on stays as for any change without a subject (a pair the other way
        -- would tie y to every later item on the subjects of every item with its value).
        SELECT DISTINCT o.rid, a.y FROM anchored a JOIN chosen y ON y.rid = a.y
        JOIN chosen o ON o.scope_key = y.scope_key
        WHERE NOT o.known AND o.rid <> a.y
          AND (o.became_at, o.session_id) < (y.became_at, y.session_id)
          AND cardinality(o.subject_key) > 0
          AND (o.subject_key <@ a.key OR a.key <@ o.subject_key)
          AND NOT (cardinality(o.value_key) > 0
                   AND (o.value_key <@ a.value_key OR a.value_key <@ o.value_key))
    ), later AS MATERIALIZED (
        SELECT DISTINCT ON (r.x) r.x, y.uid, y.session_id, y.became_at,
               coalesce(y.change, 'restated') AS trigger
        FROM related r JOIN chosen x ON x.rid = r.x JOIN chosen y ON y.rid = r.y
        WHERE y.session_id <> x.session_id
          AND (y.became_at, y.session_id) > (x.became_at, x.session_id)
          AND y.resolution IS DISTINCT FROM 'drop'
          AND (y.change IS NOT NULL OR archivist_same_key(x.value_key, y.value_key))
          -- a time, an amount and a thing are sides of one subject (a cancel drops any, and
          -- a change the value it names)
          AND (y.change = 'cancel' OR coalesce(x.value_side = y.value_side, true)
               OR archivist_same_key(x.value_key, y.old_key)
               OR archivist_same_key(x.subject_key, y.old_key))
        ORDER BY r.x, y.became_at, y.session_id, y.uid
    ), live AS MATERIALIZED (
        SELECT x.*, t.own_stop, l.uid AS later_uid, l.session_id AS later_session,
               l.became_at AS later_at, l.trigger AS later_trigger,
               CASE WHEN x.known THEN x.known_stop
                    WHEN t.own_stop IS NOT NULL AND (l.became_at IS NULL
                                                     OR t.own_stop <= l.became_at)
                    THEN t.own_stop ELSE l.became_at END AS stop
        FROM scope x
        LEFT JOIN later l ON l.x = x.rid
        LEFT JOIN scope own ON x.status = 'superseded' AND own.session_id = x.session_id
                           AND own.uid = x.replaced_by
        -- a superseded item whose replacement is not known yet at p_as_of was still true
        CROSS JOIN LATERAL (
            SELECT CASE WHEN own.became_at IS NOT NULL THEN own.became_at
                        WHEN x.status = 'superseded' AND p_as_of IS NULL
                        THEN coalesce(x.last_seen_at, x.became_at) END AS own_stop) t
    ), disagree AS MATERIALIZED (
        -- live items of different sessions on the same subject whose values differ, and how
        -- the pair stands: a resolution settles the disagreements said by the time it was made
        -- (`by_other`: the other item's, `by_self`: this one's; an item without a time counts
        -- as said before); a later statement that disagrees with an item a person kept or
        -- dropped is a disagreement anew. Of two keeps that settle a pair, the later stands.
        SELECT r.x, o.uid, o.session_id, o.became_at, o.resolution,
               o.resolution IS NOT NULL
                   AND NOT coalesce(l.became_at > o.resolved_at, false) AS by_other,
               l.resolution IS NOT NULL
                   AND NOT coalesce(o.became_at > l.resolved_at, false) AS by_self,
               o.resolution = 'keep'
                   AND NOT coalesce(l.became_at > o.resolved_at, false)
                   AND NOT coalesce(l.resolution = 'keep' AND l.resolved_at > o.resolved_at,
                                    false) AS kept_over
        FROM related r JOIN live l ON l.rid = r.x JOIN live o ON o.rid = r.y
        WHERE l.stop IS NULL AND o.stop IS NULL AND o.session_id <> l.session_id
          AND cardinality(l.value_key) > 0 AND cardinality(o.value_key) > 0
          AND NOT archivist_same_key(l.value_key, o.value_key)
          AND coalesce(l.value_side = o.value_side, true)
    ), judged AS (
        -- An item of its session it conflicts with (session_conflicts) that a person kept takes
        -- it out, as one of another session does; the conflict is open while one of them is
        -- neither settled by a person nor kept out so (a row that names none keeps its
        -- session's flag). Its session's rows are read by the primary key.
        SELECT l.*, coalesce(d.uids, '{}') AS conflict_uids,
               coalesce(d.kept_away, false)
               OR (cardinality(l.session_conflicts) > 0
                   AND EXISTS (SELECT 1 FROM resolved r
                               WHERE r.uid = ANY (l.session_conflicts) AND r.action = 'keep'
                                 AND r.user_id IS NOT DISTINCT FROM l.user_id)
                   AND l.resolution IS DISTINCT FROM 'keep') AS kept_away,
               -- (subqueries, not lateral joins: nested loops are off here; and read only for
               -- an item that names a partner)
               CASE WHEN cardinality(l.session_conflicts) = 0 THEN '{}'::text[] ELSE ARRAY(
                   SELECT u FROM unnest(l.session_conflicts) u
                   WHERE NOT EXISTS (SELECT 1 FROM resolved r
                                     WHERE r.uid = u AND r.user_id IS NOT DISTINCT FROM l.user_id)
                     AND NOT EXISTS (SELECT 1 FROM jarvis_state_items y
                                     JOIN resolved r ON r.uid = ANY (y.session_conflicts)
                                                    AND r.user_id IS NOT DISTINCT FROM l.user_id
                                                    AND r.action = 'keep'
                                     WHERE y.session_id = l.session_id AND y.uid = u)
                   ORDER BY 1) END AS partners
        FROM live l
        LEFT JOIN (SELECT d.x,
                          array_agg(d.uid ORDER BY d.became_at DESC, d.session_id, d.uid)
                              FILTER (WHERE NOT d.by_other AND NOT d.by_self
                                        AND d.resolution IS DISTINCT FROM 'drop') AS uids,
                          bool_or(d.kept_over) AS kept_away
                   FROM disagree d GROUP BY d.x) d ON d.x = l.rid
    )
    SELECT j.rid, j.session_id, j.user_id, j.uid, j.type, j.text, j.status, j.subject, j.value,
           j.change, j.refs, j.became_at, j.last_seen_at, j.stop,
           CASE WHEN j.stop IS NULL THEN NULL
                WHEN j.stop = j.own_stop THEN j.replaced_by ELSE j.later_uid END,
           CASE WHEN j.stop IS NULL THEN NULL
                WHEN j.stop = j.own_stop THEN j.session_id ELSE j.later_session END,
           CASE WHEN j.stop IS NULL THEN NULL
                WHEN j.stop = j.own_stop THEN 'in session' ELSE j.later_trigger END,
           j.resolution,
           j.conflict_uids || ARRAY(SELECT u FROM unnest(j.partners) u
                                    WHERE j.stop IS NULL AND u <> ALL (j.conflict_uids)),
           j.stop IS NULL AND j.resolution IS DISTINCT FROM 'drop' AND NOT j.kept_away
               AND ((j.resolution IS NULL AND j.conflict
                     AND (cardinality(j.session_conflicts) = 0 OR cardinality(j.partners) > 0))
                    OR cardinality(j.conflict_uids) > 0),
           j.stop IS NULL AND j.resolution IS DISTINCT FROM 'drop' AND NOT j.kept_away
    FROM judged j
    WHERE NOT j.known;
END;
$$;

-- The neighbours of p_items, each with the item of p_items (its id and time) it is a neighbour
-- of: with p_needed, the items Y that archivist_reconcile_state's `related` pairs with an item X
-- of p_items as (X, Y), those whose rows decide X's result; else the items X it pairs with an
-- item Y of p_items, whose results Y's row decides. Pairs on the same subject go both ways; a
-- change without a subject (Y) is paired with the items whose value it replaces (X). More
-- pairs than `related` has only cost time; one fewer would be a wrong result: every pair that
-- can change a result must be here. On the same subject and by what a change replaces, the
-- pairs whose result cannot change are left out (their items are never read): deciding, Xs
-- that stopped before Y's time; needed, Ys that stopped, for an X whose stored result is true,
-- or said before X (the callers, archivist_store_state and archivist_store_results, need none
-- of them). Through the GIN indexes of sql/001, sql/003 and sql/005: a lookup is one stem and
-- the scope's mark ('@' and the user id). archivist_same_key's test is written out: a call of
-- it costs more than the lookup (its SET search_path, per row).
CREATE OR REPLACE FUNCTION archivist_state_neighbours(
    p_items jarvis_state_items[], p_needed boolean
) RETURNS TABLE (id bigint, of_id bigint, of_at timestamptz, became_at timestamptz,
                 stopped_at timestamptz, current boolean)
LANGUAGE plpgsql STABLE
ROWS 50
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    -- Items of p_items with the same key share their lookups. Each lookup is a LATERAL
    -- subquery kept apart (OFFSET 0), so that it is an index scan per stem: flattened, the
    -- planner guesses unnest's rows low and scans the table instead; and each runs once
    -- (MATERIALIZED: inlined, a join can run it again for every row of its other side). The
    -- neighbour's times come along, so that callers need not read its row again.
    WITH x AS (
        SELECT i.id, i.session_id, i.subject_key, i.value_key, i.old_key, i.became_at,
               '@' || coalesce(i.user_id, '') AS mark,
               -- from when the items on its subject no longer true are needed (NULL: none):
               -- deciding, those stopped at or after its time; needed, those said after it,
               -- unless its stored result is true (then no item unchanged here can stop it,
               -- and those no longer true have no conflicts)
               CASE WHEN NOT p_needed OR i.current IS NULL OR i.stopped_at IS NOT NULL
                    THEN i.became_at END AS since,
               i.change IS NOT NULL AND cardinality(i.old_key) > 0 AS drops,
               i.change IN ('replace', 'reverse', 'update') AND cardinality(i.subject_key) = 0
               AND cardinality(i.value_key) > 0 AS anchored,
               i.change IN ('replace', 'cancel', 'update') AND cardinality(i.old_key) > 0
               AS takes,
               i.change = 'reverse' AND cardinality(i.subject_key) = 0
               AND cardinality(i.value_key) > 0 AS goes_back
        FROM unnest(p_items) i WHERE i.type IN ('decision', 'constraint')
    ), named AS MATERIALIZED (
        -- for a change without a subject: the subjects of the items whose value it names
        SELECT DISTINCT x.id AS of_id, z.subject_key AS key, x.mark, x.since
        FROM x CROSS JOIN LATERAL unnest(x.value_key) k
        CROSS JOIN LATERAL (
            SELECT y.subject_key FROM jarvis_state_items y
            WHERE array_append(y.value_key, '@' || coalesce(y.user_id, '')) @> ARRAY[k, x.mark]
              AND cardinality(y.subject_key) > 0
              AND y.type IN ('decision', 'constraint')
              AND (x.value_key <@ y.value_key OR y.value_key <@ x.value_key)
            OFFSET 0) z
        WHERE x.anchored AND NOT p_needed
    ), subjects AS MATERIALIZED (
        -- one subject within the other; and, deciding, the subjects named (named_of) and
        -- those a change without a subject names as what it replaces; with the earliest
        -- `since` of the items looking it up
        SELECT q.key, q.mark, min(q.since) AS since
        FROM (SELECT x.subject_key AS key, x.mark, x.since FROM x
              UNION ALL
              SELECT q.key, q.mark, q.since FROM named q
              UNION ALL
              SELECT x.old_key, x.mark, x.since FROM x
              WHERE NOT p_needed AND x.drops AND cardinality(x.subject_key) = 0) q
        GROUP BY q.key, q.mark
    ), by_subject AS (
        -- The items on a subject still true, through the index of those alone; the others
        -- from `since` on, through the indexes by scope and time (sql/003): deciding, those
        -- stopped since then, needed, those said since then, each a range of its own index
        -- (the stop's index holds the items with a result: a stop is written with its result,
        -- so `current IS NOT NULL` only says which index). A commit in time order needs few of
        -- them, whatever the length of the subject's history.
        SELECT DISTINCT q.key, q.mark, n.*
        FROM subjects q CROSS JOIN LATERAL unnest(q.key) k
        CROSS JOIN LATERAL (
            SELECT y.id, y.became_at, y.stopped_at, y.current FROM jarvis_state_items y
            WHERE array_append(y.subject_key, '@' || coalesce(y.user_id, ''))
                      @> ARRAY[k, q.mark]
              AND y.stopped_at IS NULL AND y.type IN ('decision', 'constraint')
              AND (q.key <@ y.subject_key OR y.subject_key <@ q.key)
            OFFSET 0) n
        UNION
        SELECT q.key, q.mark, n.*
        FROM subjects q
        CROSS JOIN LATERAL (
            SELECT y.id, y.became_at, y.stopped_at, y.current FROM jarvis_state_items y
            WHERE '@' || coalesce(y.user_id, '') = q.mark AND y.stopped_at >= q.since
              AND y.stopped_at IS NOT NULL AND y.current IS NOT NULL
              AND y.type IN ('decision', 'constraint')
              AND cardinality(y.subject_key) > 0
              AND (q.key <@ y.subject_key OR y.subject_key <@ q.key)
            OFFSET 0) n
        WHERE NOT p_needed AND q.since IS NOT NULL AND cardinality(q.key) > 0
        UNION
        SELECT q.key, q.mark, n.*
        FROM subjects q
        CROSS JOIN LATERAL (
            SELECT y.id, y.became_at, y.stopped_at, y.current FROM jarvis_state_items y
            WHERE '@' || coalesce(y.user_id, '') = q.mark AND y.became_at >= q.since
              AND y.stopped_at IS NOT NULL AND y.type IN ('decision', 'constraint')
              AND cardinality(y.subject_key) > 0
              AND (q.key <@ y.subject_key OR y.subject_key <@ q.key)
            OFFSET 0) n
        WHERE p_needed AND q.since IS NOT NULL AND cardinality(q.key) > 0
    ), values_ AS (
        -- needed: y a change without a subject that replaces x's value or names x's subject,
        -- and for x without a subject, y a change with one that replaces x's value; as on a
        -- subject, those still true and those said since `since`
        SELECT q.key, q.mark, q.bare, min(q.since) AS since
        FROM (SELECT x.value_key AS key, x.mark, cardinality(x.subject_key) = 0 AS bare,
                     x.since
              FROM x WHERE p_needed
              UNION ALL
              SELECT x.subject_key, x.mark, false, x.since FROM x
              WHERE p_needed AND cardinality(x.subject_key) > 0) q
        GROUP BY q.key, q.mark, q.bare
    ), by_value AS MATERIALIZED (
        -- (two lookups, one per partial index of what changes replace: those without a
        -- subject, sql/001, and those with one, sql/004; an OR of the two reads neither)
        SELECT DISTINCT q.key, q.mark, n.*
        FROM values_ q CROSS JOIN LATERAL unnest(q.key) k
        CROSS JOIN LATERAL (
            SELECT y.id, y.became_at, y.stopped_at, y.current FROM jarvis_state_items y
            WHERE array_append(y.old_key, '@' || coalesce(y.user_id, '')) @> ARRAY[k, q.mark]
              AND y.change IS NOT NULL AND cardinality(y.subject_key) = 0
              AND y.type IN ('decision', 'constraint')
              AND (q.key <@ y.old_key OR y.old_key <@ q.key)
              AND (y.stopped_at IS NULL OR y.became_at >= q.since)
            OFFSET 0) n
        UNION
        SELECT DISTINCT q.key, q.mark, n.*
        FROM values_ q CROSS JOIN LATERAL unnest(q.key) k
        CROSS JOIN LATERAL (
            SELECT y.id, y.became_at, y.stopped_at, y.current FROM jarvis_state_items y
            WHERE array_append(y.old_key, '@' || coalesce(y.user_id, '')) @> ARRAY[k, q.mark]
              AND y.change IS NOT NULL AND cardinality(y.subject_key) > 0
              AND y.type IN ('decision', 'constraint')
              AND (q.key <@ y.old_key OR y.old_key <@ q.key)
              AND (y.stopped_at IS NULL OR y.became_at >= q.since)
            OFFSET 0) n
        WHERE q.bare
    ), drops AS (
        -- deciding: x a change, y an item whose value it replaces (for x with a subject, y
        -- one without; for x without, also y whose subject it names); as on a subject, those
        -- still true and those stopped since `since`
        SELECT x.old_key AS key, x.mark, cardinality(x.subject_key) > 0 AS bare_only,
               min(x.since) AS since
        FROM x WHERE NOT p_needed AND x.drops
        GROUP BY x.old_key, x.mark, cardinality(x.subject_key) > 0
    ), by_drop AS MATERIALIZED (
        -- (as by_subject, by value: those still true through sql/005's index)
        SELECT DISTINCT q.key, q.mark, q.bare_only, n.*
        FROM drops q CROSS JOIN LATERAL unnest(q.key) k
        CROSS JOIN LATERAL (
            SELECT y.id, y.became_at, y.stopped_at, y.current FROM jarvis_state_items y
            WHERE array_append(y.value_key, '@' || coalesce(y.user_id, ''))
                      @> ARRAY[k, q.mark]
              AND y.stopped_at IS NULL AND y.type IN ('decision', 'constraint')
              AND (NOT q.bare_only OR cardinality(y.subject_key) = 0)
              AND (q.key <@ y.value_key OR y.value_key <@ q.key)
            OFFSET 0) n
        UNION
        SELECT q.key, q.mark, q.bare_only, n.*
        FROM drops q
        CROSS JOIN LATERAL (
            SELECT y.id, y.became_at, y.stopped_at, y.current FROM jarvis_state_items y
            WHERE '@' || coalesce(y.user_id, '') = q.mark AND y.stopped_at >= q.since
              AND y.stopped_at IS NOT NULL AND y.current IS NOT NULL
              AND y.type IN ('decision', 'constraint')
              AND (NOT q.bare_only OR cardinality(y.subject_key) = 0)
              AND cardinality(y.value_key) > 0
              AND (q.key <@ y.value_key OR y.value_key <@ q.key)
            OFFSET 0) n
    ), anchors AS (
        -- Pairs (X, Y) through a key (archivist_reconcile_state's anchored, related's last): Y
        -- a change without a subject, Z an earlier item with a subject whose value Y names, X
        -- an item on Z's subject said before Y. Needed, for X: every such change of its scope
        -- said after it (Z is looked up in the table, whatever items are known). Deciding,
        -- for a change Y: the items on the subjects of the items whose value it names (named);
        -- for an item Z with a subject and a value, inserted or gone: the items on its subject,
        -- each paired with the later changes Y naming its value (at Y's time: Y stopped those
        -- it stopped through Z then).
        SELECT q.mark, n.*
        FROM (SELECT DISTINCT x.mark FROM x WHERE p_needed AND cardinality(x.subject_key) > 0) q
        CROSS JOIN LATERAL (
            SELECT y.id, y.became_at, y.stopped_at, y.current FROM jarvis_state_items y
            WHERE array_append(y.value_key, '@' || coalesce(y.user_id, '')) @> ARRAY[q.mark]
              AND y.change IN ('replace', 'reverse', 'update')
              AND cardinality(y.subject_key) = 0
              AND y.type IN ('decision', 'constraint')
            OFFSET 0) n
    ), anchor_values AS (
        SELECT DISTINCT x.value_key AS key, x.mark FROM x
        WHERE NOT p_needed AND cardinality(x.subject_key) > 0 AND cardinality(x.value_key) > 0
    ), by_anchor AS MATERIALIZED (
        SELECT DISTINCT q.key, q.mark, n.*
        FROM anchor_values q CROSS JOIN LATERAL unnest(q.key) k
        CROSS JOIN LATERAL (
            SELECT y.id, y.session_id, y.became_at, y.stopped_at, y.current
            FROM jarvis_state_items y
            WHERE array_append(y.value_key, '@' || coalesce(y.user_id, '')) @> ARRAY[k, q.mark]
              AND y.change IN ('replace', 'reverse', 'update')
              AND cardinality(y.subject_key) = 0
              AND y.type IN ('decision', 'constraint')
              AND (q.key <@ y.value_key OR y.value_key <@ q.key)
            OFFSET 0) n
    ), by_back AS MATERIALIZED (
        -- needed, X a change that replaced or dropped a value: the reversals without a subject
        -- back to it (related's reversal pairs)
        SELECT DISTINCT q.key, q.mark, n.*
        FROM (SELECT DISTINCT x.old_key AS key, x.mark FROM x WHERE p_needed AND x.takes) q
        CROSS JOIN LATERAL unnest(q.key) k
        CROSS JOIN LATERAL (
            SELECT y.id, y.became_at, y.stopped_at, y.current FROM jarvis_state_items y
            WHERE array_append(y.value_key, '@' || coalesce(y.user_id, '')) @> ARRAY[k, q.mark]
              AND y.change = 'reverse' AND cardinality(y.subject_key) = 0
              AND y.type IN ('decision', 'constraint')
              AND (q.key <@ y.value_key OR y.value_key <@ q.key)
            OFFSET 0) n
    ), by_taken AS MATERIALIZED (
        -- deciding, X such a reversal: the changes that replaced or dropped its value
        SELECT DISTINCT q.key, q.mark, n.*
        FROM (SELECT DISTINCT x.value_key AS key, x.mark FROM x
              WHERE NOT p_needed AND x.goes_back) q
        CROSS JOIN LATERAL unnest(q.key) k
        CROSS JOIN LATERAL (
            SELECT y.id, y.became_at, y.stopped_at, y.current FROM jarvis_state_items y
            WHERE array_append(y.old_key, '@' || coalesce(y.user_id, '')) @> ARRAY[k, q.mark]
              AND y.change IN ('replace', 'cancel', 'update')
              AND y.type IN ('decision', 'constraint')
              AND (q.key <@ y.old_key OR y.old_key <@ q.key)
            OFFSET 0) n
    ), named_of AS (
        SELECT DISTINCT q.of_id, n.id, n.became_at, n.stopped_at, n.current
        FROM named q JOIN by_subject n ON n.key = q.key AND n.mark = q.mark
    )
    SELECT n.id, x.id, x.became_at, n.became_at, n.stopped_at, n.current
    FROM x JOIN by_subject n ON n.key = x.subject_key AND n.mark = x.mark
    UNION ALL
    -- needed: the changes of X's scope after it that may have X's subject as their key
    SELECT a.id, x.id, x.became_at, a.became_at, a.stopped_at, a.current
    FROM x JOIN anchors a ON a.mark = x.mark
    WHERE cardinality(x.subject_key) > 0 AND a.became_at > x.became_at
    UNION ALL
    SELECT n.id, n.of_id, o.became_at, n.became_at, n.stopped_at, n.current
    FROM named_of n JOIN x o ON o.id = n.of_id
    UNION ALL
    -- deciding, X an anchor of changes Y: the items on its subject, paired with each Y through
    -- it (whether one is decided by Y is a matter of Y's time)
    SELECT n.id, x.id, b.became_at, n.became_at, n.stopped_at, n.current
    FROM x JOIN by_anchor b ON b.key = x.value_key AND b.mark = x.mark
    JOIN by_subject n ON n.key = x.subject_key AND n.mark = x.mark
    WHERE NOT p_needed AND cardinality(x.subject_key) > 0
      AND b.became_at > x.became_at AND b.session_id <> x.session_id
    UNION ALL
    SELECT n.id, x.id, x.became_at, n.became_at, n.stopped_at, n.current
    FROM x JOIN by_value n ON n.mark = x.mark AND n.key IN (x.value_key, x.subject_key)
    UNION ALL
    SELECT n.id, x.id, x.became_at, n.became_at, n.stopped_at, n.current
    FROM x JOIN by_subject n ON n.key = x.old_key AND n.mark = x.mark
    WHERE NOT p_needed AND x.drops AND cardinality(x.subject_key) = 0
    UNION ALL
    SELECT n.id, x.id, x.became_at, n.became_at, n.stopped_at, n.current
    FROM x JOIN by_drop n ON n.key = x.old_key AND n.mark = x.mark
                         AND n.bare_only = (cardinality(x.subject_key) > 0)
    WHERE x.drops
    UNION ALL
    SELECT n.id, x.id, x.became_at, n.became_at, n.stopped_at, n.current
    FROM x JOIN by_back n ON n.key = x.old_key AND n.mark = x.mark WHERE x.takes
    UNION ALL
    SELECT n.id, x.id, x.became_at, n.became_at, n.stopped_at, n.current
    FROM x JOIN by_taken n ON n.key = x.value_key AND n.mark = x.mark WHERE x.goes_back
    UNION ALL
    -- deciding, any item: the items of its session it conflicts with (a resolution of it
    -- keeps them out, or settles their conflict), and theirs (whose conflict is with an item
    -- now kept out); by the primary key
    SELECT y.id, i.id, i.became_at, y.became_at, y.stopped_at, y.current
    FROM unnest(p_items) i
    JOIN jarvis_state_items y ON y.session_id = i.session_id AND y.uid = ANY (i.session_conflicts)
    WHERE NOT p_needed
    UNION ALL
    SELECT z.id, i.id, i.became_at, z.became_at, z.stopped_at, z.current
    FROM unnest(p_items) i
    JOIN jarvis_state_items y ON y.session_id = i.session_id AND y.uid = ANY (i.session_conflicts)
    JOIN jarvis_state_items z ON z.session_id = y.session_id AND z.uid = ANY (y.session_conflicts)
    WHERE NOT p_needed AND z.uid <> i.uid;
END;
$$;

-- Stores what archivist_reconcile_state says now of every item whose result p_changed can have
-- changed: the items inserted, deleted (their rows as they were) or resolved. Rows whose result
-- is unchanged are not written. Returns the number of rows written.
--
-- What an item X's result depends on, by the rules: its own row and resolution; the rows of
-- the items it is paired with (archivist_state_neighbours, needed): those later than X decide
-- whether and when it stopped (the first that may), and, while X is true, those still true are
-- whom it conflicts with; and the item of its session that replaced it. Whether an item is true
-- (its stop) never depends on whether others are. So a change to an item Y (inserted, deleted,
-- resolved) can change the result of
--   * Y, and each X that Y's row decides, if X is still true, or said before Y and stopped at
--     or after Y's time (Y could be, or was, what stopped it; one stopped before Y's time, or
--     said after Y, keeps its stop, and a stopped item has no conflicts);
--   * where one of those stopped or became true again: each X still true that its row decides
--     (their conflicts). Their stops stand: nothing goes further.
-- Each is computed anew (archivist_store_results) over what decides it. This reasoning is about
-- the rules of archivist_reconcile_state: a change of those rules must keep it true or change
-- it (tests/db/test_current_state_stored.py compares stored and computed rows after random changes).
-- One scope at a time: a commit holds its scope's lock until it ends, so the next one to store
-- in that scope reads its items (a read committed transaction reads anew after the lock).
-- Every read here, the functions it calls included, is a few rows by id or by a key's index:
-- never a scan of the table. The planner can think otherwise when the table's statistics say
-- it is small (analyzed early, or when it was emptied), and then scanned it once per lookup:
-- 240 commits stored their state in 34 s instead of 6 s, and runs of 480 went from 8 to 24 s
-- without a visible cause. With scans priced out, 4 s, whatever the statistics.
-- Its queries and those of the functions it calls keep one generic plan per connection: left to
-- choose, PL/pgSQL planned them anew at every call (a custom plan for the items at hand), which
-- took longer than running them (4-6 ms a lookup). 1,000 sessions of one scope: 32 ms a
-- commit in this function at the end of the run before, 16 ms so (with the indexes of sql/005).
CREATE OR REPLACE FUNCTION archivist_store_state(p_changed jarvis_state_items[])
RETURNS integer
LANGUAGE plpgsql
SET enable_seqscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_scope   text;
    v_todo    bigint[];
    v_done    bigint[] := '{}';
    v_changed bigint[];
    v_written integer := 0;
    v_n       integer;
BEGIN
    IF coalesce(cardinality(p_changed), 0) = 0 THEN
        RETURN 0;
    END IF;
    PERFORM pg_advisory_xact_lock_shared(hashtextextended('archivist:state', 0));
    FOR v_scope IN SELECT DISTINCT coalesce(i.user_id, '') FROM unnest(p_changed) i ORDER BY 1
    LOOP
        PERFORM pg_advisory_xact_lock(hashtextextended('archivist:state:' || v_scope, 0));
    END LOOP;
    v_todo := ARRAY(SELECT s.id FROM jarvis_state_items s
                    WHERE s.id = ANY (ARRAY(SELECT i.id FROM unnest(p_changed) i))
                    UNION
                    SELECT n.id FROM archivist_state_neighbours(p_changed, false) n
                    WHERE n.current IS NULL OR n.stopped_at IS NULL
                       OR (n.became_at <= n.of_at AND n.stopped_at >= n.of_at));
    -- (a third pass finds nothing to do; were that wrong, it would go on until it did)
    WHILE cardinality(v_todo) > 0 LOOP
        SELECT s.written, s.changed INTO v_n, v_changed
        FROM archivist_store_results(v_todo, p_changed) s;
        v_written := v_written + v_n;
        v_done := v_done || v_todo;
        v_todo := ARRAY(SELECT n.id
                        FROM archivist_state_neighbours(ARRAY(
                                 SELECT s FROM jarvis_state_items s
                                 WHERE s.id = ANY (v_changed)), false) n
                        WHERE n.current IS NULL OR n.stopped_at IS NULL
                        EXCEPT SELECT unnest(v_done));
    END LOOP;
    RETURN v_written;
END;
$$;

-- archivist_store_state's step: the results of the items p_ids computed and written where they
-- differ. Beside them, with their stops as stored: what decides each X of them, the items it
-- needs that are later than X and (if X has stopped, and what stopped it is not one of
-- p_changed) not later than its stop, those still true (if X is, or may become so), and the
-- item of X's session that replaced it. Returns how many rows were written, and the ids of
-- those whose stop changed (stopped, or true again). The ids are looked up one by one
-- (= ANY (p_ids)): a join would read the whole table.
CREATE OR REPLACE FUNCTION archivist_store_results(
    p_ids bigint[], p_changed jarvis_state_items[]
) RETURNS TABLE (written integer, changed bigint[])
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH anchors AS MATERIALIZED (
        -- the changed items that may have been anchors, and are gone: with a subject and a
        -- value (a new anchor only adds pairs, which stop an item sooner if at all)
        SELECT c.value_key, c.became_at, c.session_id FROM unnest(p_changed) c
        WHERE cardinality(c.subject_key) > 0 AND cardinality(c.value_key) > 0
          AND c.type IN ('decision', 'constraint')
          AND NOT EXISTS (SELECT 1 FROM jarvis_state_items s WHERE s.id = c.id)
    ), todo AS MATERIALIZED (
        SELECT x.*, x.current IS NULL OR x.stopped_at IS NULL
                    OR EXISTS (SELECT 1 FROM unnest(p_changed) c
                               WHERE c.session_id = x.superseded_by_session
                                 AND c.uid = x.superseded_by)
                    -- stopped by a change without a subject, W, through an anchor said
                    -- before it in another session: that pair goes with the anchor, maybe gone
                    OR EXISTS (SELECT 1 FROM jarvis_state_items w, anchors c
                               WHERE w.session_id = x.superseded_by_session
                                 AND w.uid = x.superseded_by
                                 AND w.became_at > c.became_at AND w.session_id <> c.session_id
                                 AND w.change IN ('replace', 'reverse', 'update')
                                 AND cardinality(w.subject_key) = 0
                                 AND archivist_same_key(c.value_key, w.value_key)) AS open
        FROM jarvis_state_items x WHERE x.id = ANY (p_ids)
    ), known AS (
        SELECT n.id
        FROM archivist_state_neighbours(ARRAY(SELECT s FROM jarvis_state_items s
                                              WHERE s.id = ANY (p_ids)), true) n
        JOIN todo x ON x.id = n.of_id
        WHERE (n.became_at >= x.became_at AND (x.open OR n.became_at <= x.stopped_at))
           OR (x.open AND (n.current IS NULL OR n.stopped_at IS NULL))
        UNION
        SELECT o.id
        FROM todo x
        JOIN jarvis_state_items o ON o.session_id = x.session_id AND o.uid = x.replaced_by
        WHERE x.status = 'superseded'
    ), r AS MATERIALIZED (
        SELECT * FROM archivist_reconcile_state(NULL, NULL, p_ids, ARRAY(SELECT id FROM known))
    ), diff AS MATERIALIZED (
        -- (a new item's neighbours that it could change were all in p_ids already)
        SELECT r.*, s.current IS NOT NULL AND (s.stopped_at IS NULL) <> (r.stopped_at IS NULL)
                    AS stop_changed
        FROM r JOIN jarvis_state_items s ON s.id = r.id AND s.id = ANY (p_ids)
        WHERE (s.stopped_at, s.superseded_by, s.superseded_by_session, s.trigger, s.resolution,
               s.conflict_with, s.in_conflict, s.current)
              IS DISTINCT FROM (r.stopped_at, r.superseded_by, r.superseded_by_session,
                                r.trigger, r.resolution, r.conflict_with, r.conflict, r.current)
    ), written AS (
        UPDATE jarvis_state_items s
        SET stopped_at = d.stopped_at, superseded_by = d.superseded_by,
            superseded_by_session = d.superseded_by_session, trigger = d.trigger,
            resolution = d.resolution, conflict_with = d.conflict_with,
            in_conflict = d.conflict, current = d.current
        FROM diff d WHERE s.id = d.id AND s.id = ANY (p_ids)
        RETURNING s.id
    )
    SELECT (SELECT count(*)::integer FROM written),
           ARRAY(SELECT d.id FROM diff d WHERE d.stop_changed);
END;
$$;

-- Every stored result computed anew, for the whole archive, when the rules, or the functions
-- that store their results, changed since the results were stored (their text differs from
-- what archivist_meta records under state_rules: after an upgrade, sql/061 included) or a row
-- has none; else nothing. Applied by every init, below. Returns the number of rows written.
CREATE OR REPLACE FUNCTION archivist_refresh_state(p_force boolean DEFAULT false)
RETURNS integer
LANGUAGE plpgsql
AS $$
DECLARE
    v_rules   text;
    v_written integer;
BEGIN
    SELECT md5(string_agg(p.prosrc, E'\n' ORDER BY p.proname)) INTO v_rules
    FROM pg_proc p
    WHERE p.pronamespace = current_schema()::regnamespace
      AND p.proname IN ('archivist_reconcile_state', 'archivist_same_key',
                        'archivist_value_side', 'archivist_subject_key',
                        'archivist_state_neighbours', 'archivist_store_state',
                        'archivist_store_results', 'archivist_index_state',
                        'archivist_state_item_rows');
    IF NOT coalesce(p_force, false)
       AND v_rules = (SELECT m.value FROM archivist_meta m WHERE m.key = 'state_rules')
       AND NOT EXISTS (SELECT 1 FROM jarvis_state_items s WHERE s.current IS NULL) THEN
        RETURN 0;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('archivist:state', 0));
    -- rows keyed by an older archivist_subject_key get this one's key first
    UPDATE jarvis_state_items s SET subject_key = archivist_subject_key(s.subject)
    WHERE s.subject_key IS DISTINCT FROM archivist_subject_key(s.subject);
    UPDATE jarvis_state_items s
    SET stopped_at = r.stopped_at, superseded_by = r.superseded_by,
        superseded_by_session = r.superseded_by_session, trigger = r.trigger,
        resolution = r.resolution, conflict_with = r.conflict_with, in_conflict = r.conflict,
        current = r.current
    FROM archivist_reconcile_state(NULL, NULL, NULL) r
    WHERE s.id = r.id
      AND (s.stopped_at, s.superseded_by, s.superseded_by_session, s.trigger, s.resolution,
           s.conflict_with, s.in_conflict, s.current)
          IS DISTINCT FROM (r.stopped_at, r.superseded_by, r.superseded_by_session, r.trigger,
                            r.resolution, r.conflict_with, r.conflict, r.current);
    GET DIAGNOSTICS v_written = ROW_COUNT;
    INSERT INTO archivist_meta (key, value) VALUES ('state_rules', v_rules)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now();
    RETURN v_written;
END;
$$;

-- Every item of the scope known at p_as_of (all when NULL), with what the reconciliation across
-- sessions says of it (archivist_reconcile_state): now, the stored results; at p_as_of,
-- computed.
CREATE OR REPLACE FUNCTION archivist_state_items(
    p_user_id text DEFAULT NULL, p_as_of timestamptz DEFAULT NULL
) RETURNS TABLE (session_id text, user_id text, uid text, type text, text text, status text,
                 subject text, value text, change text, refs jsonb, became_at timestamptz,
                 last_seen_at timestamptz, stopped_at timestamptz, superseded_by text,
                 superseded_by_session text, trigger text, resolution text,
                 conflict_with text[], conflict boolean, current boolean)
LANGUAGE plpgsql STABLE
-- (the reconciliation planned for these arguments: the generic plan a connection switches to
-- after five calls reads a scope 1.5-1.8 times slower; a commit keeps its plans, see there)
SET plan_cache_mode = force_custom_plan
AS $$
#variable_conflict use_column
BEGIN
    IF p_as_of IS NOT NULL THEN
        RETURN QUERY
        SELECT r.session_id, r.user_id, r.uid, r.type, r.text, r.status, r.subject, r.value,
               r.change, r.refs, r.became_at, r.last_seen_at, r.stopped_at, r.superseded_by,
               r.superseded_by_session, r.trigger, r.resolution, r.conflict_with, r.conflict,
               r.current
        FROM archivist_reconcile_state(p_user_id, p_as_of) r;
    ELSIF p_user_id IS NULL THEN
        RETURN QUERY
        SELECT s.session_id, s.user_id, s.uid, s.type, s.text, s.status, s.subject, s.value,
               s.change, s.refs, s.became_at, s.last_seen_at, s.stopped_at, s.superseded_by,
               s.superseded_by_session, s.trigger, s.resolution, s.conflict_with,
               s.in_conflict, s.current
        FROM jarvis_state_items s;
    ELSE
        RETURN QUERY
        SELECT s.session_id, s.user_id, s.uid, s.type, s.text, s.status, s.subject, s.value,
               s.change, s.refs, s.became_at, s.last_seen_at, s.stopped_at, s.superseded_by,
               s.superseded_by_session, s.trigger, s.resolution, s.conflict_with,
               s.in_conflict, s.current
        FROM jarvis_state_items s WHERE s.user_id = p_user_id;
    END IF;
END;
$$;

-- The items as readers get them: a JSON object each, with the items it replaced (`supersedes`:
-- the other direction of the superseded_by link), at most p_limit (1 to 1000) of them.
-- Without p_subject: the current items, newest first. With it: every item on that subject (its
-- words, or an entity key such as "tool:redis" naming the value), current or not, oldest first:
-- how the subject changed over time. p_conflicts: the items in conflict, newest first.
-- The current items now (no p_as_of, p_subject or p_conflicts) are read from the stored
-- results through jarvis_state_items_current_idx (a user) or _current_all_idx (the archive),
-- in the order the general query gives them; each call is planned for its own p_user_id.
CREATE OR REPLACE FUNCTION archivist_current_state(
    p_user_id   text DEFAULT NULL,
    p_as_of     timestamptz DEFAULT NULL,
    p_subject   text DEFAULT NULL,
    p_limit     integer DEFAULT 200,
    p_conflicts boolean DEFAULT false
) RETURNS jsonb
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    v_limit integer := least(greatest(coalesce(p_limit, 200), 1), 1000);
BEGIN
    IF p_as_of IS NULL AND p_subject IS NULL AND NOT coalesce(p_conflicts, false) THEN
        -- built as json (text), which is quicker to build than jsonb, then read as jsonb once
        RETURN json_build_object(
            'user_id', p_user_id, 'as_of', p_as_of, 'subject', p_subject,
            'total', (SELECT count(*) FROM jarvis_state_items i
                      WHERE i.current AND (p_user_id IS NULL OR i.user_id = p_user_id)),
            'items', coalesce((
                SELECT json_agg(s ORDER BY s.became_at DESC NULLS LAST, s.session_id, s.uid)
                FROM (SELECT i.session_id, i.user_id, i.uid, i.type, i.text, i.status,
                             i.subject, i.value, i.change, i.refs, i.became_at, i.last_seen_at,
                             i.stopped_at, i.superseded_by, i.superseded_by_session, i.trigger,
                             i.resolution, i.conflict_with, i.in_conflict AS conflict,
                             i.current,
                             ARRAY(SELECT o.uid FROM jarvis_state_items o
                                   WHERE o.superseded_by = i.uid
                                     AND o.superseded_by_session = i.session_id
                                     AND (p_user_id IS NULL OR o.user_id = p_user_id)
                                   ORDER BY o.became_at) AS supersedes
                      FROM jarvis_state_items i
                      WHERE i.current AND (p_user_id IS NULL OR i.user_id = p_user_id)
                      ORDER BY i.became_at DESC NULLS LAST, i.session_id, i.uid
                      LIMIT v_limit) s), '[]'))::jsonb;
    END IF;
    RETURN (
        WITH items AS MATERIALIZED (
            SELECT * FROM archivist_state_items(p_user_id, p_as_of)
        ), q AS (
            SELECT tsvector_to_array(to_tsvector('english',
                       regexp_replace(coalesce(p_subject, ''), '^[a-z_]+:', ''))) AS key
        ), chosen AS (
            SELECT i.*, count(*) OVER () AS total,
                   row_number() OVER (ORDER BY
                       CASE WHEN p_subject IS NULL THEN -extract(epoch FROM i.became_at)
                            ELSE extract(epoch FROM i.became_at) END, i.session_id, i.uid) AS n
            FROM items i, q
            WHERE CASE WHEN p_conflicts THEN i.conflict
                       WHEN p_subject IS NULL THEN i.current
                       ELSE i.type IN ('decision', 'constraint')
                            AND (archivist_same_key(q.key, tsvector_to_array(
                                     to_tsvector('english', coalesce(i.subject, ''))))
                                 OR archivist_same_key(q.key, tsvector_to_array(
                                     to_tsvector('english', coalesce(i.value, ''))))) END
        ), shown AS (
            SELECT c.* FROM chosen c WHERE c.n <= v_limit
        ), replaced AS (
            SELECT o.superseded_by AS uid, o.superseded_by_session AS session_id,
                   jsonb_agg(o.uid ORDER BY o.became_at) AS uids
            FROM items o WHERE o.superseded_by IS NOT NULL
            GROUP BY o.superseded_by, o.superseded_by_session
        )
        SELECT jsonb_build_object(
            'user_id', p_user_id, 'as_of', p_as_of, 'subject', p_subject,
            'total', coalesce((SELECT max(total) FROM chosen), 0),
            'items', coalesce((
                SELECT jsonb_agg(to_jsonb(s) - 'n' - 'total'
                                 || jsonb_build_object('supersedes', coalesce(r.uids, '[]'))
                                 ORDER BY s.n)
                FROM shown s
                LEFT JOIN replaced r ON r.uid = s.uid AND r.session_id = s.session_id), '[]')));
END;
$$;

-- A person's word on a conflict: 'keep' or 'drop' the item UID (of user p_user_id, if given).
-- Recorded, never deleting anything; NULL when the scope has no item with that UID. The stored
-- results of the items on its subjects follow.
CREATE OR REPLACE FUNCTION archivist_resolve_state_item(
    p_uid text, p_action text, p_user_id text DEFAULT NULL
) RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_user  text;
    v_found boolean;
    v_row   jarvis_state_resolutions;
BEGIN
    IF p_action IS NULL OR p_action NOT IN ('keep', 'drop') THEN
        RAISE EXCEPTION 'archivist: a resolution is keep or drop, not %', coalesce(p_action, 'null')
            USING ERRCODE = '22023';
    END IF;
    SELECT true, s.user_id INTO v_found, v_user
    FROM jarvis_state_items s
    WHERE s.uid = p_uid AND (p_user_id IS NULL OR s.user_id = p_user_id)
    ORDER BY s.became_at DESC NULLS LAST
    LIMIT 1;
    IF v_found IS NULL THEN
        RETURN NULL;
    END IF;
    INSERT INTO jarvis_state_resolutions (uid, user_id, action)
    VALUES (p_uid, v_user, p_action)
    RETURNING * INTO v_row;
    PERFORM archivist_store_state(ARRAY(
        SELECT s FROM jarvis_state_items s
        WHERE s.uid = p_uid AND s.user_id IS NOT DISTINCT FROM v_user));
    RETURN to_jsonb(v_row);
END;
$$;

-- Whether each item of the given sessions is current in its scope (at p_as_of): {session_id:
-- {uid: true|false}}; an item said after p_as_of is absent. archive_search reads it for
-- `--status active` (current, not only active in its session) and `--as-of`. Now: the stored
-- results of those sessions' rows.
CREATE OR REPLACE FUNCTION archivist_item_currency(
    p_session_ids text[], p_user_id text DEFAULT NULL, p_as_of timestamptz DEFAULT NULL
) RETURNS jsonb
LANGUAGE sql STABLE
SET plan_cache_mode = force_custom_plan  -- (as archivist_state_items)
AS $$
    SELECT coalesce(jsonb_object_agg(s.session_id, s.items), '{}')
    FROM (SELECT i.session_id, jsonb_object_agg(i.uid, i.current) AS items
          FROM (SELECT t.session_id, t.uid, t.current FROM jarvis_state_items t
                WHERE p_as_of IS NULL AND t.session_id = ANY (p_session_ids)
                  AND (p_user_id IS NULL OR t.user_id = p_user_id)
                UNION ALL
                SELECT r.session_id, r.uid, r.current
                FROM archivist_reconcile_state(p_user_id, p_as_of) r
                WHERE p_as_of IS NOT NULL AND r.session_id = ANY (p_session_ids)) i
          GROUP BY i.session_id) s
$$;

-- The stored results, filled or brought up to the rules of this build (see above).
SELECT archivist_refresh_state();
