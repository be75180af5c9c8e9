"""memory_search (by meaning), archive_search (by structured fact) and their hybrid, `search`.

Every bound is enforced here and again inside the SQL functions (sql/functions/search.sql), so
a bot calling those directly gets the same limits. A request over a limit is clamped, and the
result says so in `clamped` (limit name -> requested and applied) and `truncated`. The whole
call, query embedding included, has one deadline; the database side runs under a statement
timeout, so a slow query is cancelled rather than abandoned.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, field_validator

from archivist.config import SearchMode, Settings
from archivist.embed.base import Embedder, embed_query
from archivist.errors import ArchivistError, ConfigError
from archivist.models import Action, ChunkSource, Decision, Entity, Span
from archivist.sanitize import clean_text
from archivist.state.items import ItemStatus, ItemType, StateItem
from archivist.store.postgres import Store
from archivist.store.rpc import Json, QueryTimeoutError

MEMORY_MAX_RESULTS = 10  # the same bounds are written into sql/functions/search.sql
ARCHIVE_MAX_ROWS = 20


class SearchTimeoutError(ArchivistError):
    """A search ran out of its time budget."""


class Clamp(BaseModel):
    requested: int
    applied: int


class MemoryHit(BaseModel):
    id: str
    session_id: str
    source: str
    content: str
    similarity: float
    score: float | None = Field(None, description="the fused ranking score (text and hybrid)")
    created_at: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)


class MemorySearchResult(BaseModel):
    """What `memory_search` returns; `--json` prints exactly this."""

    query: str
    mode: SearchMode
    limit: int
    hits: list[MemoryHit]
    clamped: dict[str, Clamp] = Field(default_factory=dict)
    truncated: bool = False


class ArchiveHit(BaseModel):
    session_id: str
    version: int
    version_at: datetime
    span: Span
    summary: str
    topics: list[str]
    decisions: list[Decision] = Field(description="the decisions that matched, or all")
    entities: list[Entity] = Field(description="the entities that matched, or all")
    actions: list[Action] = Field(description="the actions that matched, or all")
    state_items: list[StateItem] = Field(
        default_factory=list, description="the state items that matched, or all"
    )


class ArchiveSearchResult(BaseModel):
    """What `archive_search` returns; `--json` prints exactly this."""

    limit: int
    hits: list[ArchiveHit]
    clamped: dict[str, Clamp] = Field(default_factory=dict)
    truncated: bool = False


class SessionMatch(BaseModel):
    """One session found by meaning, with its latest structured version."""

    session_id: str
    best_similarity: float
    chunks: list[MemoryHit]
    latest: ArchiveHit | None


class SearchResult(BaseModel):
    """What the hybrid `search` returns: sessions by meaning, filtered by structured facts."""

    query: str
    sessions: list[SessionMatch]
    clamped: dict[str, Clamp] = Field(default_factory=dict)
    truncated: bool = False


class ArchiveFilters(BaseModel):
    """Structured filters over the archive; every one optional."""

    topics: list[str] = Field(default_factory=list)
    all_topics: bool = False
    decision: str | None = None
    entity: str | None = None
    action: str | None = None
    session_ids: list[str] = Field(default_factory=list)
    since: datetime | None = None
    until: datetime | None = None
    item_types: list[ItemType] = Field(default_factory=list)
    item_statuses: list[ItemStatus] = Field(default_factory=list)

    @field_validator("topics", "session_ids", mode="after")
    @classmethod
    def _storable_list(cls, values: list[str]) -> list[str]:
        return [clean_text(v) for v in values]

    @field_validator("decision", "entity", "action", mode="after")
    @classmethod
    def _storable(cls, value: str | None) -> str | None:
        return clean_text(value) if value is not None else None

    @property
    def empty(self) -> bool:
        return not (
            self.topics
            or self.decision
            or self.entity
            or self.action
            or self.session_ids
            or self.item_types
            or self.item_statuses
        ) and (self.since is None and self.until is None)


class _Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds

    def remaining_ms(self) -> int:
        left = int((self._end - time.monotonic()) * 1000)
        if left <= 0:
            raise SearchTimeoutError(f"the search ran out of its {self.seconds:g} s")
        return left


def _clamp(name: str, requested: int, ceiling: int, clamped: dict[str, Clamp]) -> int:
    if requested > ceiling:
        clamped[name] = Clamp(requested=requested, applied=ceiling)
        return ceiling
    if requested < 1:
        raise ConfigError(f"{name} must be at least 1")
    return requested


class Searcher:
    """Runs searches on one store with one embedder, within the settings' limits."""

    def __init__(self, store: Store, embedder: Embedder, settings: Settings) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings

    def memory_search(
        self,
        query: str,
        limit: int = MEMORY_MAX_RESULTS,
        session_ids: Sequence[str] = (),
        source: ChunkSource | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        mode: SearchMode | None = None,
    ) -> MemorySearchResult:
        """The chunks that best answer the query, best first, ranked by `mode`."""
        deadline = _Deadline(self.settings.search_timeout_s)
        clamped: dict[str, Clamp] = {}
        text = self._query_text(query, clamped)
        limit = _clamp("limit", limit, self.settings.memory_search_max_results, clamped)
        self.store.check_ready(self.embedder.model)
        vector = embed_query(self.embedder, text)
        filter_: dict[str, Any] = {"embedding_model": self.embedder.model}
        if session_ids:
            filter_["session_ids"] = [clean_text(s) for s in session_ids]
        if source:
            filter_["source"] = source
        if since:
            filter_["since"] = since.isoformat()
        if until:
            filter_["until"] = until.isoformat()
        mode = mode or self.settings.search_mode
        args: dict[str, Any] = {
            "query_embedding": _vector_text(vector.tolist()),
            "match_count": limit,
            "filter": Json(filter_),
        }
        function = "match_jarvis_memory_chunks"
        if mode != "vector":
            s = self.settings
            function = "hybrid_jarvis_memory_chunks"
            args.update(
                query_text=text,
                vector_weight=s.search_vector_weight if mode == "hybrid" else 0.0,
                text_weight=s.search_text_weight,
                recency_weight=s.search_recency_weight,
                half_life_days=s.search_recency_half_life_days,
            )
        rows = self._timed(deadline, function, args)
        hits = [
            MemoryHit(
                id=str(r["id"]),
                session_id=r["session_id"],
                source=r["source"],
                content=r["content"],
                similarity=r["similarity"],
                created_at=r["created_at"],
                metadata=r["metadata"] or {},
                score=r.get("score"),
            )
            for r in rows
        ]
        return MemorySearchResult(
            query=text, mode=mode, limit=limit, hits=hits, clamped=clamped, truncated=bool(clamped)
        )

    def archive_search(
        self, filters: ArchiveFilters, limit: int = ARCHIVE_MAX_ROWS, all_versions: bool = False
    ) -> ArchiveSearchResult:
        """Versions matching every given filter, newest first (latest per session by default)."""
        deadline = _Deadline(self.settings.search_timeout_s)
        clamped: dict[str, Clamp] = {}
        limit = _clamp("limit", limit, self.settings.archive_search_max_rows, clamped)
        rows = self._timed(
            deadline,
            "search_jarvis_archive",
            {
                "p_topics": filters.topics or None,
                "p_all_topics": filters.all_topics,
                "p_decision": filters.decision,
                "p_entity": filters.entity,
                "p_action": filters.action,
                "p_session_ids": filters.session_ids or None,
                "p_since": filters.since,
                "p_until": filters.until,
                "p_all_versions": all_versions,
                "p_limit": limit,
                "p_item_types": list(filters.item_types) or None,
                "p_item_statuses": list(filters.item_statuses) or None,
            },
        )
        hits = [_archive_hit(r) for r in rows]
        return ArchiveSearchResult(limit=limit, hits=hits, clamped=clamped, truncated=bool(clamped))

    def search(
        self,
        query: str,
        filters: ArchiveFilters,
        limit: int = MEMORY_MAX_RESULTS,
        mode: SearchMode | None = None,
    ) -> SearchResult:
        """Meaning first, then structured facts: chunk hits grouped by session, each session
        joined with its latest version, sessions kept only if they match the filters."""
        sessions: list[str] = list(filters.session_ids)
        if not filters.empty:
            matching = self.archive_search(filters, limit=ARCHIVE_MAX_ROWS)
            sessions = [h.session_id for h in matching.hits]
            if not sessions:
                return SearchResult(query=query, sessions=[])
        memory = self.memory_search(query, limit=limit, session_ids=sessions, mode=mode)
        grouped: dict[str, list[MemoryHit]] = {}
        for hit in memory.hits:
            grouped.setdefault(hit.session_id, []).append(hit)
        latest = (
            {
                h.session_id: h
                for h in self.archive_search(
                    ArchiveFilters(session_ids=list(grouped)), limit=ARCHIVE_MAX_ROWS
                ).hits
            }
            if grouped
            else {}
        )
        matches = [
            SessionMatch(
                session_id=sid,
                best_similarity=max(h.similarity for h in hits),
                chunks=hits,
                latest=latest.get(sid),
            )
            for sid, hits in grouped.items()
        ]
        return SearchResult(
            query=memory.query, sessions=matches, clamped=memory.clamped, truncated=memory.truncated
        )

    def _query_text(self, query: str, clamped: dict[str, Clamp]) -> str:
        text = clean_text(query).strip()
        if not text:
            raise ConfigError("the search query is empty")
        ceiling = self.settings.search_query_max_chars
        if len(text) > ceiling:
            clamped["query_chars"] = Clamp(requested=len(text), applied=ceiling)
            text = text[:ceiling]
        return text

    def _timed(
        self, deadline: _Deadline, function: str, args: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """Call one search function under what is left of the deadline, as a statement timeout.

        Over REST the function's own `statement_timeout` (sql/policy.sql) bounds it in the database.
        """
        try:
            rows: list[dict[str, Any]] = self.store.call(
                function, timeout_ms=deadline.remaining_ms(), **args
            )
        except QueryTimeoutError:
            raise SearchTimeoutError(
                f"the search ran out of its {deadline.seconds:g} s in the database"
            ) from None
        return rows


def _vector_text(values: list[float]) -> str:
    """A vector in pgvector's text form, which both transports pass as it is."""
    return "[" + ",".join(repr(float(v)) for v in values) + "]"


def _archive_hit(row: dict[str, Any]) -> ArchiveHit:
    return ArchiveHit(
        session_id=row["session_id"],
        version=row["version"],
        version_at=row["version_at"],
        span=Span.model_validate(row["span"] or {}),
        summary=row["summary"] or "",
        topics=row["topics"] or [],
        decisions=row["decisions"],
        entities=row["entities"],
        actions=row["actions"],
        state_items=row["state_items"] or [],
    )
