"""Filters: the structured ones of `archive_search` and the chunk filter of `memory_search`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, field_validator

from archivist.models import ChunkSource
from archivist.sanitize import clean_text
from archivist.state.items import ItemStatus, ItemType
from archivist.when import Moment


class ArchiveFilters(BaseModel):
    """Structured filters over the archive; every one optional."""

    topics: list[str] = Field(default_factory=list)
    all_topics: bool = False
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

    @field_validator("topics", "session_ids", mode="after")
    @classmethod
    def _storable_list(cls, values: list[str]) -> list[str]:
        return [clean_text(v) for v in values]

    @field_validator("decision", "entity", "action", "user_id", mode="after")
    @classmethod
    def _storable(cls, value: str | None) -> str | None:
        return clean_text(value) if value is not None else None

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


def chunk_filter(
    model: str,
    session_ids: Sequence[str] = (),
    source: ChunkSource | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    user_id: str | None = None,
    as_of: datetime | None = None,
) -> dict[str, Any]:
    """The `filter` document of the memory search functions (keys only for what is given)."""
    filter_: dict[str, Any] = {"embedding_model": model}
    if session_ids:
        filter_["session_ids"] = [clean_text(s) for s in session_ids]
    if source:
        filter_["source"] = source
    if since:
        filter_["since"] = since.isoformat()
    if until:
        filter_["until"] = until.isoformat()
    if user_id is not None:
        filter_["user_id"] = clean_text(user_id)
    if as_of:
        filter_["as_of"] = as_of.isoformat()
    return filter_
