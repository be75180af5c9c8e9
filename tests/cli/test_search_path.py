"""Supabase's linter's security warnings: every archivist function runs with a fixed
search_path, and pgvector goes into Supabase's `extensions` schema, where the archivist still
archives and searches with that schema off every connection's search_path."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
from support.sources import SourceDB, run_archivist


def test_every_archivist_function_has_a_fixed_search_path(db_url: str) -> None:
    with psycopg.connect(db_url) as conn:
        rows = conn.execute(
            "SELECT f::text, coalesce(p.proconfig, '{}') FROM archivist_functions() f "
            "JOIN pg_proc p ON p.oid = f"
        ).fetchall()
    assert len(rows) > 40
    unset = [name for name, config in rows if not any(c.startswith("search_path=") for c in config)]
    assert unset == []
    paths = {next(c for c in config if c.startswith("search_path=")) for _, config in rows}
    assert paths == {"search_path=public, pg_temp"}  # pgvector is in public here


def test_pgvector_goes_to_the_extensions_schema_and_everything_still_works(
    supabase_db_url: str, tmp_path: Path
) -> None:
    with psycopg.connect(supabase_db_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA extensions")  # as on Supabase; not on this search_path
    env = {
        "DATABASE_URL": supabase_db_url,
        "ARCHIVIST_EMBEDDER": "hash",
        "ARCHIVIST_DELAY_MS": "0",
        "ARCHIVIST_DATA_DIR": str(tmp_path / "data"),
    }
    init = run_archivist(["init"], env)
    assert init.returncode == 0, init.stderr
    with SourceDB.create(supabase_db_url) as source:
        source.add("olive", ["let's deploy the frontend on Vercel", "ok, Vercel it is"])
        archived = run_archivist(["archive", "--json"], env)
        assert archived.returncode == 0, archived.stderr
        found = run_archivist(["memory-search", "Vercel frontend", "--json"], env)
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["hits"], found.stdout
        where = source.conn.execute(
            "SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
        paths = {
            c
            for (config,) in source.conn.execute(
                "SELECT p.proconfig FROM archivist_functions() f JOIN pg_proc p ON p.oid = f"
            )
            for c in config
            if c.startswith("search_path=")
        }
    assert where == ("extensions",)
    assert paths == {"search_path=public, extensions, pg_temp"}
    again = run_archivist(["init", "--json"], env)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["applied"] == []


def test_pgvector_moved_to_extensions_by_hand_works_after_init(
    source: SourceDB, db_url: str, tmp_path: Path
) -> None:
    env = {
        "DATABASE_URL": db_url,
        "ARCHIVIST_EMBEDDER": "hash",
        "ARCHIVIST_DELAY_MS": "0",
        "ARCHIVIST_DATA_DIR": str(tmp_path / "data"),
    }
    source.add("olive", ["let's deploy the frontend on Vercel", "ok, Vercel it is"])
    assert run_archivist(["archive"], env).returncode == 0
    # What docs/forget-and-privacy.md tells a Supabase user whose pgvector an older init put in
    # public: move it, then init.
    source.conn.execute("CREATE SCHEMA extensions; ALTER EXTENSION vector SET SCHEMA extensions")
    init = run_archivist(["init", "--json"], env)
    assert init.returncode == 0, init.stderr
    source.add("plum", ["the plum app ships on Friday", "Friday it is"])
    assert run_archivist(["archive"], env).returncode == 0
    found = run_archivist(["memory-search", "Vercel frontend", "--json"], env)
    assert found.returncode == 0, found.stderr
    assert {h["session_id"] for h in json.loads(found.stdout)["hits"]} >= {"olive"}
    paths = {
        c
        for (config,) in source.conn.execute(
            "SELECT p.proconfig FROM archivist_functions() f JOIN pg_proc p ON p.oid = f"
        )
        for c in config
        if c.startswith("search_path=")
    }
    assert paths == {"search_path=public, extensions, pg_temp"}
