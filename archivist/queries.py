"""The arguments of each read, as pydantic models shared by every way in.

Each edge builds one of these and validates it there, once: the CLI from its flags,
`archivist mcp` from a tool call's arguments (it publishes their JSON Schema as its tools' input
schemas, so a bot gets the same names, types and refusals from either), and the Python client
from its keyword arguments (`build_query`). The client and the searcher then take the model as
it is, down to the arguments of the SQL call. A limit over its ceiling is not refused here: the
search clamps it and says so in the result's `clamped`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from archivist.config import (
    ARCHIVE_MAX_ROWS,
    MEMORY_MAX_RESULTS,
    SEARCH_QUERY_MAX_CHARS,
    SearchMode,
    plain_error,
)
from archivist.errors import ConfigError
from archivist.models import ChunkSource
from archivist.sanitize import clean_text
from archivist.state.items import ItemStatus, ItemType
from archivist.when import HINT, Moment

_QUERY = f"What to look for, in plain words (cut at {SEARCH_QUERY_MAX_CHARS:,} characters)."
_CHUNKS = f"Chunks wanted; more than {MEMORY_MAX_RESULTS} is clamped to {MEMORY_MAX_RESULTS}."
_ROWS = f"Rows wanted; more than {ARCHIVE_MAX_ROWS} is clamped to {ARCHIVE_MAX_ROWS}."
_MODE = "Ranking: vector, text or hybrid (default: the configured one)."

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


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _an_id(value: str) -> str:
    """A session id as given: no stored id holds NUL, and one stripped of it could name
    another session."""
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    return _not_blank(value)


class ArchiveFilters(BaseModel):
    """Structured filters over the archive; every one optional."""

    topics: list[str] = Field(default_factory=list)
    all_topics: bool = Field(False, strict=True)
    decision: str | None = None
    entity: str | None = None
    action: str | None = None
    session_ids: list[str] = Field(default_factory=list)
    since: Moment | None = None
    until: Moment | None = None
    item_types: list[ItemType] = Field(default_factory=list)
    item_statuses: list[ItemStatus] = Field(default_factory=list)
    # Per-user memory (ARCHIVIST_MESSAGE_USER_ID): only this user's versions and chunks.
    user_id: str | None = None
    # The archive as it stood then: conversation up to this time, state items current then in
    # their scope (archivist.search.currency).
    as_of: Moment | None = None

    # A blank filter would match everything (a topic "" is in every topic list): refused, as
    # an ignored filter would widen what is returned.
    @field_validator("topics", mode="after")
    @classmethod
    def _storable_list(cls, values: list[str]) -> list[str]:
        return [_not_blank(clean_text(v)) for v in values]

    @field_validator("session_ids", mode="after")
    @classmethod
    def _ids(cls, values: list[str]) -> list[str]:
        return [_an_id(v) for v in values]

    @field_validator("decision", "entity", "action", "user_id", mode="after")
    @classmethod
    def _storable(cls, value: str | None) -> str | None:
        return _not_blank(clean_text(value)) if value is not None else None

    @property
    def empty(self) -> bool:
        """No filter that narrows sessions by their archive (the user id is a chunk filter too)."""
        return not (
            self.topics
            or self.decision
            or self.entity
            or self.action
            or self.session_ids
            or self.item_types
            or self.item_statuses
        ) and (self.since is None and self.until is None and self.as_of is None)

    def as_arguments(self, limit: int, all_versions: bool) -> dict[str, Any]:
        """The arguments of `search_jarvis_archive`."""
        return {
            "p_topics": self.topics or None,
            "p_all_topics": self.all_topics,
            "p_decision": self.decision,
            "p_entity": self.entity,
            "p_action": self.action,
            "p_session_ids": self.session_ids or None,
            "p_since": self.since,
            "p_until": min(t for t in (self.until, self.as_of) if t is not None)
            if self.until or self.as_of
            else None,
            "p_all_versions": all_versions,
            "p_limit": limit,
            "p_item_types": list(self.item_types) or None,
            "p_item_statuses": list(self.item_statuses) or None,
            "p_user_id": self.user_id,
        }


class MemoryQuery(BaseModel):
    """Find conversation by meaning: the chunks that best answer the query, best first."""

    model_config = _STRICT

    query: str = Field(description=_QUERY)
    limit: int = Field(MEMORY_MAX_RESULTS, ge=1, strict=True, description=_CHUNKS)
    session_ids: list[str] = Field(default_factory=list)
    source: ChunkSource | None = Field(None, description="Only chunks of this kind.")
    since: Moment | None = None
    until: Moment | None = None
    mode: SearchMode | None = Field(None, description=_MODE)
    user_id: str | None = None
    min_score: float | None = Field(
        None,
        ge=0,
        strict=True,
        description="Leave out hits whose relevance is under this (0 to 1).",
    )
    as_of: Moment | None = None

    def chunk_filter(self, model: str) -> dict[str, Any]:
        """The `filter` document of the memory search functions (keys only for what is given),
        for the chunks of embedding `model`."""
        filter_: dict[str, Any] = {"embedding_model": model}
        if self.session_ids:
            filter_["session_ids"] = [clean_text(s) for s in self.session_ids]
        if self.source:
            filter_["source"] = self.source
        if self.since:
            filter_["since"] = self.since.isoformat()
        if self.until:
            filter_["until"] = self.until.isoformat()
        if self.user_id is not None:
            filter_["user_id"] = clean_text(self.user_id)
        if self.as_of:
            filter_["as_of"] = self.as_of.isoformat()
        return filter_


class _Filtered(ArchiveFilters):
    def filters(self) -> ArchiveFilters:
        """The structured filters alone, as the searches take them."""
        fields = set(ArchiveFilters.model_fields)
        return ArchiveFilters.model_validate(self.model_dump(include=fields))


class ArchiveQuery(_Filtered):
    """Find sessions by structured fact: topics, decisions, entities, actions, state items."""

    model_config = _STRICT

    limit: int = Field(ARCHIVE_MAX_ROWS, ge=1, strict=True, description=_ROWS)
    all_versions: bool = Field(
        False, strict=True, description="Every version, not only each latest."
    )


class HybridQuery(_Filtered):
    """Meaning first, then structured facts: matching sessions with their latest version."""

    model_config = _STRICT

    query: str = Field(description=_QUERY)
    limit: int = Field(MEMORY_MAX_RESULTS, ge=1, strict=True, description=_CHUNKS)
    mode: SearchMode | None = Field(None, description=_MODE)


class SessionQuery(BaseModel):
    """One session, by id."""

    model_config = _STRICT

    session_id: str = Field(min_length=1, description="The session's id.")

    @field_validator("session_id", mode="after")
    @classmethod
    def _an_id(cls, value: str) -> str:
        return _an_id(value)


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
            f"since ({_shown(since)}) is after until ({_shown(until)}): nothing can "
            "match; swap them (since is the earlier time)"
        )
    as_of = getattr(query, "as_of", None)
    if since is not None and as_of is not None and since > as_of:
        raise ConfigError(
            f"since ({_shown(since)}) is after as_of ({_shown(as_of)}): nothing had "
            "been said by then; give an earlier since or a later as_of"
        )
    return query


def build_query(model: type[Query], given: str | BaseModel | None = None, **values: Any) -> Query:
    """The query of a Python call: `given` itself when it is a `model` and nothing came with it;
    else one `model` made of `given` (the query's words, or a model's fields) and `values`,
    validated here by `parse_query`."""
    if isinstance(given, model) and not values:
        return given
    if isinstance(given, BaseModel):
        values = {**given.model_dump(), **values}
    elif given is not None:  # the query's words (anything else is refused as a query)
        values = {"query": given, **values}
    return parse_query(model, values)


def _shown(moment: datetime) -> str:
    """A time in an error, to the second (`30d` ago carries microseconds nobody typed)."""
    return moment.isoformat(timespec="seconds")
