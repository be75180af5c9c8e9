"""The prune safety gate: would deleting messages older than a cutoff lose anything?

A message is safe to delete once the archive holds its current text whole: a committed version
recorded it in `archivist_message_hashes` (in the transaction that wrote its chunks) with the
md5 its content has now, and not cut. Every other message older than the cutoff is at risk, for
one of three reasons:

- `unarchived`: no version archived it (never archived yet, or a late arrival stamped before
  its session's watermark);
- `edited`: a version archived it, but its text changed since (edited in place, or deleted and
  inserted again with the same id and another text); the next run archives the new text;
- `truncated`: it is longer than `max_message_chars` and was archived cut; it stays at risk
  until the setting is raised above its length and a run archives it whole.

Undated messages (no usable created_at) are selected by no age-based prune but are counted at
risk until the archive holds their current text.

Messages forgotten on request (`archivist forget`: their session, their user or they) are
nothing to protect: never at risk, and counted apart (`forgotten_messages`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from archivist.errors import ConfigError
from archivist.failures import MAX_SESSION_ID_BYTES, escaped, storable
from archivist.models import Watermark
from archivist.store import Store
from archivist.words import plural

Reason = Literal["unarchived", "edited", "truncated"]
REASONS: tuple[Reason, ...] = ("unarchived", "edited", "truncated")
# Ids listed per session and reason; the counts are always whole.
MAX_IDS_LISTED = 20


# How messages without a session id (NULL) are named where a session id would stand.
NO_SESSION_ID = "(no session id)"


class SessionAtRisk(BaseModel):
    session_id: str
    messages_at_risk: int
    oldest_at_risk: datetime
    covered_up_to: Watermark | None
    unarchived: int = Field(0, description="messages no version archived")
    edited: int = Field(0, description="archived messages whose text changed since")
    truncated: int = Field(0, description="messages archived cut at max_message_chars")
    message_ids: dict[Reason, list[str]] = Field(
        default_factory=dict, description=f"reason -> the first {MAX_IDS_LISTED} ids, oldest first"
    )
    id_too_long: bool = Field(
        False, description="its id is over 1024 bytes: the archive cannot hold it, ever"
    )
    id_missing: bool = Field(
        False,
        description=f"messages without a session id (shown as {NO_SESSION_ID}): never archived",
    )
    id_not_utf8: bool = Field(
        False,
        description="its id is not UTF-8 (shown with its bytes as \\xNN): the archive cannot "
        "hold it, ever",
    )
    reason: str = Field("", description="the reasons in one line, with ids")


class PruneCheck(BaseModel):
    """The answer a prune job acts on: `safe`, and if not, what would be lost."""

    cutoff: datetime
    safe: bool
    messages_older: int
    sessions_older: int
    messages_at_risk: int
    sessions: list[SessionAtRisk]
    # Messages without a usable created_at whose current text the archive lacks: no age-based
    # prune selects them, but until archived they are counted at risk.
    undated_at_risk: int = 0
    messages_unarchived: int = 0
    messages_edited: int = 0
    messages_truncated: int = 0
    forgotten_messages: int = Field(
        0, description="messages older than the cutoff forgotten on request: nothing to protect"
    )
    forgotten_sessions: int = Field(0, description="the sessions those messages belong to")
    reasons: list[str] = Field(
        default_factory=list, description="why it is not safe and what to do, one line each"
    )


def prune_check(store: Store, older_than: timedelta, max_message_chars: int) -> PruneCheck:
    """Check messages older than `older_than` (from now) against what the archive holds."""
    cutoff = datetime.now(UTC) - older_than
    if older_than <= timedelta(0):  # a prune up to it would delete messages not checked yet
        raise ConfigError(
            f"the cutoff {cutoff:%Y-%m-%d %H:%M} UTC is not in the past: a prune job must not "
            "delete messages that may arrive after the check"
        )
    rows = store.messages_at_risk(cutoff, MAX_IDS_LISTED)
    # (messages without an id, or one that is not UTF-8, were never archived: no call names them)
    named = [r["session_id"] for r in rows if r["session_id"] is not None]
    watermarks = store.watermarks([s for s in named if storable(s)])
    messages, sessions = store.messages_before(cutoff)
    undated = sum(n for _, n in store.undated_uncovered())
    forgotten_messages, forgotten_sessions = store.forgotten_before(cutoff)
    at_risk = [_session(row, watermarks.get(row["session_id"])) for row in rows]
    totals = {reason: sum(getattr(s, reason) for s in at_risk) for reason in REASONS}
    return PruneCheck(
        cutoff=cutoff,
        safe=not at_risk and not undated,
        messages_older=messages,
        sessions_older=sessions,
        messages_at_risk=sum(s.messages_at_risk for s in at_risk) + undated,
        undated_at_risk=undated,
        sessions=at_risk,
        messages_unarchived=totals["unarchived"],
        messages_edited=totals["edited"],
        messages_truncated=totals["truncated"],
        forgotten_messages=forgotten_messages,
        forgotten_sessions=forgotten_sessions,
        reasons=_advice(totals, undated, max_message_chars, at_risk),
    )


def _session(row: dict[str, Any], watermark: Watermark | None) -> SessionAtRisk:
    ids: dict[Reason, list[str]] = {
        r: [str(i) for i in (row.get("ids") or {}).get(r, [])] for r in REASONS
    }
    session_id = NO_SESSION_ID if row["session_id"] is None else str(row["session_id"])
    session = SessionAtRisk(
        session_id=session_id if storable(session_id) else escaped(session_id),
        id_missing=row["session_id"] is None,
        id_not_utf8=not storable(session_id),
        messages_at_risk=int(row["count"]),
        oldest_at_risk=row["oldest"],
        covered_up_to=watermark,
        unarchived=int(row["unarchived"]),
        edited=int(row["edited"]),
        truncated=int(row["truncated"]),
        message_ids={r: found for r, found in ids.items() if found},
        id_too_long=bool(row.get("id_too_long")),
    )
    session.reason = "; ".join(
        f"{getattr(session, r)} {_WHAT[r]} ({_listed(ids[r], getattr(session, r))})"
        for r in REASONS
        if getattr(session, r)
    )
    if session.id_too_long:
        session.reason = f"session id over {MAX_SESSION_ID_BYTES} bytes, never archived; " + (
            session.reason
        )
    if session.id_not_utf8:
        session.reason = "session id not UTF-8, never archived; " + session.reason
    if session.id_missing:
        session.reason = "no session id, never archived; " + session.reason
    return session


_WHAT: dict[Reason, str] = {
    "unarchived": "not archived",
    "edited": "edited since archived",
    "truncated": "archived cut",
}


def _listed(ids: list[str], count: int) -> str:
    shown = ", ".join(ids)
    more = count - len(ids)
    return f"{'id' if count == 1 else 'ids'} {shown}" + (f" and {more} more" if more > 0 else "")


def _advice(
    totals: dict[Reason, int],
    undated: int,
    max_message_chars: int,
    at_risk: list[SessionAtRisk],
) -> list[str]:
    too_long = sum(s.id_too_long for s in at_risk)
    not_utf8 = sum(s.id_not_utf8 for s in at_risk)
    without_id = sum(s.messages_at_risk for s in at_risk if s.id_missing)
    # (messages of sessions the archive cannot hold: no run archives them)
    never = sum(s.unarchived for s in at_risk if s.id_too_long or s.id_not_utf8 or s.id_missing)
    lines = []
    if without_id:
        lines.append(
            f"{plural(without_id, 'message has', 'messages have')} no session id, which the "
            f"archive cannot hold: {'it is' if without_id == 1 else 'they are'} never archived; "
            f"keep {'it' if without_id == 1 else 'them'}, or give "
            f"{'it' if without_id == 1 else 'them'} a session id in the bot"
        )
    if too_long:
        lines.append(
            f"{plural(too_long, 'session has an id', 'sessions have ids')} over "
            f"{MAX_SESSION_ID_BYTES} bytes, which the archive cannot hold: their messages are "
            "never archived; keep them, or give the sessions shorter ids in the bot"
        )
    if not_utf8:
        lines.append(
            f"{plural(not_utf8, 'session has an id', 'sessions have ids')} that "
            f"{'is' if not_utf8 == 1 else 'are'} not UTF-8, which the archive cannot hold: "
            "their messages are never archived; keep them, or fix the ids in the bot"
        )
    if (archivable := totals["unarchived"] - never) > 0:
        lines.append(
            f"{plural(archivable, 'message is', 'messages are')} not archived: run "
            "archivist archive"
        )
    if totals["edited"]:
        lines.append(
            f"{plural(totals['edited'], 'message')} changed after archiving (edited, "
            "or deleted and inserted again with the same id): run archivist archive, which "
            "archives the new text"
        )
    if totals["truncated"]:
        lines.append(
            f"{plural(totals['truncated'], 'message is', 'messages are')} longer than "
            f"max_message_chars ({max_message_chars}) and archived cut: raise "
            "ARCHIVIST_MAX_MESSAGE_CHARS "
            "above their length and run archivist archive, or keep them"
        )
    if undated:
        lines.append(
            f"{plural(undated, 'message')} without a usable created_at "
            f"{'is not archived as it is' if undated == 1 else 'are not archived as they are'}: "
            "run archivist archive"
        )
    return lines
