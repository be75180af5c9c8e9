-- Operations: the run log, status counts, schema facts, the recorded embedding model, and
-- session claims (the REST transport's stand-in for the advisory lock: a session lock does not
-- outlive one HTTP request; a claim is held until released or until it expires, so a worker
-- that died frees its sessions after the TTL; the commit still checks the expected version).

-- The run log (table archivist_runs): a row when a run starts, completed when it ends.
CREATE OR REPLACE FUNCTION archivist_start_run(p_arguments jsonb) RETURNS bigint
LANGUAGE sql
AS $$
    INSERT INTO archivist_runs (arguments) VALUES (coalesce(p_arguments, '{}')) RETURNING id
$$;

CREATE OR REPLACE FUNCTION archivist_finish_run(p_run_id bigint, p_counts jsonb, p_failures jsonb)
RETURNS void
LANGUAGE sql
AS $$
    UPDATE archivist_runs SET finished_at = now(), counts = p_counts, failures = p_failures
    WHERE id = p_run_id
$$;

CREATE OR REPLACE FUNCTION archivist_recent_runs(p_limit integer) RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(jsonb_agg(to_jsonb(r) ORDER BY r.started_at DESC, r.id DESC), '[]')
    FROM (SELECT id, started_at, finished_at, arguments, counts, failures FROM archivist_runs
          ORDER BY started_at DESC, id DESC
          LIMIT least(greatest(coalesce(p_limit, 5), 1), 1000)) r
$$;

CREATE OR REPLACE FUNCTION archivist_archived_session_count() RETURNS bigint
LANGUAGE sql STABLE
AS $$
    SELECT count(*) FROM jarvis_archive_sessions WHERE latest_version > 0
$$;

-- Schema facts for `doctor` and the readiness check: pgvector, indexes, the recorded model, the
-- timeouts sql/policy.sql gave the functions.
CREATE OR REPLACE FUNCTION archivist_schema_info() RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT jsonb_build_object(
        'vector_installed', (SELECT extversion FROM pg_extension WHERE extname = 'vector'),
        'vector_available', (SELECT default_version FROM pg_available_extensions
                             WHERE name = 'vector'),
        'indexes', (SELECT coalesce(jsonb_agg(indexname ORDER BY indexname), '[]')
                    FROM pg_indexes WHERE tablename IN
                    ('jarvis_memory_chunks', 'jarvis_archive', 'jarvis_archive_sessions')),
        'embedding_model', (SELECT value FROM archivist_meta WHERE key = 'embedding_model'),
        'embedding_dim', (SELECT value::integer FROM archivist_meta WHERE key = 'embedding_dim'),
        'function_timeouts', (SELECT value::jsonb FROM archivist_meta
                              WHERE key = 'function_timeouts'))
$$;

-- Records the embedding model and dimension (init), resizing the vector column while no chunk
-- exists. Refuses to switch while chunks of the recorded model exist (that is `reembed`).
CREATE OR REPLACE FUNCTION archivist_record_embedding(p_model text, p_dim integer)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_model text := (SELECT value FROM archivist_meta WHERE key = 'embedding_model');
    v_dim   integer := (SELECT value::integer FROM archivist_meta WHERE key = 'embedding_dim');
BEGIN
    IF v_model = p_model AND v_dim = p_dim THEN
        RETURN jsonb_build_object('model', v_model, 'dim', v_dim);
    END IF;
    IF v_model IS NOT NULL AND v_dim IS NOT NULL
       AND EXISTS (SELECT 1 FROM jarvis_memory_chunks) THEN
        RAISE EXCEPTION 'archivist: this database holds embeddings of % (%-d); it cannot switch '
            'to % (%-d) while chunks exist', v_model, v_dim, p_model, p_dim
            USING ERRCODE = '22023';
    END IF;
    IF (SELECT format_type(atttypid, atttypmod) FROM pg_attribute
        WHERE attrelid = 'jarvis_memory_chunks'::regclass AND attname = 'embedding')
       IS DISTINCT FROM format('vector(%s)', p_dim) THEN
        -- Changing the type resets the column's storage to the type's default.
        EXECUTE format('ALTER TABLE jarvis_memory_chunks ALTER COLUMN embedding TYPE vector(%s), '
                       'ALTER COLUMN embedding SET STORAGE PLAIN', p_dim);
    END IF;
    INSERT INTO archivist_meta (key, value) VALUES ('embedding_model', p_model),
                                                   ('embedding_dim', p_dim::text)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now();
    RETURN jsonb_build_object('model', p_model, 'dim', p_dim);
END;
$$;

CREATE OR REPLACE FUNCTION archivist_claim_session(
    p_session_id text, p_owner text, p_ttl_s integer
) RETURNS boolean
LANGUAGE sql
AS $$
    INSERT INTO archivist_session_claims AS c (session_id, owner, expires_at)
    VALUES (p_session_id, p_owner, now() + make_interval(secs => greatest(p_ttl_s, 1)))
    ON CONFLICT (session_id) DO UPDATE
        SET owner = excluded.owner, expires_at = excluded.expires_at
        WHERE c.expires_at < now() OR c.owner = excluded.owner
    RETURNING true
$$;

CREATE OR REPLACE FUNCTION archivist_release_session(p_session_id text, p_owner text)
RETURNS void
LANGUAGE sql
AS $$
    DELETE FROM archivist_session_claims WHERE session_id = p_session_id AND owner = p_owner
