-- The memory search bots call by default.
--
-- hybrid_jarvis_memory_chunks(query_embedding, query_text, match_count, filter, weights...):
--   reciprocal rank fusion (k = 60) of the 50 nearest chunks and the 50 best full-text
--   matches (any word of the query; a chunk a cut list lacks ranks just past its end there),
--   times an optional recency factor
--   (1 - w + w * 0.5 ^ (age / half_life)). A zero vector_weight makes it a full-text search.
--   The weights are range-checked (archivist_check_weights).

-- True when a query asks about sessions as wholes (a summary, an overview, what was discussed):
-- then whole-session chunks may fill the results.
CREATE OR REPLACE FUNCTION archivist_whole_session_query(query_text text) RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
    SELECT coalesce(query_text, '') ~* ('\m(summar(y|ies|ise|ize|ised|ized)|overview|recap|gist'
        '|tl;?dr|(whole|entire|full) (session|conversation|chat|discussion)'
        '|what (did|have|were) (we|i|you) (talk|discuss|chat|cover)\w*'
        '|what was (the|that|our) (session|conversation|chat|discussion) about)\M')
$$;

-- The standing rule ("always ...", "never ...": a constraint item whose chunk is marked
-- `standing`, sql/001_schema.sql) that a query's words point to most, with how much:
-- the share of the query words' weight that the rule has, each word weighted by its rarity
-- among the N rules the filter admits, ln(1 + (N + 10 - df + 0.5) / (df + 0.5)), so that words
-- most rules say ("ask", "include") weigh little and a word no rule has weighs most. The 10
-- are rules assumed without the word: a user with one rule is not told that every word of it
-- is common. None when no rule has a query word. The rules the filter admits are read once
-- (the index of rules, sql/001_schema.sql), for their number and, in one step, the query's words
-- each has (setweight/ts_filter: the query's words of its tsvector); with 2,000 rules in reach
-- (bench.search, 100k chunks) that is 14 ms at the median, where counting them, then unnesting
-- the tsvectors of those with a query word, took 31.
CREATE OR REPLACE FUNCTION archivist_standing_rule(query_text text, filter jsonb)
RETURNS TABLE (id uuid, rank real)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_filter jsonb := archivist_check_filter(filter);
    v_words  text[] := archivist_query_words(query_text);
BEGIN
    PERFORM archivist_require_search_caller('archivist_standing_rule');
    IF cardinality(v_words) = 0 THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format(
        'WITH rules AS MATERIALIZED (SELECT c.id, CASE WHEN c.fts @@ $10 THEN tsvector_to_array('
        '        ts_filter(setweight(c.fts, ''A'', $8), ''{a}'')) END AS said '
        '    FROM jarvis_memory_chunks c '
        '    WHERE c.source = ''state_item'' AND c.metadata @> ''{"standing": true}'' AND %1$s), '
        'said AS (SELECT r.id, u.w FROM rules r, unnest(r.said) AS u(w)), '
        'weights AS (SELECT q.w, ln(1 + (n.n + 10 - coalesce(d.df, 0) + 0.5) '
        '                           / (coalesce(d.df, 0) + 0.5)) AS weight '
        '    FROM unnest($8::text[]) AS q(w) '
        '    CROSS JOIN (SELECT count(*)::float8 AS n FROM rules) n '
        '    LEFT JOIN (SELECT s.w, count(*)::float8 AS df FROM said s GROUP BY s.w) d '
        '           ON d.w = q.w) '
        'SELECT s.id, (sum(w.weight) / (SELECT sum(weight) FROM weights))::real AS rank '
        'FROM said s JOIN weights w ON w.w = s.w '
        'GROUP BY s.id ORDER BY rank DESC, s.id LIMIT 1',
        archivist_chunk_filter_sql(v_filter))
    USING NULL::vector, NULL::integer, archivist_filter_model(v_filter),
          archivist_filter_sessions(v_filter), v_filter ->> 'source',
          (v_filter ->> 'since')::timestamptz, (v_filter ->> 'until')::timestamptz, v_words,
          NULL::text,
          to_tsquery('simple', (SELECT string_agg(quote_literal(w), ' | ') FROM unnest(v_words) w)),
          NULL::text, v_filter ->> 'user_id', (v_filter ->> 'as_of')::timestamptz;
END;
$$;

-- The current values the query asks about: the updates of a stated value ("the deadline moved
-- to April 25": decisions and constraints whose change is 'update') true now (the stored
-- reconciliation, sql/061: `current`) whose subject stems are all among the query's
-- ("What is the deadline for the first sprint?" and the item "Sprint deadline: April 5"; the
-- words a quantity is named by need not be: "how many mentees" asks for "Number of mentees"), at
-- most 3, the most specific subject first, then the newest; each as the chunk of its item,
-- shaped like hybrid_jarvis_memory_chunks' rows, with its subject and value. The memory search
-- (archivist.search.current) puts one above an older hit that gives the subject another value:
-- what the archive knows is true now comes before what was said before it. Only the items a
-- query stem points to are read (the GIN index on subject_key and user, sql/061). Now only: a
-- filter with `until` or `as_of` gets none, for the stored state is today's. The memory search
-- calls it under what is left of its deadline (archivist.search.searcher).
CREATE OR REPLACE FUNCTION archivist_current_values(query_text text, filter jsonb DEFAULT '{}')
RETURNS TABLE (id uuid, session_id text, source text, content text, metadata jsonb,
               similarity double precision, created_at timestamptz, score double precision,
               relevance double precision, subject text, value text)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_filter jsonb := archivist_check_filter(filter);
    v_stems  text[] := archivist_query_words(query_text);
BEGIN
    IF cardinality(v_stems) = 0 OR v_filter ->> 'until' IS NOT NULL
       OR v_filter ->> 'as_of' IS NOT NULL
       OR coalesce(v_filter ->> 'source', 'state_item') <> 'state_item' THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format(
        'SELECT c.id, c.session_id, c.source, c.content, c.metadata, NULL::float8, '
        '       c.created_at, NULL::float8, NULL::float8, i.subject, i.value '
        'FROM jarvis_state_items i '
        'JOIN jarvis_memory_chunks c ON c.session_id = i.session_id '
        '     AND c.source = ''state_item'' AND c.metadata ->> ''uid'' = i.uid '
        'WHERE i.current AND i.change = ''update'' AND i.type IN (''decision'', ''constraint'') '
        '  AND array_append(i.subject_key, ''@'' || coalesce(i.user_id, '''')) && $8 '
        '  AND i.subject_key <@ ($8 || ''{number,count,total,amount}''::text[]) '
        '  AND ($12 IS NULL OR i.user_id = $12) AND %1$s '
        'ORDER BY cardinality(i.subject_key) DESC, i.became_at DESC NULLS LAST, c.id LIMIT 3',
        archivist_chunk_filter_sql(v_filter))
    USING NULL::vector, NULL::integer, archivist_filter_model(v_filter),
          archivist_filter_sessions(v_filter), v_filter ->> 'source',
          (v_filter ->> 'since')::timestamptz, NULL::timestamptz, v_stems,
          NULL::text, NULL::text, NULL::text, v_filter ->> 'user_id', NULL::timestamptz;
END;
$$;

-- Ranks chunks for a query and picks match_count (at most 10) of them: the evidence first.
-- Candidates: the 50 nearest turn windows and the 20 nearest chunks of any source
-- (archivist_vector_candidates; if vector_weight > 0 and a query vector is given) and the 50
-- best full-text matches (archivist_text_matches; if text_weight > 0). With both, the score is
-- their reciprocal rank fusion, weight / (60 + rank) summed; with one, that list's own score
-- (cosine similarity, or the text rank). A chunk a cut list lacks takes there the rank just
-- past that list's end (its length + 1), not nothing: the lists hold 70 and 50 of a long
-- memory's hundreds of chunks, and counting a missing chunk as 0 made being in both lists at
-- all worth more than being first in one. A full-text match ranked 2nd but beyond the 70
-- nearest by meaning fell under chunks ranked about 30th in both ("When did I say I spoke with
-- Gary at the store?": the turn saying it came 21st). Every chunk has a distance, so one
-- missing from the nearest is always beyond them; the text list is cut only when it is full
-- (50): a shorter one holds every chunk with a query word, and a chunk it lacks has none, so
-- it gets nothing from it (else chunks without the query's words, "Where did I say I live?",
-- came before the turns that have them). On BEAM 500K's tuning chats (hash embedder) this took
-- evidence recall@10 from 0.532 to 0.574 (information extraction 0.500 -> 0.675, temporal
-- reasoning 0.683 -> 0.800, knowledge update 0.794 -> 0.899, multi-session 0.601 -> 0.630,
-- contradiction 0.858 -> 0.883; the updated statement above the original 0.75 -> 0.81; one
-- question fewer in preference and instruction following), the same characters; 100K's,
-- whose chats fit the lists, did not move (0.676).
-- Times an optional recency factor
-- (1 - w + w * 0.5 ^ (age / half_life)). Then, best first, a chunk is taken unless
--   * a chunk of its session with the same text, or turn windows showing all its message ids,
--     were taken already (a state item whose source message is in a turn window already
--     there); the ids of other hits do not count, as they name the messages they were built
--     from without showing them (a summary piece's would hide the turns it sums up);
--   * it is a state item that is no longer current (archivist_stale_item): a later session
--     replaced it, or a resolution dropped it; not so as of a time (`as_of`, `until`);
--   * it is a whole-session chunk (summary, extraction, state item) and 2 of every 10 places
--     are taken by such chunks already, or one of its session is: these are context, the turns
--     are the evidence. Not so when the query asks about sessions as wholes
--     (archivist_whole_session_query) or the filter names a source; and when fewer turn
--     windows than places are candidates, context fills the places they leave. A question the
--     user asked (a state item of type question) is no context: it shares the query's words
--     and tells nothing of the answer (on REALTALK's tuning chats, two people chatting, such
--     items took the context places: evidence recall@10 0.593 -> 0.603 without them, MiniLM
--     0.617 -> 0.626; BEAM's and the generated set's did not move).
-- A query about sessions as wholes ("summarise how the migration went") gets the summaries and
-- extraction pieces that match it best (by words, else by meaning) in half of the places,
-- held for them while they are below (and not hidden by the turn windows they stand for):
-- what it asks for is spread over many messages of several sessions, which a piece stands
-- for (its message ids) and a turn window does not. They keep their rank among the turns, so
-- the first hit is still the best match (a bot reads a weak first hit as "no answer"). On
-- BEAM's tuning chats (hash embedder) this took summarisation questions' evidence recall@10
-- from 0.336 to 0.454 (100K) and from 0.105 to 0.208 (500K), the same characters; put first,
-- the pieces gave the same recall and made the no-answer signal worse (AUROC 0.539 -> 0.506).
-- With words in the ranking and 5 places or more, the standing rule the query's words point to
-- (archivist_standing_rule, a share of at least 0.15) holds the last place unless a hit taken
-- covers it: what the user told the assistant to always or never do about the matter asked of
-- is context a bot must see, and it rarely shares enough words with the question to rank. Its
-- `relevance` is that share, its `score` 0.
-- A zero vector_weight (or a NULL query_embedding) makes it a full-text search that needs no
-- query vector; a zero text_weight a vector search with the same choice of chunks.
-- `relevance` reads the same way for every query: with words in the ranking it is the text rank
-- (archivist_text_matches: how much of what the query's words could score the chunk scores; 0
-- for a chunk found by meaning alone), else the cosine similarity.
-- Its result gained `relevance`; CREATE OR REPLACE cannot change a result, so the function is
-- dropped first (in init's transaction; sql/policy.sql grants it again).
DROP FUNCTION IF EXISTS hybrid_jarvis_memory_chunks(vector, text, integer, jsonb,
    double precision, double precision, double precision, double precision);
CREATE OR REPLACE FUNCTION hybrid_jarvis_memory_chunks(
    query_embedding vector,
    query_text      text,
    match_count     integer DEFAULT 10,
    filter          jsonb DEFAULT '{}'::jsonb,
    vector_weight   double precision DEFAULT 1,
    text_weight     double precision DEFAULT 1,
    recency_weight  double precision DEFAULT 0,
    half_life_days  double precision DEFAULT 14
) RETURNS TABLE (id uuid, session_id text, source text, content text, metadata jsonb,
                 similarity double precision, created_at timestamptz, score double precision,
                 relevance double precision)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
    v_k         integer := least(greatest(coalesce(match_count, 10), 1), 10);
    v_filter    jsonb := archivist_check_filter(filter);
    v_by_vector boolean := coalesce(vector_weight, 0) > 0 AND query_embedding IS NOT NULL;
    v_by_text   boolean := coalesce(text_weight, 0) > 0;
    v_whole     boolean := v_filter ->> 'source' IS NULL
                           AND archivist_whole_session_query(query_text);
    v_open      boolean := v_filter ->> 'source' IS NOT NULL OR v_whole;
    v_context   integer := greatest(1, v_k / 5);
    v_now       boolean := v_filter ->> 'as_of' IS NULL AND v_filter ->> 'until' IS NULL;
    v_taken     integer := 0;
    v_fill      boolean;
    v_wholes    integer;
    v_summed    text[] := '{}';
    v_contexts  integer := 0;
    v_sessions  text[] := '{}';
    v_hashes    text[] := '{}';
    v_covered   text[] := '{}';
    v_ids       text[];
    v_rule      uuid;
    v_rule_rank real;
    v_rule_key  text;
    v_rule_ids  text[];
    r           record;
BEGIN
    PERFORM archivist_check_weights(vector_weight, text_weight, recency_weight, half_life_days);
    IF v_by_text AND v_k >= 5 THEN
        SELECT s.id, s.rank, c.session_id || ':' || c.content_hash,
               ARRAY(SELECT jsonb_array_elements_text(c.metadata -> 'message_ids'))
        INTO v_rule, v_rule_rank, v_rule_key, v_rule_ids
        FROM archivist_standing_rule(query_text, v_filter) s
        JOIN jarvis_memory_chunks c ON c.id = s.id
        WHERE s.rank >= 0.15
          AND NOT archivist_stale_item(c.session_id, c.source, c.metadata, v_now);
    END IF;
    FOR r IN
        WITH by_vector AS (
            SELECT n.id, n.similarity,
                   row_number() OVER (ORDER BY n.similarity DESC, n.id) AS r
            FROM archivist_vector_candidates(query_embedding, v_filter, 50, 20) n
            WHERE v_by_vector
        ), by_text AS (
            SELECT t.id, t.rank, row_number() OVER (ORDER BY t.rank DESC, t.id) AS r
            FROM archivist_text_matches(query_text, 50, v_filter) t
            WHERE v_by_text
        ), by_whole AS (
            -- A query about sessions as wholes: their summaries and extraction pieces, the
            -- best of each session (a summary and the extraction piece that holds it are one).
            SELECT w.id, w.score, row_number() OVER (ORDER BY w.score DESC, w.id) AS r
            FROM (SELECT DISTINCT ON (c.session_id) u.id, u.score
                  FROM (SELECT t.id, t.rank::float8 AS score FROM archivist_text_matches(
                            query_text, v_k / 2, v_filter || '{"source": "archive_extraction"}') t
                        WHERE v_by_text
                        UNION ALL
                        SELECT t.id, t.rank FROM archivist_text_matches(
                            query_text, v_k / 2, v_filter || '{"source": "session_summary"}') t
                        WHERE v_by_text
                        UNION ALL
                        SELECT n.id, n.similarity FROM archivist_nearest_chunks(
                            query_embedding, v_k / 2, v_filter || '{"source": "archive_extraction"}') n
                        WHERE v_by_vector AND NOT v_by_text
                        UNION ALL
                        SELECT n.id, n.similarity FROM archivist_nearest_chunks(
                            query_embedding, v_k / 2, v_filter || '{"source": "session_summary"}') n
                        WHERE v_by_vector AND NOT v_by_text) u
                  JOIN jarvis_memory_chunks c ON c.id = u.id
                  ORDER BY c.session_id, u.score DESC, u.id) w
            WHERE v_whole
        ), fused AS (
            -- A chunk missing from a cut list ranks just past its end there (see above).
            SELECT coalesce(v.id, t.id) AS id, t.rank AS text_rank,
                   CASE WHEN v_by_vector AND v_by_text
                        THEN vector_weight / (60 + coalesce(v.r, count(v.id) OVER () + 1))
                             + coalesce(text_weight / (60 + coalesce(t.r, CASE
                                   WHEN count(t.id) OVER () >= 50 THEN 51 END)), 0)
                        WHEN v_by_vector THEN v.similarity
                        ELSE t.rank END AS fused
            FROM by_vector v FULL JOIN by_text t ON v.id = t.id
        )
        SELECT c.id, c.session_id, c.source, c.content, c.metadata, c.content_hash,
               count(*) FILTER (WHERE c.source = 'session_turn') OVER () AS turns,
               count(w.id) OVER () AS wholes,
               1 - (c.embedding <=> query_embedding) AS similarity, c.created_at,
               CASE WHEN v_by_text THEN coalesce(f.text_rank, w.score, 0)
                    ELSE 1 - (c.embedding <=> query_embedding) END AS relevance,
               coalesce(f.fused, 0) * (1 - recency_weight
                   + recency_weight * power(0.5, greatest(0,
                   extract(epoch FROM now() - coalesce((c.metadata ->> 'last_at')::timestamptz,
                                                       c.created_at)) / 86400)
                   / greatest(half_life_days, 0.001))) AS score,
               false AS reserved, w.r AS whole,
               archivist_stale_item(c.session_id, c.source, c.metadata, v_now) AS stale
        FROM fused f FULL JOIN (SELECT * FROM by_whole WHERE r <= v_k / 2) w ON w.id = f.id
        JOIN jarvis_memory_chunks c ON c.id = coalesce(f.id, w.id)
        WHERE f.fused IS NOT NULL OR w.id IS NOT NULL
        UNION ALL
        -- The standing rule, after every candidate: it takes the place held for it.
        SELECT c.id, c.session_id, c.source, c.content, c.metadata, c.content_hash, 0, 0,
               1 - (c.embedding <=> query_embedding), c.created_at, v_rule_rank, 0, true, NULL,
               false
        FROM jarvis_memory_chunks c WHERE c.id = v_rule
        ORDER BY reserved, score DESC, id
    LOOP
        -- The sessions' pieces a whole-session query holds places for, this one and those below.
        v_wholes := coalesce(v_wholes, r.wholes::integer) - (r.whole IS NOT NULL)::integer;
        CONTINUE WHEN r.stale;
        v_ids := ARRAY(SELECT jsonb_array_elements_text(
                           CASE WHEN jsonb_typeof(r.metadata -> 'message_ids') = 'array'
                                THEN r.metadata -> 'message_ids' ELSE '[]' END));
        CONTINUE WHEN (r.session_id || ':' || r.content_hash) = ANY (v_hashes)
                   OR (r.whole IS NULL AND cardinality(v_ids) > 0 AND v_ids <@ v_covered);
        IF v_fill IS NULL THEN
            -- Too few turn windows are candidates to fill the places: context fills the rest.
            v_fill := r.turns < v_k;
            v_context := greatest(v_context, v_k - r.turns::integer);
        END IF;
        CONTINUE WHEN r.whole IS NULL AND NOT r.reserved AND v_k - v_taken <= v_wholes;
        -- The last place is held for the standing rule while nothing taken covers it.
        CONTINUE WHEN v_rule IS NOT NULL AND NOT r.reserved AND v_taken = v_k - 1
                   AND NOT (v_rule_key = ANY (v_hashes)
                            OR (cardinality(v_rule_ids) > 0 AND v_rule_ids <@ v_covered));
        -- A session's summary and the extraction piece that holds it say the same: one each.
        IF v_whole AND r.source IN ('session_summary', 'archive_extraction') THEN
            CONTINUE WHEN r.session_id = ANY (v_summed);
            v_summed := v_summed || r.session_id;
        END IF;
        IF r.source <> 'session_turn' AND NOT v_open AND NOT r.reserved THEN
            CONTINUE WHEN v_contexts >= v_context
                       OR (NOT v_fill AND r.session_id = ANY (v_sessions))
                       OR r.metadata ->> 'type' = 'question';
            v_contexts := v_contexts + 1;
            v_sessions := v_sessions || r.session_id;
        END IF;
        v_hashes := v_hashes || (r.session_id || ':' || r.content_hash);
        -- Only a turn window shows its messages' text; a summary or an extraction piece names
        -- the messages it was built from without showing them.
        IF r.source = 'session_turn' THEN
            v_covered := v_covered || v_ids;
        END IF;
        id := r.id;
        session_id := r.session_id;
        source := r.source;
        content := r.content;
        metadata := r.metadata;
        similarity := r.similarity;
        created_at := r.created_at;
        score := r.score;
        relevance := r.relevance;
        RETURN NEXT;
        v_taken := v_taken + 1;
        EXIT WHEN v_taken >= v_k;
    END LOOP;
END;
$$;
