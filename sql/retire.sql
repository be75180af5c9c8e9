-- archivist: record the functions sql/functions/ just created, and drop the archivist's
-- functions that no file defines any more.
--
-- Applied by every `archivist init` right after sql/functions/, in the same transaction. Every
-- function those files define was just created or replaced, so its catalog row was written by
-- this transaction: those are recorded in archivist_own_functions (sql/001_schema.sql).
-- A recorded function whose row this transaction did not write is obsolete: a function a file
-- no longer has, or an old signature of one whose arguments or result changed (CREATE OR
-- REPLACE cannot change those, and would leave the old one beside the new, which PostgREST
-- cannot tell apart). Only recorded functions are ever dropped: one that is not the
-- archivist's, whatever its name, is never touched. A function something else depends on (a
-- view, a user's function in SQL) is not dropped: init then fails, naming it, and changes
-- nothing.

DO $$
DECLARE
    v_xid text := (pg_current_xact_id()::text::bigint % 4294967296)::text;
    v_fn  regprocedure;
BEGIN
    INSERT INTO archivist_own_functions (fn, name, signature)
    SELECT p.oid, p.proname, p.oid::regprocedure::text
    FROM pg_proc p
    WHERE p.pronamespace = current_schema()::regnamespace AND p.xmin::text = v_xid
      AND (p.proname LIKE 'archivist\_%' OR p.proname IN (
           'match_jarvis_memory_chunks', 'hybrid_jarvis_memory_chunks', 'search_jarvis_archive'))
    ON CONFLICT (fn) DO UPDATE SET name = excluded.name, signature = excluded.signature;

    -- A record whose function is gone (dropped by hand) or is another one now (a reused oid).
    DELETE FROM archivist_own_functions o
    WHERE NOT EXISTS (SELECT 1 FROM pg_proc p WHERE p.oid = o.fn AND p.proname = o.name);

    FOR v_fn IN SELECT p.oid::regprocedure FROM archivist_own_functions o
                JOIN pg_proc p ON p.oid = o.fn
                WHERE p.xmin::text <> v_xid
    LOOP
        EXECUTE format('DROP FUNCTION %s', v_fn);
        DELETE FROM archivist_own_functions WHERE fn = v_fn::oid;
    END LOOP;
END;
$$;
