"""`archivist status`: how far the archive reaches, what is waiting, and the last runs."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from archivist.store.postgres import Store

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
    last_runs: list[RunRecord]


def archive_status(store: Store, runs: int = 5) -> Status:
    """Sessions archived, sessions and messages no committed version covers yet, recent runs."""
    uncovered = store.uncovered_before(_FAR_FUTURE)
    return Status(
        sessions_archived=store.archived_session_count(),
        sessions_pending=len(uncovered),
        messages_unarchived=sum(n for _, n, _ in uncovered),
        oldest_unarchived=min((t for _, _, t in uncovered), default=None),
        last_runs=[RunRecord.model_validate(r) for r in store.recent_runs(runs)],
    )
