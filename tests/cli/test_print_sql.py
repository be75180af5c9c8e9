"""`archivist init --print-sql`: all that `init` applies, as one script that leaves the same."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import psycopg
from support.catalog import catalog
from support.sources import run_archivist

from archivist.store.migrate import functions_checksum, load_definitions, load_migrations


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
    as_json = archivist(["init", "--print-sql", "--json"], tmp_path, None)  # a script is no JSON
    assert (as_json.returncode, as_json.stdout) == (2, "")
    assert "--print-sql prints an SQL script, not JSON" in as_json.stderr
    assert not (tmp_path / "data").exists()  # no database was started
    for migration in load_migrations():
        assert f"-- ==== {migration.name} ====" in script
    for part in load_definitions():
        assert f"-- ==== {part.path} ====" in script

    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        conn.execute(script.encode())

    again = archivist(["init", "--json"], tmp_path, empty_db_url)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["applied"] == []
    # db_url was made by `init` for the same 768-d hash embedder.
    assert catalog(empty_db_url) == catalog(db_url)


def test_printed_script_records_another_dimension_and_can_run_twice(
    empty_db_url: str, tmp_path: Path
) -> None:
    printed = archivist(["init", "--print-sql", "--embedding-dim", "384"], tmp_path, None)
    assert printed.returncode == 0, printed.stderr
    with psycopg.connect(empty_db_url, autocommit=True) as conn:
        conn.execute(printed.stdout.encode())
        conn.execute(printed.stdout.encode())  # the script skips what is recorded
        typ = conn.execute(
            "SELECT format_type(atttypid, atttypmod), attstorage FROM pg_attribute "
            "WHERE attrelid = 'jarvis_memory_chunks'::regclass AND attname = 'embedding'"
        ).fetchone()
        assert typ == ("vector(384)", "p")
        meta = dict(conn.execute("SELECT key, value FROM archivist_meta").fetchall())
        # the rules the stored current state was computed by (archivist_refresh_state)
        assert re.fullmatch(r"[0-9a-f]{32}", meta.pop("state_rules"))
        assert meta == {
            "embedding_model": "hash-384",
            "embedding_dim": "384",
            "sql_functions": functions_checksum(),
            "function_timeouts": '{"lock_ms": 10000, "statement_ms": 600000}',
        }
    again = archivist(["init", "--json", "--embedding-dim", "384"], tmp_path, empty_db_url)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["applied"] == []
