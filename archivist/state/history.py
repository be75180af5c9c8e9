"""A session's versions and what changed from each to the next (`archivist history`).

Computed from the stored extractions alone, so it covers versions written by any extractor:
items added, merged (more refs), superseded (with their evidence), status changes, new
conflicts, and topics and entities added or dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from archivist.errors import SessionNotArchivedError
from archivist.failures import shortened
from archivist.models import ArchivedVersion, Extraction, Span
from archivist.state.items import StateItem


class ItemRef(BaseModel):
    uid: str
    type: str
    text: str


class Superseded(ItemRef):
    replaced_by: str | None
    evidence: dict[str, str] | None


class StatusChange(ItemRef):
    status_from: str
    status_to: str


class VersionChanges(BaseModel):
    """One version and what it changed from the one before it."""

    version: int
    version_at: datetime
    extractor: str
    span: Span
    added: list[ItemRef] = Field(default_factory=list)
    merged: list[ItemRef] = Field(default_factory=list)
    superseded: list[Superseded] = Field(default_factory=list)
    status_changes: list[StatusChange] = Field(default_factory=list)
    conflicts: list[ItemRef] = Field(default_factory=list)
    topics_added: list[str] = Field(default_factory=list)
    topics_dropped: list[str] = Field(default_factory=list)
    entities_added: list[str] = Field(default_factory=list)
    entities_dropped: list[str] = Field(default_factory=list)


class History(BaseModel):
    """What `archivist history` shows; `--json` prints exactly this."""

    session_id: str
    versions: list[VersionChanges]


def _ref(item: StateItem) -> ItemRef:
    return ItemRef(uid=item.uid, type=item.type, text=item.text)


def changes(previous: Extraction | None, current: Extraction) -> dict[str, list[Any]]:
    """The differences between two consecutive extractions, by kind."""
    before = {i.uid: i for i in previous.state_items} if previous else {}
    out: dict[str, list[Any]] = {
        "added": [],
        "merged": [],
        "superseded": [],
        "status_changes": [],
        "conflicts": [],
    }
    for item in current.state_items:
        old = before.get(item.uid)
        if old is None:
            out["added"].append(_ref(item))
            if item.conflict:
                out["conflicts"].append(_ref(item))
            continue
        if item.status == "superseded" and old.status != "superseded":
            out["superseded"].append(
                Superseded(
                    **_ref(item).model_dump(),
                    replaced_by=item.replaced_by,
                    evidence=item.supersession_evidence,
                )
            )
        elif item.status != old.status:
            out["status_changes"].append(
                StatusChange(
                    **_ref(item).model_dump(), status_from=old.status, status_to=item.status
                )
            )
        if set(item.refs) - set(old.refs):
            out["merged"].append(_ref(item))
        if item.conflict and not old.conflict:
            out["conflicts"].append(_ref(item))
    topics_before = set(previous.topics) if previous else set()
    keys_before = {e.key for e in previous.entities} if previous else set()
    keys_now = {e.key for e in current.entities}
    out["topics_added"] = [t for t in current.topics if t not in topics_before]
    out["topics_dropped"] = sorted(topics_before - set(current.topics))
    out["entities_added"] = [e.key for e in current.entities if e.key not in keys_before]
    out["entities_dropped"] = sorted(keys_before - keys_now)
    return out


def history(session_id: str, versions: Sequence[ArchivedVersion]) -> History:
    """The versions (oldest first) with their changes; the first one's against nothing."""
    if not versions:
        raise SessionNotArchivedError(
            f"session {shortened(session_id)} has no archived version yet"
        )
    rows = []
    previous: Extraction | None = None
    for v in versions:
        rows.append(
            VersionChanges.model_validate(
                {
                    "version": v.version,
                    "version_at": v.version_at,
                    "extractor": v.extractor,
                    "span": v.extraction.span,
                    **changes(previous, v.extraction),
                }
            )
        )
        previous = v.extraction
    return History(session_id=session_id, versions=rows)
