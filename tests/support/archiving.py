"""Archiving in a test: the run as the CLI does it, with an embedder that counts its calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from archivist.client import archive
from archivist.config import Settings
from archivist.embed.hashing import HashEmbedder
from archivist.models import RunReport
from archivist.pipeline import ArchiveRequest
from archivist.store import SessionSelection


class CountingEmbedder(HashEmbedder):
    """The hash embedder, counting calls and texts (a real embedder, not a mock)."""

    def __init__(self) -> None:
        super().__init__(dimension=768)
        self.calls = 0
        self.texts: list[str] = []

    def embed_batch(self, texts: Any) -> Any:
        self.calls += 1
        self.texts.extend(texts)
        return super().embed_batch(texts)


def run(settings: Settings, embedder: CountingEmbedder | None = None, **kw: Any) -> RunReport:
    selection = SessionSelection(session_ids=kw.pop("session_ids", ()), limit=kw.pop("limit", 50))
    request = ArchiveRequest(selection=selection, delay_ms=0, **kw)
    return archive(settings, request, embedder=embedder or CountingEmbedder())


def archived_in_process(database_url: str, data_dir: Path) -> None:
    """Archive every pending session with the hash embedder, in this process: for a test of
    the commands run after it, the setup needs no `archivist archive` process of its own."""
    settings = Settings(database_url=database_url, embedder="hash", data_dir=data_dir)
    report = run(settings)
    assert not report.failed, report.failed