$$;

-- Who holds a lock an archivist call gave up waiting for (it timed out at lock_timeout, SQLSTATE
-- 55P03), so the failure can name them: the pids of other sessions holding a lock that blocks
-- reads or writes (SHARE or stronger) on an archivist table or a source table, and, for a
-- session, the pid whose transaction holds its row of jarvis_archive_sessions or of
-- archivist_session_claims (SELECT ... FOR UPDATE). A JSON array of pids; it waits on nothing.
CREATE OR REPLACE FUNCTION archivist_lock_holders(p_sources jsonb, p_session_id text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
    v_rels oid[] := ARRAY(SELECT t::oid FROM archivist_tables() t);
    v_pids integer[];
    v_xmax xid;
    v_names jsonb;
BEGIN
    PERFORM set_config('lock_timeout', '100ms', true);
    BEGIN
        v_names := archivist_source_names(p_sources);
        v_rels := v_rels || (v_names ->> 'msgs')::regclass::oid
                         || (v_names ->> 'sums')::regclass::oid;
    EXCEPTION WHEN OTHERS THEN
        NULL;  -- the source tables cannot be named: look at the archivist's own
    END;
    v_pids := ARRAY(
        SELECT DISTINCT l.pid FROM pg_locks l
        WHERE l.granted AND l.pid <> pg_backend_pid() AND l.locktype = 'relation'
          AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
          AND l.relation = ANY (v_rels)
          AND l.mode IN ('ShareLock', 'ShareRowExclusiveLock', 'ExclusiveLock',
                         'AccessExclusiveLock'));
    IF p_session_id IS NOT NULL THEN
        BEGIN
            FOR v_xmax IN
                SELECT s.xmax FROM jarvis_archive_sessions s WHERE s.session_id = p_session_id
                UNION ALL
                SELECT c.xmax FROM archivist_session_claims c WHERE c.session_id = p_session_id
            LOOP
                v_pids := v_pids || ARRAY(
                    SELECT l.pid FROM pg_locks l
                    WHERE l.locktype = 'transactionid' AND l.transactionid = v_xmax
                      AND l.mode = 'ExclusiveLock' AND l.granted AND l.pid <> pg_backend_pid());
            END LOOP;
        EXCEPTION WHEN lock_not_available THEN
            NULL;  -- the tables themselves are locked: their holders are listed already
        END;
    END IF;
    RETURN (SELECT coalesce(jsonb_agg(DISTINCT p ORDER BY p), '[]') FROM unnest(v_pids) p);
END;
$$;

-- Sessions that failed (archivist_session_failures, migration 031). A session's run failed
-- for a reason of its own: count it, and leave the session out of runs for p_backoff_s
-- seconds, doubling with each failed run in a row (at most a day), and from
-- p_quarantine_after failed runs in a row until a run names it. The row, as JSON.
CREATE OR REPLACE FUNCTION archivist_record_failure(
    p_session_id text, p_reason text, p_backoff_s double precision, p_quarantine_after integer
) RETURNS jsonb
LANGUAGE sql
AS $$
    INSERT INTO archivist_session_failures AS f (session_id, failures, retry_after,
                                                 quarantined, reason)
    VALUES (p_session_id, 1,
            now() + make_interval(secs => least(greatest(coalesce(p_backoff_s, 0), 0), 86400)),
            p_quarantine_after <= 1, left(coalesce(p_reason, ''), 1000))
    ON CONFLICT (session_id) DO UPDATE SET
        failures = f.failures + 1,
        last_failed_at = now(),
        retry_after = now() + make_interval(secs => least(
            greatest(coalesce(p_backoff_s, 0), 0) * power(2, least(f.failures, 20)), 86400)),
        quarantined = f.failures + 1 >= p_quarantine_after,
        reason = excluded.reason
    RETURNING to_jsonb(f)
$$;

-- A session that failed before is fine now (nothing left to archive); the commit of a version
-- deletes its row itself.
CREATE OR REPLACE FUNCTION archivist_clear_failure(p_session_id text) RETURNS void
LANGUAGE sql
AS $$
    DELETE FROM archivist_session_failures WHERE session_id = p_session_id
$$;

-- Every session with failed runs, quarantined first, then the latest failure first: a JSON
-- array of rows.
CREATE OR REPLACE FUNCTION archivist_failed_sessions() RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT coalesce(jsonb_agg(to_jsonb(f) ORDER BY f.quarantined DESC, f.last_failed_at DESC,
                              f.session_id), '[]')
    FROM archivist_session_failures f
$$;

-- Sessions whose messages carried more than one user id (sql/001_schema.sql): how many, and
-- the first p_limit of them. What they write has no user id: only the service role reads it.
CREATE OR REPLACE FUNCTION archivist_multi_user_sessions(p_limit integer) RETURNS jsonb
LANGUAGE sql STABLE
AS $$
    SELECT jsonb_build_object(
        'count', (SELECT count(*) FROM jarvis_archive_sessions WHERE multi_user),
        'sessions', (SELECT coalesce(jsonb_agg(s.session_id ORDER BY s.session_id), '[]')
                     FROM (SELECT session_id FROM jarvis_archive_sessions WHERE multi_user
                           ORDER BY session_id
                           LIMIT least(greatest(coalesce(p_limit, 5), 0), 100)) s))
$$;
