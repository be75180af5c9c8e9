"""A current update the archive holds goes above an older hit that gives its subject another
value (archivist.search.current)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from archivist.search.current import current_first
from archivist.search.results import MemoryHit
from archivist.snippets import query_terms

DAY = datetime(2026, 3, 1, tzinfo=UTC)
QUERY = query_terms("What deadline should I aim for to submit the draft to the writing group?")


def hit(hit_id: str, text: str, days: int, **metadata: Any) -> MemoryHit:
    at = (DAY + timedelta(days=days)).isoformat()
    return MemoryHit(
        id=hit_id,
        session_id="s",
        source="session_turn",
        content=text,
        message_ids=[f"m-{hit_id}"],
        created_at=DAY,
        score=1.0,
        relevance=0.5,
        metadata={"first_at": at, "last_at": at, **metadata},
    )


def update(
    value: str, days: int, subject: str = "deadline", refs: tuple[str, ...] = ("m9",)
) -> dict[str, Any]:
    at = (DAY + timedelta(days=days)).isoformat()
    return {
        "id": "item",
        "session_id": "s2",
        "source": "state_item",
        "content": f"{subject.capitalize()}: {value}",
        "metadata": {"first_at": at, "last_at": at, "message_ids": list(refs)},
        "similarity": None,
        "created_at": DAY,
        "score": None,
        "relevance": None,
        "subject": subject,
        "value": value,
    }


OLD = "I'm worried about my April 20 deadline to submit the draft to the writing group."
OTHER = "We talked about the weather and lunch plans."


def test_the_update_goes_above_the_older_hit_it_contradicts_and_the_last_makes_room() -> None:
    hits = [hit("other", OTHER, 1), hit("old", OLD, 2), hit("tail", "More lunch talk.", 3)]
    ordered = current_first(hits, [update("April 25", 9)], QUERY)
    assert [h.id for h in ordered] == ["other", "item", "old"]
    assert ordered[2].superseded_by == "item"
    assert ordered[1].message_ids == ["m9"] and ordered[1].relevance == 0.5


def test_a_hit_below_that_shows_the_update_moves_above_the_older_one() -> None:
    shows = hit("shows", "There is a new April 25 deadline now.", 9)
    hits = [hit("old", OLD, 2), hit("other", OTHER, 1), shows]
    ordered = current_first(hits, [update("April 25", 9, refs=("m-shows",))], QUERY)
    assert [h.id for h in ordered] == ["shows", "old", "other"]
    assert ordered[1].superseded_by == "shows"


def test_a_quantity_is_asked_for_without_its_name() -> None:
    terms = query_terms("How many mentees have I highlighted in my portfolio?")
    said = hit("old", "I highlighted my 5 mentees in my portfolio last week.", 2)
    hits = [said, hit("other", OTHER, 1)]
    ordered = current_first(hits, [update("7", 9, subject="number of mentees")], terms)
    assert [h.id for h in ordered] == ["item", "old"]


def test_a_standing_rule_in_the_last_place_keeps_it() -> None:
    rule = hit("rule", "Always give exact dates.", 0, standing=True)
    hits = [hit("old", OLD, 2), hit("tail", "More lunch talk.", 3), rule]
    ordered = current_first(hits, [update("April 25", 9)], QUERY)
    assert [h.id for h in ordered] == ["item", "old", "rule"]


def test_nothing_moves_without_a_contradiction() -> None:
    cases = [
        [update("April 20", 9)],  # the hit says the same value
        [update("next Friday", 9)],  # a value without numbers is not compared
        [update("April 25", 1)],  # the item is older than the hit
        [update("April 25", 9, refs=("m-old",))],  # the update's message is shown already
        [update("April 25", 9, subject="budget")],  # the hit does not name the subject
    ]
    hits = [hit("old", OLD, 2), hit("other", OTHER, 1)]
    for rows in cases:
        ordered = current_first(hits, rows, QUERY)
        assert ordered == hits, rows


def test_a_sentence_that_names_the_subject_but_not_what_the_query_asks_is_no_contradiction() -> (
    None
):
    aside = "The grant deadline was March 3, unrelated to anything here."
    ordered = current_first([hit("aside", aside, 2)], [update("April 25", 9)], QUERY)
    assert [h.id for h in ordered] == ["aside"] and ordered[0].superseded_by is None
