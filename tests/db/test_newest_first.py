"""Among hits on the same subject the newer statement ranks first, and the older points to it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from support.sources import T0, SourceDB

from archivist import memory_search
from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest
from archivist.search.newest import newest_first
from archivist.search.results import MemoryHit
from archivist.snippets import query_terms

DAY = datetime(2026, 3, 1, tzinfo=UTC)


def hit(
    hit_id: str, text: str, days: int, source: str = "session_turn", last_days: int | None = None
) -> MemoryHit:
    at = (DAY + timedelta(days=days)).isoformat()
    last = (DAY + timedelta(days=days if last_days is None else last_days)).isoformat()
    return MemoryHit(
        id=hit_id,
        session_id="s",
        source=source,
        content=text,
        created_at=DAY,
        metadata={"first_at": at, "last_at": last},
    )


def test_the_newer_statement_of_a_subject_moves_above_the_older() -> None:
    terms = query_terms("What is the average response time of the dashboard API?")
    hits = [
        hit("old", "The dashboard API has an average response time of 400 ms.", 0),
        hit("other", "Lunch was at noon; the weather was fine.", 5),
        hit("new", "The dashboard API response time improved to 250 ms now.", 9),
    ]
    ordered = newest_first(hits, terms)
    assert [h.id for h in ordered] == ["new", "old", "other"]
    assert ordered[1].superseded_by == "new" and ordered[0].superseded_by is None


def test_hits_on_other_subjects_or_older_ones_keep_their_places() -> None:
    terms = query_terms("dashboard API response time")
    hits = [
        hit("a", "The dashboard API response time is 250 ms.", 9),  # newest already first
        hit("b", "The dashboard API response time was 400 ms.", 0),
        hit("c", "Response of the billing team: on time.", 12),  # shares too few words
        hit("d", "The dashboard colours are blue.", 20),  # one word is no subject
    ]
    ordered = newest_first(hits, terms)
    assert [h.id for h in ordered] == ["a", "b", "c", "d"]
    assert all(h.superseded_by is None for h in ordered)


def test_newer_hits_on_the_subject_without_another_value_keep_their_places() -> None:
    terms = query_terms("When did we book the Lisbon flight?")
    hits = [
        hit("booked", "We booked the Lisbon flight on March 3 for the 14th.", 0),
        hit("talk", "The Lisbon flight talk: aisle seats, no red-eye, Ana's bag.", 5),  # no value
        hit("again", "Booked the Lisbon flight on March 3 for the 14th, I said.", 8),  # same one
        hit("moved", "We moved the Lisbon flight booking to the 16th.", 9),  # another value
    ]
    ordered = newest_first(hits, terms)
    assert [h.id for h in ordered] == ["moved", "booked", "talk", "again"]
    assert [h.superseded_by for h in ordered] == [None, "moved", None, None]


def test_a_newer_number_of_another_kind_is_no_new_value() -> None:
    """A version, a number in code or a web address does not restate a response time."""
    terms = query_terms("What is the average response time of the dashboard API?")
    hits = [
        hit("time", "The dashboard API average response time is 400 ms.", 0),
        hit("version", "The dashboard API average response time page runs on React 18.2.0.", 5),
        hit("code", "Dashboard API response time average: `timeout_ms = 250`.", 6),
        hit("url", "Average response time of the dashboard API: see https://x.io/api/v2/5.", 7),
        hit("count", "The dashboard API average response time was measured 3 times.", 8),
    ]
    ordered = newest_first(hits, terms)
    assert [h.id for h in ordered] == ["time", "version", "code", "url", "count"]
    assert all(h.superseded_by is None for h in ordered)


def test_a_session_summary_is_as_old_as_the_session_it_quotes() -> None:
    """A summary piece spans its session: it quoted the opening 4,500 words, and the turn
    near the session's end that says 4,700 is newer, though the summary's last message is
    later still."""
    terms = query_terms("How many words does my final essay draft contain?")
    hits = [
        hit(
            "summary",
            'User asked: "my final essay draft has 4,500 words".',
            0,
            "archive_extraction",
            2,
        ),
        hit("turn", "My final essay draft reached 4,700 words on May 13.", 1),
    ]
    ordered = newest_first(hits, terms)
    assert [h.id for h in ordered] == ["turn", "summary"]
    assert [h.superseded_by for h in ordered] == [None, "turn"]


def test_memory_search_ranks_the_update_first(source: SourceDB, settings: Settings) -> None:
    source.add(
        "week1",
        ["Our checkout API answers in 900 ms on average.", "That is slow for a checkout."],
        start=T0,
    )
    source.add("chat", ["Any plans for the weekend?", "Hiking, probably."], start=T0)
    source.add(
        "week2",
        ["Good news: the checkout API average is down to 300 ms now.", "Great improvement!"],
        start=T0 + timedelta(days=7),
    )
    archive(settings, ArchiveRequest(delay_ms=0))
    hits = memory_search(
        "what is the checkout API average?", settings=settings, source="session_turn"
    ).hits
    sessions = [h.session_id for h in hits]
    assert sessions.index("week2") < sessions.index("week1")
    old = hits[sessions.index("week1")]
    assert old.superseded_by == hits[sessions.index("week2")].id


def test_the_current_update_ranks_above_the_turn_it_replaced(
    source: SourceDB, settings: Settings
) -> None:
    """The turn that said the old deadline matches the question best; the update was said in
    few words, in a later session, and the archive holds it as the current deadline
    (archivist.search.current)."""
    old = (
        "I'm worried about meeting my April 20 deadline for the draft submission to the "
        "writing group, can you help me prioritise my editing?"
    )
    source.add("plan", [old, "Sure: cut wordiness first, then tighten the dialogue."], start=T0)
    source.add(
        "later",
        ["Small change of plans: the deadline moved to April 25.", "Good, more room."],
        start=T0 + timedelta(days=7),
    )
    archive(settings, ArchiveRequest(delay_ms=0))
    query = "What deadline should I aim for to submit my draft to the writing group?"
    hits = memory_search(query, settings=settings).hits
    said_old = next(i for i, h in enumerate(hits) if "April 20" in h.content)
    said_new = next(i for i, h in enumerate(hits) if "April 25" in h.content)
    assert said_new < said_old, [h.content[:60] for h in hits]
    assert hits[said_old].superseded_by == hits[said_new].id
    assert hits[said_new].session_id == "later"
    # as it stood before the change there was nothing newer
    before = memory_search(query, settings=settings, until=T0 + timedelta(days=1)).hits
    assert all("April 25" not in h.content for h in before)
    assert all(h.superseded_by is None for h in before)
