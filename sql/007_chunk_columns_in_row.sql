-- archivist 007: a chunk's columns kept in its row.
--
-- A chunk's row is over 2 KB with its 768-d vector alone (kept in the row, 001), so Postgres
-- moved every EXTENDED column longer than a TOAST pointer out to the TOAST table: the full text
-- (fts), the content hash, a session id as long as a UUID. A search reads them for every
-- candidate (BM25 each one's tsvector, the filters its session, the hybrid its hash), each one
-- an index lookup and a page more. MAIN keeps them in the row, compressed, unless the row would
-- pass a page (a window of very long turns). On bench.search's 100k chunks the hybrid search's
-- p95 went from 161 to 118 ms and the full-text matches' from 66 to 43 ms. This applies to the
-- rows written from now on; rows written before keep their columns out of line until
-- rewritten (VACUUM FULL jarvis_memory_chunks, which locks the table while it runs:
-- docs/search-speed.md).
ALTER TABLE jarvis_memory_chunks
    ALTER COLUMN fts SET STORAGE MAIN,
    ALTER COLUMN session_id SET STORAGE MAIN,
    ALTER COLUMN source SET STORAGE MAIN,
    ALTER COLUMN slot SET STORAGE MAIN,
    ALTER COLUMN content_hash SET STORAGE MAIN,
    ALTER COLUMN embedding_model SET STORAGE MAIN,
    ALTER COLUMN user_id SET STORAGE MAIN;
