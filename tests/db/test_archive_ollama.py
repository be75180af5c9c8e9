"""Archive runs embedding through the real `ollama` client over HTTP, against the test server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import psycopg
import pytest
from support.ollama_server import OllamaTestServer
from support.sources import SourceDB, run_archivist

from archivist.config import Settings
from archivist.store import EmbeddingConfig, PostgresStore

CHAT = [
    "Our OAuth refresh tokens expire after an hour. Should we rotate them?",
    "Yes. Rotating refresh tokens limits the damage of a leaked token.",
    "OK, we decided to rotate refresh tokens on every use.",
    "I'll implement the rotation in the auth service tomorrow.",
]


@pytest.fixture
def nomic_db(source: SourceDB) -> SourceDB:
    """The test database initialised for nomic-embed-text (768-d) instead of `hash`."""
    PostgresStore(source.conn, Settings().sources).init(EmbeddingConfig("nomic-embed-text", 768))
    return source


def archivist(
    args: list[str], db: SourceDB, server: OllamaTestServer, tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    env = {
        "DATABASE_URL": db.url,
        "OLLAMA_HOST": server.url,
        "ARCHIVIST_DELAY_MS": "0",
        "ARCHIVIST_OLLAMA_TIMEOUT_S": "2",
        "ARCHIVIST_OLLAMA_BACKOFF_S": "0.01",
    }
    return run_archivist(args, env)


def test_archive_embeds_through_ollama_and_a_rerun_makes_no_request(
    nomic_db: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    nomic_db.add("auth", CHAT)

    first = archivist(["archive", "--json"], nomic_db, ollama_server, tmp_path)

    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["embedder"] == "ollama" and report["embedding_model"] == "nomic-embed-text"
    requests = ollama_server.embed_requests
    assert requests and {r.model for r in requests} == {"nomic-embed-text"}
    assert sum(r.inputs for r in requests) == report["sessions"][0]["texts_embedded"]
    models = nomic_db.conn.execute("SELECT DISTINCT embedding_model FROM jarvis_memory_chunks")
    assert models.fetchall() == [("nomic-embed-text",)]

    ollama_server.reset()
    again = archivist(
        ["archive", "--session-id", "auth", "--json"], nomic_db, ollama_server, tmp_path
    )
    assert again.returncode == 0
    assert json.loads(again.stdout)["sessions"][0]["status"] == "unchanged"
    assert ollama_server.embed_requests == []


def test_text_search_needs_no_ollama_and_hits_name_their_messages(
    nomic_db: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    ids = nomic_db.add("auth", CHAT)
    assert archivist(["archive"], nomic_db, ollama_server, tmp_path).returncode == 0
    ollama_server.reset()

    text = archivist(
        ["memory-search", "rotate refresh tokens", "--mode", "text", "--json"],
        nomic_db,
        ollama_server,
        tmp_path,
    )

    assert text.returncode == 0, text.stderr
    assert ollama_server.embed_requests == []  # the query was not embedded
    hits = json.loads(text.stdout)["hits"]
    assert hits and all(h["similarity"] is None and h["score"] > 0 for h in hits)
    turns = [h for h in hits if h["source"] == "session_turn"]
    assert turns and set(turns[0]["message_ids"]) <= {str(i) for i in ids}
    items = archivist(
        ["memory-search", "rotate refresh tokens", "--source", "state_item", "--json"],
        nomic_db,
        ollama_server,
        tmp_path,
    )
    assert items.returncode == 0, items.stderr
    item_hits = json.loads(items.stdout)["hits"]
    assert item_hits and {h["source"] for h in item_hits} == {"state_item"}
    assert all(set(h["message_ids"]) <= {str(i) for i in ids} for h in item_hits)
    assert any(h["message_ids"] for h in item_hits)  # an item points at what was said


def test_dry_run_embeds_only_the_state_candidates_and_writes_nothing(
    nomic_db: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    nomic_db.add("auth", CHAT)
    before = nomic_db.snapshot()

    result = archivist(["archive", "--dry-run", "--json"], nomic_db, ollama_server, tmp_path)

    assert result.returncode == 0, result.stderr
    [plan] = json.loads(result.stdout)["sessions"]
    assert plan["status"] == "planned"
    added = {c["text"] for c in plan["state_changes"] if c["kind"] == "added"}
    assert added  # the decision and the action of the chat
    # One embedding request with the candidates' texts only, no chunk embedded, no write.
    assert [r.inputs for r in ollama_server.embed_requests] == [len(added)]
    assert nomic_db.snapshot() == before


def test_wrong_dimension_is_refused_before_any_write(
    nomic_db: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    nomic_db.add("auth", CHAT)
    nomic_db.add("other", ["hello", "hi"])
    before = nomic_db.snapshot()
    ollama_server.fault = "wrong_dim"

    result = archivist(["archive"], nomic_db, ollama_server, tmp_path)

    assert result.returncode == 2
    assert "384-d vectors" in result.stderr and "768-d" in result.stderr
    assert "Traceback" not in result.stderr
    assert nomic_db.snapshot() == before


def test_ollama_failing_fails_the_session_and_a_rerun_completes_it(
    nomic_db: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    nomic_db.add("auth", CHAT)
    before = nomic_db.snapshot()
    ollama_server.fault = "500"

    failed = archivist(["archive", "--json"], nomic_db, ollama_server, tmp_path)

    assert failed.returncode == 1
    [outcome] = json.loads(failed.stdout)["sessions"]
    assert outcome["status"] == "failed" and "Ollama" in outcome["reason"]
    assert nomic_db.snapshot() == before
    ollama_server.reset()
    done = archivist(["archive", "--json"], nomic_db, ollama_server, tmp_path)
    assert done.returncode == 0
    assert json.loads(done.stdout)["sessions"][0]["status"] == "archived"


def test_model_not_pulled_says_how_to_pull_it(
    nomic_db: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path
) -> None:
    nomic_db.add("auth", CHAT)
    ollama_server.models.clear()

    result = archivist(["archive", "--json"], nomic_db, ollama_server, tmp_path)

    assert result.returncode == 2
    assert "ollama pull nomic-embed-text" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    with psycopg.connect(nomic_db.url) as conn:
        assert conn.execute("SELECT count(*) FROM jarvis_archive").fetchone() == (0,)
