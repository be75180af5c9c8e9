"""`archivist status`: how far the archive reaches, what is waiting, and the last runs."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from archivist.failures import FailedSession
from archivist.store import Store

_FAR_FUTURE = datetime(9999, 1, 1, tzinfo=UTC)


class RunRecord(BaseModel):
    id: int
    started_at: datetime
    finished_at: datetime | None
    arguments: dict[str, Any]
    counts: dict[str, int] | None
    failures: dict[str, str] | None


class Status(BaseModel):
    sessions_archived: int
    sessions_pending: int
    messages_unarchived: int
    oldest_unarchived: datetime | None
    messages_cut: int = Field(
        0,
        description="messages archived cut at max_message_chars: no run archives more of them "
        "until the setting is raised (prune-check names them)",
    )
    last_runs: list[RunRecord]
    failed_sessions: list[FailedSession] = Field(
        default_factory=list, description="sessions with failed runs in a row, quarantined first"
    )
    sessions_quarantined: int = Field(0, description="left out of runs until named")
    open_conflicts: int = Field(
        0, description="items on one subject that disagree, for `archivist conflicts`"
    )


def archive_status(store: Store, runs: int = 5) -> Status:
    """Sessions archived, sessions and messages whose current text the archive lacks (not
    archived, or edited since), messages archived cut, recent runs."""
    at_risk = store.messages_at_risk(_FAR_FUTURE, 0)
    # (a message archived cut is no run's work: apart, or status and archive disagree)
    waiting = [r for r in at_risk if int(r["count"]) > int(r["truncated"])]
    failed = store.failed_sessions()
    return Status(
        sessions_archived=store.archived_session_count(),
        sessions_pending=len(waiting),
        messages_unarchived=sum(int(r["count"]) - int(r["truncated"]) for r in waiting),
        oldest_unarchived=min((r["oldest"] for r in waiting), default=None),
        messages_cut=sum(int(r["truncated"]) for r in at_risk),
        last_runs=[RunRecord.model_validate(r) for r in store.recent_runs(runs)],
        failed_sessions=failed,
        sessions_quarantined=sum(f.quarantined for f in failed),
        open_conflicts=int(
            store.call("archivist_current_state", p_limit=1, p_conflicts=True)["total"]
        ),
    )
