"""The one read of a session (`archivist_read_session`): the session taken, and everything its
next version needs, turned into a `SessionRead` for the planner."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from archivist.embed.base import Vector
from archivist.models import Message, SessionState, SessionSummary
from archivist.store import Store, message_from_row, parse_vector, session_state_from_row


@dataclass(frozen=True)
class LastWindow:
    """The session's last turn window: its index, the message ids it covers, and those of its
    messages the source table still has (read only when the window is not full)."""

    index: int
    covered: list[str]
    present: list[Message]


@dataclass
class SessionRead:
    """Everything the next version of a session needs, as the one read returned it."""

    session_id: str
    state: SessionState | None  # the latest committed version (even for a rebuild)
    rebuild: bool
    limit: int  # max_messages_per_version the read was made with
    new: list[Message] = field(default_factory=list)  # after the watermark (a rebuild: all)
    more: bool = False  # more new messages wait than a version takes
    late: list[Message] = field(default_factory=list)  # dated, before the watermark, unarchived
    edited: list[Message] = field(default_factory=list)  # archived, their text changed since
    undated: list[Message] = field(default_factory=list)
    summary: SessionSummary | None = None
    last_window: LastWindow | None = None
    stored: dict[str, str] = field(default_factory=dict)  # chunk id -> slot (rewritable slots)
    stored_hashes: frozenset[str] = frozenset()  # their content hashes: vectors to copy
    item_vectors: list[tuple[str, str, Vector]] = field(default_factory=list)  # uid, text, vector
    users: list[str] = field(default_factory=list)
    pruned: int = 0  # a rebuild: archived messages the source table no longer has
    taken: bool = True  # False: another worker has the session (nothing else was read)
    # The user's turns of other sessions that a "never" of the new messages may contradict:
    # read after the session (pipeline/earlier.py), for planning to pair.
    earlier: list[Message] = field(default_factory=list)

    @property
    def base(self) -> SessionState | None:
        """The version the next one continues (none for a rebuild: it starts over)."""
        return None if self.rebuild else self.state

    @property
    def pending(self) -> bool:
        """Whether more is waiting than one version takes (another read after the commit)."""
        capped = (self.late, self.edited, self.undated)
        return self.more or any(len(found) >= self.limit for found in capped)


def read_session(
    store: Store, session_id: str, rebuild: bool, limit: int, model: str, window: int
) -> SessionRead:
    """Take the session and read it (one call); `taken` False if another worker has it."""
    row = store.read_session(session_id, rebuild, limit, model, window)
    return parse_read(session_id, rebuild, limit, row)


def parse_read(session_id: str, rebuild: bool, limit: int, row: Mapping[str, Any]) -> SessionRead:
    """The `SessionRead` of one row of `archivist_read_session`."""
    data: Mapping[str, Any] = row["read"]
    if not data.get("taken"):
        return SessionRead(session_id, None, rebuild, limit, taken=False)

    def messages(rows: Sequence[Mapping[str, Any]] | None) -> list[Message]:
        return [message_from_row(session_id, r) for r in rows or []]

    new = messages(data.get("new"))
    window = data.get("last_window")
    stored = data.get("stored") or []
    return SessionRead(
        session_id=session_id,
        state=session_state_from_row(session_id, state) if (state := data.get("state")) else None,
        rebuild=rebuild,
        limit=limit,
        new=new[:limit],
        more=len(new) > limit,
        late=messages(data.get("late")),
        edited=messages(data.get("edited")),
        undated=messages(data.get("undated")),
        summary=_summary(session_id, data.get("summary")),
        last_window=(
            LastWindow(
                int(window["index"]),
                [str(i) for i in window["message_ids"]],
                messages(window.get("messages")),
            )
            if window
            else None
        ),
        stored={str(c["id"]): str(c["slot"]) for c in stored},
        stored_hashes=frozenset(str(c["hash"]) for c in stored if c.get("hash")),
        item_vectors=_item_vectors(row),
        users=[str(u) for u in data.get("users") or []],
        pruned=int(data.get("pruned") or 0),
    )


def _summary(session_id: str, row: Mapping[str, Any] | None) -> SessionSummary | None:
    if not row:
        return None
    return SessionSummary(
        session_id=session_id, summary_text=row["summary_text"], updated_at=row["updated_at"]
    )


def _item_vectors(row: Mapping[str, Any]) -> list[tuple[str, str, Vector]]:
    """The stored state items' vectors: binary `vector`s on a direct connection (numpy arrays),
    their text (`[1,2,...]`) through the REST gateway."""
    uids, texts, vectors = row.get("item_uids"), row.get("item_texts"), row.get("item_vectors")
    if not uids:
        return []
    return [
        (str(uid), str(text), parse_vector(vector))
        for uid, text, vector in zip(uids, texts or [], vectors or [], strict=True)
    ]
