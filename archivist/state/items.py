"""The state item contract: statuses and their merge precedence, normalisation and UIDs.

Pure values and functions, no I/O. A *candidate* is what an extractor (rules or LLM) proposes
from one batch of messages; reconciliation turns candidates into *state items*, which live in
every version's extraction under `state_items`. The stored shapes (`StateItem`, `StateChange`
and their types) are part of the extraction contract, so they live in `archivist.models`;
they are re-exported here, next to the rules that govern them.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from archivist.models import (
    ChangeKind,
    Confidence,
    ItemStatus,
    ItemType,
    StateChange,
    StateItem,
)

__all__ = [
    "STATUS_PRECEDENCE",
    "UID_PREFIX",
    "CandidateItem",
    "ChangeKind",
    "Confidence",
    "ItemStatus",
    "ItemType",
    "StateChange",
    "StateItem",
    "compute_uid",
    "default_status",
    "is_standing_rule",
    "max_confidence",
    "normalize_text",
    "resolve_status_merge",
    "validated_status",
]

UID_PREFIX: dict[ItemType, str] = {
    "decision": "d_",
    "constraint": "c_",
    "action": "a_",
    "question": "q_",
    "risk": "r_",
    "fact": "f_",
}

# Highest precedence first: a merge keeps whichever of two statuses comes earlier here.
STATUS_PRECEDENCE: dict[ItemType, tuple[str, ...]] = {
    "decision": ("superseded", "active"),
    "constraint": ("superseded", "active"),
    "risk": ("superseded", "active"),
    "action": ("superseded", "done", "blocked", "open"),
    "question": ("superseded", "answered", "open"),
    "fact": ("superseded", "active"),
}

_CONFIDENCE_ORDER: tuple[Confidence, ...] = ("low", "medium", "high")

_QUOTES = re.compile(r"[\"'`\u2018\u2019\u201c\u201d]")
_BULLET = re.compile(r"^\s*(?:[-*\u2022]+|\d+[.)])\s*")
_SPACE = re.compile(r"\s+")


# A standing rule for the assistant: "Always format code with syntax highlighting when I ask
# about implementation details", "Never round the figures". It constrains every later answer
# on its matter, which its "when I ask about ..." part names.
_STANDING_RULE = re.compile(
    r"^(?:please\s+)?(?:always|never|(?:don't|do not) ever)\s+(?!mind\b)"
    # not what never happened: "never said you were", "never thought I would see that"
    r"(?!(?:said|thought|knew|saw|was|were|had|did|been|got|went|made|heard|felt|told|took|came"
    r"|gave|found|(?!embed\b)\w+[^e]ed)\b)\w",
    re.I,
)


def is_standing_rule(text: str) -> bool:
    """Whether a sentence (or a constraint item's text) is a standing rule for the assistant."""
    return bool(_STANDING_RULE.match(text))


def default_status(item_type: ItemType) -> str:
    """The status a new item of this type starts with (`active`, or `open`)."""
    return STATUS_PRECEDENCE[item_type][-1]


def normalize_text(text: str) -> str:
    """Lower case, NFC, no bullet, no quotes, single spaces: the form UIDs are computed from."""
    text = unicodedata.normalize("NFC", text)
    text = _QUOTES.sub("", text)  # before the bullet, so a quoted bullet goes too
    text = _BULLET.sub("", text)
    return _SPACE.sub(" ", text).strip().lower()


def compute_uid(item_type: ItemType, text: str) -> str:
    """Type prefix + the first 12 hex of sha256(`type:normalised text`): equal items, equal UIDs."""
    digest = hashlib.sha256(f"{item_type}:{normalize_text(text)}".encode()).hexdigest()
    return UID_PREFIX[item_type] + digest[:12]


def resolve_status_merge(item_type: ItemType, a: str, b: str) -> str:
    """The status of two merged items: whichever has the higher precedence for the type."""
    order = STATUS_PRECEDENCE[item_type]
    return min(a, b, key=order.index)


def max_confidence(a: Confidence, b: Confidence) -> Confidence:
    return max(a, b, key=_CONFIDENCE_ORDER.index)


NAME_CHARS = 120  # the longest subject, value or replaced value a candidate item holds


class CandidateItem(BaseModel):
    """An item an extractor proposes from one batch of messages; reconciliation decides its fate.

    This is also the JSON shape the LLM extractor is asked for (its schema is sent as
    `format`), so it stays flat and small. `refs` must be ids of messages in the batch.
    """

    model_config = ConfigDict(extra="ignore")

    type: ItemType
    text: str = Field(min_length=1, max_length=500)
    status: str | None = None
    confidence: Confidence = "medium"
    topic_tags: list[str] = Field(default_factory=list, max_length=3)
    refs: list[str] = Field(default_factory=list)
    supersedes: str | None = None
    subject: str | None = Field(
        default=None,
        max_length=NAME_CHARS,
        description="What the item decides about, in a few words (the session cache, login).",
    )
    value: str | None = Field(
        default=None,
        max_length=NAME_CHARS,
        description="What it decides for it (Memcached, Auth0).",
    )
    replaces: str | None = Field(
        default=None,
        max_length=NAME_CHARS,
        description="With a change: the value it replaces (Redis).",
    )
    change: Literal["replace", "reverse", "cancel", "update"] | None = Field(
        default=None,
        description="Set only when the message changes an earlier choice on the same subject.",
    )
    # The sentence the rules extractor found the item in, where its change language is looked
    # for. Private, so not part of the JSON schema an LLM is asked to fill.
    _context: str | None = PrivateAttr(default=None)

    def signal_text(self) -> str:
        """Where reconciliation looks for change language: the item and its sentence."""
        return f"{self.text}\n{self._context}" if self._context else self.text

    def with_context(self, context: str) -> CandidateItem:
        self._context = context
        return self


def validated_status(item_type: ItemType, status: str | None) -> tuple[str, bool]:
    """The status to keep for a candidate and whether it was valid.

    An unknown status becomes the type's default; the caller then lowers the confidence.
    `superseded` is never accepted from an extractor: only reconciliation supersedes.
    """
    if status is None:
        return default_status(item_type), True
    allowed = STATUS_PRECEDENCE[item_type][1:]
    if status in allowed:
        return status, True
    return default_status(item_type), False
