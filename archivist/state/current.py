"""The current state of a scope, as `archivist_current_state` (sql/functions/current_state.sql)
computes it: the state items of every session's latest version, reconciled across sessions in
time order. These are its shapes and the checks of its arguments; the SQL does the work, so
the direct and the Supabase transports give the same answer.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from archivist.state.items import ItemType, default_status
from archivist.when import Moment

CURRENT_MAX_ITEMS = 1000


class CurrentItem(BaseModel):
    """One item of the scope: where it comes from, when it became true and stopped, and what
    replaced it (`superseded_by`, in `superseded_by_session`) or what it replaced."""

    session_id: str
    user_id: str | None = None
    uid: str
    type: str
    text: str
    status: str
    subject: str | None = None
    value: str | None = None
    change: str | None = None
    refs: list[str] = Field(default_factory=list)
    became_at: datetime | None = None
    last_seen_at: datetime | None = None
    stopped_at: datetime | None = None
    superseded_by: str | None = None
    superseded_by_session: str | None = None
    trigger: str | None = None
    resolution: str | None = None
    conflict: bool = False
    conflict_with: list[str] = Field(default_factory=list)
    current: bool
    supersedes: list[str] = Field(default_factory=list)


class CurrentState(BaseModel):
    """What `archivist state --current` (and `conflicts`) shows; `--json` prints exactly this.

    As of a time, an item its own session superseded only later is shown as it stood then:
    current, with its type's first status and nothing replacing it yet (the stored row holds
    its latest version's status, as `archive-search --as-of` shows it too)."""

    user_id: str | None = None
    as_of: datetime | None = None
    subject: str | None = None
    total: int
    items: list[CurrentItem]

    @model_validator(mode="after")
    def _as_it_stood(self) -> CurrentState:
        if self.as_of is None:
            return self
        for item in self.items:
            if item.current and item.status == "superseded":
                item.status = default_status(cast(ItemType, item.type))
                item.superseded_by = item.superseded_by_session = item.trigger = None
            item.status = status_as_of(item.type, item.status, item.last_seen_at, self.as_of)
        return self

    @property
    def clipped(self) -> bool:
        return self.total > len(self.items)


class Resolution(BaseModel):
    """A person's word on a conflict, as recorded."""

    id: int
    uid: str
    user_id: str | None = None
    action: Literal["keep", "drop"]
    resolved_at: datetime


class CurrentStateQuery(BaseModel):
    """What is true now (or at `as_of`): the current items of a user, or of the whole archive."""

    model_config = ConfigDict(extra="forbid")

    user_id: str | None = Field(None, description="Only this user's items (else every user's).")
    as_of: Moment | None = Field(None, description="The state as it stood at this time.")
    subject: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="How one subject changed over time (words, or an entity key like tool:redis).",
    )
    limit: int = Field(
        200, ge=1, le=CURRENT_MAX_ITEMS, strict=True, description="Items wanted, at most 1000."
    )

    @field_validator("user_id")
    @classmethod
    def _a_user(cls, user_id: str | None) -> str | None:
        return _not_blank(user_id)

    def arguments(self, conflicts: bool = False) -> dict[str, Any]:
        return {
            "p_user_id": self.user_id,
            "p_as_of": self.as_of,
            "p_subject": self.subject,
            "p_limit": self.limit,
            "p_conflicts": conflicts,
        }


_UID = re.compile(r"[a-z]_[0-9a-f]{1,62}")


def status_as_of(
    item_type: str, status: str, last_seen_at: datetime | None, as_of: datetime
) -> str:
    """An item's status as it stood at `as_of`: an action done or a question answered by a
    message after it was still open then. The message that settled it is the item's last
    (`last_seen_at`); one said again after it was settled reads as settled later too."""
    if status in ("done", "answered") and last_seen_at is not None and last_seen_at > as_of:
        return default_status(cast(ItemType, item_type))
    return status


def _not_blank(user_id: str | None) -> str | None:
    """A user id as given: a blank one names no user (and read as none, the whole archive)."""
    if user_id is not None and not user_id.strip():
        raise ValueError("must not be blank")
    return user_id


class ResolveQuery(BaseModel):
    """Settle a conflict: keep an item (the others on its subject stop) or drop it."""

    model_config = ConfigDict(extra="forbid")

    uid: str
    action: Literal["keep", "drop"]
    user_id: str | None = None

    @field_validator("user_id")
    @classmethod
    def _a_user(cls, user_id: str | None) -> str | None:
        return _not_blank(user_id)

    @field_validator("uid")
    @classmethod
    def _a_uid(cls, uid: str) -> str:
        if not _UID.fullmatch(uid):
            raise ValueError(
                f"a state item's uid looks like d_1a2b3c4d5e6f (`archivist conflicts` lists "
                f"them), not {uid[:64]!r}"
            )
        return uid
