"""BM25 scores a turn window by its best turn too (sql/functions/search_words.sql): a short
statement among long replies is not diluted by them."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.types.json import Jsonb
from support.sources import SourceDB

from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest
from archivist.store.migrate import load_migrations

TEXT_ONLY = (
    "SELECT c.session_id FROM hybrid_jarvis_memory_chunks(NULL, %s, 10, %s, 0, 1) h "
    "JOIN jarvis_memory_chunks c USING (id) WHERE c.source = 'session_turn' "
    "ORDER BY h.score DESC, h.id"
)
REPLY = (
    "There are many things to weigh here: the team's capacity, the budget for contractors, "
    "the vendors' own schedules, the marketing plan, the store listings, the translations, "
    "the support rota and the documentation. {n} Each of them has owners and reviews, "
    "and every review takes a few days, so plan for slack between the steps and keep the "
    "stakeholders informed with a short weekly note about progress and risks."
)


def test_a_short_statement_among_long_replies_ranks_by_its_own_turn(
    source: SourceDB, settings: Settings
) -> None:
    # "diluted": the launch date said once in a short turn, between two long replies.
    # "spread": the words said once each in a window a third as long, in different turns.
    long_reply = " ".join(REPLY.format(n=f"Point {i}.") for i in range(3))
    source.add("diluted", [long_reply, "The launch date moved to June 17.", long_reply, "Noted."])
    source.add(
        "spread",
        [
            "The launch went through many rounds of reviews with the team this spring.",
            REPLY.format(n=""),
            "About the date of the offsite: any weekday works for everybody.",
            "Good, the offsite is planned then.",
        ],
    )
    for n in range(6):  # other windows, so that the query's words are rare
        source.add(f"other{n}", [REPLY.format(n=f"Item {n}."), "Thanks.", "Sure.", "Bye."])
    archive(settings, ArchiveRequest(delay_ms=0))
    with psycopg.connect(source.url) as conn:
        by_turn = sessions(conn, "launch date")
        conn.execute("SET archivist.turn_share = 0")  # BM25 over whole windows only
        by_window = sessions(conn, "launch date")
    assert by_turn[0] == "diluted"
    assert by_window[0] == "spread"  # what the turns change


def sessions(conn: psycopg.Connection[Any], query: str) -> list[str]:
    return [r[0] for r in conn.execute(TEXT_ONLY, [query, Jsonb({})]).fetchall()]


def test_a_window_knows_where_its_turns_begin_among_its_words(
    source: SourceDB, settings: Settings
) -> None:
    # Stop words take positions without holding any ("the", "of", "a"), and a turn may hold
    # nothing but stop words besides its speaker: each turn's own word falls in its own turn.
    source.add("s", ["User words apple here.", "The of a", "Assistant banana, the end.", "cherry"])
    archive(settings, ArchiveRequest(delay_ms=0))
    with psycopg.connect(source.url) as conn:
        metadata, turns = conn.execute(
            "SELECT metadata, (SELECT jsonb_object_agg(u.lexeme, "
            "    width_bucket(u.positions[1], ARRAY(SELECT jsonb_array_elements_text("
            "        metadata -> 'turn_positions')::integer))) "
            "  FROM unnest(fts) u WHERE u.lexeme IN ('appl', 'banana', 'cherri')) "
            "FROM jarvis_memory_chunks WHERE source = 'session_turn'"
        ).fetchone()
    assert turns == {"appl": 0, "banana": 2, "cherri": 3}
    # The words before each turn, speakers' labels included: "user user word appl" ("here" is
    # a stop word), then "assist" (the rest of turn 2 is stop words), then "user assist banana
    # end".
    assert metadata["turn_words"] == [4, 5, 9]


def test_the_migration_gives_older_windows_what_a_commit_stores(
    source: SourceDB, settings: Settings
) -> None:
    # sql/006 writes out archivist_turn_positions' body (migrations run before the functions
    # exist): on windows of 4, 3 and 1 turns, both give the same.
    source.add("four", ["Apples are red.", "The of a", "Bananas, the end.", "cherry " * 40])
    source.add("three", ["One two.", "Three four five.", "Six."])
    source.add("one", ["A single turn with many words " * 200])
    archive(settings, ArchiveRequest(delay_ms=0))
    (migration,) = [m for m in load_migrations() if m.name == "006_turn_positions"]
    read = "SELECT id, metadata FROM jarvis_memory_chunks WHERE source = 'session_turn' ORDER BY id"
    with psycopg.connect(source.url) as conn:
        committed = conn.execute(read).fetchall()
        conn.execute(
            "UPDATE jarvis_memory_chunks SET metadata = metadata - 'turn_positions' - 'turn_words'"
        )
        conn.execute(migration.sql)
        migrated = conn.execute(read).fetchall()
    assert migrated == committed
    assert sum("turn_positions" in m for _, m in committed) == 2
