"""The one-call functions: each opens a client for one call and closes it, as `httpx.get`
does; a caller in a loop keeps one `Archivist` instead."""

from __future__ import annotations

from typing import Any

from archivist.client.archivist import Archivist
from archivist.config import Settings
from archivist.embed.base import Embedder
from archivist.models import RunReport
from archivist.pipeline import ArchiveRequest, Progress
from archivist.queries import ArchiveFilters, HybridQuery, MemoryQuery
from archivist.search import (
    ArchiveSearchResult,
    MemorySearchResult,
    SearchResult,
)


def memory_search(
    query: str | MemoryQuery, *, settings: Settings | None = None, **options: Any
) -> MemorySearchResult:
    """Search memory by meaning (`Archivist.memory_search`), on a client opened for this one
    call."""
    with Archivist(settings) as client:
        return client.memory_search(query, **options)


def archive_search(
    filters: ArchiveFilters | None = None, *, settings: Settings | None = None, **options: Any
) -> ArchiveSearchResult:
    """Search the archive by structured fact (`Archivist.archive_search`), e.g.
    `archive_search(topics=["oauth"])`, on a client opened for this one call."""
    with Archivist(settings) as client:
        return client.archive_search(filters, **options)


def search(
    query: str | HybridQuery,
    filters: ArchiveFilters | None = None,
    *,
    settings: Settings | None = None,
    **options: Any,
) -> SearchResult:
    """The hybrid (`Archivist.search`), on a client opened for this one call."""
    with Archivist(settings) as client:
        return client.search(query, filters, **options)


def archive(
    settings: Settings,
    request: ArchiveRequest,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
    workers: int = 1,
) -> RunReport:
    """Run the archivist once (`Archivist.archive`), on a client opened for the run. The
    embedded database is created on first use, except by a dry run, which writes nothing."""
    with Archivist(settings, embedder, create=not request.dry_run) as client:
        return client.archive(request, progress, workers=workers)
