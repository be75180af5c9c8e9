"""What is true now first: a current value the archive holds goes above an older hit that gives
its subject another value.

The archive reconciles decisions and constraints across sessions (the current state,
sql/functions/current_state.sql): "Deadline: April 25", an update of a stated value, is current
once the user moved the deadline from April 20. A question about the deadline matches the turn
where April 20 was said at least as well as the terse update, so words alone often rank the old
value first, or leave the update out. `archivist_current_values` (sql/functions/
search_hybrid.sql) returns the current updates whose subject the query names; here the first of
them that an older hit contradicts goes right above that hit, which points to it in
`superseded_by`; when a hit below shows the update's message already, that hit moves up
instead. A hit contradicts an update when it is older and a sentence of it is on what the
query asks (it names every word of the update's subject and at least two and 40 % of the
query's words, as in archivist.search.newest) and names numbers (amounts, dates, versions) but
not all that the update's value names. Without numbers nothing is judged: two wordings of one
choice would look like a change. At most one update is placed per search, and the results keep
their length: the last hit that is not a standing rule makes room.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from archivist.search.newest import LEAST_SHARE, LEAST_WORDS, hit_time
from archivist.search.results import MemoryHit, memory_hit
from archivist.search.values import numbers
from archivist.snippets import matched_terms, query_terms

# The words a subject names a quantity by ("Number of mentees: 7"): a question asks for it as
# "how many mentees", and the hit that said it ("my 5 mentees") need not name them either.
QUANTITY = frozenset({"number", "count", "total", "amount"})
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def current_first(
    hits: Sequence[MemoryHit], rows: Sequence[dict[str, Any]], terms: list[str]
) -> list[MemoryHit]:
    """`hits` with the first current update of `rows` (archivist_current_values) that one of
    them contradicts placed right above it; `terms` are the query's (query_terms)."""
    least = max(LEAST_WORDS, LEAST_SHARE * len(set(terms)))
    ordered = list(hits)
    for row in rows:
        item = memory_hit(row)
        values = numbers(str(row.get("value") or ""))
        subject = [w for w in query_terms(str(row.get("subject") or "")) if w not in QUANTITY]
        at = hit_time(item, "first_at")
        if not values or not subject or at is None:
            continue
        refs = set(item.message_ids)
        shown = next(
            (i for i, h in enumerate(ordered) if h.id == item.id or refs & set(h.message_ids)),
            None,
        )
        for place, hit in enumerate(ordered[:shown]):
            said = _said_of(hit.content, subject, terms, least)
            before = hit_time(hit)
            if said and not values <= said and before is not None and before < at:
                if shown is None:  # the update goes in; the last hit makes room
                    newer = item.model_copy(update={"score": hit.score, "relevance": hit.relevance})
                else:  # the hit that shows it moves up
                    newer = ordered.pop(shown)
                ordered[place] = hit.model_copy(update={"superseded_by": newer.id})
                ordered.insert(place, newer)
                return _trimmed(ordered, len(hits))
    return ordered


def _said_of(text: str, subject: list[str], terms: list[str], least: float) -> frozenset[str]:
    """The numbers named in the sentences of `text` that name every word of the subject and at
    least `least` of the query's `terms`."""
    return frozenset(
        n
        for sentence in _SENTENCE_END.split(text)
        if len(matched_terms(sentence, subject)) == len(subject)
        and len(matched_terms(sentence, terms)) >= least
        for n in numbers(sentence)
    )


def _trimmed(hits: list[MemoryHit], size: int) -> list[MemoryHit]:
    """The hits cut back to `size`, the last ones that are not standing rules going first."""
    while len(hits) > size:
        last = next(
            (i for i in range(len(hits) - 1, -1, -1) if not hits[i].metadata.get("standing")),
            len(hits) - 1,
        )
        del hits[last]
    return hits
