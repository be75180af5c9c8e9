"""A long turn window comes back as an excerpt: every turn shown, cut around what matched."""

from __future__ import annotations

from support.sources import SourceDB

from archivist import memory_search
from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest
from archivist.snippets import excerpt, query_terms

QUESTION = "Which port does the staging database listen on?"
LONG_ANSWER = (
    "Here is a long walk through the set-up. " * 40
    + "The staging database listens on port 6543 behind the pooler. "
    + "More notes on monitoring follow. " * 40
)


def test_a_short_window_comes_back_whole() -> None:
    text = "User: hi\nAssistant: hello"
    assert excerpt(text, [0, 9], query_terms("hello"), 1100) == text


def test_an_excerpt_shows_every_turn_and_the_part_that_matched() -> None:
    turns = ["User: " + QUESTION, "Assistant: " + LONG_ANSWER, "User: Thanks, noted."]
    text = "\n".join(turns)
    starts = [0, len(turns[0]) + 1, len(turns[0]) + len(turns[1]) + 2]
    cut = excerpt(text, starts, query_terms(QUESTION), 600)
    assert len(cut) <= 600 + 10
    lines = cut.split("\n")
    assert [line.split(":")[0] for line in lines] == ["User", "Assistant", "User"]
    assert lines[0] == turns[0] and lines[2] == turns[2]  # short turns stay whole
    assert "port 6543" in lines[1] and lines[1].startswith("Assistant: …")


def test_memory_search_returns_excerpts_of_long_windows(
    source: SourceDB, settings: Settings
) -> None:
    source.add("ops", [QUESTION, LONG_ANSWER, "Thanks, noted.", "You're welcome."])
    archive(settings, ArchiveRequest(delay_ms=0))
    budget = settings.search_hit_max_chars
    hits = memory_search(QUESTION, settings=settings, source="session_turn").hits
    (window,) = [h for h in hits if len(h.message_ids) == 4]
    assert window.content_chars > 2 * budget and len(window.content) <= budget + 10
    assert "6543" in window.content and window.content.count("\n") == 3
    whole = memory_search(
        QUESTION,
        settings=settings.model_copy(update={"search_hit_max_chars": 100_000}),
        source="session_turn",
    ).hits
    assert [h.content_chars for h in whole] == [len(h.content) for h in whole]
