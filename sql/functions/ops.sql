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

-- Schema facts for `doctor` and the readiness check: pgvector, indexes, the recorded model.
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
        'embedding_dim', (SELECT value::integer FROM archivist_meta WHERE key = 'embedding_dim'))
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

-- Sessions whose messages carried more than one user id (sql/010_user_id.sql): how many, and
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
