"""`archivist init --print-sql`: the migrations as one script that leaves what `init` leaves."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import psycopg
from sources import run_archivist

from archivist.store.migrate import load_migrations

SCHEMA_QUERIES = {
    "columns": """
        SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
               a.attstorage, pg_get_expr(d.adbin, d.adrelid)
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
    """,
    "indexes": "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'",
    "functions": """
        SELECT p.proname, pg_get_functiondef(p.oid) FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.prokind = 'f'
    """,
    "constraints": """
        SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint
        WHERE connamespace = 'public'::regnamespace
    """,
    "extensions": "SELECT extname FROM pg_extension",
    "meta": "SELECT key, value FROM archivist_meta",
    "migrations": "SELECT name, checksum FROM archivist_migrations",
}


def schema(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Everything about a database's schema that the migrations and `init` decide."""
    with psycopg.connect(url) as conn:
        return {k: sorted(conn.execute(q).fetchall(), key=repr) for k, q in SCHEMA_QUERIES.items()}


def archivist(args: list[str], tmp_path: Path, url: str | None) -> subprocess.CompletedProcess[str]:
    env = {
        "ARCHIVIST_EMBEDDER": "hash",
        "ARCHIVIST_DATA_DIR": str(tmp_path / "data"),
        **({"DATABASE_URL": url} if url else {}),
    }
    return run_archivist(args, env)


def test_printed_script_makes_the_schema_init_makes(
    empty_db_url: str, db_url: str, tmp_path: Path
) -> None:
    printed = archivist(["init", "--print-sql"], tmp_path, None)
    assert printed.returncode == 0, printed.stderr
    script = printed.stdout
    assert not (tmp_path / "data").exists()  # no database was started
    for migration in load_migrations():
        assert f"-- ==== {migration.name} ====" in script

    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        conn.execute(script.encode())

    again = archivist(["init", "--json"], tmp_path, empty_db_url)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["applied"] == []
    # db_url was made by `init` for the same 768-d hash embedder.
    assert schema(empty_db_url) == schema(db_url)


def test_printed_script_records_another_dimension_and_can_run_twice(
    empty_db_url: str, tmp_path: Path
) -> None:
    printed = archivist(["init", "--print-sql", "--embedding-dim", "384"], tmp_path, None)
    assert printed.returncode == 0, printed.stderr
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        conn.execute(printed.stdout.encode())
        conn.execute(printed.stdout.encode())  # every migration is idempotent
        typ = conn.execute(
            "SELECT format_type(atttypid, atttypmod), attstorage FROM pg_attribute "
            "WHERE attrelid = 'jarvis_memory_chunks'::regclass AND attname = 'embedding'"
        ).fetchone()
        assert typ == ("vector(384)", "p")
        meta = dict(conn.execute("SELECT key, value FROM archivist_meta").fetchall())
        assert meta == {"embedding_model": "hash-384", "embedding_dim": "384"}
    again = archivist(["init", "--json", "--embedding-dim", "384"], tmp_path, empty_db_url)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["applied"] == []
