"""The embedding server never waits on the run: several sessions' requests are in flight at once,
the state candidates' among them, and never more than `embed_concurrency`; a session's texts go
in one request.

Through the real `ollama` client and the Ollama test server, which records when each request
arrived and was answered (`embed_spans`), each taking a quarter of a second.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from support.ollama_server import EmbedSpan, OllamaTestServer
from support.sources import T0, SourceDB

from archivist.client import archive
from archivist.config import Settings
from archivist.embed.base import task_prefixes
from archivist.pipeline import ArchiveRequest
from archivist.store import EmbeddingConfig, PostgresStore, SessionSelection

TALK = [
    "Should we move the billing API from Redis to Memcached?",
    "We decided to switch the billing API from Redis to Memcached.",
    "Remind me to rotate the Memcached credentials on Friday.",
    "I'll set up Grafana for the billing API and share the dashboard with Priya.",
    "Let's go with Terraform; Priya already has an account.",
    "Next step: I'll open a PR that adds Sentry metrics to the ingest worker.",
]
SESSIONS = 8


def most_at_once(spans: list[EmbedSpan]) -> int:
    """The most requests in flight at one moment."""
    events = sorted([(s.started, 1) for s in spans] + [(s.ended, -1) for s in spans])
    peak = now = 0
    for _, step in events:
        now += step
        peak = max(peak, now)
    return peak


@pytest.mark.parametrize("concurrency", [1, 4])
def test_state_candidates_of_several_sessions_are_embedded_at_once(
    source: SourceDB, ollama_server: OllamaTestServer, tmp_path: Path, concurrency: int
) -> None:
    PostgresStore(source.conn, Settings().sources).init(EmbeddingConfig("nomic-embed-text", 768))
    for i in range(SESSIONS):
        source.add(f"o{i}", [f"{t} ({i})" for t in TALK], start=T0 + timedelta(hours=i))
    ollama_server.embed_s = 0.25
    settings = Settings(
        database_url=source.url,
        embedder="ollama",
        embedding_model="nomic-embed-text",
        ollama_host=ollama_server.url,
        embed_concurrency=concurrency,
        data_dir=tmp_path / "data",
    )
    report = archive(settings, ArchiveRequest(SessionSelection(limit=50), delay_ms=0))

    assert [s.status for s in report.sessions] == ["archived"] * SESSIONS
    items = {
        str(text)
        for (text,) in source.conn.execute(
            "SELECT content FROM jarvis_memory_chunks WHERE source = 'state_item'"
        )
    }
    prefix = task_prefixes("nomic-embed-text")[0]
    spans = ollama_server.embed_spans
    # One request per session: its new chunks' texts go with its state candidates.
    assert len(spans) == SESSIONS
    candidates = [s for s in spans if {t.removeprefix(prefix) for t in s.texts} & items]
    assert len(candidates) == SESSIONS
    assert most_at_once(spans) <= concurrency
    if concurrency > 1:
        # Planning (and its candidates' request) runs beside the other sessions' requests:
        # the candidates of two sessions were with the server at once.
        assert most_at_once(candidates) >= 2
