"""SQL in one place: every function defined once in sql/functions/, an edited migration is
refused, obsolete functions are dropped, and functions of another version are detected over
REST."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg
import pytest
from support.commands import run_doctor
from support.postgrest_double import PostgrestDouble
from support.sources import run_archivist

from archivist.config import Settings
from archivist.store.migrate import load_definitions, load_migrations

CREATE_FUNCTION = re.compile(r"CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([\w.]+)\s*\(", re.I)
ARCHIVIST_FUNCTIONS = """
    SELECT p.oid::regprocedure::text FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace
      AND (p.proname LIKE 'archivist\\_%' OR p.proname IN ('match_jarvis_memory_chunks',
           'hybrid_jarvis_memory_chunks', 'search_jarvis_archive'))
"""


def cli(args: list[str], tmp_path: Path, url: str | None) -> tuple[int, str, str]:
    env = {"ARCHIVIST_EMBEDDER": "hash", "ARCHIVIST_DATA_DIR": str(tmp_path / "data")}
    result = run_archivist(args, {**env, **({"DATABASE_URL": url} if url else {})})
    return result.returncode, result.stdout, result.stderr


def test_every_function_is_defined_in_exactly_one_file_and_no_migration(db_url: str) -> None:
    for migration in load_migrations():
        assert not CREATE_FUNCTION.search(migration.sql), migration.path
    defined = [
        name
        for part in load_definitions()
        for name in CREATE_FUNCTION.findall(part.sql)
        if part.path.startswith("functions/")
    ]
    assert len(defined) == len(set(defined)) > 30
    assert not [
        p
        for p in load_definitions()
        if not p.path.startswith("functions/") and CREATE_FUNCTION.search(p.sql)
    ]
    with psycopg.connect(db_url) as conn:
        in_db = [row[0].split("(")[0] for row in conn.execute(ARCHIVIST_FUNCTIONS)]
        recorded = [row[0].split("(")[0] for row in conn.execute("SELECT archivist_functions()")]
    assert sorted(in_db) == sorted(defined) == sorted(recorded)


def test_an_edited_migration_is_refused_naming_the_file(db_url: str, tmp_path: Path) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("UPDATE archivist_migrations SET checksum = 'e' WHERE name = '001_schema'")
    for command in (["init"], ["archive"], ["status"]):
        code, out, err = cli(command, tmp_path, db_url)
        assert code == 2, (command, err)
        assert len(err.strip().splitlines()) == 1, err
        assert "sql/001_schema.sql was edited" in err
    code, script, _ = cli(["init", "--print-sql"], tmp_path, None)
    with (
        psycopg.connect(db_url, autocommit=True) as conn,
        pytest.raises(psycopg.errors.RaiseException, match="sql/001_schema.sql was edited"),
    ):
        conn.execute(script.encode())
    with psycopg.connect(db_url) as conn:
        row = conn.execute(
            "SELECT checksum FROM archivist_migrations WHERE name = '001_schema'"
        ).fetchone()
    assert row == ("e",)  # nothing was changed


# What an earlier init recorded and no file defines now (an obsolete helper, an old signature of
# a search), beside a user's functions that merely look like the archivist's.
OBSOLETE_AND_FOREIGN = """
CREATE FUNCTION archivist_retired_helper(integer) RETURNS integer LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION search_jarvis_archive(p_topic text) RETURNS integer LANGUAGE sql AS 'SELECT 1';
INSERT INTO archivist_own_functions (fn, name, signature)
SELECT p.oid, p.proname, p.oid::regprocedure::text FROM pg_proc p
WHERE p.oid IN ('archivist_retired_helper(integer)'::regprocedure,
                'search_jarvis_archive(text)'::regprocedure);
CREATE FUNCTION archivist_my_report() RETURNS integer LANGUAGE sql AS 'SELECT 2';
CREATE FUNCTION search_jarvis_archive(p_topic text, p_mine boolean) RETURNS integer
LANGUAGE sql AS 'SELECT 3';
CREATE FUNCTION match_jarvis_documents() RETURNS integer LANGUAGE sql AS 'SELECT 1';
"""


def _survivors(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        names = [row[0] for row in conn.execute(ARCHIVIST_FUNCTIONS)]
        own = conn.execute("SELECT to_regprocedure('match_jarvis_documents()')").fetchone()
        assert own is not None and own[0] is not None
        recorded = {row[0] for row in conn.execute("SELECT archivist_functions()::text")}
        # The policy leaves a foreign function's privileges alone: PUBLIC may still call it.
        public = conn.execute(
            "SELECT has_function_privilege('public', 'archivist_my_report()', 'EXECUTE')"
        ).fetchone()
        assert public == (True,)
    assert "archivist_my_report()" not in recorded
    assert "search_jarvis_archive(text,boolean)" not in recorded
    return names


@pytest.mark.parametrize("how", ["init", "print-sql"])
def test_init_drops_only_obsolete_functions_it_recorded_never_a_foreign_one(
    how: str, db_url: str, tmp_path: Path
) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(OBSOLETE_AND_FOREIGN)
    if how == "init":
        code, _, err = cli(["init"], tmp_path, db_url)
        assert code == 0, err
    else:
        code, script, err = cli(["init", "--print-sql"], tmp_path, None)
        assert code == 0, err
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute(script.encode())
    names = _survivors(db_url)
    assert "archivist_retired_helper(integer)" not in names
    assert "search_jarvis_archive(text)" not in names
    assert "archivist_my_report()" in names
    assert "search_jarvis_archive(text,boolean)" in names


def test_functions_of_another_version_are_refused_over_rest_naming_the_fix(
    db_url: str, tmp_path: Path
) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("UPDATE archivist_meta SET value = 'older' WHERE key = 'sql_functions'")
    double = PostgrestDouble(db_url).start()
    env = {
        "ARCHIVIST_EMBEDDER": "hash",
        "SUPABASE_URL": double.url,
        "SUPABASE_SERVICE_ROLE_KEY": double.key,
    }
    try:
        for command in (["init"], ["archive"]):
            result = run_archivist(command, env)
            assert result.returncode == 2, result.stderr
            assert "functions are not this version's" in result.stderr
            assert "archivist init --print-sql" in result.stderr
        settings = Settings(
            supabase_url=double.url,
            supabase_service_role_key=double.key,
            embedder="hash",
            data_dir=tmp_path,
        )
        failed = [c for c in run_doctor(settings).checks if not c.ok]
    finally:
        double.stop()
    assert [c.name for c in failed] == ["functions"]
    assert "archivist init --print-sql" in (failed[0].fix or "")
