"""The prune safety gate: would deleting messages older than a cutoff lose anything?

A message is safe to delete once a committed archive version covers it, which is exactly when
its id is in the `message_ids` of one of its session's turn chunks (they are written in the
same transaction as the version). Messages that were never archived, and late arrivals
stamped before a session's watermark but not yet archived, are at risk.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pydantic import BaseModel

from archivist.models import Watermark
from archivist.store.postgres import Store


class SessionAtRisk(BaseModel):
    session_id: str
    messages_at_risk: int
    oldest_at_risk: datetime
    covered_up_to: Watermark | None


class PruneCheck(BaseModel):
    """The answer a prune job acts on: `safe`, and if not, what would be lost."""

    cutoff: datetime
    safe: bool
    messages_older: int
    sessions_older: int
    messages_at_risk: int
    sessions: list[SessionAtRisk]
    # Messages without a usable created_at that no version covers yet: no age-based prune
    # selects them, but until archived they are counted at risk.
    undated_at_risk: int = 0


def prune_check(store: Store, older_than: timedelta) -> PruneCheck:
    """Check messages older than `older_than` (from now) against the committed archive."""
    cutoff = datetime.now(UTC) - older_than
    at_risk = store.uncovered_before(cutoff)
    watermarks = store.watermarks([s for s, _, _ in at_risk])
    messages, sessions = store.messages_before(cutoff)
    undated = sum(n for _, n in store.undated_uncovered())
    return PruneCheck(
        cutoff=cutoff,
        safe=not at_risk and not undated,
        messages_older=messages,
        sessions_older=sessions,
        messages_at_risk=sum(n for _, n, _ in at_risk) + undated,
        undated_at_risk=undated,
        sessions=[
            SessionAtRisk(
                session_id=s, messages_at_risk=n, oldest_at_risk=t, covered_up_to=watermarks.get(s)
            )
            for s, n, t in at_risk
        ],
    )
