"""Every hit carries the messages it stands for: an extraction's summary piece the messages its
text was taken from; the bot's own summary none (it was written from the whole session)."""

from __future__ import annotations

from support.archiving import run
from support.sources import T0, SourceDB

from archivist import archive_search, memory_search
from archivist.config import Settings


def test_an_extraction_summary_hit_names_its_source_messages(
    source: SourceDB, settings: Settings
) -> None:
    ids = source.add(
        "olive",
        [
            "Hello there, quick question about the olive frontend.",  # not a request the
            "Sure, what about it?",  # summary takes: it opens with the first user message
            "Let's go with Vercel for the olive frontend deploy.",
            "Sounds good. I'll set up the preview builds today.",
            "How is the weather in Lisbon?",
            "Sunny, as usual.",
        ],
        roles=["user", "assistant", "user", "assistant", "user", "assistant"],
    )
    run(settings)
    hits = memory_search(
        "summary of the olive session", settings=settings, source="archive_extraction"
    ).hits
    head = next(h for h in hits if h.content.startswith("Summary: "))
    assert "Decided: Go with Vercel for the olive frontend deploy." in head.content
    assert "Next: Set up the preview builds today." in head.content
    opening, decided, planned = str(ids[0]), str(ids[2]), str(ids[3])
    assert head.message_ids[:3] == [opening, decided, planned]
    # and nothing the summary was not built from (the rest are the entities' messages)
    assert str(ids[4]) not in head.message_ids and str(ids[5]) not in head.message_ids


def test_the_bots_summary_names_no_message(source: SourceDB, settings: Settings) -> None:
    source.add("cache", ["We should use Memcached for sessions.", "Agreed, Memcached it is."])
    source.summarize("cache", "The team chose a store for the session cache.", T0)
    run(settings)
    query = "summary of the session cache store"
    bots = memory_search(query, settings=settings, source="session_summary").hits
    assert [h.message_ids for h in bots] == [[]]
    # the extraction's summary is then the bot's text: its piece names only the messages that
    # named the entities it lists
    head = next(
        h
        for h in memory_search(query, settings=settings, source="archive_extraction").hits
        if h.content.startswith("Summary: The team chose a store")
    )
    entities = archive_search(session_ids=["cache"], settings=settings).hits[0].entities
    assert head.message_ids == list(
        dict.fromkeys(r for e in entities if e.name in head.content for r in e.refs)
    )
