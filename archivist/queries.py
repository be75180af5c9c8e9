"""The arguments of each read, as pydantic models shared by every way in.

The Python client (`archivist.client.Archivist`, and through it the module functions and the
CLI) validates its arguments with these models, and `archivist mcp` publishes their JSON
Schema as its tools' input schemas, so a bot gets the same names, types and refusals from
either. A limit over its ceiling is not refused here: the search clamps it and says so in
the result's `clamped`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from archivist.config import SearchMode, plain_error
from archivist.errors import ConfigError
from archivist.models import ChunkSource
from archivist.search import ARCHIVE_MAX_ROWS, MEMORY_MAX_RESULTS, ArchiveFilters
from archivist.when import HINT, Moment

_DESCRIPTIONS = {
    "topics": "Sessions about any of these topics (every one of them with all_topics).",
    "all_topics": "Require every topic, not any.",
    "decision": "Sessions with a decision containing this text.",
    "entity": "Sessions naming this entity: a name, or a key like tool:vercel.",
    "action": "Sessions with an action containing this text.",
    "session_ids": "Only these sessions.",
    "since": f"Only conversation from this time on: {HINT}.",
    "until": f"Only conversation up to this time: {HINT}.",
    "item_types": "Sessions with a state item of one of these types.",
    "item_statuses": "Sessions with a state item in one of these statuses.",
    "user_id": "Only this user's memories (per-user memory: ARCHIVIST_MESSAGE_USER_ID).",
    "as_of": "The archive as it stood at this time: only what had been said by then, and "
    f"which statement is newer judged among it: {HINT}.",
}


def _describe(schema: dict[str, Any]) -> None:
    """Descriptions for the inherited filter fields, which `ArchiveFilters` leaves bare."""
    for name, prop in schema.get("properties", {}).items():
        if name in _DESCRIPTIONS:
            prop.setdefault("description", _DESCRIPTIONS[name])


_STRICT = ConfigDict(extra="forbid", json_schema_extra=_describe)
Query = TypeVar("Query", bound=BaseModel)


class MemoryQuery(BaseModel):
    """Find conversation by meaning: the chunks that best answer the query, best first."""

    model_config = _STRICT

    query: str = Field(description="What to look for, in plain words (cut at 8,000 characters).")
    limit: int = Field(
        MEMORY_MAX_RESULTS, ge=1, description="Chunks wanted; more than 10 is clamped to 10."
    )
    session_ids: list[str] = Field(default_factory=list)
    source: ChunkSource | None = Field(None, description="Only chunks of this kind.")
    since: Moment | None = None
    until: Moment | None = None
    mode: SearchMode | None = Field(
        None, description="Ranking: vector, text or hybrid (default: the configured one)."
    )
    user_id: str | None = None
    min_score: float | None = Field(
        None, ge=0, description="Leave out hits whose relevance is under this (0 to 1)."
    )
    as_of: Moment | None = None


class _Filtered(ArchiveFilters):
    def filters(self) -> ArchiveFilters:
        """The structured filters alone, as the searches take them."""
        fields = set(ArchiveFilters.model_fields)
        return ArchiveFilters.model_validate(self.model_dump(include=fields))


class ArchiveQuery(_Filtered):
    """Find sessions by structured fact: topics, decisions, entities, actions, state items."""

    model_config = _STRICT

    limit: int = Field(
        ARCHIVE_MAX_ROWS, ge=1, description="Rows wanted; more than 20 is clamped to 20."
    )
    all_versions: bool = Field(False, description="Every version, not only each latest.")


class HybridQuery(_Filtered):
    """Meaning first, then structured facts: matching sessions with their latest version."""

    model_config = _STRICT

    query: str = Field(description="What to look for, in plain words (cut at 8,000 characters).")
    limit: int = Field(
        MEMORY_MAX_RESULTS, ge=1, description="Chunks wanted; more than 10 is clamped to 10."
    )
    mode: SearchMode | None = Field(
        None, description="Ranking: vector, text or hybrid (default: the configured one)."
    )


class SessionQuery(BaseModel):
    """One session, by id."""

    model_config = _STRICT

    session_id: str = Field(min_length=1, description="The session's id.")


def parse_query(model: type[Query], values: Mapping[str, Any]) -> Query:
    """Validate a read's arguments; a bad one is a `ConfigError` of one line."""
    try:
        query = model.model_validate(values)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "arguments"
        more = exc.error_count() - 1
        rest = f" (and {more} more)" if more else ""
        problem = "unknown argument" if first["type"] == "extra_forbidden" else plain_error(first)
        raise ConfigError(f"invalid argument {where}: {problem}{rest}") from None
    since, until = getattr(query, "since", None), getattr(query, "until", None)
    if since is not None and until is not None and since > until:
        raise ConfigError(
            f"since ({since.isoformat()}) is after until ({until.isoformat()}): nothing can "
            "match; swap them (since is the earlier time)"
        )
    as_of = getattr(query, "as_of", None)
    if since is not None and as_of is not None and since > as_of:
        raise ConfigError(
            f"since ({since.isoformat()}) is after as_of ({as_of.isoformat()}): nothing had "
            "been said by then; give an earlier since or a later as_of"
        )
    return query
