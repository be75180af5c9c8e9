"""What the searches return; `--json` prints these models exactly, so their fields are a contract.

A memory hit carries the ids of the source messages it stands for (`message_ids`), what it was
built from, never a guess: a turn window's messages; a state item's refs; an extraction piece's
the messages its summary's text was taken from (the rules extractor's: the request it opens
with, the messages that stated each decision and action it names, `Extraction.summary_refs`;
only a piece holding the whole summary) and then those that named the entities it lists. The
bot's own session summary names none: it was written from the session's messages up to its
time, all of them as far as anyone can tell, and a list of them all would say nothing; an LLM
extractor's summary, topics (counted over the whole conversation) and preferences name none
either. `similarity` is the cosine between the query and the chunk,
absent in text mode (which does not embed the query); `score` is the ranking score the hits are
ordered by.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from archivist.config import SearchMode
from archivist.models import Action, Decision, Entity, Span
from archivist.state.items import StateItem


class Clamp(BaseModel):
    requested: int
    applied: int


class MemoryHit(BaseModel):
    id: str
    session_id: str
    source: str
    content: str
    message_ids: list[str] = Field(
        default_factory=list,
        description="the source messages this hit was built from (turns: the window's, "
        "state items: their refs, extraction pieces: the messages their summary was taken "
        "from, then those that named their entities; none for the bot's own session summary, "
        "written from the whole session)",
    )
    context_ids: list[str] = Field(
        default_factory=list,
        description="of message_ids, the turns shown around a turn window for context: those "
        "just before and after it in its session, as many as fit search_hit_max_chars "
        "(search_context_turns a side at most)",
    )
    similarity: float | None = Field(
        None, description="cosine of query and chunk; None in text mode (no query vector)"
    )
    score: float | None = Field(None, description="the ranking score the hits are ordered by")
    created_at: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)
    content_chars: int = Field(
        0,
        description="the length of the whole chunk; more than len(content) when content is an "
        "excerpt (a chunk longer than search_hit_max_chars: every turn of it, cut around what "
        "matched)",
    )
    relevance: float | None = Field(
        None,
        description="how well the hit matches, read the same way for every query: with words "
        "in the ranking, how much of what the query's words could score it scores (0 to about "
        "1; 0 for a hit found by meaning alone); in vector mode the cosine similarity",
    )
    weak: bool = Field(
        False,
        description="relevance under search_weak_below: a weak match (never in vector mode, "
        "where relevance is a cosine whose scale depends on the model)",
    )
    superseded_by: str | None = Field(
        None,
        description="the id of a newer hit in these results on the same subject (it matched "
        "most of the same query words, about a later time): it may update this one, and ranks "
        "above it",
    )

    @property
    def said_at(self) -> datetime:
        """When what the hit shows was said: its last message's time, else when it was archived
        (a bot summary or an extraction piece of an archive without message times)."""
        last = self.metadata.get("last_at")
        return datetime.fromisoformat(last) if isinstance(last, str) else self.created_at


class MemorySearchResult(BaseModel):
    """What `memory_search` returns; `--json` prints exactly this."""

    query: str
    mode: SearchMode
    limit: int
    as_of: datetime | None = Field(
        None,
        description="the time searched as of: only chunks whose messages are all at or before "
        "it, and superseded_by judged among them; None for the archive as it is now",
    )
    hits: list[MemoryHit]
    clamped: dict[str, Clamp] = Field(default_factory=dict)
    truncated: bool = False
    no_good_match: bool = Field(
        False, description="no hit reached weak_below: nothing matched well"
    )
    weak_below: float = Field(0.0, description="the relevance under which a hit is weak")
    min_score: float | None = Field(None, description="hits under this relevance were left out")
    dropped_below: int = Field(0, description="hits left out for a relevance under min_score")


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
    best_similarity: float | None
    chunks: list[MemoryHit]
    latest: ArchiveHit | None


class FilterCut(BaseModel):
    """The structured filters matched more sessions than the hybrid searches by meaning."""

    searched: int = Field(description="how many sessions (the newest that matched) were searched")
    note: str


class SearchResult(BaseModel):
    """What the hybrid `search` returns: sessions by meaning, filtered by structured facts."""

    query: str
    sessions: list[SessionMatch]
    clamped: dict[str, Clamp] = Field(default_factory=dict)
    truncated: bool = False
    cut: FilterCut | None = Field(
        None, description="set when the filters matched more sessions than were searched"
    )


def memory_hit(row: dict[str, Any]) -> MemoryHit:
    """A hit from a row of the SQL search functions."""
    metadata = row["metadata"] or {}
    return MemoryHit(
        id=str(row["id"]),
        session_id=row["session_id"],
        source=row["source"],
        content=row["content"],
        content_chars=len(row["content"]),
        message_ids=[str(m) for m in metadata.get("message_ids") or []],
        similarity=row["similarity"],
        score=row.get("score", row["similarity"]),
        relevance=row.get("relevance"),
        created_at=row["created_at"],
        metadata=metadata,
    )


def archive_hit(row: dict[str, Any]) -> ArchiveHit:
    """A hit from a row of `search_jarvis_archive`."""
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
