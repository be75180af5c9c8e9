-- archivist: drop the archivist's functions that no file in sql/functions/ defines any more.
--
-- Applied by every `archivist init` right after sql/functions/, in the same transaction. Every
-- function those files define was just created or replaced, so its catalog row was written by
-- this transaction; an archivist function whose row this transaction did not write is obsolete:
-- a function a file no longer has, or an old signature of one whose arguments or result changed
-- (CREATE OR REPLACE cannot change those, and would leave the old one beside the new, which
-- PostgREST cannot tell apart). The archivist's functions are those archivist_functions()
-- lists (sql/functions/privacy.sql): named archivist_*, and its three search functions; the
-- bot's own functions are never touched. A function something else depends on (a view, a user's
-- function in SQL) is not dropped: init then fails, naming it, and changes nothing.

DO $$
DECLARE
    v_xid text := (pg_current_xact_id()::text::bigint % 4294967296)::text;
    v_fn  regprocedure;
BEGIN
    FOR v_fn IN SELECT f FROM archivist_functions() f JOIN pg_proc p ON p.oid = f
                WHERE p.xmin::text <> v_xid
    LOOP
        EXECUTE format('DROP FUNCTION %s', v_fn);
    END LOOP;
END;
$$;
