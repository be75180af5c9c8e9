"""A user's message that no choice rule reads is still a decision when it states an
arrangement (archivist/extract/rules/plans.py), and nothing when it is small talk, a hedge, an
estimate or a question left open."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from archivist.extract.rules.candidates import rules_candidates
from archivist.extract.rules.plans import arrangement
from archivist.models import Message

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _items(text: str) -> list[tuple[str, str]]:
    said = [Message(id="m1", session_id="s", role="user", content=text, created_at=T0)]
    return [
        (c.type, c.text) for c in rules_candidates(said) if c.type in ("decision", "constraint")
    ]


@pytest.mark.parametrize(
    ("message", "kind", "words"),
    [
        ("we're painting the shed green next", "decision", "green"),  # own plan, time to come
        ("Im on bins now", "decision", "bins"),  # own plan, a change
        ("my cousin's baking the bread.", "decision", "bread"),  # someone takes it on
        ("Renata has agreed to take over the newsletter.", "decision", "Renata"),
        ("Retro notes owner: Felix", "decision", "Felix"),  # a labelled value
        ("choir practice every other tuesday 6pm", "decision", "tuesday"),  # verbless spec
        ("quiet hours after 10pm weeknights", "constraint", "10pm"),  # a verbless limit
        ("min lot size 40 units", "constraint", "40"),
    ],
)
def test_an_arrangement_no_choice_rule_reads_is_an_item(
    message: str, kind: str, words: str
) -> None:
    items = _items(message)
    assert [t for t, _ in items] == [kind], items
    assert words.lower() in items[0][1].lower()


@pytest.mark.parametrize(
    "message",
    [
        "I'm doing good, thanks!",  # small talk
        "I'm running a few errands.",
        "we're thinking about painting the shed green",  # a hedge
        "Haven't decided on the caterer, TBD.",  # left open
        "Ben keeps saying we should get a dog, not happening",  # declined
        "probably like 20 minutes on foot",  # an estimate
        "Imagine sleeping for 14 hours",
        "Im glad theyre only 3 dollars",  # a feeling, contracted without apostrophes
        "this rain is making everything soggy",  # a thing, not a person, doing something
        "I think it was: Ana, Raj and Lee",  # a colon inside a thought
        "Here's the PR that went out: https://github.com/acme/api/pull/12",  # a clause, no label
        "the kids were making noise all night",  # no one's plan
        "Are we meeting every other tuesday?",  # asked
    ],
)
def test_small_talk_hedges_and_open_questions_are_no_arrangement(message: str) -> None:
    assert not arrangement(message)
    assert _items(message) == []


def test_a_message_a_rule_read_gets_no_arrangement_beside_it() -> None:
    """Only a message no rule found anything in is read for arrangements: a sentence beside
    a choice is its context ("Let's use Postgres. we're also baking bread" makes one item)."""
    items = _items("Let's use Postgres for the orders service. im on the schema next")
    assert [t for t, _ in items] == ["decision"]
    assert "Postgres" in items[0][1]


def test_a_labelled_arrangement_has_its_label_as_subject() -> None:
    """ "SLA: nightly reports ready by 7am ET" is about the SLA: a later "SLA moved to 8am"
    names the same subject and replaces it."""
    text = "SLA: nightly reports ready by 7am ET"
    said = [Message(id="m1", session_id="s", role="user", content=text, created_at=T0)]
    (item,) = [c for c in rules_candidates(said) if c.type in ("decision", "constraint")]
    assert (item.type, item.subject, item.value) == (
        "constraint",
        "SLA",
        "nightly reports ready by 7am ET",
    )
