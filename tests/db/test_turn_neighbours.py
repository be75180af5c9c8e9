"""A turn-window hit shows the turns around its window that fit its share of the text.

The windows sit at fixed places (4 turns each) and do not overlap, so the answer is often the
turn just across the window's edge; the hit shows it, and says so in `message_ids` and
`context_ids`. Never past `as_of`, never more than `search_hit_max_chars`.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from support.archiving import run
from support.sources import T0, SourceDB, run_cli

from archivist import memory_search
from archivist.config import Settings

# Window 0 holds turns 0-3, window 1 turns 4-7 (the matching one, starting with the question's
# words), window 2 turns 8-11. The answer ("the 14th") is turn 3, across window 1's edge.
TURNS = [
    "Morning! Did you sleep well?",
    "Like a log, thanks.",
    "When is your sister's wedding again?",
    "It's on the 14th, in Porto.",
    "The wedding venue sent the seating plan today.",
    "Nice, how many tables?",
    "Twelve tables of eight.",
    "That's a big party.",
    "Anyway, what's for dinner?",
    "Pasta, I think.",
    "Sounds good to me.",
    "See you at seven then.",
]
QUESTION = "wedding venue seating plan"


def _search(settings: Settings, **options: object) -> list[object]:
    return memory_search(
        QUESTION, settings=settings, source="session_turn", mode="text", limit=1, **options
    ).hits


@pytest.mark.both_transports
def test_a_hit_shows_the_turns_around_its_window(source: SourceDB, settings: Settings) -> None:
    ids = [str(i) for i in source.add("chat", TURNS)]
    run(settings)
    (hit,) = _search(settings)
    assert hit.message_ids == ids  # four turns before window 1, four after
    assert hit.context_ids == ids[:4] + ids[8:]
    lines = hit.content.split("\n")
    assert lines[3] == "Assistant: It's on the 14th, in Porto."
    assert (
        lines[4].startswith("User: The wedding venue")
        and lines[-1] == "Assistant: See you at seven then."
    )
    assert hit.content_chars == len(hit.content) <= settings.search_hit_max_chars


def test_neighbours_stop_at_the_hits_share_of_the_text(
    source: SourceDB, settings: Settings
) -> None:
    ids = [str(i) for i in source.add("chat", TURNS)]
    run(settings)
    none = settings.model_copy(update={"search_context_turns": 0})
    (bare,) = _search(none)
    assert bare.message_ids == ids[4:8] and bare.context_ids == []
    after = "User: Anyway, what's for dinner?"
    # Room for the turn after the window, not for the one before it (38 characters).
    tight = settings.model_copy(update={"search_hit_max_chars": len(bare.content) + 1 + len(after)})
    (hit,) = _search(tight)
    assert hit.content == bare.content + "\n" + after and hit.context_ids == [ids[8]]


def test_no_neighbour_said_after_as_of(source: SourceDB, settings: Settings) -> None:
    ids = [str(i) for i in source.add("chat", TURNS, start=T0, step=timedelta(days=1))]
    run(settings)
    (hit,) = _search(settings, as_of=T0 + timedelta(days=9, hours=12))
    # Window 2 (turns 8-11) ends after as_of: it lends nothing; window 0 does.
    assert hit.message_ids == ids[:8] and hit.context_ids == ids[:4]


def test_a_turn_another_hit_shows_is_not_shown_twice(source: SourceDB, settings: Settings) -> None:
    source.add("chat", TURNS)
    run(settings)
    hits = memory_search(
        "wedding dinner", settings=settings, source="session_turn", mode="text"
    ).hits
    shown = [m for h in hits for m in h.message_ids]
    assert len(shown) == len(set(shown))


def test_the_cli_prints_the_neighbours(source: SourceDB, settings: Settings) -> None:
    ids = [str(i) for i in source.add("chat", TURNS)]
    run(settings)
    result = run_cli(
        settings,
        "memory-search",
        QUESTION,
        "--source",
        "session_turn",
        "--mode",
        "text",
        "--limit",
        "1",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    (hit,) = json.loads(result.stdout)["hits"]
    assert hit["context_ids"] == ids[:4] + ids[8:]
    assert "in Porto" in hit["content"]
