"""Pooler URLs: no prepared statements through a transaction pooler, detected or configured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.sources import SourceDB, run_cli

from archivist.config import Settings
from archivist.store import connect
from archivist.store.connection import looks_like_pooler, uses_pooler

POOLER = "postgresql://postgres.abcdefgh:pw@aws-0-eu-central-1.pooler.supabase.com:6543/postgres"


@pytest.mark.parametrize(
    ("url", "pooler"),
    [
        (POOLER, True),
        ("postgresql://u:pw@aws-0-eu-central-1.pooler.supabase.com:5432/postgres", True),
        ("postgresql://u:pw@db.example.com:6543/app", True),
        ("host=db.example.com port=6543 dbname=app", True),
        ("postgresql://u:pw@db.abcdefgh.supabase.co:5432/postgres", False),
        ("postgresql://u:pw@localhost/app", False),
        ("postgresql://u:pw@db.example.com:65430/app", False),
        ("postgresql:///postgres?host=/tmp/sock", False),
        ("not a dsn ===", False),
    ],
)
def test_pooler_urls_are_recognised(url: str, pooler: bool) -> None:
    assert looks_like_pooler(url) is pooler


def test_the_setting_overrides_the_guess(tmp_path: Path) -> None:
    assert uses_pooler(POOLER, Settings(database_pooler=False, data_dir=tmp_path)) is False
    local = "postgresql://u@localhost/app"
    assert uses_pooler(local, Settings(database_pooler=True, data_dir=tmp_path)) is True
    assert uses_pooler(POOLER, Settings(data_dir=tmp_path)) is True


def test_a_pooler_connection_never_prepares(db_url: str, tmp_path: Path) -> None:
    with connect(db_url, Settings(database_pooler=True, data_dir=tmp_path)) as conn:
        assert conn.prepare_threshold is None
        for _ in range(10):  # past the default threshold of 5: still nothing prepared
            conn.execute("SELECT count(*) FROM jarvis_memory_chunks WHERE session_id = %s", ["s"])
        prepared = conn.execute("SELECT count(*) FROM pg_prepared_statements").fetchone()
        assert prepared == (0,)
    with connect(db_url, Settings(data_dir=tmp_path)) as conn:
        assert conn.prepare_threshold == 5


def test_archive_and_search_run_through_a_pooler_connection(
    source: SourceDB, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARCHIVIST_DATABASE_POOLER", "true")
    monkeypatch.setenv("ARCHIVIST_DELAY_MS", "0")
    source.add("olive", ["let's deploy the frontend on Vercel", "ok, Vercel it is"])
    archived = run_cli(settings, "archive", "--json")
    assert archived.returncode == 0, archived.stderr
    found = run_cli(settings, "memory-search", "vercel deploy", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["hits"][0]["session_id"] == "olive"
