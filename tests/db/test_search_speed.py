"""The words part of the hybrid search at scale (sql/functions/search_*.sql): on a large table it
reads a bounded number of chunks, best first by the words they have, and ranks them as scoring
every chunk with a query word would."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb
from support.sources import SourceDB

from archivist import memory_search
from archivist.client import archive
from archivist.config import Settings
from archivist.pipeline import ArchiveRequest

TEXT_ONLY = "SELECT id, score FROM hybrid_jarvis_memory_chunks(NULL, %s, 10, %s, 0, 1)"
CHUNKS = 12_000  # over the 10,000 rows where word frequencies come from the column statistics


@pytest.fixture
def large(source: SourceDB) -> SourceDB:
    """12,000 chunks: every one says "status" (in more than 10,000: a stop word), one in 5
    "orchid" and one in 7 "lagoon" (too common to choose chunks by, 2,400 and 1,715 of them;
    343 have both), 3 "zanzibar"; a third of them in session "big". Lengths vary from 3 to 8
    distinct words, so BM25's length normalisation orders chunks with the same words."""
    source.conn.execute("DROP INDEX jarvis_memory_chunks_embedding_idx")
    source.conn.execute(
        """
        INSERT INTO jarvis_memory_chunks (id, session_id, source, content, embedding, slot,
                                          content_hash, embedding_model, archive_version)
        SELECT gen_random_uuid(), CASE WHEN g %% 3 = 0 THEN 'big' ELSE 's' || (g %% 50) END,
               'session_turn',
               concat_ws(' ', 'status', CASE WHEN g %% 5 = 0 THEN 'orchid' END,
                         CASE WHEN g %% 7 = 0 THEN 'lagoon' END,
                         CASE WHEN g %% 4000 = 7 THEN 'zanzibar' END, 'item' || g,
                         (SELECT string_agg('filler' || i, ' ') FROM generate_series(1, g %% 6) i)),
               array_fill(0.1::real, ARRAY[768])::vector, 'turns:' || g, md5(g::text),
               'hash-768', 1
        FROM generate_series(1, %s) g
        """,
        [CHUNKS],
    )
    source.conn.execute("VACUUM ANALYZE jarvis_memory_chunks")
    return source


@pytest.fixture
def conn(large: SourceDB) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(large.url) as c:
        yield c


def search(conn: psycopg.Connection[Any], text: str, filter_: dict[str, Any]) -> list[Any]:
    return [r[0] for r in conn.execute(TEXT_ONLY, [text, Jsonb(filter_)]).fetchall()]


def chunks_read(conn: psycopg.Connection[Any], text: str, filter_: dict[str, Any]) -> int:
    """Chunk rows the words search fetched through an index, in a transaction of its own."""
    conn.commit()
    search(conn, text, filter_)
    row = conn.execute(
        "SELECT idx_tup_fetch FROM pg_stat_xact_user_tables WHERE relname = 'jarvis_memory_chunks'"
    ).fetchone()
    conn.rollback()
    assert row is not None
    return int(row[0])


def every_match_scored(conn: psycopg.Connection[Any]) -> None:
    conn.execute("SET archivist.text_candidates = 0")


@pytest.mark.parametrize("filter_", [{}, {"session_ids": ["big"]}], ids=["all", "session"])
def test_the_words_part_reads_a_bounded_number_of_chunks(
    conn: psycopg.Connection[Any], filter_: dict[str, Any]
) -> None:
    # "orchid" and "lagoon" are in 4,114 chunks (1,371 of the session's): scoring them all is
    # what grows with the corpus. Capped, at most 500 are scored (and a few read and passed).
    capped = chunks_read(conn, "orchid lagoon status", filter_)
    every_match_scored(conn)
    uncapped = chunks_read(conn, "orchid lagoon status", filter_)
    assert capped <= 700
    assert uncapped >= (4114 if not filter_ else 1371)


@pytest.mark.parametrize("filter_", [{}, {"session_ids": ["big"]}], ids=["all", "session"])
def test_the_capped_ranking_is_the_one_that_scores_every_chunk(
    conn: psycopg.Connection[Any], filter_: dict[str, Any]
) -> None:
    # The chunks with the most weighty words are read first: those with both words (343, 115
    # in the session) fit in the cap, so the 10 best are the same chunks in the same order.
    # The last: five words none of which chooses (each in more than a tenth of the chunks),
    # one more than make the sets: the fifth's chunks come last.
    queries = [
        "orchid lagoon",
        "orchid lagoon status",
        "zanzibar",
        "orchid lagoon filler3 filler4 filler5",
    ]
    capped = [search(conn, q, filter_) for q in queries]
    alone = lengths(conn, "lagoon", filter_)
    rare = lengths(conn, "orchid zanzibar", filter_)
    every_match_scored(conn)
    assert capped == [search(conn, q, filter_) for q in queries]
    both = {
        r[0]
        for r in conn.execute(
            "SELECT id FROM jarvis_memory_chunks WHERE content ~ 'orchid' AND content ~ 'lagoon'"
        ).fetchall()
    }
    assert len(capped[0]) == 10 and set(capped[0]) <= both
    # One word in 1,715 chunks: the cap keeps 500 of them (in table order, not the shortest),
    # among which as short ones as the shortest of all rank first.
    assert alone == lengths(conn, "lagoon", filter_) == [3] * 10
    # A rare word's chunks come first (a set of their own), then the shortest read of the others.
    assert rare == lengths(conn, "orchid zanzibar", filter_)


def lengths(conn: psycopg.Connection[Any], text: str, filter_: dict[str, Any]) -> list[int]:
    """The number of words of each hit's text."""
    rows = conn.execute(
        f"SELECT c.content FROM ({TEXT_ONLY}) h JOIN jarvis_memory_chunks c USING (id)"
        " ORDER BY h.score DESC, h.id",
        [text, Jsonb(filter_)],
    ).fetchall()
    return [len(r[0].split()) for r in rows]


def test_a_rare_word_decides_on_a_large_table_whatever_the_filter(
    large: SourceDB, settings: Settings
) -> None:
    # Its frequency over the whole table is counted (it is not among the column's most common
    # elements); with the session filter, the words' weights are the table's too.
    for session_ids in ((), ("s7",)):
        hits = memory_search(
            "status orchid zanzibar", mode="text", session_ids=session_ids, settings=settings
        ).hits
        found = [h.content for h in hits if "zanzibar" in h.content]
        assert found and hits[0].content == found[0]


def test_a_chunks_columns_are_read_from_its_row(source: SourceDB, settings: Settings) -> None:
    """A chunk's row is over 2 KB with its vector alone: EXTENDED columns longer than a TOAST
    pointer (its full text, its hash, a session id as long as a UUID) went out to the TOAST
    table, and a search read each candidate's from there (sql/007_chunk_columns_in_row.sql)."""
    turn = "We compared the vendors' schedules, budgets and support terms in detail. " * 12
    source.add("5f0c2a8e-7d3b-4c1a-9e6f-2b8d4a7c1e90", [turn, turn.upper(), turn.lower(), "Ok."])
    archive(settings, ArchiveRequest(delay_ms=0))
    with psycopg.connect(source.url) as conn:
        toast, chunks = conn.execute(
            "SELECT reltoastrelid::regclass::text, (SELECT count(*) FROM jarvis_memory_chunks) "
            "FROM pg_class WHERE oid = 'jarvis_memory_chunks'::regclass"
        ).fetchone()
        out_of_line = conn.execute(f"SELECT count(DISTINCT chunk_id) FROM {toast}").fetchone()
    assert chunks > 0
    assert out_of_line == (0,)
