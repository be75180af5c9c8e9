"""The compact state block for prompt builders: a freshness header and one line per item.

    State (updated: 2026-02-16 15:42 UTC, items: 3)
    [d_abc123def456] DECISION (active) auth: Use OAuth2 PKCE flow [refs:2]
    [r_0123456789ab] RISK (active) security: No rate limiting on refresh [refs:1] CONFLICT
    [q_fedcba987654] QUESTION (open, low) arch: Cache embeddings client-side? [refs:1]

Only items that are not superseded; confidence shown only when low; the first topic tag only;
sorted pinned first, then decision > constraint > action > risk > question, then confidence,
then the most recently seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from pydantic import BaseModel

from archivist.errors import SessionNotArchivedError
from archivist.failures import shortened
from archivist.models import ArchivedVersion
from archivist.state.items import StateItem

TYPE_PRIORITY = ("decision", "constraint", "action", "risk", "fact", "question")
_CONFIDENCE_RANK = {"high": 0, "medium": 1, "low": 2}


class StateView(BaseModel):
    """What `archivist state` shows; `--json` prints exactly this."""

    session_id: str
    version: int
    updated_at: datetime
    items: list[StateItem]
    text: str


def ordered(items: Sequence[StateItem]) -> list[StateItem]:
    """The active items in rendering order."""
    active = [i for i in items if i.status != "superseded"]
    oldest = datetime.min.replace(tzinfo=UTC)
    return sorted(
        active,
        key=lambda i: (
            not i.pinned,
            TYPE_PRIORITY.index(i.type),
            _CONFIDENCE_RANK[i.confidence],
            -(i.last_seen_at or oldest).timestamp(),
            i.uid,
        ),
    )


def render_line(item: StateItem) -> str:
    status = f"{item.status}, low" if item.confidence == "low" else item.status
    topic = f"{item.topic_tags[0]}: " if item.topic_tags else ""
    line = f"[{item.uid}] {item.type.upper()} ({status}) {topic}{item.text} [refs:{len(item.refs)}]"
    return line + " CONFLICT" if item.conflict else line


def render_state(items: Sequence[StateItem], updated_at: datetime) -> str:
    """The block itself; empty when there is no active item."""
    active = ordered(items)
    if not active:
        return ""
    stamp = updated_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")  # the CLI's one format
    return "\n".join([f"State (updated: {stamp}, items: {len(active)})", *map(render_line, active)])


def state_view(session_id: str, latest: ArchivedVersion | None) -> StateView:
    """The view of a session's latest version."""
    if latest is None:
        raise SessionNotArchivedError(
            f"session {shortened(session_id)} has no archived version yet"
        )
    items = latest.extraction.state_items
    # Freshness is the conversation's: the last time an item was seen, not the archive run.
    seen = [i.last_seen_at for i in items if i.last_seen_at is not None]
    updated = max(seen) if seen else latest.version_at
    return StateView(
        session_id=session_id,
        version=latest.version,
        updated_at=updated,
        items=ordered(items),
        text=render_state(items, updated),
    )
