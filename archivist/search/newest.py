"""The newest statement first: among hits on the same subject, the newer ranks above the older.

A conversation restates what changes: "the API answers in 400 ms" one week, "it is down to
250 ms now" the next. Both match a question about the API's response time, and ranked by words
alone the older often comes first. Two hits are taken to be on the same subject when each
contains at least two of the query's words and they share more than half of the words either
contains (`SAME_SUBJECT`). Among such hits the newer (by the conversation time it covers) is moved
right above the older, which points to it in `superseded_by`; other hits keep their places.
Which hits make the top k does not change, only their order.

On BEAM's knowledge-update questions (public, chats 1-10, the tuning half) this took the updated
statement above the original from 22 % of the questions to 83 %.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from archivist.search.results import MemoryHit
from archivist.snippets import matched_terms

SAME_SUBJECT = 0.5  # shared words must be more than this share of the words either contains
LEAST_WORDS = 2  # a hit matching fewer of the query's words has no subject to compare


def newest_first(hits: Sequence[MemoryHit], terms: list[str]) -> list[MemoryHit]:
    """The hits with each newer statement of a subject moved above its older ones."""
    ordered = [_Said(h, matched_terms(h.content, terms), _covered_at(h)) for h in hits]
    newer_of: dict[str, str] = {}
    moved = True
    while moved:  # each move puts a newer hit above an older one, so this ends
        moved = False
        for i, older in enumerate(ordered):
            j = next((j for j in range(i + 1, len(ordered)) if ordered[j].restates(older)), None)
            if j is not None:
                newer_of.setdefault(older.hit.id, ordered[j].hit.id)
                ordered.insert(i, ordered.pop(j))
                moved = True
                break
    return [
        s.hit.model_copy(update={"superseded_by": newer_of[s.hit.id]})
        if s.hit.id in newer_of
        else s.hit
        for s in ordered
    ]


@dataclass(frozen=True)
class _Said:
    hit: MemoryHit
    words: frozenset[str]  # the query's words it contains
    at: datetime | None  # the conversation time it covers

    def restates(self, older: _Said) -> bool:
        """Whether this hit is on the subject of `older` and covers a later time."""
        a, b = older.words, self.words
        if len(a) < LEAST_WORDS or len(b) < LEAST_WORDS or older.at is None or self.at is None:
            return False
        return self.at > older.at and len(a & b) > SAME_SUBJECT * len(a | b)


def _covered_at(hit: MemoryHit) -> datetime | None:
    """When the conversation a hit shows took place: its last message's time."""
    value = hit.metadata.get("last_at") or hit.metadata.get("first_at")
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None
