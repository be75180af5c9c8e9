"""`archivist reembed`: every chunk moved to another model (768-d -> 384-d), resumably."""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.ollama_server import OllamaTestServer
from support.sources import SourceDB, run_archivist, run_cli

from archivist.chunking import chunk_id
from archivist.config import Settings
from archivist.store import EmbeddingConfig, PostgresStore

BATCH = 4
TOPICS = ["Vercel deployment", "Redis cache eviction", "OAuth refresh tokens", "Lisbon trip"]


@pytest.fixture
def server() -> Iterator[OllamaTestServer]:
    """The Ollama test double serving nomic-embed-text (768-d) and all-minilm (384-d)."""
    server = OllamaTestServer(dimensions={"all-minilm": 384})
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def archived(source: SourceDB, server: OllamaTestServer, tmp_path: Path) -> SourceDB:
    """A database initialised for nomic-embed-text with four sessions archived through Ollama."""
    PostgresStore(source.conn, Settings().sources).init(EmbeddingConfig("nomic-embed-text", 768))
    for n, topic in enumerate(TOPICS):
        turns = [f"turn {i} about the {topic}: we compare options and decide" for i in range(20)]
        source.add(f"s{n}", turns)
    result = archivist(["archive", "--json"], source, server, tmp_path)
    assert result.returncode == 0, result.stderr
    server.reset()
    return source


def archivist(
    args: list[str], db: SourceDB, server: OllamaTestServer, tmp_path: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    environ = {
        "DATABASE_URL": db.url,
        "OLLAMA_HOST": server.url,
        "ARCHIVIST_DELAY_MS": "0",
        "ARCHIVIST_OLLAMA_TIMEOUT_S": "5",
        "ARCHIVIST_OLLAMA_BACKOFF_S": "0.01",
        "ARCHIVIST_EMBED_BATCH_SIZE": str(BATCH),
        **env,
    }
    return run_archivist(args, environ)


def embedding_column(db: SourceDB) -> str:
    row = db.conn.execute(
        "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
        "WHERE attrelid = 'jarvis_memory_chunks'::regclass AND attname = 'embedding'"
    ).fetchone()
    assert row is not None
    return str(row[0])


def test_reembed_moves_every_chunk_to_the_new_model(
    archived: SourceDB, server: OllamaTestServer, tmp_path: Path
) -> None:
    total = archived.count("jarvis_memory_chunks")
    assert total > 3 * BATCH

    moved = archivist(
        ["reembed", "--model", "all-minilm", "--dim", "384", "--json"], archived, server, tmp_path
    )

    assert moved.returncode == 0, moved.stderr
    report = json.loads(moved.stdout)
    assert (report["chunks"], report["embedded"], report["ids_kept"]) == (total, total, 0)
    assert len(server.embed_requests) == math.ceil(total / BATCH) == report["requests"]
    assert {r.model for r in server.embed_requests} == {"all-minilm"}
    assert embedding_column(archived) == "vector(384)"
    store = PostgresStore(archived.conn, Settings().sources)
    assert store.recorded_embedding() == EmbeddingConfig("all-minilm", 384)
    rows = archived.conn.execute(
        "SELECT id::text, session_id, source, slot, content, embedding_model, "
        "vector_dims(embedding) FROM jarvis_memory_chunks"
    ).fetchall()
    assert len(rows) == total
    assert {(r[5], r[6]) for r in rows} == {("all-minilm", 384)}
    for id_, session, source, slot, content, _, _ in rows:  # ids derive from the new model
        assert id_ in {chunk_id(session, source, slot, p, content, "all-minilm") for p in range(9)}
    index = archived.conn.execute(
        "SELECT indexdef FROM pg_indexes WHERE indexname = 'jarvis_memory_chunks_embedding_idx'"
    ).fetchone()
    assert index is not None and "hnsw (embedding vector_cosine_ops)" in index[0]
    assert archived.count("archivist_reembed_staging") == 0

    # The old model, configured, is refused everywhere, naming the way out (exit 2); with no
    # model configured, searches use the one the database now records.
    old = archivist(
        ["memory-search", "redis eviction"],
        archived,
        server,
        tmp_path,
        ARCHIVIST_EMBEDDING_MODEL="nomic-embed-text",
    )
    assert old.returncode == 2 and "archivist reembed" in old.stderr
    recorded = archivist(["memory-search", "redis eviction", "--json"], archived, server, tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    assert json.loads(recorded.stdout)["hits"][0]["session_id"] == "s1"
    new = {"ARCHIVIST_EMBEDDING_MODEL": "all-minilm", "ARCHIVIST_EMBEDDING_DIM": "384"}
    found = archivist(
        ["memory-search", "redis eviction", "--json"], archived, server, tmp_path, **new
    )
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["hits"][0]["session_id"] == "s1"

    # Rebuilding every session under the new model finds every chunk already there.
    server.reset()
    rebuilt = archivist(
        ["archive", "--rebuild", "--json"] + [f"--session-id=s{n}" for n in range(len(TOPICS))],
        archived,
        server,
        tmp_path,
        **new,
    )
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert server.embed_requests == []


def test_an_interrupted_reembed_resumes_with_the_remaining_work(
    archived: SourceDB, server: OllamaTestServer, tmp_path: Path
) -> None:
    total = archived.count("jarvis_memory_chunks")
    server.fault, server.fault_after = "500", 2  # the third batch fails
    args = ["reembed", "--model", "all-minilm", "--dim", "384", "--json"]

    failed = archivist(args, archived, server, tmp_path, ARCHIVIST_OLLAMA_RETRIES="0")

    assert failed.returncode == 1
    assert len(failed.stderr.strip().splitlines()) == 1 and "Traceback" not in failed.stderr
    assert archived.count("archivist_reembed_staging") == 2 * BATCH
    assert embedding_column(archived) == "vector(768)"  # nothing swapped yet
    store = PostgresStore(archived.conn, Settings().sources)
    assert store.recorded_embedding() == EmbeddingConfig("nomic-embed-text", 768)

    server.reset()
    resumed = archivist(args, archived, server, tmp_path)

    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["resumed_from"] == 2 * BATCH
    assert report["embedded"] == total - 2 * BATCH
    assert sum(r.inputs for r in server.embed_requests) == total - 2 * BATCH
    assert len(server.embed_requests) == math.ceil((total - 2 * BATCH) / BATCH)
    assert embedding_column(archived) == "vector(384)"


def test_reembed_of_an_empty_archive_only_records_the_model(settings: Settings) -> None:
    moved = run_cli(settings, "reembed", "--model", "hash-384", "--dim", "384")
    assert moved.returncode == 0, moved.stderr
    assert "now configure it: ARCHIVIST_EMBEDDER=hash and ARCHIVIST_EMBEDDING_DIM=384" in (
        moved.stdout
    )
    wrong = run_cli(settings, "reembed", "--model", "all-minilm", "--dim", "384")
    assert wrong.returncode == 2 and "pass --model hash-384" in wrong.stderr
    no_dim = run_cli(settings, "reembed", "--model", "hash-512")  # the dimension names it
    assert no_dim.returncode == 2
    assert "not hash-512; add --dim 512 (its model is named by its dimension)" in no_dim.stderr
