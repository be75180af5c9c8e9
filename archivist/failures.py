"""Fault isolation: sessions that fail are retried with backoff and quarantined; ids too long.

A session whose run fails for a reason of its own (its data, not a fault every session would
meet) is recorded in `archivist_session_failures`: runs leave it out for `failure_backoff_s`,
doubling with each failed run in a row (at most a day), and after `quarantine_after_failures`
failed runs until a run names it with `--session-id`. Archiving it clears the record. So a
poison session costs one attempt per backoff, never the progress of the others.

Session ids longer than `MAX_SESSION_ID_BYTES` cannot be archived (they would not fit the
archive's indexes); they are refused up front and only ever shown shortened. Nor can ids that
are not UTF-8 (`storable`), shown with their invalid bytes escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, Field

from archivist.errors import ConfigError

# The same bound as archivist_session_id_fits (sql/functions/sources.sql).
MAX_SESSION_ID_BYTES = 1024


class FailedSession(BaseModel):
    """A session with failed runs in a row, and whether runs leave it out now."""

    session_id: str
    failures: int = Field(description="failed runs in a row")
    first_failed_at: datetime
    last_failed_at: datetime
    retry_after: datetime = Field(description="runs leave it out until then")
    quarantined: bool = Field(description="runs leave it out until one names it")
    reason: str

    def held(self, now: datetime) -> bool:
        """Whether a run that does not name it leaves it out at `now`."""
        return self.quarantined or self.retry_after > now


class UnarchivableSessions(BaseModel):
    """Pending sessions whose id is too long to archive (never shown whole)."""

    count: int = 0
    examples: list[str] = Field(default_factory=list, description="shortened ids, bytes")


def fits(session_id: str) -> bool:
    """Whether the archive can hold this session id."""
    return len(session_id.encode("utf-8", "surrogatepass")) <= MAX_SESSION_ID_BYTES


def storable(session_id: str) -> bool:
    """Whether the archive can store the id as text: not so invalid UTF-8 from a SQL_ASCII
    database, read as lone surrogates (any call naming it would fail)."""
    try:
        session_id.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def escaped(session_id: str) -> str:
    """An id that is not `storable` as it may be shown: its invalid bytes as \\xNN."""
    return session_id.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def shortened(session_id: str) -> str:
    """The id as it may be shown: whole if it fits, else its first 24 and last 8 characters."""
    if fits(session_id):
        return session_id
    return f"{session_id[:24]}…{session_id[-8:]}"


def refuse_unarchivable(session_ids: Sequence[str]) -> None:
    """Stop before any work if a session id given on the command line cannot be archived."""
    for session_id in session_ids:
        if not fits(session_id):
            size = len(session_id.encode("utf-8", "surrogatepass"))
            raise ConfigError(
                f"--session-id {shortened(session_id)!r} ({size} bytes) is too long to archive: "
                f"a session id may have at most {MAX_SESSION_ID_BYTES} bytes"
            )
