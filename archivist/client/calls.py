"""The one-call functions: each opens a client for one call and closes it, as `httpx.get`
does; a caller in a loop keeps one `Archivist` instead."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from archivist.client.archivist import Archivist
from archivist.config import SearchMode, Settings
from archivist.embed.base import Embedder
from archivist.models import ChunkSource, RunReport
from archivist.pipeline import ArchiveRequest, Progress
from archivist.search import (
    ARCHIVE_MAX_ROWS,
    MEMORY_MAX_RESULTS,
    ArchiveFilters,
    ArchiveSearchResult,
    MemorySearchResult,
    SearchResult,
)


def memory_search(
    query: str,
    limit: int = MEMORY_MAX_RESULTS,
    session_ids: Sequence[str] = (),
    source: ChunkSource | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    mode: SearchMode | None = None,
    settings: Settings | None = None,
    user_id: str | None = None,
    min_score: float | None = None,
    as_of: datetime | str | None = None,
) -> MemorySearchResult:
    """Search memory by meaning, on a client opened for this one call."""
    with Archivist(settings) as client:
        return client.memory_search(
            query,
            limit,
            session_ids,
            source,
            since,
            until,
            mode,
            user_id=user_id,
            min_score=min_score,
            as_of=as_of,
        )


def archive_search(
    filters: ArchiveFilters | None = None,
    limit: int = ARCHIVE_MAX_ROWS,
    all_versions: bool = False,
    settings: Settings | None = None,
    **filter_values: Any,
) -> ArchiveSearchResult:
    """Search the archive by structured fact, e.g. `archive_search(topics=["oauth"])`."""
    with Archivist(settings) as client:
        return client.archive_search(filters, limit, all_versions, **filter_values)


def search(
    query: str,
    filters: ArchiveFilters | None = None,
    limit: int = MEMORY_MAX_RESULTS,
    mode: SearchMode | None = None,
    settings: Settings | None = None,
    **filter_values: Any,
) -> SearchResult:
    """The hybrid, on a client opened for this one call."""
    with Archivist(settings) as client:
        return client.search(query, filters, limit, mode, **filter_values)


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
