"""Standing rules ("always ...", "never ...") reach the searches about the matter they govern."""

from __future__ import annotations

from datetime import timedelta

import pytest
from support.sources import T0, SourceDB

from archivist import memory_search
from archivist.chunking import state_item_chunks
from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest
from archivist.search.results import MemoryHit
from archivist.state.items import StateItem, is_standing_rule

RULE = "Always include version numbers when I ask about software libraries."


@pytest.mark.parametrize(
    ("text", "standing"),
    [
        (RULE, True),
        ("Never round the figures in a report.", True),
        ("Please always answer in British English.", True),
        ("Don't ever share my address.", True),
        ("Never mind, keep the old plan.", False),
        ("The build always fails on Mondays.", False),
    ],
)
def test_a_standing_rule_starts_with_always_or_never(text: str, standing: bool) -> None:
    assert is_standing_rule(text) is standing


def test_only_a_constraint_that_is_a_rule_is_marked_standing() -> None:
    items = [
        StateItem(uid="r", type="constraint", text=RULE.rstrip("."), status="active", refs=["1"]),
        StateItem(uid="c", type="constraint", text="Budget under 500 euros", status="active"),
        StateItem(uid="d", type="decision", text="Always use Postgres", status="active"),
    ]
    chunks = state_item_chunks("s", items, "hash-768", 1)
    assert {c.metadata["uid"]: c.metadata["standing"] for c in chunks} == {
        "r": True,
        "c": False,
        "d": False,
    }


def _standing(hits: list[MemoryHit]) -> list[MemoryHit]:
    return [h for h in hits if h.source == "state_item" and h.metadata.get("standing")]


def test_the_rule_a_query_is_about_takes_the_last_place(
    source: SourceDB, settings: Settings
) -> None:
    """Twelve sessions answer the question in its own words; the rule shares one word with it
    and would rank below all of them, yet the bot asking must see it."""
    (rule_id, _) = source.add("rules", [RULE, "Noted: version numbers from now on."], start=T0)
    for n in range(12):
        source.add(
            f"billing{n}",
            [
                f"Which libraries does the billing service use in region {n}?",
                f"The billing service in region {n} uses the requests and pydantic libraries.",
            ],
            start=T0 + timedelta(days=1 + n),
        )
    archive(settings, ArchiveRequest(delay_ms=0))

    hits = memory_search("Which libraries does the billing service use?", settings=settings).hits
    assert len(hits) == 10
    assert _standing(hits) == [hits[-1]]
    assert hits[-1].content.startswith("Always include version numbers")
    assert hits[-1].metadata["message_ids"] == [str(rule_id)]
    assert hits[-1].relevance is not None and hits[-1].relevance >= 0.15

    # A query sharing no word with any rule, or too few places to spare one, gets none.
    assert not _standing(
        memory_search("What does the billing service cost?", settings=settings).hits
    )
    few = memory_search("Which libraries does the billing service use?", settings=settings, limit=3)
    assert not _standing(few.hits) and len(few.hits) == 3
