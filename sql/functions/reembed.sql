-- Moving the chunk table to another embedding model (`archivist reembed`).
--
-- Re-embedding happens in two phases. First every chunk's new vector is staged, batch by
-- batch, in archivist_reembed_staging (keyed by the chunk's current id, so an interrupted
-- run continues where it stopped). Then archivist_reembed_swap() moves the table over in one
-- transaction: the chunk table keeps serving the old model until that commit.

-- Swap the staged vectors in: every chunk must have one (else SQLSTATE 55000 and nothing
-- changes). Drops the HNSW index, changes the column's dimension if it differs, rewrites
-- embeddings, ids and model, records the model and dimension, rebuilds the index after the
-- bulk update (much faster than maintaining it row by row) and empties the staging table.
-- Returns the number of chunks moved.
CREATE OR REPLACE FUNCTION archivist_reembed_swap(p_model text, p_dim integer)
RETURNS integer
LANGUAGE plpgsql
AS $$
DECLARE
    v_missing integer;
    v_moved   integer;
BEGIN
    -- Plain reads go on until the ALTERs below; writers (archive runs) wait for the commit,
    -- then fail the model check in archivist_commit_version and are refused next time.
    LOCK TABLE jarvis_memory_chunks IN EXCLUSIVE MODE;
    SELECT count(*) INTO v_missing FROM jarvis_memory_chunks c
    WHERE NOT EXISTS (SELECT 1 FROM archivist_reembed_staging s
                      WHERE s.chunk_id = c.id AND s.model = p_model AND s.dim = p_dim);
    IF v_missing > 0 THEN
        RAISE EXCEPTION 'archivist: % chunks have no staged % vector yet', v_missing, p_model
            USING ERRCODE = '55000';
    END IF;

    DROP INDEX IF EXISTS jarvis_memory_chunks_embedding_idx;
    IF (SELECT format_type(atttypid, atttypmod) FROM pg_attribute
        WHERE attrelid = 'jarvis_memory_chunks'::regclass AND attname = 'embedding')
       IS DISTINCT FROM format('vector(%s)', p_dim) THEN
        -- Through an unconstrained vector column, since old and new dimensions differ.
        ALTER TABLE jarvis_memory_chunks ALTER COLUMN embedding TYPE vector;
        UPDATE jarvis_memory_chunks c
        SET id = s.new_id, embedding = s.embedding, embedding_model = p_model
        FROM archivist_reembed_staging s WHERE s.chunk_id = c.id;
        GET DIAGNOSTICS v_moved = ROW_COUNT;
        EXECUTE format('ALTER TABLE jarvis_memory_chunks ALTER COLUMN embedding TYPE vector(%s), '
                       'ALTER COLUMN embedding SET STORAGE PLAIN', p_dim);
    ELSE
        UPDATE jarvis_memory_chunks c
        SET id = s.new_id, embedding = s.embedding, embedding_model = p_model
        FROM archivist_reembed_staging s WHERE s.chunk_id = c.id;
        GET DIAGNOSTICS v_moved = ROW_COUNT;
    END IF;

    INSERT INTO archivist_meta (key, value)
    VALUES ('embedding_model', p_model), ('embedding_dim', p_dim::text)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = now();
    CREATE INDEX jarvis_memory_chunks_embedding_idx
        ON jarvis_memory_chunks USING hnsw (embedding vector_cosine_ops);
    DELETE FROM archivist_reembed_staging;
    RETURN v_moved;
END;
$$;
