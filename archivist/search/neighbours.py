"""The turns around a turn-window hit, shown with it while they fit its share of the text.

Turn windows sit at fixed places and do not overlap, so the message that answers a question is
often just across the edge of the window that matched: the question "When did Nebraas buy a
cheese tart?" matches "It's a cheese tart", and the answer, "I got this today", is the turn
before it, in the window before. A hit therefore shows the turns next to its window, nearest
first and alternating after, before (the reply, then what it replied to), up to
`search_context_turns` on each side, while the hit stays within `search_hit_max_chars`. A side
stops at a turn another hit shows already (it is in the results) or that does not fit. The
neighbours are added to the hit's `content` and `message_ids` and listed in `context_ids`.

On REALTALK's tuning chats (github:danny911kr/REALTALK, real two-person chats of short
messages; scripts/evals/realtalk.py) this took evidence recall@10 from 0.549 to about 0.60 with
the hash embedder, the 10 hits growing from 4,400 to about 6,000 characters. Hits of long
messages (most of BEAM's) are at their share already and show no neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from archivist.search.results import MemoryHit

# The order the places are tried in: the reply, what it replied to, then further out.
_ORDER = (1, -1, 2, -2, 3, -3, 4, -4)


def neighbours_wanted(hits: Sequence[MemoryHit], budget: int) -> list[str]:
    """The hits that may show neighbours: whole turn windows with room left in their share."""
    return [
        h.id
        for h in hits
        if h.source == "session_turn"
        and h.content_chars == len(h.content)
        and len(h.content) < budget
    ]


def with_neighbours(
    hits: Sequence[MemoryHit], rows: Sequence[dict[str, Any]], span: int, budget: int
) -> list[MemoryHit]:
    """`hits` with the neighbouring turns of `rows` (archivist_turn_neighbours) that fit."""
    near: dict[str, dict[int, tuple[str, str]]] = {}
    for row in rows:
        near.setdefault(str(row["chunk_id"]), {})[int(row["place"])] = (
            str(row["message_id"]),
            row["content"],
        )
    shown = {m for h in hits if h.source == "session_turn" for m in h.message_ids}
    result = []
    for hit in hits:
        turns = near.get(hit.id)
        if not turns or hit.id not in neighbours_wanted([hit], budget):
            result.append(hit)
            continue
        before: list[tuple[str, str]] = []
        after: list[tuple[str, str]] = []
        size = len(hit.content)
        open_sides = {-1, 1}
        for place in _ORDER:
            side = 1 if place > 0 else -1
            if abs(place) > span or side not in open_sides:
                continue
            turn = turns.get(place)
            if turn is None or turn[0] in shown or size + len(turn[1]) + 1 > budget:
                open_sides.discard(side)
                continue
            if side > 0:
                after.append(turn)
            else:
                before.insert(0, turn)
            shown.add(turn[0])
            size += len(turn[1]) + 1
        result.append(_shown_with(hit, before, after) if before or after else hit)
    return result


def _shown_with(
    hit: MemoryHit, before: list[tuple[str, str]], after: list[tuple[str, str]]
) -> MemoryHit:
    content = "\n".join([*(t for _, t in before), hit.content, *(t for _, t in after)])
    added = [m for m, _ in before] + [m for m, _ in after]
    return hit.model_copy(
        update={
            "content": content,
            "content_chars": len(content),
            "message_ids": [m for m, _ in before] + hit.message_ids + [m for m, _ in after],
            "context_ids": added,
        }
    )
